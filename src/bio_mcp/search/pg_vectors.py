"""The vector half of `HybridIndex` when vectors live in PostgreSQL (pgvector), shared by every replica.

`PgVectorIndex` answers the reads `HybridIndex` makes of its vector half (search with filters,
the cosine of given chunks, quality for the rerank, counts) from the store's `chunk_vectors`
table (`store.chunk_vectors`). It holds nothing itself: the store writes vectors in the same
transaction as their chunks, so the index's writes (`upsert`, `set_vectors`, `delete`, `clear`,
`save`) have nothing to do, and a replica that starts on an empty BIO_MCP_HOME searches every
vector at once. Its row registry (which chunks this replica has indexed) is the BM25 half's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from bio_mcp.search.vectors import VectorHit, VectorRow
from bio_mcp.store import MetadataStore, chunk_vectors
from bio_mcp.store.chunk_vectors import VectorFilter


class PgVectorIndex:
    """Vectors of `model_id` in `store`'s pgvector table (created by `MetadataStore.enable_vector_table`)."""

    # The store drops the vectors of a replaced model itself (`reset_embeddings_for_model_switch`).
    replaced_model_id: str | None = None

    def __init__(
        self, store: MetadataStore, dim: int, model_id: str, ef_search: int = chunk_vectors.EF_SEARCH
    ):
        if store.vector_dim != dim:
            raise ValueError(f"the store keeps {store.vector_dim}-dimension vectors, not {dim}")
        self.store = store
        self.dim = dim
        self.model_id = model_id
        self.ef_search = ef_search

    # ---- writes: the store's transactions make them -----------------------------------------

    def upsert(self, rows: Iterable[VectorRow]) -> None:
        for row in rows:
            if row.vector is not None and np.asarray(row.vector).shape != (self.dim,):
                raise ValueError(
                    f"vector of {row.uuid} has {np.asarray(row.vector).shape}, expected ({self.dim},)"
                )

    def set_vectors(self, uuids: Sequence[str], vectors: np.ndarray) -> None:
        if vectors.shape != (len(uuids), self.dim):
            raise ValueError(f"vectors have shape {vectors.shape}, expected ({len(uuids)}, {self.dim})")

    def delete(self, uuids: Iterable[str]) -> None:
        pass

    def clear(self) -> None:
        pass

    def save(self) -> None:
        pass

    # ---- reads ---------------------------------------------------------------------------------

    @property
    def vector_count(self) -> int:
        with self.store.read() as tx:
            return chunk_vectors.count(tx.connection)

    @property
    def has_vectors(self) -> bool:
        with self.store.read() as tx:
            return chunk_vectors.any_vector(tx.connection)

    def embedded_uuids(self) -> set[str]:
        with self.store.read() as tx:
            return chunk_vectors.embedded_uuids(tx.connection)

    def mask(
        self, year_range: tuple[int | None, int | None] | None = None, pub_types: Iterable[str] | None = None
    ) -> VectorFilter | None:
        """The filter a search applies inside the index scan (None when nothing filters)."""
        names = tuple(pub_types or ())
        if year_range is None and not names:
            return None
        return VectorFilter(year_range, names)

    def search(
        self,
        query: np.ndarray | Sequence[float],
        limit: int,
        mask: VectorFilter | None = None,
        *,
        exact: bool = False,
    ) -> list[VectorHit]:
        q = np.asarray(query, dtype=np.float32)
        if q.shape != (self.dim,):
            raise ValueError(f"query vector has shape {q.shape}, expected ({self.dim},)")
        with self.store.read() as tx:
            rows = chunk_vectors.search(tx.connection, q, limit, mask, exact=exact, ef_search=self.ef_search)
        return [VectorHit(uuid, pmid, sim) for uuid, pmid, sim in rows]

    def similarities(self, query: np.ndarray, uuids: Sequence[str]) -> dict[str, float]:
        with self.store.read() as tx:
            return chunk_vectors.similarities(tx.connection, np.asarray(query, dtype=np.float32), uuids)

    def qualities(self, uuids: Sequence[str]) -> dict[str, int | None]:
        with self.store.read() as tx:
            return dict(chunk_vectors.qualities(tx.connection, uuids))
