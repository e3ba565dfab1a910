"""Chunk vectors inside PostgreSQL (pgvector): the `chunk_vectors` table beside `chunks`.

When a PostgreSQL store has the pgvector extension, every chunk's current vector lives in
`chunk_vectors` (one row per embedded chunk, `halfvec(dim)`, an HNSW index with cosine distance),
so replicas search the store itself and hold no private copy. It is the only copy: the chunk row
keeps `embed_model` (which model embedded it) and no blob, and readers of `ChunkRepository` get the
vector from here (`vector_select`). The table is written in the same transaction as the chunk rows
(`ChunkRepository`): an embedding write upserts the row, a changed text or a model switch deletes
it, and deleting a chunk deletes it through the foreign key, so a killed transaction leaves no
vector without its chunk and none missing.

A side table rather than a column of `chunks`: every chunk row is rewritten by its index flags
(`mark_indexed`) several times in its life, and a row with a vector in an HNSW-indexed column would
enter the graph again at each rewrite (wide chunk rows rarely get HOT updates). The filter columns
(year, publication types) and the quality a search reports are copied from the chunk, so a
filtered search reads this table alone.

halfvec: half the size of `vector` (772 bytes a row at 384 dimensions) and graphs up to 4,000
dimensions; its rounding (about 1e-3 relative) is far below the differences between neighbours,
and is all a reader of a stored vector gets back on such a store.
Filtered searches that keep few rows (`EXACT_MAX_ROWS`) are answered exactly from those rows; the
others use pgvector 0.8's iterative index scans (`strict_order`, so hits come in distance order);
a scan that still comes back short (more than `hnsw.max_scan_tuples` rows filtered out) is
answered again exactly, so a filter never returns fewer hits than rows match.

pgvector's types and operators are named with the extension's schema, so a store whose
`search_path` does not include that schema (a store in its own schema of a shared database) works.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.store.database import in_batches

TABLE = "chunk_vectors"
INDEX = "chunk_vectors_hnsw"
# The graph: pgvector's m, twice its default ef_construction. At 1,000,000 synthetic chunks the
# default (64) built a graph no walk could read well: recall@10 against exact search 0.82 at
# ef_search 200 and 0.89 even at 1,000; built with 128 (about a third longer to build) it found
# 0.95 at 200 and 0.98 at 400 (bench/results/pgvector_scale_1m.jsonl).
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 128
# The graph's candidate list: at least this, and EF_PER_HIT per hit asked for. At 1,000,000 chunks
# 400 found 0.983 of the exact top 10 and 0.992 of the top 100 (200: 0.95 and 0.958); at 500,000
# (ef_construction 64) 200 found 0.97.
EF_SEARCH = 400
EF_PER_HIT = 2
# A filter makes the walk skip the rows it excludes, and the graph's candidate list (ef_search) then
# holds fewer of the rows it keeps: widened by this factor, as the embedded HNSW widens its walk
# (`search.ann`). On the real records with hash vectors, a two-publication-type filter at depth 100
# found 87 of the exact 100 at ef_search 100 and all 100 at 400.
FILTERED_EF_FACTOR = 4
# A filter the planner expects to keep at most this many rows is answered exactly from the kept rows
# (bitmap scans of the year and publication-type indexes) instead of walking the graph past all the
# others: pgvector's iterative scan may read up to `hnsw.max_scan_tuples` (20,000 by default) tuples
# before it gives up, so an exact scan of as many kept rows costs about what the walk may cost, and
# misses nothing. At 100,000 synthetic chunks a filter keeping about 2% took the walk to a hybrid
# P95 of 189 ms against the embedded index's 33 ms, and one keeping 20% found 0.735 of the exact
# top 100 (the walk stopped at max_scan_tuples); a row budget rather than a share of the table
# keeps the exact path's cost flat as the corpus grows.
EXACT_MAX_ROWS = 20_000
# pgvector 0.8's iterative index scan; hits are re-sorted here either way.
ITERATIVE_SCAN = "strict_order"
# halfvec's limit for an HNSW index.
MAX_DIM = 4000


@dataclass(frozen=True, slots=True)
class VectorFilter:
    """A year range (a chunk without a year never matches) and publication types (any of them)."""

    year_range: tuple[int | None, int | None] | None = None
    pub_types: tuple[str, ...] = ()


def vector_text(vector: np.ndarray | Sequence[float]) -> str:
    """pgvector's text form; float32 precision is more than halfvec keeps."""
    return "[" + ",".join(f"{value:.7g}" for value in np.asarray(vector, dtype=np.float32).tolist()) + "]"


