"""`HybridIndex`: BM25 (tantivy) + exact cosine (NumPy) + fusion + quality, behind one facade.

It is the one search index of the product: the corpus keeps one in step with its SQL store
(`features.corpus.indexing`), and the SciFact and latency benches measure this same class. The
index is derived data: the SQL store owns chunks, and everything here can be rebuilt from it
(`rebuild`). Embedding happens outside: `upsert` takes chunks with or without a vector, and a
chunk without one is searchable by BM25 at once and by vector once `set_vectors` attaches it
(`pending_uuids()` lists the chunks still waiting). The index embeds only the query, with the
`Embeddings` it was opened with.

Search: each retriever returns its top chunks (`FusionConfig.candidate_depth`), filtered by year
and publication type inside the retriever; then both scores are completed for every candidate
(the cosine of BM25-only candidates, the BM25 of vector-only ones: nDCG@10 on SciFact train
0.7364 -> 0.7397 with the local model, 0.7330 -> 0.7408 with onnx), fused per document and
reranked by quality (see `fusion`). A candidate document's BM25 is that of the whole document,
from a third half (``documents/``) holding each document as the join of its chunks' texts and
derived from the chunk half alone: every write rederives the documents it touched, from the chunk
texts the BM25 half stores. A document of more than WHOLE_DOCUMENT_MAX_CHUNKS chunks (a long
ingested file) keeps its best chunk's BM25. On SciFact train this lifted the hybrid from 0.7416 to 0.7455 and BM25
alone from 0.687 to 0.703 (`bench/scifact_eval.py`), over scoring a document by its best chunk. One
hit per document, carried by its best chunk; `bm25` is the document's, `sim` its chunk's. `sim`
is None only for a chunk without a vector, `bm25` only for a document that contains no query term.
A search in `mode` "bm25" or "vector" runs that retriever alone (for evaluation against the hybrid).

Writes are visible to searches as soon as `upsert` / `delete` / `set_vectors` return. They are
durable after `flush()` (also run by `close()` and after `rebuild`). A small journal makes the two
halves crash-consistent: the UUIDs of every write are appended to ``journal.log`` before the
write and the journal is emptied by `flush()`; on open, UUIDs left in it are deleted from both
halves (`recovered_uuids` lists them) so the caller's reconciliation with the SQL store (compare
`uuids()` with the store's chunk UUIDs, upsert what is missing, delete what is extra) re-adds them.
The journal names the documents of each write too, whose whole-document entries are rederived
from the chunks left; a whole-document half that is missing or unreadable is rederived on open.

Opening with an `Embeddings` whose `model_id` differs from the saved vectors' drops the vectors
(never mixing two models), keeps every chunk searchable by BM25, and sets `replaced_model_id`;
the caller re-embeds `pending_uuids()`. A half saved in a format this version cannot read is
started empty (`discarded` says so): the caller rebuilds it from the store.

`lock` (re-entrant) serialises every read and write of the index; a caller that must change the
store and the index as one step holds it across both.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Self, TypeVar

import numpy as np

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.bm25 import BM25Doc, BM25Index
from bio_mcp.search.embeddings.base import Embeddings
from bio_mcp.search.fusion import DEFAULT_FUSION, Candidate, FusionConfig, fuse, merge_candidates, rerank
from bio_mcp.search.pg_vectors import PgVectorIndex
from bio_mcp.search.vectors import VectorHit, VectorIndex, VectorRow
from bio_mcp.store.document_keys import is_document_key, is_pubmed_key

_REBUILD_BATCH = 10_000
# Documents whose whole-document BM25 entry is rederived per step (one tantivy query each step).
_DERIVE_BATCH = 500
# Longer documents (an ingested report or book) are scored by their best chunk: BM25 over a whole
# book would bury the one passage a question is about under its length. Every SciFact abstract
# has at most 16 chunks; a PubMed abstract rarely more than 6.
WHOLE_DOCUMENT_MAX_CHUNKS = 16
# A journal line naming a document key rather than a chunk UUID.
_DOCUMENT_MARK = "doc\t"

log = logging.getLogger("bio_mcp.search.hybrid")

SearchMode = Literal["hybrid", "bm25", "vector"]
_Half = TypeVar("_Half", BM25Index, VectorIndex)


def complete_candidates(
    bm25: BM25Index,
    vectors: VectorIndex | PgVectorIndex,
    query: str,
    query_vector: np.ndarray | None,
    candidates: Sequence[Candidate],
) -> list[Candidate]:
    """Both scores for every candidate where they exist: the BM25 of the chunks only the vector
    search found, the cosine of the chunks only BM25 found (+0.003 to +0.008 nDCG@10 on SciFact
    train over fusing the two lists as they come). Costs one restricted BM25 query and a gather."""
    need_bm25 = [c.uuid for c in candidates if c.bm25 is None]
    bm25_scores = bm25.scores(query, need_bm25) if need_bm25 else {}
    need_sim = [c.uuid for c in candidates if c.sim is None]
    sims = vectors.similarities(query_vector, need_sim) if query_vector is not None and need_sim else {}
    return [
        Candidate(
            c.uuid,
            c.pmid,
            c.bm25 if c.bm25 is not None else bm25_scores.get(c.uuid),
            c.sim if c.sim is not None else sims.get(c.uuid),
        )
        for c in candidates
    ]


@dataclass(frozen=True, slots=True)
class IndexedChunk:
    uuid: str
    pmid: str
    text: str
    year: int | None = None
    pub_types: tuple[str, ...] = ()
    quality: int | None = None
    vector: Sequence[float] | np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class Hit:
    pmid: str
    uuid: str
    sim: float | None
    bm25: float | None
    quality: int | None
    score: float

    @property
    def doc_id(self) -> str:
        """`pmid:N` for a PubMed record; an ingested file's `file:` key as it is."""
        return f"pmid:{self.pmid}" if is_pubmed_key(self.pmid) else self.pmid

    def as_contract(self) -> dict[str, Any]:
        """One item of seed 000's `rag.search` results."""
        return {
            "doc_id": self.doc_id,
            "uuid": self.uuid,
            "sim": self.sim,
            "bm25": self.bm25,
            "quality": self.quality,
            "score": self.score,
        }


