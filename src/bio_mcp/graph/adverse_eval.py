"""Scoring adverse-effect extraction on BC5CDR: document-level chemical-induces-disease pairs.

The BioCreative V CDR measure: per document, the set of (chemical MeSH, disease MeSH) CID pairs the
gold lists against the set of CAUSES relations extracted (ids without namespace), counts summed over
documents (micro-average). Five readings of the same file:
- `end_to_end`: the project's linker finds the entities, `find_adverse_effects` the relations;
- `end_to_end_corpus_ids`: the same relations, a descriptor newer than the corpus (the linker reads
  MeSH 2024, BC5CDR was annotated with the MeSH of 2015) read as the id the corpus gives the span
  it links (`corpus_ids`): the concept is the same, only its id has changed;
- `gold_entities`: the same extractor over the gold mentions (what the relation step alone loses);
- `all_pairs_end_to_end` and `all_pairs_gold_entities`: every chemical with every disease of the
  document, the baseline;
and `harm_as_treatment`: the share of gold pairs the plant relation extractor a sync runs beside
this one (`graph/relations.py`) states as TREATS, end to end; `one_sentence`: the share of gold
pairs some sentence names both ends of (linked, and gold mentions), the most recall a stated
tier can reach, since a pair is stated only from a sentence naming both; `unlinked_ends`: the
gold pairs' ends (chemical, disease; counted once per document) the linker names nowhere in the
text, how many of the chemicals are supplementary concepts (C ids, not in the MeSH descriptors
the linker reads), and how many of those ends it names under a descriptor newer than the
corpus; `curve` and `curve_gold_entities`: precision and recall at thresholds around
`THRESHOLD`, end to end and with the gold mentions.
The relations scored are the stated tier: pairs one sentence names both of, scoring at least
`THRESHOLD` (tuned on the training split for precision, `bench/adverse_fit.py`).
The linker and the adverse-effect priors (`graph/adverse_priors.py`) are built without the training
documents that are also in the file scored (the shared BC5CDR training file holds the development
split too), as `bio-mcp eval linking` does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Protocol

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.eval.metrics import Counts
from bio_mcp.eval.pubtator import PubtatorDocument, read_pubtator
from bio_mcp.graph.adverse_effects import (
    THRESHOLD,
    Broader,
    find_adverse_effects,
    may_be_stated,
    pair_candidates,
    probabilities,
)
from bio_mcp.graph.adverse_priors import NO_PRIORS, AdversePriors, load_adverse_priors
from bio_mcp.graph.elements import CAUSES, TREATS, StatedRelation
from bio_mcp.graph.ids import mesh_entity_id
from bio_mcp.graph.linking import load_linker_from, training_path_of
from bio_mcp.graph.mentions import Mention
from bio_mcp.graph.relations import load_relation_extractor
from bio_mcp.graph.vocabulary import Vocabulary, load_vocabulary
from bio_mcp.mesh_files import mesh_path_of

Pair = tuple[str, str]


def gold_pairs(document: PubtatorDocument) -> set[Pair]:
    return {(first, second) for kind, first, second in document.relations if kind == "CID"}


def gold_mentions(document: PubtatorDocument) -> list[Mention]:
    """The gold annotations as mentions (one per id of a composite mention)."""
    return [
        Mention(a.start, a.end, a.text, mesh_entity_id(ui), "Chemical" if a.type == "Chemical" else "Disease",
                "gold", 1.0)
        for a in document.annotations if a.type in ("Chemical", "Disease") for ui in a.ids
    ]


def _bare(entity_id: str) -> str:
    return entity_id.split(":", 1)[1] if ":" in entity_id else entity_id


# The highest descriptor number BC5CDR's annotations use (training and development splits). The
# linker reads MeSH 2024: a descriptor numbered above this is newer than the corpus, often a drug
# that was a supplementary concept when it was annotated (quetiapine: C069541 there, D000069348
# now) or a concept split off since (Hyperthermia from Fever).
NEWEST_CORPUS_DESCRIPTOR = 66126


def _newer_than_corpus(entity_id: str) -> bool:
    ui = _bare(entity_id)
    return ui.startswith("D") and ui[1:].isdigit() and int(ui[1:]) > NEWEST_CORPUS_DESCRIPTOR


def corpus_ids(linked: Sequence[Mention], annotated: Sequence[Mention]) -> dict[str, str]:
    """Each linked descriptor newer than the corpus -> the id the corpus gives the span: that of a
    gold mention of the same type the linked mention overlaps (the same concept under the MeSH the
    corpus was annotated with)."""
    ids: dict[str, str] = {}
    for mention in linked:
        if _newer_than_corpus(mention.entity_id):
            for gold in annotated:
                if gold.entity_type == mention.entity_type and gold.start < mention.end and mention.start < gold.end:
                    ids[_bare(mention.entity_id)] = _bare(gold.entity_id)
    return ids


def extracted_pairs(text: str, mentions: Sequence[Mention], broader: Broader | None,
                    threshold: float = THRESHOLD, priors: AdversePriors = NO_PRIORS) -> set[Pair]:
    return {(_bare(r.src), _bare(r.dst)) for r in find_adverse_effects(
        text, mentions, broader=broader, threshold=threshold, priors=priors) if r.type == CAUSES}


def scored_pairs(text: str, mentions: Sequence[Mention], broader: Broader | None,
                 priors: AdversePriors = NO_PRIORS) -> tuple[dict[Pair, float], set[Pair]]:
    """The pairs the stated tier may state with their scores (those at or above a threshold are
    `extracted_pairs` at it), and every pair some sentence names both ends of."""
    candidates = pair_candidates(text, mentions, broader, priors)
    scores = {(_bare(c.chemical), _bare(c.disease)): p
              for c, p in zip(candidates, probabilities(candidates), strict=True) if may_be_stated(c)}
    return scores, {(_bare(c.chemical), _bare(c.disease)) for c in candidates if not c.features.get("cross")}


# The thresholds `evaluate` reports end-to-end precision and recall at (besides THRESHOLD's).
CURVE = (0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75)


def all_pairs(mentions: Sequence[Mention]) -> set[Pair]:
    chemicals = {_bare(m.entity_id) for m in mentions if m.entity_type == "Chemical"}
    diseases = {_bare(m.entity_id) for m in mentions if m.entity_type == "Disease"}
    return {(chemical, disease) for chemical in chemicals for disease in diseases}


def add_counts(counts: Counts, gold: set[Pair], predicted: set[Pair]) -> None:
    counts.tp += len(gold & predicted)
    counts.fp += len(predicted - gold)
    counts.fn += len(gold - predicted)


def broader_of(vocabulary: Vocabulary) -> Broader:
    return vocabulary.parents


class TextRelations(Protocol):
    def relations(self, text: str, mentions: Sequence[Mention]) -> list[StatedRelation]: ...


def evaluate(documents: Iterable[PubtatorDocument], link: Callable[[str], list[Mention]],
             broader: Broader | None, threshold: float = THRESHOLD,
             priors: AdversePriors = NO_PRIORS, treatments: TextRelations | None = None) -> dict[str, object]:
    """The four readings (module docstring); with `treatments` (the plant relation extractor a
    sync runs beside this one), how many gold pairs it states as TREATS: harms read as benefits."""
    readings = ("end_to_end", "end_to_end_corpus_ids", "gold_entities", "all_pairs_end_to_end",
                "all_pairs_gold_entities")
    counts = {name: Counts() for name in readings}
    thresholds = sorted({*CURVE, threshold})
    curve = {t: Counts() for t in thresholds}
    curve_gold = {t: Counts() for t in thresholds}
    one_sentence = {"end_to_end": 0, "end_to_end_corpus_ids": 0, "gold_entities": 0}
    unlinked = {"chemical": 0, "disease": 0, "supplementary_chemical": 0, "named_by_a_newer_descriptor": 0}
    scored = gold_total = as_treatment = 0
    for document in documents:
        gold = gold_pairs(document)
        linked = link(document.text)
        annotated = gold_mentions(document)
        scored += 1
        gold_total += len(gold)
        if treatments is not None:
            stated = {(_bare(r.src), _bare(r.dst)) for r in treatments.relations(document.text, linked) if r.type == TREATS}
            as_treatment += len(gold & stated)
        extracted = extracted_pairs(document.text, linked, broader, threshold, priors)
        add_counts(counts["end_to_end"], gold, extracted)
        renamed = corpus_ids(linked, annotated)

        def as_corpus(pairs: Iterable[Pair], renamed: dict[str, str] = renamed) -> set[Pair]:
            return {(renamed.get(chemical, chemical), renamed.get(disease, disease)) for chemical, disease in pairs}

        add_counts(counts["end_to_end_corpus_ids"], gold, as_corpus(extracted))
        add_counts(counts["gold_entities"], gold, extracted_pairs(document.text, annotated, broader, threshold, priors))
        linked_ids = {_bare(m.entity_id) for m in linked}
        ends = {chemical for chemical, _ in gold} | {disease for _, disease in gold}
        for chemical in {chemical for chemical, _ in gold} - linked_ids:
            unlinked["chemical"] += 1
            unlinked["supplementary_chemical"] += chemical.startswith("C")
        unlinked["disease"] += len({disease for _, disease in gold} - linked_ids)
        unlinked["named_by_a_newer_descriptor"] += len((set(renamed.values()) & ends) - linked_ids)
        scores, named = scored_pairs(document.text, linked, broader, priors)
        one_sentence["end_to_end"] += len(gold & named)
        one_sentence["end_to_end_corpus_ids"] += len(gold & as_corpus(named))
        gold_scores, gold_named = scored_pairs(document.text, annotated, broader, priors)
        one_sentence["gold_entities"] += len(gold & gold_named)
        for at in thresholds:
            add_counts(curve[at], gold, {pair for pair, score in scores.items() if score >= at})
            add_counts(curve_gold[at], gold, {pair for pair, score in gold_scores.items() if score >= at})
        add_counts(counts["all_pairs_end_to_end"], gold, all_pairs(linked))
        add_counts(counts["all_pairs_gold_entities"], gold, all_pairs(annotated))
    return {
        "documents": scored,
        "measure": "document-level chemical-induces-disease pairs (BioCreative V CDR), micro-averaged",
        **{name: count.scores() for name, count in counts.items()},
        "one_sentence": {reading: round(n / gold_total, 4) if gold_total else 0.0 for reading, n in one_sentence.items()},
        "unlinked_ends": unlinked,
        "curve": [{"threshold": at, **count.scores()} for at, count in curve.items()],
        "curve_gold_entities": [{"threshold": at, **count.scores()} for at, count in curve_gold.items()],
        "harm_as_treatment": {"gold_pairs": gold_total, "stated_as_treatment": as_treatment,
                              "share": round(as_treatment / gold_total, 4) if gold_total else 0.0,
                              "scored": treatments is not None},
    }


def evaluate_file(data: Path, settings: Settings) -> dict[str, object]:
    """`bio-mcp eval adverse`: extract CAUSES from every document of a BC5CDR PubTator file and score them."""
    documents = read_pubtator(data)
    if not documents:
        raise BioMcpError(ErrorCode.VALIDATION, f"no PubTator documents in {data}", {"path": str(data)})
    if not any(document.relations for document in documents):
        raise BioMcpError(ErrorCode.VALIDATION, f"no CID relation lines in {data}: nothing to score",
                          {"path": str(data)})
    mesh_path = mesh_path_of(settings)
    if mesh_path is None or not mesh_path.is_file():
        raise BioMcpError(ErrorCode.VALIDATION, "MeSH descriptors not found: set BIO_MCP_MESH_PATH",
                          {"setting": "BIO_MCP_MESH_PATH"})
    held_out = frozenset(document.pmid for document in documents)
    linker = load_linker_from(mesh_path, training_path_of(settings), settings.caches, held_out)
    vocabulary = load_vocabulary(mesh_path, settings.caches)
    priors = load_adverse_priors(training_path_of(settings), held_out)
    treatments = load_relation_extractor(settings, linker, vocabulary)
    report = evaluate(documents, linker.link, broader_of(vocabulary), priors=priors, treatments=treatments)
    report["linker"] = {"training": str(training_path_of(settings)), "held_out_documents": len(held_out)}
    report["priors"] = {"training": str(training_path_of(settings)), "held_out_documents": len(held_out),
                        "pairs": len(priors.pairs)}
    report["threshold"] = THRESHOLD
    report["tier"] = "stated: pairs one sentence names both of, scoring at least the threshold"
    return report
