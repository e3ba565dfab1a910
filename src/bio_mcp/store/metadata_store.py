"""The metadata store: one database (SQLite file or PostgreSQL), its schema, and units of work.

store = open_metadata_store(settings)
with store.sync_lock(query_key):
    with store.transaction() as tx:            # documents and their chunks commit together
        result = tx.documents.upsert(records)
        tx.chunks.replace_many(chunk_sets)
    with store.transaction() as tx:            # the watermark moves only after that commit
        tx.checkpoints.advance(query_key, result.max_edat_seen, job_id)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store import chunk_vectors
from bio_mcp.store.analyst_checkpoints import AnalystCheckpointRepository
from bio_mcp.store.changelog import ChangeListener, ChangeLogRepository
from bio_mcp.store.checkpoints import CheckpointRepository
from bio_mcp.store.chunks import ChunkRepository
from bio_mcp.store.database import READ_ONLY_OPTION, Dialect, create_store_engine, store_error
from bio_mcp.store.diagnostics import DiagnosticsRepository
from bio_mcp.store.documents import DocumentRepository
from bio_mcp.store.ingest import IngestedFileRepository, IngestJobRepository
from bio_mcp.store.jobs import SyncJobRepository
from bio_mcp.store.migrations import MIGRATIONS
from bio_mcp.store.schema import RETIRED_INDEXES, SCHEMA_VERSION, metadata, schema_version, utc_now
from bio_mcp.store.scratch import ScratchRepository
from bio_mcp.store.sync_lock import advisory_key, file_sync_lock, postgres_sync_lock
from bio_mcp.store.upstream_cache import UpstreamCache

# Serialises schema creation when several processes start against one PostgreSQL at once.
_SCHEMA_LOCK_KEY = advisory_key("bio-mcp:schema")
# Vectors moved per transaction from chunk rows into the pgvector table.
_VECTOR_COPY_BATCH = 1000


@dataclass(frozen=True)
class StoreTransaction:
    """Repositories bound to one transaction: all of it commits, or none of it."""

    connection: Connection
    documents: DocumentRepository
    chunks: ChunkRepository
    checkpoints: CheckpointRepository
    jobs: SyncJobRepository
    upstream: UpstreamCache
    analyst_checkpoints: AnalystCheckpointRepository
    scratch: ScratchRepository
    changes: ChangeLogRepository
    diagnostics: DiagnosticsRepository
    ingested_files: IngestedFileRepository
    ingest_jobs: IngestJobRepository

    @classmethod
    def bind(cls, connection: Connection, vector_dim: int | None = None) -> StoreTransaction:
        return cls(
            connection=connection,
            documents=DocumentRepository(connection),
            chunks=ChunkRepository(connection, vector_dim),
            checkpoints=CheckpointRepository(connection),
            jobs=SyncJobRepository(connection),
            upstream=UpstreamCache(connection),
            analyst_checkpoints=AnalystCheckpointRepository(connection),
            scratch=ScratchRepository(connection),
            changes=ChangeLogRepository(connection),
            diagnostics=DiagnosticsRepository(connection),
            ingested_files=IngestedFileRepository(connection),
            ingest_jobs=IngestJobRepository(connection),
        )


class MetadataStore:
    def __init__(self, url: str, *, lock_dir: Path | None = None, busy_timeout_ms: int = 30_000) -> None:
        self._engine = create_store_engine(url, busy_timeout_ms=busy_timeout_ms)
        self.dialect: Dialect = "postgresql" if self._engine.dialect.name == "postgresql" else "sqlite"
        # Only SQLite stores use lock files; by default they sit beside the database file.
        self._lock_dir = lock_dir
        # The dimension of the pgvector table `chunk_vectors` (None: vectors live outside the store).
        self.vector_dim: int | None = None

    @classmethod
    def open(cls, url: str, *, lock_dir: Path | None = None, busy_timeout_ms: int = 30_000) -> MetadataStore:
        """A store whose schema exists (created on first use) and matches this code's version."""
        store = cls(url, lock_dir=lock_dir, busy_timeout_ms=busy_timeout_ms)
        try:
            store.create_schema()
        except BaseException:
            store.close()
            raise
        return store

    @property
    def url(self) -> str:
        """The database URL with any password hidden."""
        return self._engine.url.render_as_string(hide_password=True)

    def create_schema(self) -> int:
        """Create missing tables and record the schema version; idempotent, safe to race."""
        with self._begin("creating the schema", read_only=False) as connection:
            if self.dialect == "postgresql":
                connection.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _SCHEMA_LOCK_KEY})
            metadata.create_all(connection)
            for name in RETIRED_INDEXES:
                connection.execute(sa.text(f"DROP INDEX IF EXISTS {name}"))
            stored = connection.execute(sa.select(schema_version.c.version)).scalar_one_or_none()
            if stored is None:
                connection.execute(
                    sa.insert(schema_version).values(id=1, version=SCHEMA_VERSION, updated_at=utc_now())
                )
                return SCHEMA_VERSION
            if self.dialect == "postgresql":
                # A table some process created: every writer keeps it in step, whatever its backend.
                self.vector_dim = chunk_vectors.table_dimension(connection)
            if stored < SCHEMA_VERSION and all(version in MIGRATIONS for version in range(stored, SCHEMA_VERSION)):
                for version in range(stored, SCHEMA_VERSION):
                    MIGRATIONS[version](connection)
                connection.execute(sa.update(schema_version).values(version=SCHEMA_VERSION, updated_at=utc_now()))
                return SCHEMA_VERSION
        if stored != SCHEMA_VERSION:
            raise BioMcpError(
                ErrorCode.STORE,
                f"the database has schema version {stored} but this bio-mcp uses {SCHEMA_VERSION}; "
                "migrate the database or run the matching bio-mcp version",
                {"stored_version": stored, "code_version": SCHEMA_VERSION, "url": self.url},
            )
        return int(stored)

    def pgvector_available(self) -> bool:
        """Whether this is PostgreSQL with the pgvector extension installed on the server."""
        if self.dialect != "postgresql":
            return False
        with self._begin("looking for pgvector", read_only=True) as connection:
            return chunk_vectors.extension_available(connection)

    def enable_vector_table(self, dim: int, model_id: str) -> int:
        """Keeps chunk vectors of `dim` dimensions in PostgreSQL (`store.chunk_vectors`) from now
        on, creating the table (and the extension) when missing; moves in the vectors of `model_id`
        the chunk rows still hold as blobs, so each is stored once. Returns how many were moved."""
        with self._begin("creating the pgvector table", read_only=False) as connection:
            connection.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _SCHEMA_LOCK_KEY})
            chunk_vectors.ensure_table(connection, dim)
        self.vector_dim = dim
        moved = 0
        while True:
            with self.transaction() as tx:
                uuids = chunk_vectors.blob_uuids(tx.connection, model_id, _VECTOR_COPY_BATCH)
                if not uuids:
                    return moved
                moved += tx.chunks.move_blobs_to_vector_table(uuids)

    @contextmanager
    def transaction(self) -> Iterator[StoreTransaction]:
        """A read-write unit of work; on SQLite it holds the write lock from its first statement."""
        with self._begin("writing", read_only=False) as connection:
            yield StoreTransaction.bind(connection, self.vector_dim)

    @contextmanager
    def read(self) -> Iterator[StoreTransaction]:
        """A unit of work for reads only; on SQLite it does not block writers."""
        with self._begin("reading", read_only=True) as connection:
            yield StoreTransaction.bind(connection, self.vector_dim)

    @contextmanager
    def snapshot(self) -> Iterator[StoreTransaction]:
        """Reads that all see one committed state, however long they take, without blocking writers.

        A SQLite read transaction is one already (WAL); PostgreSQL's default READ COMMITTED gives each
        statement its own snapshot, so this one runs at REPEATABLE READ. While it lasts, SQLite cannot
        checkpoint the WAL past it (the file grows) and PostgreSQL's vacuum keeps the rows it may see."""
        with self._begin("reading a snapshot", read_only=True, repeatable=True) as connection:
            yield StoreTransaction.bind(connection, self.vector_dim)

    def sync_lock(self, query_key: str, timeout_s: float = 60.0) -> AbstractContextManager[None]:
        """Hold the lock of `query_key` so only one sync of it runs at once, in any process.

        Waits up to `timeout_s` (0: do not wait), then raises BioMcpError(STORE).
        """
        if self.dialect == "postgresql":
            return postgres_sync_lock(self._engine, query_key, timeout_s)
        lock_dir = self._lock_dir or Path(str(self._engine.url.database)).resolve().parent / "locks"
        return file_sync_lock(lock_dir, query_key, timeout_s)

    def change_listener(self) -> ChangeListener | None:
        """A listener woken by every change-log commit (PostgreSQL); None on SQLite, which polls."""
        if self.dialect != "postgresql":
            return None
        import psycopg

        try:
            connection = psycopg.connect(self._engine.url.set(drivername="postgresql").render_as_string(hide_password=False))
            return ChangeListener(connection)
        except psycopg.Error as exc:
            raise BioMcpError(
                ErrorCode.STORE, f"cannot listen for corpus changes: {exc}".splitlines()[0], {"database": self.url}
            ) from exc

    def close(self) -> None:
        self._engine.dispose()

    @contextmanager
    def _begin(self, action: str, *, read_only: bool, repeatable: bool = False) -> Iterator[Connection]:
        try:
            with self._engine.connect() as connection:
                if read_only:
                    connection.execution_options(**{READ_ONLY_OPTION: True})
                if repeatable and self.dialect == "postgresql":
                    # Reset when the connection returns to the pool.
                    connection.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
                with connection.begin():
                    yield connection
        except SQLAlchemyError as exc:
            raise store_error(exc, action, database=self.url) from exc


def open_metadata_store(settings: Settings) -> MetadataStore:
    """The store configured by DATABASE_URL, or the SQLite file in BIO_MCP_HOME; schema ensured."""
    try:
        settings.home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BioMcpError(
            ErrorCode.STORE,
            f"cannot create BIO_MCP_HOME {settings.home}: {exc.strerror}",
            {"home": str(settings.home)},
        ) from exc
    return MetadataStore.open(settings.sqlalchemy_url, lock_dir=settings.home / "locks")
