"""Scoring the relation extractor on PPR (plants, phenotypes and their Increase/Decrease relations).

End to end: each abstract (its sentences joined by one space) goes through the MeSH linker and
the extractor exactly as a sync's text would, with its own sentence splitting, plant and
phenotype recognition; the gold entity annotations are not used.

Matching, per document: a predicted (plant span, phenotype span, Increase|Decrease) matches a gold
relation when the plant spans overlap, the phenotype spans overlap and the class is the same; each
gold relation is matched at most once and each prediction at most once (greedy, text order).
Gold `Association` relations (about 1% of them) are counted as gold that the extractor never
states: they count against recall under "overall" and are listed under their own class. Scores
are micro-averaged over the file; per class, a prediction counts under its class and a gold
relation under its own.

`mode` is `trained` (the pair model fitted on PPR's training split) or `untrained` (the cue rules
of `graph/relation_cues.py`, what an install without that split runs).

The pairs baseline states every recognised plant x phenotype pair of a sentence, Decrease for a
negative or neutral phenotype and Increase for a positive one: what the cue model adds over it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.eval.metrics import Counts
from bio_mcp.eval.ppr import PprDocument, read_ppr
from bio_mcp.graph.indexer import load_catalog
from bio_mcp.graph.linking import EntityLinker, load_linker
from bio_mcp.graph.relation_cues import CUE_EXTRACTOR
from bio_mcp.graph.relations import (
    DECREASE,
    INCREASE,
    NEGATIVE,
    PLANT_KIND,
    POSITIVE,
    Finding,
    RelationExtractor,
    load_relation_extractor,
    ppr_train_path_of,
)
from bio_mcp.graph.sentences import sentence_spans
from bio_mcp.mesh_files import mesh_path_of

CLASSES = (INCREASE, DECREASE, "Association")


@dataclass(slots=True)
class Confusion:
    """Predictions whose plant and phenotype spans overlap a gold relation's, by (gold class,
    predicted class): Increase read as Decrease and the reverse; `harm_as_treatment`, the gold
    Increase of a negative phenotype (a harm) stated as its Decrease (a TREATS), of `harms` such gold."""

    pairs: Counter[tuple[str, str]] = field(default_factory=Counter)
    harms: int = 0
    harm_as_treatment: int = 0

    def add(self, gold: Sequence[tuple[int, int, int, int, str, str]],
            predicted: Sequence[tuple[int, int, int, int, str]]) -> None:
        for gs, ge, hs, he, kind, phenotype in gold:
            labels = {label for ps, pe, qs, qe, label in predicted if gs < pe and ps < ge and hs < qe and qs < he}
            for label in labels:
                self.pairs[(kind, label)] += 1
            if kind == INCREASE and phenotype == NEGATIVE:
                self.harms += 1
                self.harm_as_treatment += DECREASE in labels

    def report(self) -> dict[str, object]:
        return {"gold_to_predicted": {f"{gold}->{label}": n for (gold, label), n in sorted(self.pairs.items())},
                "increase_as_decrease": self.pairs[(INCREASE, DECREASE)],
                "decrease_as_increase": self.pairs[(DECREASE, INCREASE)],
                "gold_harms": self.harms, "harm_as_treatment": self.harm_as_treatment}


@dataclass(slots=True)
class RelationScores:
    overall: Counts = field(default_factory=Counts)
    by_class: dict[str, Counts] = field(default_factory=lambda: {label: Counts() for label in CLASSES})

    def add(
        self, gold: Sequence[tuple[int, int, int, int, str]], predicted: Sequence[tuple[int, int, int, int, str]]
    ) -> None:
        unmatched = list(gold)
        for ps, pe, qs, qe, label in sorted(predicted):
            match = next((g for g in unmatched
                          if g[4] == label and g[0] < pe and ps < g[1] and g[2] < qe and qs < g[3]), None)
            if match is None:
                self.overall.fp += 1
                self.by_class[label].fp += 1
            else:
                unmatched.remove(match)
                self.overall.tp += 1
                self.by_class[label].tp += 1
        for g in unmatched:
            self.overall.fn += 1
            self.by_class[g[4]].fn += 1

    def report(self) -> dict[str, object]:
        return {"overall": self.overall.scores(), "by_class": {k: v.scores() for k, v in self.by_class.items()}}


def gold_relations(document: PprDocument) -> list[tuple[int, int, int, int, str]]:
    return [(offset + r.plant.start, offset + r.plant.end, offset + r.phenotype.start, offset + r.phenotype.end, r.kind)
            for sentence, offset in zip(document.sentences, document.offsets) for r in sentence.relations]


def gold_with_phenotypes(document: PprDocument) -> list[tuple[int, int, int, int, str, str]]:
    """`gold_relations` with each phenotype's type (Negative_phenotype, ...)."""
    return [(offset + r.plant.start, offset + r.plant.end, offset + r.phenotype.start, offset + r.phenotype.end, r.kind,
             r.phenotype.type)
            for sentence, offset in zip(document.sentences, document.offsets) for r in sentence.relations]


