"""The derived indexes of the corpus (tantivy BM25 + exact-cosine vectors), kept in step with the store.

The SQL store is the truth; both indexes are rebuildable from its chunks. Each chunk row carries
`bm25_indexed` / `vector_indexed` flags, set only after the index write is durable, so whatever a
crash interrupts is found again by `reconcile` (flags say missing) or by comparing the indexes'
UUIDs with the store's (entries whose chunk is gone).

Only chunks with an embedding from the current model are in the vector index: a chunk waiting for
its embedding is searchable by BM25 alone. One lock serialises every index write and every
store-then-index step of this process, so a sync batch and the embedding writer never interleave.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bio_mcp.search.bm25 import BM25Doc, BM25Index
from bio_mcp.search.embeddings import Embeddings
from bio_mcp.search.vectors import VectorIndex, VectorRow
from bio_mcp.store import MetadataStore, StoredChunk

log = logging.getLogger("bio_mcp.corpus.indexing")

RECONCILE_PAGE = 1000


@dataclass(frozen=True)
class ReconcileReport:
    model_switch_reset: int
    stale_removed: int
    reindexed: int
    rebuilt: bool


def _bm25_doc(chunk: StoredChunk) -> BM25Doc:
    return BM25Doc(
        uuid=chunk.uuid, pmid=chunk.pmid, text=chunk.text, year=chunk.year, pub_types=tuple(chunk.pub_types)
    )


def _vector_row(chunk: StoredChunk) -> VectorRow:
    return VectorRow(
        uuid=chunk.uuid,
        pmid=chunk.pmid,
        year=chunk.year,
        pub_types=tuple(chunk.pub_types),
        quality=chunk.quality_total,
        vector=chunk.embedding,
    )


class CorpusIndex:
    """BM25 and vector indexes in `folder` (in memory when None) for the vectors of `embeddings`."""

    def __init__(self, folder: Path | None, embeddings: Embeddings) -> None:
        self.folder = folder
        self.embeddings = embeddings
        self.model_id = embeddings.model_id
        self.lock = threading.RLock()
        self.bm25 = BM25Index(folder / "bm25" if folder is not None else None)
        self.vectors, self._vectors_discarded = self._open_vectors()

    def _open_vectors(self) -> tuple[VectorIndex, bool]:
        dim = self.embeddings.dim
        if self.folder is None:
            return VectorIndex(dim, self.model_id), False
        folder = self.folder / "vectors"
        try:
            return VectorIndex.open(folder, dim, self.model_id), False
        except ValueError as exc:
            # Saved by another model: never mixed with this one's vectors; rebuilt from the store.
            log.warning("discarding the saved vector index: %s", exc)
            return VectorIndex(dim, self.model_id, folder), True

    def _save_vectors(self) -> None:
        if self.vectors.folder is not None:
            self.vectors.save()

    # ---- writes after a store commit -------------------------------------------------------

    def apply(self, store: MetadataStore, removed: Sequence[str], to_index: Sequence[str]) -> None:
        """Delete `removed` from both indexes and (re)write `to_index` from the store's current rows."""
        if not removed and not to_index:
            return
        with self.lock:
            with store.read() as tx:
                chunks = list(tx.chunks.get_many(to_index).values())
            self._write(chunks, removed)
            self._mark(store, chunks)

    def _write(self, chunks: Sequence[StoredChunk], removed: Iterable[str]) -> None:
        gone = list(removed)
        self.bm25.delete(gone)
        self.bm25.replace(_bm25_doc(chunk) for chunk in chunks)
        self.bm25.commit()
        embedded = [chunk for chunk in chunks if self._has_current_vector(chunk)]
        # A chunk whose text changed lost its embedding: its old vector must not stay searchable.
        self.vectors.delete([*gone, *(chunk.uuid for chunk in chunks if not self._has_current_vector(chunk))])
        self.vectors.upsert(_vector_row(chunk) for chunk in embedded)
        self._save_vectors()

    def _has_current_vector(self, chunk: StoredChunk) -> bool:
        return chunk.embedding is not None and chunk.embed_model == self.model_id

    def _mark(self, store: MetadataStore, chunks: Sequence[StoredChunk]) -> None:
        embedded = [chunk.uuid for chunk in chunks if self._has_current_vector(chunk)]
        pending = [chunk.uuid for chunk in chunks if not self._has_current_vector(chunk)]
        with store.transaction() as tx:
            tx.chunks.mark_indexed([chunk.uuid for chunk in chunks], bm25=True)
            if embedded:
                tx.chunks.mark_indexed(embedded, vector=True)
            if pending:
                tx.chunks.mark_indexed(pending, vector=False)

    # ---- the embedding writer -------------------------------------------------------------

    def pending_embeddings(self, store: MetadataStore) -> int:
        with store.read() as tx:
            return tx.chunks.state_counts(self.model_id).pending_embedding

    def embed_pending(self, store: MetadataStore, batch_size: int) -> int:
        """Embed one batch of chunks lacking a vector from this model; returns how many were taken."""
        with store.read() as tx:
            pending = tx.chunks.pending_embedding(self.model_id, batch_size)
        if not pending:
            return 0
        matrix = self.embeddings.embed_array([chunk.text for chunk in pending])
        with self.lock:
            with store.transaction() as tx:
                current = tx.chunks.get_many([chunk.uuid for chunk in pending])
                # A chunk re-chunked with new text while we embedded keeps waiting for its new vector.
                fresh = {
                    chunk.uuid: matrix[row]
                    for row, chunk in enumerate(pending)
                    if chunk.uuid in current and current[chunk.uuid].text == chunk.text
                }
                if fresh:
                    tx.chunks.set_embeddings(fresh, self.model_id)
            if fresh:
                with store.read() as tx:
                    written = list(tx.chunks.get_many(fresh).values())
                self.vectors.upsert(_vector_row(chunk) for chunk in written if self._has_current_vector(chunk))
                self._save_vectors()
                with store.transaction() as tx:
                    tx.chunks.mark_indexed([chunk.uuid for chunk in written], vector=True)
        return len(pending)

    # ---- start-up repair and rebuild ------------------------------------------------------

    def reconcile(self, store: MetadataStore) -> ReconcileReport:
        """Make both indexes agree with the store after a crash, a model switch or a lost folder."""
        with self.lock:
            with store.transaction() as tx:
                reset = tx.chunks.reset_embeddings_for_model_switch(self.model_id)
            if reset or self._vectors_discarded:
                self.vectors.clear()
                self._save_vectors()
                self._unmark_vectors(store)
                self._vectors_discarded = False
            stale = self._drop_stale(store)
            with store.read() as tx:
                needing = tx.chunks.needing_index()
            if needing:
                self._write(needing, ())
                self._mark(store, needing)
            with store.read() as tx:
                counts = tx.chunks.state_counts(self.model_id)
            consistent = counts.bm25_indexed == self.bm25.count and counts.vector_indexed == len(self.vectors)
            if not consistent:
                # The flags say indexed but an index lacks entries (a deleted or older folder).
                log.warning("derived indexes disagree with the store's flags; rebuilding them")
                self.rebuild(store)
        return ReconcileReport(model_switch_reset=reset, stale_removed=stale, reindexed=len(needing), rebuilt=not consistent)

    def _unmark_vectors(self, store: MetadataStore) -> None:
        with store.read() as tx:
            pages = [[chunk.uuid for chunk in page] for page in tx.chunks.iterate(RECONCILE_PAGE)]
        with store.transaction() as tx:
            for page in pages:
                tx.chunks.mark_indexed(page, vector=False)

    def _drop_stale(self, store: MetadataStore) -> int:
        bm25_uuids = set(self.bm25.uuids())
        vector_uuids = set(self.vectors.uuids())
        with store.read() as tx:
            live = tx.chunks.existing_uuids(bm25_uuids | vector_uuids)
        stale_bm25 = sorted(bm25_uuids - live)
        stale_vectors = sorted(vector_uuids - live)
        if stale_bm25:
            self.bm25.delete(stale_bm25)
            self.bm25.commit()
        if stale_vectors:
            self.vectors.delete(stale_vectors)
            self._save_vectors()
        return len(set(stale_bm25) | set(stale_vectors))

    def rebuild(self, store: MetadataStore) -> int:
        """Both indexes from scratch out of the store's chunks; returns the number of chunks."""
        with self.lock:
            self.bm25.clear()
            self.vectors.clear()
            embedded: list[str] = []
            pending: list[str] = []
            with store.read() as tx:
                for page in tx.chunks.iterate(RECONCILE_PAGE):
                    self.bm25.add(_bm25_doc(chunk) for chunk in page)
                    with_vector = [chunk for chunk in page if self._has_current_vector(chunk)]
                    self.vectors.upsert(_vector_row(chunk) for chunk in with_vector)
                    embedded.extend(chunk.uuid for chunk in with_vector)
                    pending.extend(chunk.uuid for chunk in page if not self._has_current_vector(chunk))
            self.bm25.commit()
            self._save_vectors()
            with store.transaction() as tx:
                tx.chunks.mark_indexed([*embedded, *pending], bm25=True)
                if embedded:
                    tx.chunks.mark_indexed(embedded, vector=True)
                if pending:
                    tx.chunks.mark_indexed(pending, vector=False)
            return len(embedded) + len(pending)

    def uuids(self) -> tuple[set[str], set[str]]:
        """The UUIDs in the BM25 and in the vector index."""
        with self.lock:
            return set(self.bm25.uuids()), set(self.vectors.uuids())
