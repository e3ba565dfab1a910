"""What annotated abstracts say about chemicals and diseases as adverse effects, as features of a pair.

From BC5CDR-style PubTator documents (annotations and chemical-induces-disease lines), counted per
document: how many name an entity and in how many it is one end of a CID pair, and which pairs
are CID pairs somewhere. A disease that abstracts report as induced (seizures, hepatotoxicity) is
a likelier adverse effect than one they study as treated (cancers, hypertension); the adverse
effect model (`graph/adverse_effects.py`) weighs these beside the text's cues.

    priors = load_adverse_priors(training_path_of(settings), held_out=pmids_scored)
    priors.features("mesh:D002945", "mesh:D051437")   # cisplatin, renal insufficiency

An entity no document names has every prior feature 0, as with no priors at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bio_mcp.data_files import is_json, read_json
from bio_mcp.eval.pubtator import PubtatorDocument, read_pubtator
from bio_mcp.graph.ids import mesh_entity_id


@dataclass(frozen=True, slots=True)
class AdversePriors:
    """Per entity id (`mesh:` ids): documents naming it, documents where it is a CID end; the CID pairs."""

    chemical_documents: Counter[str] = field(default_factory=Counter)
    chemical_causes: Counter[str] = field(default_factory=Counter)
    disease_documents: Counter[str] = field(default_factory=Counter)
    disease_effects: Counter[str] = field(default_factory=Counter)
    pairs: frozenset[tuple[str, str]] = frozenset()

    def features(self, chemical_id: str, disease_id: str) -> dict[str, float]:
        """The share (smoothed) of the documents naming each end where it is a CID end, whether
        any document names it, and whether the pair is a CID pair somewhere."""
        chemical_n, disease_n = self.chemical_documents[chemical_id], self.disease_documents[disease_id]
        return {
            "prior_pair": float((chemical_id, disease_id) in self.pairs),
            "prior_chemical": (self.chemical_causes[chemical_id] + 0.5) / (chemical_n + 2) if chemical_n else 0.0,
            "prior_chemical_seen": float(chemical_n > 0),
            "prior_disease": (self.disease_effects[disease_id] + 0.5) / (disease_n + 2) if disease_n else 0.0,
            "prior_disease_seen": float(disease_n > 0),
        }


NO_PRIORS = AdversePriors()


def adverse_priors_of(documents: Iterable[PubtatorDocument]) -> AdversePriors:
    named: dict[str, Counter[str]] = {"Chemical": Counter(), "Disease": Counter()}
    causes: Counter[str] = Counter()
    effects: Counter[str] = Counter()
    pairs: set[tuple[str, str]] = set()
    for document in documents:
        for kind, counts in named.items():
            counts.update({mesh_entity_id(ui) for a in document.annotations if a.type == kind for ui in a.ids})
        cid = {(mesh_entity_id(first), mesh_entity_id(second))
               for kind, first, second in document.relations if kind == "CID"}
        causes.update({chemical for chemical, _ in cid})
        effects.update({disease for _, disease in cid})
        pairs |= cid
    return AdversePriors(named["Chemical"], causes, named["Disease"], effects, frozenset(pairs))


def priors_to_json(priors: AdversePriors) -> dict[str, object]:
    """Sorted, so the same documents give the same bytes (the counts are filled from sets)."""
    counts = {name: dict(sorted(getattr(priors, name).items()))
              for name in ("chemical_documents", "chemical_causes", "disease_documents", "disease_effects")}
    return {**counts, "pairs": sorted(list(pair) for pair in priors.pairs)}


def priors_from_json(data: dict) -> AdversePriors:
    return AdversePriors(Counter(data["chemical_documents"]), Counter(data["chemical_causes"]),
                         Counter(data["disease_documents"]), Counter(data["disease_effects"]),
                         frozenset((chemical, disease) for chemical, disease in data["pairs"]))


def load_adverse_priors(training_path: Path | None, held_out: frozenset[str] = frozenset()) -> AdversePriors:
    """The priors of a PubTator file's documents (the linker's training file), leaving out
    `held_out` PMIDs (a file being scored), or those the shipped BC5CDR priors hold (learnt without
    the development split: `held_out` cannot apply); no file gives no priors."""
    if training_path is None or not training_path.is_file():
        return NO_PRIORS
    if is_json(training_path):
        return priors_from_json(read_json(training_path)["adverse"])  # type: ignore[index]
    return adverse_priors_of(document for document in read_pubtator(training_path) if document.pmid not in held_out)