def _as_tuple(finding: Finding) -> tuple[int, int, int, int, str]:
    return (finding.plant.start, finding.plant.end, finding.phenotype.start, finding.phenotype.end, finding.label)


def pairs_baseline(extractor: RelationExtractor, text: str, mentions: Sequence) -> list[tuple[int, int, int, int, str]]:
    spans = extractor.spans(text, mentions)
    found = []
    for start, end in sentence_spans(text):
        inside = [span for span in spans if start <= span.start and span.end <= end]
        for plant in (s for s in inside if s.kind == PLANT_KIND):
            for phenotype in (s for s in inside if s.kind != PLANT_KIND):
                label = INCREASE if phenotype.kind == POSITIVE else DECREASE
                found.append((plant.start, plant.end, phenotype.start, phenotype.end, label))
    return found


def evaluate(documents: Sequence[PprDocument], linker: EntityLinker, extractor: RelationExtractor) -> dict[str, object]:
    """P/R/F1 of the extractor and of the pairs baseline on `documents` (see the module docstring)."""
    model, baseline, confusion = RelationScores(), RelationScores(), Confusion()
    for document in documents:
        text = document.text
        mentions = linker.link(text)
        gold = gold_relations(document)
        predicted = [_as_tuple(finding) for finding in extractor.findings(text, mentions)]
        model.add(gold, predicted)
        confusion.add(gold_with_phenotypes(document), predicted)
        baseline.add(gold, pairs_baseline(extractor, text, mentions))
    return {"documents": len(documents), "gold_relations": sum(len(gold_relations(d)) for d in documents),
            "extractor": model.report(), "confusion": confusion.report(), "pairs_baseline": baseline.report()}


def evaluate_file(data: Path, settings: Settings, *, untrained: bool = False) -> dict[str, object]:
    """Score on a PPR file with the linker and extractor a sync would use (`untrained`: the cue
    rules even where PPR's training split is there); `mode` says which one ran."""
    if not data.is_file():
        raise BioMcpError(ErrorCode.VALIDATION, f"no such file: {data}", {"field": "data"})
    mesh_path = mesh_path_of(settings)
    if mesh_path is None:
        raise BioMcpError(ErrorCode.INVARIANT_FAILURE, "MeSH descriptors not found: set BIO_MCP_MESH_PATH",
                          {"setting": "BIO_MCP_MESH_PATH"})
    linker = load_linker(settings)
    vocabulary = load_catalog(mesh_path, settings.caches).vocabulary
    extractor = load_relation_extractor(settings, linker, vocabulary, untrained=untrained)
    mode = "untrained" if extractor.name == CUE_EXTRACTOR else "trained"
    training = ppr_train_path_of(settings) if mode == "trained" else None
    return {"data": str(data), "mode": mode, "extractor_name": extractor.name,
            "training": str(training) if training else None, **evaluate(read_ppr(data), linker, extractor)}
