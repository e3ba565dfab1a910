"""The evaluation data sets' documents as corpus documents, and the one way to put them in a scratch
corpus (a temporary BIO_MCP_HOME with its own store and indexes): the sync's own path, chunked by
`records.chunk_records`, committed by `sync.commit_documents` (with the knowledge graph when asked),
embedded by the index's writer.

Their documents carry no publication types, MeSH or dates, so every quality component is null and
the total 0. BEIR ids are not PMIDs, so a BEIR document gets a synthetic numeric id (its line number,
from 1), mapped back when scoring; SciFact documents as distractors among real PMIDs get ids above
any real PMID (`SCIFACT_ID_BASE` + line number): tool.rag_answer is measured on PubMedQA's abstracts
among them, a question "unanswerable" once its abstract's chunks are deleted from the index
(`chunk_uuids_of`, `CorpusIndex.apply`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from bio_mcp.eval.beir import read_jsonl
from bio_mcp.eval.ppr import PprDocument
from bio_mcp.eval.pubmedqa import PubMedQaItem
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.records import CorpusDocument, chunk_records
from bio_mcp.features.corpus.sync import commit_documents
from bio_mcp.features.progress import Progress
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.search.chunking import AbstractSection
from bio_mcp.store import DocumentRecord, QualityScores

COMMIT_BATCH = 500
SCIFACT_ID_BASE = 1_000_000_000


def corpus_document(
    pmid: str, title: str | None, abstract: str | list[AbstractSection] | None
) -> CorpusDocument | None:
    """The document chunked as a sync would; None when it has no text to chunk."""
    chunks = chunk_records(pmid, title, abstract)
    if not chunks:
        return None
    text = (
        abstract
        if abstract is None or isinstance(abstract, str)
        else "\n".join(f"{s.label}: {s.text}" for s in abstract)
    )
    record = DocumentRecord(pmid=pmid, title=title, abstract=text, quality=QualityScores(total=0))
    return CorpusDocument(record=record, chunks=chunks)


def beir_documents(corpus: list[dict[str, Any]]) -> tuple[list[CorpusDocument], dict[str, str]]:
    """The BEIR corpus items as documents, and each synthetic id's BEIR id."""
    documents: list[CorpusDocument] = []
    beir_ids: dict[str, str] = {}
    for number, item in enumerate(corpus, start=1):
        pmid = str(number)
        beir_ids[pmid] = str(item["_id"])
        title = str(item.get("title") or "") or None
        document = corpus_document(pmid, title, str(item.get("text") or "") or None)
        if document is not None:
            documents.append(document)
    return documents, beir_ids


def pubmedqa_documents(items: list[PubMedQaItem]) -> list[CorpusDocument]:
    """Each item's abstract, untitled (its title became the question), its conclusion last."""
    documents = []
    for item in items:
        abstract = [AbstractSection(section.label, section.text) for section in item.sections]
        if (doc := corpus_document(item.pmid, None, abstract)) is not None:
            documents.append(doc)
    return documents


def ppr_documents(documents: list[PprDocument]) -> list[CorpusDocument]:
    """Each PPR abstract under its PMID, its first sentence the title."""
    found = []
    for document in documents:
        sentences = [sentence.text for sentence in document.sentences]
        if (doc := corpus_document(document.pmid, sentences[0], " ".join(sentences[1:]))) is not None:
            found.append(doc)
    return found


def scifact_documents(corpus_path: Path, limit: int | None = None) -> list[CorpusDocument]:
    """The first `limit` documents of a BEIR `corpus.jsonl`, numbered from `SCIFACT_ID_BASE`."""
    documents = []
    for number, item in enumerate(read_jsonl(Path(corpus_path)), start=1):
        if limit is not None and len(documents) >= limit:
            break
        title = str(item.get("title") or "") or None
        doc = corpus_document(str(SCIFACT_ID_BASE + number), title, str(item.get("text") or ""))
        if doc is not None:
            documents.append(doc)
    return documents


def fill_scratch_corpus(
    index: CorpusIndex,
    documents: list[CorpusDocument],
    batch: int,
    *,
    embed: bool = True,
    progress: Progress | None = None,
    graph: GraphIndexer | None = None,
) -> None:
    """Commit `documents` (chunked and BM25-indexed; with `graph`, linked and written to the knowledge
    graph as a sync would), then embed their chunks `batch` at a time unless `embed` is off."""
    for offset in range(0, len(documents), COMMIT_BATCH):
        chunk_of_documents = documents[offset : offset + COMMIT_BATCH]
        if graph is not None:
            chunk_of_documents = [replace(d, mentions=graph.link(d.chunks)) for d in chunk_of_documents]
        commit_documents(index, chunk_of_documents, graph)
        if progress is not None:
            progress("documents", min(offset + COMMIT_BATCH, len(documents)), len(documents))
    if not embed:
        return
    total = index.pending_embeddings()
    done = 0
    while taken := index.embed_pending(batch):
        done += taken
        if progress is not None:
            progress("chunks", done, max(done, total))


def chunk_uuids_of(index: CorpusIndex, pmid: str) -> list[str]:
    with index.store.read() as tx:
        return [chunk.uuid for chunk in tx.chunks.for_document(pmid)]