def _pgvector(connection: Connection) -> str:
    """The extension's schema as a qualifier ('"public".'), looked up once per connection."""
    key = "bio_mcp_pgvector_schema"
    if key not in connection.info:
        schema = connection.execute(
            sa.text(
                "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
                "WHERE e.extname = 'vector'"
            )
        ).scalar_one()
        connection.info[key] = '"' + schema.replace('"', '""') + '".'
    return str(connection.info[key])


def _distance(connection: Connection, parameter: str) -> str:
    """Cosine distance of `embedding` to a bound parameter in pgvector's text form."""
    schema = _pgvector(connection)
    return f"embedding OPERATOR({schema}<=>) CAST(:{parameter} AS {schema}halfvec)"


def extension_available(connection: Connection) -> bool:
    return bool(
        connection.execute(
            sa.text("SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')")
        ).scalar()
    )


def table_dimension(connection: Connection) -> int | None:
    """The dimension of the table's vectors, or None when there is no table."""
    return connection.execute(
        sa.text(
            "SELECT a.atttypmod FROM pg_attribute a WHERE a.attrelid = to_regclass(:table) "
            "AND a.attname = 'embedding' AND NOT a.attisdropped"
        ),
        {"table": TABLE},
    ).scalar()


def ensure_table(connection: Connection, dim: int) -> bool:
    """Creates the extension, table and graph for vectors of `dim` dimensions; a table of another
    dimension (an earlier model) is dropped first. Returns whether the table was (re)created."""
    if not 1 <= dim <= MAX_DIM:
        raise ValueError(f"pgvector indexes halfvec of 1 to {MAX_DIM} dimensions, not {dim}")
    connection.execute(sa.text("CREATE EXTENSION IF NOT EXISTS vector"))
    connection.info.pop("bio_mcp_pgvector_schema", None)
    schema = _pgvector(connection)
    current = table_dimension(connection)
    if current == dim:
        _filter_indexes(connection)
        return False
    if current is not None:
        connection.execute(sa.text(f"DROP TABLE {TABLE}"))
    connection.execute(
        sa.text(
            f"CREATE TABLE {TABLE} ("
            " uuid varchar(36) PRIMARY KEY REFERENCES chunks(uuid) ON DELETE CASCADE,"
            " pmid varchar(16) NOT NULL,"
            " year integer,"
            " pub_types jsonb NOT NULL,"
            " quality_total integer NOT NULL,"
            f" embedding {schema}halfvec({dim}) NOT NULL)"
        )
    )
    connection.execute(
        sa.text(
            f"CREATE INDEX {INDEX} ON {TABLE} USING hnsw (embedding {schema}halfvec_cosine_ops) "
            f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})"
        )
    )
    _filter_indexes(connection)
    return True


def _filter_indexes(connection: Connection) -> None:
    """For the exact path of selective filters: bitmap scans of the kept rows, not the whole table."""
    connection.execute(sa.text(f"CREATE INDEX IF NOT EXISTS {TABLE}_year ON {TABLE} (year)"))
    connection.execute(
        sa.text(f"CREATE INDEX IF NOT EXISTS {TABLE}_pub_types ON {TABLE} USING gin (pub_types)")
    )


# ---- writes (inside the chunk transaction) ------------------------------------------------------


