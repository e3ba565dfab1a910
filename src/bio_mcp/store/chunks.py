"""Chunks of documents: the rows every derived index (BM25, vectors) is built from.

Each chunk carries its indexing state, so a crash between a commit here and a write to a derived
index is repaired by re-indexing what the flags say is missing (`needing_index`), and a rebuild
needs nothing but this table (`iterate`).

A chunk's vector is a float32 blob on its row, except on a PostgreSQL store with the pgvector table
(`store.chunk_vectors`), where the table holds it and the row keeps only `embed_model`: a chunk is
embedded when `embed_model` is set, and reads return the vector from wherever it is.
"""

from __future__ import annotations

import uuid as uuid_module
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
import numpy.typing as npt
import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy.engine import Connection, Row

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store import chunk_vectors
from bio_mcp.store.changelog import ChangeLogRepository
from bio_mcp.store.database import in_batches
from bio_mcp.store.documents import lock_document_rows
from bio_mcp.store.schema import chunks, documents, utc_now

# Vectors are stored as little-endian float32 whatever the host's byte order.
VECTOR_DTYPE = np.dtype("<f4")
# Float32 rounding leaves unit vectors within about 1e-6 of norm 1; anything further was not normalised.
_NORM_TOLERANCE = 1e-3

VectorLike = Sequence[float] | npt.NDArray[np.floating[Any]]


