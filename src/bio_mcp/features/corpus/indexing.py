"""The corpus's `HybridIndex`, kept in step with the SQL store.

The SQL store is the truth; the index (tantivy BM25 + the vector matrix, `search.hybrid`) is
derived from its chunks and rebuildable. Each chunk row carries `bm25_indexed` / `vector_indexed`
flags, set only after the index write is durable (`HybridIndex.flush`), so whatever a crash
interrupts is found again by `reconcile`: flags that say missing, UUIDs the index's journal
rolled back, index entries whose chunk is gone, or counts that disagree.

Every chunk is in the index from its commit on, searchable by BM25 at once; its vector joins when
the embedding writer has made one with the current model. The index's lock serialises every index
write and every store-then-index step of this process, so a sync batch and the embedding writer
never interleave, and a search never sees a batch half applied.

Several processes share one corpus through the store's change log (`store.changelog`): each index
applies its own writes at once and `follow()`s the log for everyone else's, skipping the rows it
wrote itself. Its position in the log (`cursor`) is saved with the index after each flush, so a
restarted process replays only what it missed, and rebuilds when the log no longer reaches back.

On PostgreSQL with pgvector (`vector_backend`: "auto" finds the extension, "pgvector" insists on
it, "embedded" never uses it) the vectors stay in the store (`search.pg_vectors`): the store
writes them with their chunks, every process searches the same table, and this index holds the
BM25 half alone. A replica that starts on a new home builds that half from the store in the
background (`needs_lexical_build`, `CorpusService.open`): until it is built, searches are answered
from the shared vectors alone (`lexical_building`), so its first search is answered at once at any
corpus size.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.progress import Progress
from bio_mcp.search.embeddings import Embeddings
from bio_mcp.search.hybrid import Hit, HybridIndex, IndexedChunk, SearchMode
from bio_mcp.search.pg_vectors import PgVectorIndex
from bio_mcp.store import MetadataStore, StoredChunk

log = logging.getLogger("bio_mcp.corpus.indexing")

RECONCILE_PAGE = 1000
# Chunks indexed per write when `reconcile` finds them missing (one BM25 commit each).
NEEDING_PAGE = 10_000
# Change-log rows read per step of `follow`; the UUIDs of one step are applied in one index write.
FOLLOW_PAGE = 200
_CURSOR_FILE = "changes.json"


VectorBackend = Literal["auto", "embedded", "pgvector"]


def store_vectors(store: MetadataStore, embeddings: Embeddings, backend: VectorBackend) -> PgVectorIndex | None:
    """The store's pgvector table as the vector half, when `backend` asks for it and the store has
    the extension (None: the index keeps its own vectors)."""
    if backend == "embedded":
        return None
    if not store.pgvector_available():
        if backend == "pgvector":
            raise BioMcpError(
                ErrorCode.VALIDATION,
                "BIO_MCP_VECTOR_BACKEND=pgvector needs DATABASE_URL on a PostgreSQL server with the pgvector extension",
                {"database": store.url},
            )
        return None
    copied = store.enable_vector_table(embeddings.dim, embeddings.model_id)
    if copied:
        log.info("copied %d stored vectors into PostgreSQL's pgvector table", copied)
    return PgVectorIndex(store, embeddings.dim, embeddings.model_id)


@dataclass(frozen=True)
class ReconcileReport:
    model_switch_reset: int
    stale_removed: int
    reindexed: int
    rebuilt: bool


class CorpusIndex:
    """The hybrid index of `store`'s chunks in `folder` (in memory when None), for `embeddings`."""

    def __init__(
        self,
        store: MetadataStore,
        folder: Path | None,
        embeddings: Embeddings,
        ann_threshold: int | None = None,
        vector_backend: VectorBackend = "auto",
    ) -> None:
        self.store = store
        self.embeddings = embeddings
        self.model_id = embeddings.model_id
        self.hybrid = HybridIndex(
            embeddings,
            folder,
            ann_threshold=ann_threshold,
            shared_vectors=store_vectors(store, embeddings, vector_backend),
        )
        self.lock = self.hybrid.lock
        self._cursor_path = folder / _CURSOR_FILE if folder is not None else None
        # The last change-log id this index reflects; rows this process wrote are in `_own` until passed.
        self.cursor = 0
        self._own: set[int] = set()
        # Cleared while the BM25 half is being built in the background (`needs_lexical_build`).
        self.lexical_ready = threading.Event()
        self.lexical_ready.set()

    @property
    def lexical_building(self) -> bool:
        """Whether searches are answered from the shared vectors alone while the BM25 half is built."""
        return not self.lexical_ready.is_set()

    def needs_lexical_build(self) -> bool:
        """A replica of the store's shared vectors on a new home: its BM25 half is empty while the
        store holds chunks, and building it (`reconcile`) takes minutes at a million chunks."""
        if not self.hybrid.shares_vectors or self.hybrid.count:
            return False
        with self.store.read() as tx:
            return tx.chunks.state_counts(self.model_id).total > 0

    @property
    def _reads_vectors(self) -> bool:
        """Whether this index keeps vectors of its own, read from the store with the chunks (shared
        vectors stay in the store: reading them would only fill this process's memory)."""
        return not self.hybrid.shares_vectors

    def _has_current_vector(self, chunk: StoredChunk) -> bool:
        if chunk.embed_model != self.model_id:
            return False
        return chunk.embedding is not None or not self._reads_vectors

    def _indexed(self, chunk: StoredChunk) -> IndexedChunk:
        return IndexedChunk(
            uuid=chunk.uuid,
            pmid=chunk.pmid,
            text=chunk.text,
            year=chunk.year,
            pub_types=tuple(chunk.pub_types),
            quality=chunk.quality_total,
            vector=chunk.embedding if self._has_current_vector(chunk) else None,
        )

    # ---- search ----------------------------------------------------------------------------

    def search(
        self,
        query: str,
        top_k: int,
        quality_bias: bool,
        mode: SearchMode = "hybrid",
        year_range: tuple[int | None, int | None] | None = None,
        pub_types: Sequence[str] | None = None,
    ) -> list[Hit]:
        if self.lexical_building and mode != "bm25":
            mode = "vector"
        return self.hybrid.search(query, top_k, quality_bias, year_range, pub_types, mode=mode)

    # ---- writes after a store commit -------------------------------------------------------

    def apply(self, removed: Sequence[str], to_index: Sequence[str], change_id: int | None = None) -> None:
        """Delete `removed` from the index and (re)write `to_index` from the store's current rows;
        `change_id` is the change-log row of that commit, which `follow` then skips."""
        if change_id is not None:
            self._own.add(change_id)
        if not removed and not to_index:
            return
        with self.lock:
            with self.store.read() as tx:
                chunks = list(tx.chunks.get_many(to_index, vectors=self._reads_vectors).values())
            self._write(chunks, removed)

    def _write(self, chunks: Sequence[StoredChunk], removed: Iterable[str] = ()) -> None:
        # A chunk whose text changed lost its embedding: upserting it without one drops the old vector.
        self.hybrid.upsert((self._indexed(chunk) for chunk in chunks), delete=removed)
        self.hybrid.flush()
        self._mark(
            embedded=[chunk.uuid for chunk in chunks if self._has_current_vector(chunk)],
            pending=[chunk.uuid for chunk in chunks if not self._has_current_vector(chunk)],
        )

    def _mark(self, embedded: Sequence[str], pending: Sequence[str]) -> None:
        """Flags chunks as in the index, with their vector (`embedded`) or waiting for one."""
        with self.store.transaction() as tx:
            tx.chunks.mark_indexed([*embedded, *pending], bm25=True)
            if embedded:
                tx.chunks.mark_indexed(embedded, vector=True)
            if pending:
                tx.chunks.mark_indexed(pending, vector=False)

    # ---- the embedding writer -------------------------------------------------------------

    def pending_embeddings(self) -> int:
        with self.store.read() as tx:
            return tx.chunks.state_counts(self.model_id).pending_embedding

    def embed_pending(self, batch_size: int) -> int:
        """Embed one batch of chunks lacking a vector from this model; returns how many were taken."""
        with self.store.read() as tx:
            pending = tx.chunks.pending_embedding(self.model_id, batch_size)
        if not pending:
            return 0
        matrix = self.embeddings.embed_array([chunk.text for chunk in pending])
        with self.lock:
            with self.store.transaction() as tx:
                current = tx.chunks.get_many([chunk.uuid for chunk in pending], vectors=False)
                # A chunk re-chunked with new text while we embedded keeps waiting for its new vector.
                fresh = {
                    chunk.uuid: matrix[row]
                    for row, chunk in enumerate(pending)
                    if chunk.uuid in current and current[chunk.uuid].text == chunk.text
                }
                if fresh:
                    written = tx.chunks.set_embeddings(fresh, self.model_id)
                    if written.change_id is not None:
                        self._own.add(written.change_id)
            # A chunk not in the index yet gets its vector when `reconcile` indexes it.
            attach = [uuid for uuid in fresh if uuid in self.hybrid]
            if attach:
                self.hybrid.set_vectors(attach, [fresh[uuid] for uuid in attach])
                self.hybrid.flush()
                with self.store.transaction() as tx:
                    tx.chunks.mark_indexed(attach, vector=True)
        return len(pending)

    # ---- following other processes' writes ----------------------------------------------

    def follow(self) -> int:
        """Apply every change other processes committed since `cursor`; returns the rows applied.

        Cheap when nothing changed (one `max(id)`); idempotent (each row makes the index copy the
        store's current state of the chunks it names)."""
        with self.store.read() as tx:
            head = tx.changes.head()
        if head <= self.cursor:
            return 0
        applied = 0
        with self.lock:
            while True:
                with self.store.read() as tx:
                    if not tx.changes.covers(self.cursor):
                        log.warning("the change log was pruned past this index's position; rebuilding")
                        self.rebuild()
                        return applied
                    changes = tx.changes.since(self.cursor, FOLLOW_PAGE)
                if not changes:
                    return applied
                foreign = [change for change in changes if change.id not in self._own]
                if any(change.kind == "rebuild" for change in foreign):
                    self.rebuild()
                    return applied + len(foreign)
                self._refresh({uuid for change in foreign for uuid in change.uuids})
                last = changes[-1].id
                self._own = {own for own in self._own if own > last}
                self._save_cursor(last)
                applied += len(foreign)

    def _refresh(self, uuids: set[str]) -> None:
        """Make the index hold exactly the store's current state of these chunks."""
        if not uuids:
            return
        with self.store.read() as tx:
            present = tx.chunks.get_many(uuids, vectors=self._reads_vectors)
        self._write(list(present.values()), sorted(uuids - set(present)))

    def _load_cursor(self) -> int | None:
        if self._cursor_path is None or not self._cursor_path.is_file():
            return None
        try:
            value = json.loads(self._cursor_path.read_text())["cursor"]
        except (ValueError, KeyError, TypeError):
            return None
        return value if isinstance(value, int) and value >= 0 else None

    def _save_cursor(self, cursor: int) -> None:
        """Called after the index writes up to `cursor` are flushed, so a saved cursor never runs ahead."""
        self.cursor = cursor
        if self._cursor_path is None:
            return
        scratch = self._cursor_path.with_suffix(".tmp")
        scratch.write_text(json.dumps({"cursor": cursor}))
        os.replace(scratch, self._cursor_path)

    def prune_changes(self, keep_rows: int, min_age_s: float) -> int:
        with self.store.transaction() as tx:
            return tx.changes.prune(keep_rows, min_age_s)

    # ---- start-up repair and rebuild ------------------------------------------------------

    def reconcile(self) -> ReconcileReport:
        """Make the index agree with the store after a crash, a model switch, a lost folder or
        other processes' writes while this one was down."""
        with self.lock:
            saved = self._load_cursor()
            with self.store.read() as tx:
                head = tx.changes.head()
                replayable = saved is not None and saved <= head and tx.changes.covers(saved)
            if replayable:
                assert saved is not None
                self.cursor = saved
                self.follow()
            with self.store.transaction() as tx:
                # Writes the index's journal rolled back are indexed again below.
                tx.chunks.mark_indexed(self.hybrid.recovered_uuids, bm25=False, vector=False)
                # Last in the transaction: a logged reset holds the change log's lock until commit.
                reset = tx.chunks.reset_embeddings_for_model_switch(self.model_id)
            if reset or self.hybrid.replaced_model_id or self.hybrid.discarded:
                self.rebuild()
                return ReconcileReport(model_switch_reset=reset, stale_removed=0, reindexed=0, rebuilt=True)
            if not replayable:
                # Whatever changed before `head` is repaired below; the log is followed from there.
                self._save_cursor(head)
            stale = self._drop_stale()
            reindexed = self._write_needing()
            with self.store.read() as tx:
                counts = tx.chunks.state_counts(self.model_id)
            # Shared vectors are the store's own: only this process's BM25 half can disagree.
            consistent = counts.bm25_indexed == counts.total == self.hybrid.count and (
                self.hybrid.shares_vectors or counts.vector_indexed == self.hybrid.vector_count
            )
            if not consistent:
                # The flags say indexed but the index lacks entries (a deleted or older folder).
                log.warning("the derived index disagrees with the store's flags; rebuilding it")
                self.rebuild()
        return ReconcileReport(
            model_switch_reset=reset, stale_removed=stale, reindexed=reindexed, rebuilt=not consistent
        )

    def _write_needing(self) -> int:
        """Indexes the chunks whose flags say they are missing, a page at a time: on a new home
        that can be every chunk, and one write of them all would hold them all in memory."""
        written = 0
        after: str | None = None
        while True:
            with self.store.read() as tx:
                page = tx.chunks.needing_index(NEEDING_PAGE, after=after, vectors=self._reads_vectors)
            if not page:
                return written
            self._write(page)
            written += len(page)
            after = page[-1].uuid

    def _drop_stale(self) -> int:
        indexed = set(self.hybrid.uuids()) | set(self.hybrid.bm25_uuids())
        with self.store.read() as tx:
            live = tx.chunks.existing_uuids(indexed)
        stale = sorted(indexed - live)
        if stale:
            self.hybrid.delete(stale)
            self.hybrid.flush()
        return len(stale)

    def rebuild(self, progress: Progress | None = None) -> int:
        """The index from scratch out of the store's chunks; returns the number of chunks."""
        with self.lock:
            embedded: list[str] = []
            pending: list[str] = []
            with self.store.read() as tx:
                head = tx.changes.head()

            def from_store() -> Iterator[IndexedChunk]:
                with self.store.read() as tx:
                    total = tx.chunks.state_counts(self.model_id).total if progress is not None else None
                    for page in tx.chunks.iterate(RECONCILE_PAGE, vectors=self._reads_vectors):
                        for chunk in page:
                            (embedded if self._has_current_vector(chunk) else pending).append(chunk.uuid)
                            yield self._indexed(chunk)
                        if progress is not None:
                            progress("chunks", len(embedded) + len(pending), total)

            self.hybrid.rebuild(from_store())
            self._mark(embedded, pending)
            # Changes committed during the rebuild are replayed by the next `follow` (idempotently).
            self._save_cursor(head)
            self._own.clear()
            return len(embedded) + len(pending)

    def uuids(self) -> tuple[set[str], set[str]]:
        """The UUIDs in the BM25 half and those with a vector."""
        with self.lock:
            return set(self.hybrid.bm25_uuids()), set(self.hybrid.uuids()) - set(self.hybrid.pending_uuids())