def upsert(connection: Connection, vectors: Mapping[str, np.ndarray | Sequence[float]]) -> None:
    """Writes these chunks' vectors, with their filter attributes copied from `chunks`."""
    rows = [{"uuid": uuid, "embedding": vector_text(vector)} for uuid, vector in sorted(vectors.items())]
    if not rows:
        return
    connection.execute(
        sa.text(
            f"INSERT INTO {TABLE} (uuid, pmid, year, pub_types, quality_total, embedding) "
            "SELECT c.uuid, c.pmid, c.year, c.pub_types, c.quality_total, "
            f"CAST(:embedding AS {_pgvector(connection)}halfvec) "
            "FROM chunks c WHERE c.uuid = :uuid "
            "ON CONFLICT (uuid) DO UPDATE SET pmid = excluded.pmid, year = excluded.year, "
            "pub_types = excluded.pub_types, quality_total = excluded.quality_total, embedding = excluded.embedding"
        ),
        rows,
    )


def refresh(connection: Connection, uuids: Iterable[str]) -> None:
    """Copies the chunks' attributes again and drops the vectors their chunk no longer has (a chunk
    without `embed_model`: a new text)."""
    wanted = sorted(set(uuids))
    for batch in in_batches(wanted):
        connection.execute(
            sa.text(
                f"DELETE FROM {TABLE} v USING chunks c WHERE v.uuid = c.uuid AND c.embed_model IS NULL "
                "AND v.uuid = ANY(:uuids)"
            ),
            {"uuids": list(batch)},
        )
        connection.execute(
            sa.text(
                f"UPDATE {TABLE} v SET pmid = c.pmid, year = c.year, pub_types = c.pub_types, "
                "quality_total = c.quality_total FROM chunks c WHERE v.uuid = c.uuid AND v.uuid = ANY(:uuids) "
                "AND (v.pmid, v.year, v.pub_types, v.quality_total) "
                "IS DISTINCT FROM (c.pmid, c.year, c.pub_types, c.quality_total)"
            ),
            {"uuids": list(batch)},
        )


def delete_unembedded(connection: Connection) -> None:
    """Drops every vector whose chunk lost its embedding (a model switch)."""
    connection.execute(
        sa.text(f"DELETE FROM {TABLE} v USING chunks c WHERE v.uuid = c.uuid AND c.embed_model IS NULL")
    )


def blob_uuids(connection: Connection, model_id: str, limit: int) -> list[str]:
    """Chunks embedded by `model_id` that still hold their vector as a blob on the chunk row (written
    before the table existed, or by a process that opened the store before it did): to be moved here."""
    return list(
        connection.execute(
            sa.text(
                "SELECT c.uuid FROM chunks c WHERE c.embed_model = :model AND c.embedding IS NOT NULL "
                "ORDER BY c.uuid LIMIT :limit"
            ),
            {"model": model_id, "limit": limit},
        ).scalars()
    )


def vector_select(connection: Connection, chunks: sa.Table) -> tuple[sa.FromClause, sa.ColumnElement[Any]]:
    """`chunks` joined to this table, and a column of each chunk's vector in halfvec's binary form
    (NULL without one), for `decode`: binary, so a page of vectors is read without parsing text."""
    table = sa.table(TABLE, sa.column("uuid"), sa.column("embedding"))
    joined = chunks.outerjoin(table, table.c.uuid == chunks.c.uuid)
    column = sa.literal_column(f"{_pgvector(connection)}halfvec_send({TABLE}.embedding)", sa.LargeBinary)
    return joined, column.label("stored_vector")


def decode(payload: bytes) -> np.ndarray:
    """A float32 vector from halfvec's binary form (int16 dimension, int16 unused, big-endian
    halves), scaled back to unit length: halfvec's rounding leaves it about 1e-4 off."""
    vector = np.frombuffer(payload, dtype=">f2", offset=4).astype(np.float32)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


# ---- reads --------------------------------------------------------------------------------------