class HybridIndex:
    """Lives in `folder` (``bm25/``, ``documents/``, ``vectors/``, ``journal.log``), or in memory when None.

    `ann_threshold`: vectors from which the vector half searches an HNSW graph (None: the
    default of `search.vectors`). `shared_vectors`: the vector half is the store's pgvector table
    (`search.pg_vectors`), shared by every process, instead of a matrix in ``vectors/``; the BM25
    half then also says which chunks this index holds."""

    def __init__(
        self,
        embeddings: Embeddings,
        folder: Path | None = None,
        fusion: FusionConfig = DEFAULT_FUSION,
        ann_threshold: int | None = None,
        shared_vectors: PgVectorIndex | None = None,
    ) -> None:
        self.embeddings = embeddings
        self.fusion = fusion
        self.folder = Path(folder) if folder is not None else None
        self.lock = threading.RLock()
        self.recovered_uuids: list[str] = []
        self.discarded = False
        self._vectors: VectorIndex | PgVectorIndex
        if self.folder is None:
            self._bm25 = BM25Index(stored_text=True)
            self._documents = BM25Index()
            self._vectors = shared_vectors or VectorIndex(
                embeddings.dim, embeddings.model_id, ann_threshold=ann_threshold
            )
            self._journal: Path | None = None
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        self._bm25 = self._open_half("bm25", lambda path: BM25Index(path, stored_text=True))
        if shared_vectors is not None:
            self._vectors = shared_vectors
        else:
            self._vectors = self._open_half(
                "vectors", lambda path: VectorIndex.open(path, embeddings.dim, embeddings.model_id, ann_threshold)
            )
        # Derived from the chunk half alone, so a document half that cannot be read is rederived
        # here instead of asking the caller to rebuild.
        rederive = False
        try:
            self._documents = BM25Index(self.folder / "documents")
        except ValueError as exc:
            log.warning("rederiving the whole-document BM25 index in %s: %s", self.folder, exc)
            shutil.rmtree(self.folder / "documents", ignore_errors=True)
            self._documents = BM25Index(self.folder / "documents")
            rederive = True
        self._journal = self.folder / "journal.log"
        self._recover()
        if self.discarded:
            # The caller rebuilds everything from the store.
            self._documents.clear()
            self._documents.commit()
        elif rederive or (self._documents.count == 0 and self._bm25.count > 0):
            self._derive_documents(self._bm25.pmids())
            self._documents.commit()

    def _open_half(self, name: str, opener: Callable[[Path], _Half]) -> _Half:
        """A half of the index whose entries come from the caller (who must rebuild it if discarded)."""
        assert self.folder is not None
        path = self.folder / name
        try:
            return opener(path)
        except ValueError as exc:
            # Derived data in a format this version cannot read: start empty, the store refills it.
            log.warning("discarding the %s index in %s: %s", name, path, exc)
            shutil.rmtree(path, ignore_errors=True)
            self.discarded = True
            return opener(path)

    @property
    def replaced_model_id(self) -> str | None:
        return self._vectors.replaced_model_id

    @property
    def shares_vectors(self) -> bool:
        """Whether the vectors are the store's (pgvector), not a copy of this index's own."""
        return isinstance(self._vectors, PgVectorIndex)

    # ---- durability --------------------------------------------------------------------------

    def _log(self, uuids: Iterable[str]) -> None:
        if self._journal is None:
            return
        with self._journal.open("a", encoding="utf-8") as journal:
            journal.writelines(f"{uuid}\n" for uuid in uuids)
            journal.flush()
            os.fsync(journal.fileno())

    def _recover(self) -> None:
        assert self._journal is not None
        if not self._journal.is_file():
            return
        lines = {line for line in self._journal.read_text().splitlines() if line.strip()}
        documents = [line.removeprefix(_DOCUMENT_MARK) for line in lines if line.startswith(_DOCUMENT_MARK)]
        touched = sorted(line.strip() for line in lines if not line.startswith(_DOCUMENT_MARK))
        if touched:
            self._bm25.delete(touched)
            self._bm25.commit()
            self._vectors.delete(touched)
            self.recovered_uuids = touched
        # After the chunk half lost the interrupted writes: the documents agree with what is left,
        # and agree again once the caller re-adds `recovered_uuids`.
        self._derive_documents(documents)
        self._save()

    def _save(self) -> None:
        self._bm25.commit()
        self._documents.commit()
        if self._journal is None:
            return
        self._vectors.save()
        self._journal.write_text("")

    def flush(self) -> None:
        with self.lock:
            self._save()

    def close(self) -> None:
        self.flush()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- writes ------------------------------------------------------------------------------

    def _rows(self, chunks: Sequence[IndexedChunk]) -> list[VectorRow]:
        for chunk in chunks:
            if not is_document_key(chunk.pmid):
                raise BioMcpError(ErrorCode.VALIDATION, f"pmid must be digits or a file: key, got {chunk.pmid!r}")
        return [VectorRow(c.uuid, c.pmid, c.year, tuple(c.pub_types), c.quality, c.vector) for c in chunks]

    def upsert(self, chunks: Iterable[IndexedChunk], delete: Iterable[str] = ()) -> None:
        """Deletes the UUIDs in `delete`, then adds chunks or replaces them (text, attributes and
        vector) by UUID, in one BM25 commit; then rederives the whole-document entries of every
        document a chunk was written or deleted in."""
        items = list({chunk.uuid: chunk for chunk in chunks}.values())
        gone = list(dict.fromkeys(delete))
        if not items and not gone:
            return
        rows = self._rows(items)
        with self.lock:
            # The documents written to, and those the deleted or replaced chunks were in before.
            documents = {c.pmid for c in items}
            documents.update(self._pmids_of([*gone, *(c.uuid for c in items)]))
            self._log([*gone, *(c.uuid for c in items), *(_DOCUMENT_MARK + key for key in sorted(documents))])
            self._vectors.delete(gone)
            try:
                self._vectors.upsert(rows)
            except ValueError as exc:
                raise BioMcpError(ErrorCode.VALIDATION, str(exc)) from None
            self._bm25.delete(gone)
            self._bm25.replace(BM25Doc(c.uuid, c.pmid, c.text, c.year, tuple(c.pub_types)) for c in items)
            self._bm25.commit()
            self._derive_documents(documents)
            self._documents.commit()

    def _pmids_of(self, uuids: Sequence[str]) -> set[str]:
        """The documents these indexed chunks belong to (chunks not in the index are skipped)."""
        if isinstance(self._vectors, PgVectorIndex):
            return set(self._bm25.pmids_of(uuids).values())
        infos = map(self._vectors.info, uuids)
        return {info.pmid for info in infos if info is not None}

    def _derive_documents(self, keys: Iterable[str]) -> None:
        """Stage each document's whole-document entry as the join of its committed chunks' texts
        (each chunk repeats the title and overlaps the one before: the bench measured this join),
        or its removal when it has no chunk left or more than WHOLE_DOCUMENT_MAX_CHUNKS."""
        ordered = sorted(set(keys))
        for start in range(0, len(ordered), _DERIVE_BATCH):
            batch = ordered[start : start + _DERIVE_BATCH]
            texts = self._bm25.texts(batch)
            self._documents.delete(batch)
            self._documents.add(
                BM25Doc(key, key, "\n".join(texts[key]))
                for key in batch
                if 0 < len(texts.get(key, ())) <= WHOLE_DOCUMENT_MAX_CHUNKS
            )

    def set_vectors(self, uuids: Sequence[str], vectors: np.ndarray | Sequence[Sequence[float]]) -> None:
        with self.lock:
            self._log(uuids)
            try:
                self._vectors.set_vectors(uuids, np.asarray(vectors, dtype=np.float32))
            except (KeyError, ValueError) as exc:
                raise BioMcpError(ErrorCode.VALIDATION, str(exc)) from None

    def delete(self, uuids: Iterable[str]) -> int:
        """Removes these chunks; returns how many were indexed."""
        items = list(dict.fromkeys(uuids))
        with self.lock:
            present = sum(1 for uuid in items if uuid in self)
            self.upsert((), delete=items)
            return present

    def rebuild(self, chunks: Iterable[IndexedChunk]) -> None:
        """Replaces the whole content with `chunks`, then flushes."""
        with self.lock:
            self._bm25.clear()
            # Emptied at once: a rebuild cut short leaves no document of the old content, and the
            # next open rederives them all from whichever chunks the chunk half then holds.
            self._documents.clear()
            self._documents.commit()
            self._vectors.clear()
            batch: list[IndexedChunk] = []
            for chunk in chunks:
                batch.append(chunk)
                if len(batch) == _REBUILD_BATCH:
                    self._add_for_rebuild(batch)
                    batch = []
            self._add_for_rebuild(batch)
            self._bm25.commit()
            self._derive_documents(self._bm25.pmids())
            self._save()

    def _add_for_rebuild(self, batch: list[IndexedChunk]) -> None:
        try:
            self._vectors.upsert(self._rows(batch))
        except ValueError as exc:
            raise BioMcpError(ErrorCode.VALIDATION, str(exc)) from None
        self._bm25.add(BM25Doc(c.uuid, c.pmid, c.text, c.year, tuple(c.pub_types)) for c in batch)

    # ---- reads -------------------------------------------------------------------------------

    @property
    def count(self) -> int:
        if isinstance(self._vectors, PgVectorIndex):
            return self._bm25.count
        return len(self._vectors)

    @property
    def vector_count(self) -> int:
        return self._vectors.vector_count

    def __contains__(self, uuid: object) -> bool:
        if isinstance(self._vectors, PgVectorIndex):
            return isinstance(uuid, str) and bool(self._bm25.pmids_of([uuid]))
        return uuid in self._vectors

    def uuids(self) -> list[str]:
        """Every indexed chunk UUID, sorted: for reconciliation with the SQL store."""
        with self.lock:
            if isinstance(self._vectors, PgVectorIndex):
                return self._bm25.uuids()
            return self._vectors.uuids()

    def bm25_uuids(self) -> list[str]:
        """Every UUID in the BM25 half, sorted (reads every stored document: not for hot paths)."""
        with self.lock:
            return self._bm25.uuids()

    def pending_uuids(self) -> list[str]:
        """Chunks indexed without a vector yet."""
        with self.lock:
            if isinstance(self._vectors, PgVectorIndex):
                return sorted(set(self._bm25.uuids()) - self._vectors.embedded_uuids())
            return self._vectors.pending_uuids()

    def search(
        self,
        query: str,
        top_k: int = 20,
        quality_bias: bool = True,
        year_range: tuple[int | None, int | None] | None = None,
        pub_types: Sequence[str] | None = None,
        mode: SearchMode = "hybrid",
    ) -> list[Hit]:
        """Up to `top_k` documents, best first; a query with no searchable word finds nothing."""
        if top_k < 1:
            raise BioMcpError(ErrorCode.VALIDATION, "top_k must be at least 1")
        if not self._bm25.analyze(query):
            return []
        depth = self.fusion.candidate_depth(top_k)
        use_vectors = mode != "bm25" and self._vectors.has_vectors
        # Embedded outside the lock: a remote provider may take a while, writers need not wait.
        query_vector = self.embeddings.embed_query(query) if use_vectors else None
        # Shared vectors are the store's: a vector search reads nothing this process writes, so it
        # does not wait for a write (a new replica's first BM25 build holds the lock for minutes).
        with contextlib.nullcontext() if mode == "vector" and self.shares_vectors else self.lock:
            bm25_hits = self._bm25.search(query, depth, year_range, pub_types) if mode != "vector" else []
            vector_hits: list[VectorHit] = []
            if query_vector is not None:
                mask = self._vectors.mask(year_range, pub_types)
                vector_hits = self._vectors.search(query_vector, depth, mask)  # type: ignore[arg-type]
            candidates = merge_candidates(
                [(h.uuid, h.pmid, h.score) for h in bm25_hits],
                [(h.uuid, h.pmid, h.sim) for h in vector_hits],
            )
            if mode == "hybrid":
                candidates = complete_candidates(self._bm25, self._vectors, query, query_vector, candidates)
            # A candidate document's BM25 is that of the whole document, not of its best chunk
            # (SciFact train nDCG@10: hybrid 0.7416 -> 0.7455, BM25 alone 0.687 -> 0.703).
            document_bm25 = (
                self._documents.scores(query, {c.pmid for c in candidates}) if mode != "vector" else None
            )
            docs = fuse(candidates, self.fusion, document_bm25)
            quality = self._vectors.qualities([doc.uuid for doc in docs])
        ranked = rerank(docs, quality, quality_bias, self.fusion.quality_weight)[:top_k]
        return [Hit(d.pmid, d.uuid, d.sim, d.bm25, d.quality, d.score) for d in ranked]
