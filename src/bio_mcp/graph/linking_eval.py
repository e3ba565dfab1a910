"""Scoring a linker against PubTator gold (BC5CDR): mention-level and document-level concept F1.

Document-level concept F1 is the BioCreative V CDR measure: per document, the set of (type, MeSH id)
the gold names against the set the linker names, counts summed over documents (micro-average).
A composite gold id `D1|D2` contributes each id; `-1` contributes none. Mention level counts a
prediction right when its span, type and one of its ids equal a gold mention's. Only the types in
`SCORED_TYPES` are scored: BC5CDR annotates chemicals and diseases only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bio_mcp.config import Settings
from bio_mcp.data_files import is_json, read_json
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.eval.metrics import Counts
from bio_mcp.eval.pubtator import Annotation, PubtatorDocument, format_document, read_pubtator
from bio_mcp.graph.linking import EntityLinker, load_linker_from, training_path_of
from bio_mcp.mesh_files import mesh_path_of

SCORED_TYPES = ("Chemical", "Disease")


@dataclass(slots=True)
class Scores:
    concept: dict[str, Counts] = field(default_factory=lambda: {t: Counts() for t in SCORED_TYPES})
    mention: dict[str, Counts] = field(default_factory=lambda: {t: Counts() for t in SCORED_TYPES})

    def add(self, gold: list[Annotation], predicted: list[Annotation]) -> None:
        for kind in SCORED_TYPES:
            gold_concepts = {ui for a in gold if a.type == kind for ui in a.ids}
            predicted_concepts = {ui for a in predicted if a.type == kind for ui in a.ids}
            counts = self.concept[kind]
            counts.tp += len(gold_concepts & predicted_concepts)
            counts.fp += len(predicted_concepts - gold_concepts)
            counts.fn += len(gold_concepts - predicted_concepts)
            gold_spans = {(a.start, a.end, ui) for a in gold if a.type == kind for ui in (a.ids or ("-1",))}
            spans = {(a.start, a.end) for a in gold if a.type == kind}
            mention_counts = self.mention[kind]
            matched: set[tuple[int, int]] = set()
            for a in predicted:
                if a.type != kind:
                    continue
                if any((a.start, a.end, ui) in gold_spans for ui in a.ids):
                    mention_counts.tp += 1
                    matched.add((a.start, a.end))
                else:
                    mention_counts.fp += 1
            mention_counts.fn += len(spans - matched)

    def report(self, documents: int) -> dict[str, object]:
        concept = {kind: counts.scores() for kind, counts in self.concept.items()}
        total = Counts(*(sum(getattr(c, name) for c in self.concept.values()) for name in ("tp", "fp", "fn")))
        return {
            "documents": documents,
            "measure": "document-level concept F1 (BioCreative V CDR), micro-averaged",
            "concept": {**concept, "all": total.scores()},
            "mention": {kind: counts.scores() for kind, counts in self.mention.items()},
        }


def predicted_annotations(linker: EntityLinker, document: PubtatorDocument) -> list[Annotation]:
    """The linker's mentions of the document as PubTator annotations (MeSH uis without namespace)."""
    return [
        Annotation(m.start, m.end, m.text, m.entity_type, (m.entity_id.split(":", 1)[1],))
        for m in linker.link(document.text)
    ]


def evaluate(linker: EntityLinker, documents: Iterable[PubtatorDocument]) -> tuple[dict[str, object] | None,
                                                                                      list[PubtatorDocument]]:
    """Scores (None when no document carries gold mentions) and the documents with predicted mentions."""
    scores = Scores()
    predicted_documents: list[PubtatorDocument] = []
    scored = 0
    for document in documents:
        predicted = predicted_annotations(linker, document)
        predicted_documents.append(PubtatorDocument(document.pmid, document.title, document.abstract, predicted))
        if document.annotations:
            scored += 1
            scores.add(document.annotations, predicted)
    return (scores.report(scored) if scored else None), predicted_documents


def evaluate_file(data: Path, settings: Settings, output: Path | None = None) -> dict[str, object] | None:
    """`bio-mcp eval linking`: link every document of a PubTator file, score it when it carries gold.

    The linker is built without the training documents that are also in `data`, so a score is never
    earned on documents the linker learnt from (the shared BC5CDR training file holds the
    development split too); the shipped priors were learnt without that split, and the report
    counts the scored documents they did learn from.
    """
    documents = read_pubtator(data)
    if not documents:
        raise BioMcpError(ErrorCode.VALIDATION, f"no PubTator documents in {data}", {"path": str(data)})
    mesh_path = mesh_path_of(settings)
    if mesh_path is None or not mesh_path.is_file():
        raise BioMcpError(ErrorCode.VALIDATION, "MeSH descriptors not found: set BIO_MCP_MESH_PATH",
                          {"setting": "BIO_MCP_MESH_PATH"})
    held_out = frozenset(document.pmid for document in documents)
    linker = load_linker_from(mesh_path, training_path_of(settings), settings.caches, held_out)
    report, predicted = evaluate(linker, documents)
    if output is not None:
        output.write_text("".join(format_document(document) for document in predicted), encoding="utf-8")
    if report is not None:
        training = training_path_of(settings)
        report["linker"] = {"training": str(training), "held_out_documents": len(held_out)}
        if training is not None and is_json(training):
            # Shipped priors were learnt once, without BC5CDR's development split: held_out cannot
            # apply to them, so say how many scored documents they did learn from (0 on that split).
            learnt = set(read_json(training)["linker"]["pmids"])  # type: ignore[index]
            report["linker"]["learnt_from_scored_documents"] = len(held_out & learnt)
    return report
