"""PubMedQA against tool.rag_answer: the corpus it is measured on, and the measures.

The corpus: PubMedQA's expert-labelled abstracts (PQA-L, `pqal_dev.json`) among distractors (the
SciFact corpus), committed through the sync's own path (`commit_documents`, with the MeSH-linked
knowledge graph) and embedded by the configured embedder. A PubMedQA item has no title (its title
became the QUESTION), so its document is the abstract alone: the CONTEXTS under their LABELS and
the conclusion (LONG_ANSWER) as CONCLUSIONS, as PubMed shows it. SciFact documents get synthetic
ids above any real PMID (10^9 + line number).

"Answerable": the question asked with its abstract in the index. "Unanswerable": the same question
with its abstract's chunks deleted from the index (`CorpusIndex.apply`), put back afterwards.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.records import CorpusDocument, chunk_records
from bio_mcp.features.corpus.sync import commit_documents
from bio_mcp.features.progress import Progress
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.search.chunking import AbstractSection
from bio_mcp.store import DocumentRecord, QualityScores

SCIFACT_ID_BASE = 1_000_000_000
COMMIT_BATCH = 250


@dataclass(frozen=True)
class PubMedQaItem:
    pmid: str
    question: str
    contexts: list[AbstractSection]  # the abstract without its conclusion
    long_answer: str  # the abstract's conclusion
    decision: str

    @property
    def sections(self) -> list[AbstractSection]:
        """The whole abstract, its conclusion last."""
        return [*self.contexts, AbstractSection("CONCLUSIONS", self.long_answer)] if self.long_answer else self.contexts


def load_pubmedqa(path: Path) -> list[PubMedQaItem]:
    """The items in file order: the one reader of PubMedQA's json."""
    raw: dict[str, dict[str, Any]] = json.loads(Path(path).read_text(encoding="utf-8"))
    return [
        PubMedQaItem(
            pmid, item["QUESTION"],
            [AbstractSection(label, text) for label, text in zip(item["LABELS"], item["CONTEXTS"], strict=True)],
            item.get("LONG_ANSWER") or "", item["final_decision"],
        )
        for pmid, item in raw.items()
    ]


def _document(pmid: str, title: str | None, abstract: str | list[AbstractSection]) -> CorpusDocument | None:
    chunks = chunk_records(pmid, title, abstract)
    if not chunks:
        return None
    text = abstract if isinstance(abstract, str) else "\n".join(f"{s.label}: {s.text}" for s in abstract)
    record = DocumentRecord(pmid=pmid, title=title, abstract=text, quality=QualityScores(total=0))
    return CorpusDocument(record=record, chunks=chunks)


def pubmedqa_documents(items: list[PubMedQaItem]) -> list[CorpusDocument]:
    return [doc for item in items if (doc := _document(item.pmid, None, item.sections)) is not None]


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def scifact_documents(corpus_path: Path, limit: int | None = None) -> list[CorpusDocument]:
    documents = []
    for number, item in enumerate(_jsonl(Path(corpus_path)), start=1):
        if limit is not None and len(documents) >= limit:
            break
        doc = _document(str(SCIFACT_ID_BASE + number), str(item.get("title") or "") or None, str(item.get("text") or ""))
        if doc is not None:
            documents.append(doc)
    return documents


def fill_corpus(
    index: CorpusIndex,
    documents: list[CorpusDocument],
    graph: GraphIndexer,
    batch_size: int,
    progress: Progress | None = None,
) -> None:
    """Link, commit (documents, chunks, graph) and embed `documents`, as a sync would."""
    for offset in range(0, len(documents), COMMIT_BATCH):
        batch = [replace(doc, mentions=graph.link(doc.chunks)) for doc in documents[offset : offset + COMMIT_BATCH]]
        commit_documents(index, batch, graph)
        if progress is not None:
            progress("documents", min(offset + COMMIT_BATCH, len(documents)), len(documents))
    total = index.pending_embeddings()
    done = 0
    while taken := index.embed_pending(batch_size):
        done += taken
        if progress is not None:
            progress("chunks", done, max(done, total))


def chunk_uuids_of(index: CorpusIndex, pmid: str) -> list[str]:
    with index.store.read() as tx:
        return [chunk.uuid for chunk in tx.chunks.for_document(pmid)]


def auroc(positives: list[float], negatives: list[float]) -> float:
    """P(a random positive scores above a random negative), ties counting half."""
    if not positives or not negatives:
        return float("nan")
    wins = 0.0
    for p in positives:
        for n in negatives:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(positives) * len(negatives))


@dataclass(frozen=True)
class ReliabilityBin:
    low: float
    high: float
    count: int
    mean_conf: float
    observed: float


def reliability_table(scores: list[float], events: list[float], bins: int = 10) -> list[ReliabilityBin]:
    """Equal-width bins of [0, 1]: per bin, how many scores, their mean, and how often the event happened."""
    table = []
    for number in range(bins):
        low, high = number / bins, (number + 1) / bins
        inside = [(s, e) for s, e in zip(scores, events, strict=True)
                  if low <= s < high or (number == bins - 1 and s == 1.0)]
        if inside:
            table.append(ReliabilityBin(round(low, 2), round(high, 2), len(inside),
                                        round(sum(s for s, _ in inside) / len(inside), 4),
                                        round(sum(e for _, e in inside) / len(inside), 4)))
    return table


def expected_calibration_error(scores: list[float], events: list[float], bins: int = 10) -> float:
    """Sum over bins of (share of scores in the bin) x |mean score - event rate|."""
    return sum(row.count / len(scores) * abs(row.mean_conf - row.observed) for row in reliability_table(scores, events, bins))