def _filter_sql(where: VectorFilter | None) -> tuple[str, dict[str, Any]]:
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if where is not None and where.year_range is not None:
        low, high = where.year_range
        clauses.append("year IS NOT NULL")
        if low is not None:
            clauses.append("year >= :low")
            params["low"] = low
        if high is not None:
            clauses.append("year <= :high")
            params["high"] = high
    if where is not None and where.pub_types:
        # The operator, not jsonb_exists_any(): only the operator can use the GIN index.
        clauses.append("pub_types ?| CAST(:pub_types AS text[])")
        params["pub_types"] = list(where.pub_types)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def search(
    connection: Connection,
    query: np.ndarray,
    limit: int,
    where: VectorFilter | None = None,
    *,
    exact: bool = False,
    ef_search: int = EF_SEARCH,
) -> list[tuple[str, str, float]]:
    """Up to `limit` (uuid, pmid, cosine) nearest `query` among the rows `where` keeps, best first
    (ties by UUID). Through the HNSW graph unless `exact`; a graph walk that comes back short of
    `limit` is answered again exactly."""
    if limit < 1:
        return []
    condition, params = _filter_sql(where)
    params |= {"q": vector_text(query), "limit": limit}
    sql = sa.text(
        f"SELECT uuid, pmid, 1 - ({_distance(connection, 'q')}) AS sim FROM {TABLE}{condition} "
        f"ORDER BY {_distance(connection, 'q')} LIMIT :limit"
    )
    if not exact and condition and _kept_rows(connection, condition, params) <= EXACT_MAX_ROWS:
        exact = True
    # SET LOCAL: scoped to the caller's transaction, so pooled connections keep their defaults.
    if exact:
        connection.execute(sa.text("SET LOCAL enable_indexscan = off"))
    else:
        ef = max(ef_search, EF_PER_HIT * limit) * (FILTERED_EF_FACTOR if condition else 1)
        # 1,000 is pgvector's ceiling for ef_search.
        connection.execute(sa.text(f"SET LOCAL hnsw.ef_search = {min(1000, int(ef))}"))
        connection.execute(sa.text(f"SET LOCAL hnsw.iterative_scan = {ITERATIVE_SCAN}"))
    rows = [(row.uuid, row.pmid, float(row.sim)) for row in connection.execute(sql, params)]
    if not exact and len(rows) < limit:
        return search(connection, query, limit, where, exact=True)
    if exact:
        connection.execute(sa.text("RESET enable_indexscan"))
    rows.sort(key=lambda row: (-row[2], row[0]))
    return rows


def _kept_rows(connection: Connection, condition: str, params: dict[str, Any]) -> float:
    """The planner's estimate of the rows a filter keeps (statistics from ANALYZE)."""
    plan = connection.execute(
        sa.text(f"EXPLAIN (FORMAT JSON) SELECT 1 FROM {TABLE}{condition}"), params
    ).scalar_one()
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return float(plan[0]["Plan"]["Plan Rows"])


def similarities(connection: Connection, query: np.ndarray, uuids: Sequence[str]) -> dict[str, float]:
    found: dict[str, float] = {}
    text = vector_text(query)
    for batch in in_batches(sorted(set(uuids))):
        rows = connection.execute(
            sa.text(
                f"SELECT uuid, 1 - ({_distance(connection, 'q')}) AS sim FROM {TABLE} WHERE uuid = ANY(:uuids)"
            ),
            {"q": text, "uuids": list(batch)},
        )
        found.update((row.uuid, float(row.sim)) for row in rows)
    return found


def qualities(connection: Connection, uuids: Sequence[str]) -> dict[str, int]:
    """The quality total of each of these chunks still stored (from `chunks`: a chunk may have no vector)."""
    found: dict[str, int] = {}
    for batch in in_batches(sorted(set(uuids))):
        rows = connection.execute(
            sa.text("SELECT uuid, quality_total FROM chunks WHERE uuid = ANY(:uuids)"), {"uuids": list(batch)}
        )
        found.update((row.uuid, int(row.quality_total)) for row in rows)
    return found


def count(connection: Connection) -> int:
    return int(connection.execute(sa.text(f"SELECT count(*) FROM {TABLE}")).scalar_one())


def any_vector(connection: Connection) -> bool:
    return bool(connection.execute(sa.text(f"SELECT EXISTS (SELECT 1 FROM {TABLE})")).scalar())


def embedded_uuids(connection: Connection) -> set[str]:
    return set(connection.execute(sa.text(f"SELECT uuid FROM {TABLE}")).scalars())