class ChunkRecord(BaseModel):
    """One chunk as the chunker produced it; `uuid` is uuid5(namespace, f"{pmid}:{chunk_id}")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    uuid: str
    chunk_id: Annotated[str, Field(min_length=1, max_length=128)]
    section: str | None = None
    text: Annotated[str, Field(min_length=1)]
    n_tokens: Annotated[int, Field(ge=0)]
    position: Annotated[int, Field(ge=0)]

    @field_validator("uuid")
    @classmethod
    def _canonical_uuid(cls, value: str) -> str:
        return str(uuid_module.UUID(value))


@dataclass(frozen=True)
class ChunkSet:
    """All chunks of one document version; they replace whatever chunks the PMID had."""

    pmid: str
    version: int
    chunks: Sequence[ChunkRecord]


@dataclass(frozen=True)
class ReplaceResult:
    # Chunks that no longer exist: delete them from the derived indexes.
    removed_uuids: list[str]
    # New chunks, or chunks whose indexed content changed: (re)write them to the derived indexes.
    to_index_uuids: list[str]
    unchanged: int
    # The change-log row written with these chunks (None when nothing changed).
    change_id: int | None = None


@dataclass(frozen=True, eq=False)
class StoredChunk:
    uuid: str
    pmid: str
    chunk_id: str
    doc_version: int
    section: str | None
    text: str
    n_tokens: int
    position: int
    year: int | None
    pub_types: list[str]
    quality_total: int
    embedding: npt.NDArray[np.float32] | None
    embed_model: str | None
    bm25_indexed: bool
    vector_indexed: bool


@dataclass(frozen=True)
class PendingChunk:
    uuid: str
    pmid: str
    text: str


@dataclass(frozen=True)
class EmbeddingWriteResult:
    written: int
    # Chunks deleted (replaced by a newer version) while their vectors were being computed.
    missing: list[str]
    change_id: int | None = None


@dataclass(frozen=True)
class ChunkStateCounts:
    total: int
    embedded: int
    pending_embedding: int
    bm25_indexed: int
    vector_indexed: int


@dataclass(frozen=True)
class _DocumentFacts:
    """What chunks copy from their document."""

    version: int
    year: int | None
    pub_types: list[str]
    quality_total: int


# Fields the derived indexes hold: a change to any of them makes the chunk's index entries stale.
_INDEXED_FIELDS = ("chunk_id", "section", "text", "year", "pub_types", "quality_total")
_STATE_COLUMNS = (
    chunks.c.uuid,
    chunks.c.pmid,
    chunks.c.chunk_id,
    chunks.c.doc_version,
    chunks.c.section,
    chunks.c.text,
    chunks.c.n_tokens,
    chunks.c.position,
    chunks.c.year,
    chunks.c.pub_types,
    chunks.c.quality_total,
    chunks.c.bm25_indexed,
    chunks.c.vector_indexed,
)


def _stored_chunk(row: Row[Any]) -> StoredChunk:
    blob = row.embedding
    embedding = None if blob is None else np.frombuffer(blob, dtype=VECTOR_DTYPE)
    stored = row._mapping.get("stored_vector")
    if embedding is None and stored is not None:
        embedding = chunk_vectors.decode(stored)
    return StoredChunk(
        uuid=row.uuid,
        pmid=row.pmid,
        chunk_id=row.chunk_id,
        doc_version=row.doc_version,
        section=row.section,
        text=row.text,
        n_tokens=row.n_tokens,
        position=row.position,
        year=row.year,
        pub_types=list(row.pub_types),
        quality_total=row.quality_total,
        embedding=embedding,
        embed_model=row.embed_model,
        bm25_indexed=bool(row.bm25_indexed),
        vector_indexed=bool(row.vector_indexed),
    )


def _vector_bytes(uuid: str, vector: VectorLike) -> tuple[int, bytes]:
    array = np.asarray(vector, dtype=VECTOR_DTYPE)
    if array.ndim != 1 or array.size == 0:
        raise BioMcpError(ErrorCode.VALIDATION, "an embedding is a non-empty 1-D vector", {"uuid": uuid})
    if not np.all(np.isfinite(array)):
        raise BioMcpError(
            ErrorCode.VALIDATION, "an embedding has a NaN or infinite component", {"uuid": uuid}
        )
    norm = float(np.linalg.norm(array.astype(np.float64)))
    if abs(norm - 1.0) > _NORM_TOLERANCE:
        raise BioMcpError(
            ErrorCode.INVARIANT_FAILURE, "embeddings must be L2-normalised", {"uuid": uuid, "norm": norm}
        )
    return int(array.size), array.tobytes()


def _validate_sets(sets: Sequence[ChunkSet]) -> None:
    seen_pmids: set[str] = set()
    seen_uuids: set[str] = set()
    for chunk_set in sets:
        if chunk_set.pmid in seen_pmids:
            raise BioMcpError(ErrorCode.VALIDATION, "one chunk set per PMID", {"pmid": chunk_set.pmid})
        seen_pmids.add(chunk_set.pmid)
        chunk_ids = [chunk.chunk_id for chunk in chunk_set.chunks]
        if len(set(chunk_ids)) != len(chunk_ids):
            raise BioMcpError(
                ErrorCode.VALIDATION, "duplicate chunk_id in one document", {"pmid": chunk_set.pmid}
            )
        for chunk in chunk_set.chunks:
            if chunk.uuid in seen_uuids:
                raise BioMcpError(ErrorCode.VALIDATION, "duplicate chunk uuid", {"uuid": chunk.uuid})
            seen_uuids.add(chunk.uuid)


class ChunkRepository:
    """Chunks, bound to one transaction. With `vector_dim` (a PostgreSQL store with the pgvector table
    `store.chunk_vectors` of that dimension) vectors are written there, in the same transaction, and
    not on the chunk rows."""

    def __init__(self, connection: Connection, vector_dim: int | None = None) -> None:
        self._connection = connection
        self._vector_dim = vector_dim
        self._vector_table = vector_dim is not None

    def _embedded(self) -> sa.ColumnElement[bool]:
        """Chunks that have a vector (of any model)."""
        if self._vector_table:
            return chunks.c.embed_model.is_not(None)
        return chunks.c.embedding.is_not(None)

    def _select(self, vectors: bool) -> sa.Select[Any]:
        """Whole chunk rows; with `vectors`, each with its vector from the pgvector table when it has
        no blob. Without, `StoredChunk.embedding` is None (for callers that read no vectors)."""
        if not vectors:
            return sa.select(*(column for column in chunks.c if column.name != "embedding"), sa.null().label("embedding"))
        if not self._vector_table:
            return sa.select(chunks)
        joined, stored = chunk_vectors.vector_select(self._connection, chunks)
        return sa.select(chunks, stored).select_from(joined)

    def replace(self, pmid: str, version: int, records: Sequence[ChunkRecord]) -> ReplaceResult:
        return self.replace_many([ChunkSet(pmid=pmid, version=version, chunks=records)])

    def replace_many(self, sets: Sequence[ChunkSet]) -> ReplaceResult:
        """Make each document's chunks exactly `set.chunks`, in a handful of statements per batch.

        Chunks whose text is unchanged keep their embedding; chunks whose indexed fields are
        unchanged keep their index flags too, so a version bump that only touched, say, the MeSH
        terms costs no re-embedding and no re-indexing.
        """
        _validate_sets(sets)
        if not sets:
            return ReplaceResult(removed_uuids=[], to_index_uuids=[], unchanged=0)
        pmids = sorted(chunk_set.pmid for chunk_set in sets)
        docs = self._documents(pmids)
        previous = self._previous_chunks(pmids)
        now = utc_now()

        removed: list[str] = []
        to_index: list[str] = []
        unchanged = 0
        inserts: list[dict[str, Any]] = []
        updates: list[dict[str, Any]] = []
        for chunk_set in sets:
            doc = docs.get(chunk_set.pmid)
            if doc is None:
                raise BioMcpError(
                    ErrorCode.NOT_FOUND, "chunks for a document that is not stored", {"pmid": chunk_set.pmid}
                )
            if doc.version != chunk_set.version:
                raise BioMcpError(
                    ErrorCode.INVARIANT_FAILURE,
                    "chunks are for a document version that is not the stored one",
                    {
                        "pmid": chunk_set.pmid,
                        "stored_version": doc.version,
                        "chunk_version": chunk_set.version,
                    },
                )
            old = previous.get(chunk_set.pmid, {})
            new_uuids = {chunk.uuid for chunk in chunk_set.chunks}
            removed.extend(sorted(set(old) - new_uuids))
            for chunk in chunk_set.chunks:
                values = {
                    "uuid": chunk.uuid,
                    "pmid": chunk_set.pmid,
                    "chunk_id": chunk.chunk_id,
                    "doc_version": chunk_set.version,
                    "section": chunk.section,
                    "text": chunk.text,
                    "n_tokens": chunk.n_tokens,
                    "position": chunk.position,
                    "year": doc.year,
                    "pub_types": list(doc.pub_types),
                    "quality_total": doc.quality_total,
                }
                before = old.get(chunk.uuid)
                if before is None:
                    inserts.append(
                        values | {"bm25_indexed": False, "vector_indexed": False, "updated_at": now}
                    )
                    to_index.append(chunk.uuid)
                    continue
                if all(before[name] == values[name] for name in values):
                    unchanged += 1
                    continue
                stale_index = any(before[name] != values[name] for name in _INDEXED_FIELDS)
                if stale_index:
                    to_index.append(chunk.uuid)
                updates.append(
                    {f"b_{name}": value for name, value in values.items()}
                    | {
                        "b_bm25_indexed": bool(before["bm25_indexed"]) and not stale_index,
                        "b_vector_indexed": bool(before["vector_indexed"]) and not stale_index,
                        "b_reset_embedding": before["text"] != chunk.text,
                        "b_updated_at": now,
                    }
                )

        # Deletes first: a new chunk may reuse the chunk_id of a removed one under the unique constraint.
        for batch in in_batches(removed):
            self._connection.execute(sa.delete(chunks).where(chunks.c.uuid.in_(batch)))
        if updates:
            self._connection.execute(self._update_statement(), updates)
            if self._vector_table:
                # Deleted chunks took their vectors with them (foreign key); updated ones may have
                # lost theirs (a new text) or changed the attributes a filtered search reads.
                chunk_vectors.refresh(self._connection, [row["b_uuid"] for row in updates])
        if inserts:
            self._connection.execute(sa.insert(chunks), inserts)
        change_id = ChangeLogRepository(self._connection).append(
            "chunks", [*removed, *to_index], [chunk_set.pmid for chunk_set in sets]
        )
        return ReplaceResult(
            removed_uuids=removed, to_index_uuids=to_index, unchanged=unchanged, change_id=change_id
        )

    @staticmethod
    def _update_statement() -> sa.Update:
        reset = sa.bindparam("b_reset_embedding", type_=sa.Boolean)
        names = (
            "chunk_id",
            "doc_version",
            "section",
            "text",
            "n_tokens",
            "position",
            "year",
            "pub_types",
            "quality_total",
            "bm25_indexed",
            "vector_indexed",
            "updated_at",
        )
        values: dict[str, Any] = {
            name: sa.bindparam(f"b_{name}", type_=chunks.c[name].type) for name in names
        }
        # Only a changed text invalidates the vector; the embedding column is never read here, so it
        # is kept or cleared in SQL rather than round-tripped through Python.
        values["embedding"] = sa.case((reset, sa.null()), else_=chunks.c.embedding)
        values["embed_model"] = sa.case((reset, sa.null()), else_=chunks.c.embed_model)
        return sa.update(chunks).where(chunks.c.uuid == sa.bindparam("b_uuid")).values(values)

    def _documents(self, pmids: Sequence[str]) -> dict[str, _DocumentFacts]:
        columns = (
            documents.c.pmid,
            documents.c.version,
            documents.c.year,
            documents.c.pub_types,
            documents.c.quality_total,
        )
        # Locked, so two replacements of one document's chunks serialise instead of colliding.
        return {
            row.pmid: _DocumentFacts(
                version=row.version, year=row.year, pub_types=list(row.pub_types), quality_total=row.quality_total
            )
            for row in lock_document_rows(self._connection, columns, pmids)
        }

    def _previous_chunks(self, pmids: Sequence[str]) -> dict[str, dict[str, dict[str, Any]]]:
        previous: dict[str, dict[str, dict[str, Any]]] = {}
        for batch in in_batches(pmids):
            query = sa.select(*_STATE_COLUMNS).where(chunks.c.pmid.in_(batch))
            for row in self._connection.execute(query).mappings():
                previous.setdefault(row["pmid"], {})[row["uuid"]] = dict(row) | {
                    "pub_types": list(row["pub_types"])
                }
        return previous

    def for_document(self, pmid: str) -> list[StoredChunk]:
        query = self._select(True).where(chunks.c.pmid == pmid).order_by(chunks.c.position, chunks.c.uuid)
        return [_stored_chunk(row) for row in self._connection.execute(query)]

    def get_many(self, uuids: Iterable[str], *, vectors: bool = True) -> dict[str, StoredChunk]:
        found: dict[str, StoredChunk] = {}
        for batch in in_batches(sorted(set(uuids))):
            for row in self._connection.execute(self._select(vectors).where(chunks.c.uuid.in_(batch))):
                found[row.uuid] = _stored_chunk(row)
        return found

    def existing_uuids(self, uuids: Iterable[str]) -> set[str]:
        """The subset of `uuids` still stored: what a derived index may keep after a crash."""
        found: set[str] = set()
        for batch in in_batches(sorted(set(uuids))):
            found.update(
                self._connection.execute(sa.select(chunks.c.uuid).where(chunks.c.uuid.in_(batch))).scalars()
            )
        return found

    def pending_embedding(self, model_id: str, limit: int) -> list[PendingChunk]:
        """Chunks without a vector from `model_id`, in a stable order."""
        query = (
            sa.select(chunks.c.uuid, chunks.c.pmid, chunks.c.text)
            .where(
                sa.or_(
                    sa.not_(self._embedded()),
                    chunks.c.embed_model.is_(None),
                    chunks.c.embed_model != model_id,
                )
            )
            .order_by(chunks.c.pmid, chunks.c.position, chunks.c.uuid)
            .limit(limit)
        )
        return [
            PendingChunk(uuid=row.uuid, pmid=row.pmid, text=row.text)
            for row in self._connection.execute(query)
        ]

    def set_embeddings(self, vectors: Mapping[str, VectorLike], model_id: str) -> EmbeddingWriteResult:
        """Store L2-normalised vectors from `model_id`; each chunk then awaits its vector index write.

        Every vector of a model has one dimension: a vector whose length differs from this call's
        others, or from the model's vectors already stored, is an INVARIANT_FAILURE.
        """
        if not model_id:
            raise BioMcpError(ErrorCode.VALIDATION, "model_id is required")
        encoded = {uuid: _vector_bytes(uuid, vector) for uuid, vector in vectors.items()}
        dims = {dim for dim, _ in encoded.values()}
        if self._vector_dim is not None:
            dims.add(self._vector_dim)
        else:
            stored_bytes = self._connection.execute(
                sa.select(sa.func.length(chunks.c.embedding))
                .where(chunks.c.embed_model == model_id, chunks.c.embedding.is_not(None))
                .limit(1)
            ).scalar()
            if stored_bytes is not None:
                dims.add(int(stored_bytes) // VECTOR_DTYPE.itemsize)
        if len(dims) > 1:
            raise BioMcpError(
                ErrorCode.INVARIANT_FAILURE,
                f"embeddings of model {model_id!r} must all have one dimension",
                {"dimensions": sorted(dims)},
            )
        present = self.existing_uuids(encoded)
        missing = sorted(set(encoded) - present)
        now = utc_now()
        rows = [
            {
                "b_uuid": uuid,
                # The pgvector table holds the vector instead (written below).
                "b_embedding": None if self._vector_table else encoded[uuid][1],
                "b_model": model_id,
                "b_updated_at": now,
            }
            for uuid in sorted(present)
        ]
        if rows:
            statement = (
                sa.update(chunks)
                .where(chunks.c.uuid == sa.bindparam("b_uuid"))
                .values(
                    embedding=sa.bindparam("b_embedding"),
                    embed_model=sa.bindparam("b_model"),
                    vector_indexed=False,
                    updated_at=sa.bindparam("b_updated_at"),
                )
            )
            self._connection.execute(statement, rows)
            if self._vector_table:
                chunk_vectors.upsert(self._connection, {uuid: vectors[uuid] for uuid in present})
        change_id = ChangeLogRepository(self._connection).append("vectors", present)
        return EmbeddingWriteResult(written=len(rows), missing=missing, change_id=change_id)

    def move_blobs_to_vector_table(self, uuids: Sequence[str]) -> int:
        """Moves these chunks' blob vectors into the pgvector table (a store that had vectors before
        the table existed); returns how many moved. Their index flags stay: the vector is the same."""
        if not self._vector_table:
            raise BioMcpError(ErrorCode.INVARIANT_FAILURE, "this store has no pgvector table")
        moved = 0
        for batch in in_batches(sorted(set(uuids))):
            rows = self._connection.execute(
                sa.select(chunks.c.uuid, chunks.c.embedding).where(
                    chunks.c.uuid.in_(batch), chunks.c.embedding.is_not(None)
                )
            ).all()
            blobs = {row.uuid: np.frombuffer(row.embedding, dtype=VECTOR_DTYPE) for row in rows}
            chunk_vectors.upsert(self._connection, blobs)
            self._connection.execute(
                sa.update(chunks).where(chunks.c.uuid.in_(list(blobs))).values(embedding=None)
            )
            moved += len(blobs)
        return moved

    def mark_indexed(
        self, uuids: Iterable[str], *, bm25: bool | None = None, vector: bool | None = None
    ) -> None:
        """Record that chunks were written to (True) or dropped from (False) a derived index.

        `vector=True` applies only to chunks that have an embedding: nothing else can be in the
        vector index.
        """
        if bm25 is None and vector is None:
            raise BioMcpError(ErrorCode.VALIDATION, "mark_indexed needs bm25=, vector= or both")
        wanted = sorted(set(uuids))
        now = utc_now()
        for batch in in_batches(wanted):
            if bm25 is not None:
                self._connection.execute(
                    sa.update(chunks)
                    .where(chunks.c.uuid.in_(batch))
                    .values(bm25_indexed=bm25, updated_at=now)
                )
            if vector is not None:
                condition: sa.ColumnElement[bool] = chunks.c.uuid.in_(batch)
                if vector:
                    condition = sa.and_(condition, self._embedded())
                self._connection.execute(
                    sa.update(chunks).where(condition).values(vector_indexed=vector, updated_at=now)
                )

    def iterate(self, batch_size: int = 1000, *, vectors: bool = True) -> Iterator[list[StoredChunk]]:
        """Every chunk, in pages ordered by uuid (keyset paging, so pages stay cheap at any depth)."""
        after: str | None = None
        while True:
            query = self._select(vectors).order_by(chunks.c.uuid).limit(batch_size)
            if after is not None:
                query = query.where(chunks.c.uuid > after)
            page = [_stored_chunk(row) for row in self._connection.execute(query)]
            if not page:
                return
            yield page
            after = page[-1].uuid

    def needing_index(
        self, limit: int | None = None, *, after: str | None = None, vectors: bool = True
    ) -> list[StoredChunk]:
        """Chunks missing from the BM25 index, or embedded but missing from the vector index, by
        UUID (those after `after`: pages stay cheap at any depth)."""
        query = (
            self._select(vectors)
            .where(
                sa.or_(
                    chunks.c.bm25_indexed.is_(False),
                    sa.and_(self._embedded(), chunks.c.vector_indexed.is_(False)),
                )
            )
            .order_by(chunks.c.uuid)
        )
        if after is not None:
            query = query.where(chunks.c.uuid > after)
        if limit is not None:
            query = query.limit(limit)
        return [_stored_chunk(row) for row in self._connection.execute(query)]

    def reset_embeddings_for_model_switch(self, new_model_id: str) -> int:
        """Drop every vector not made by `new_model_id`; returns how many chunks now need embedding."""
        stale = sa.and_(
            self._embedded(),
            sa.or_(chunks.c.embed_model.is_(None), chunks.c.embed_model != new_model_id),
        )
        result = self._connection.execute(
            sa.update(chunks)
            .where(stale)
            .values(embedding=None, embed_model=None, vector_indexed=False, updated_at=utc_now())
        )
        if result.rowcount and self._vector_table:
            chunk_vectors.delete_unembedded(self._connection)
        if result.rowcount:
            # Every vector went: other processes' indexes rebuild rather than read each chunk again.
            ChangeLogRepository(self._connection).append("rebuild")
        return int(result.rowcount)

    def state_counts(self, model_id: str | None = None) -> ChunkStateCounts:
        """Counts by state; `embedded` and `pending_embedding` refer to `model_id` when given."""
        embedded = self._embedded()
        if model_id is not None:
            embedded = sa.and_(embedded, chunks.c.embed_model == model_id)

        def total_where(condition: sa.ColumnElement[bool]) -> sa.ColumnElement[int]:
            return sa.func.coalesce(sa.func.sum(sa.case((condition, 1), else_=0)), 0)

        row = self._connection.execute(
            sa.select(
                sa.func.count().label("total"),
                total_where(embedded).label("embedded"),
                total_where(chunks.c.bm25_indexed.is_(True)).label("bm25"),
                total_where(chunks.c.vector_indexed.is_(True)).label("vector"),
            ).select_from(chunks)
        ).one()
        return ChunkStateCounts(
            total=int(row.total),
            embedded=int(row.embedded),
            pending_embedding=int(row.total) - int(row.embedded),
            bm25_indexed=int(row.bm25),
            vector_indexed=int(row.vector),
        )
