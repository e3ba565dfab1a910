"""Engines for the metadata store (SQLite file by default, PostgreSQL via psycopg 3) and their errors.

psycopg is the `postgres` extra: the default install runs on SQLite without it.

Every database failure leaves this package as `BioMcpError(STORE)` with a one-line reason: the SQL
text and bound parameters SQLAlchemy puts in its own messages never reach a client.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Sequence
from typing import Literal, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError

from bio_mcp.errors import BioMcpError, ErrorCode

Dialect = Literal["sqlite", "postgresql"]
UpsertInsert = postgresql.Insert | sqlite.Insert

# Reads that must not take SQLite's write lock ask for a deferred BEGIN with this execution option.
READ_ONLY_OPTION = "bio_mcp_read_only"

POSTGRES_EXTRA_HINT = "pip install 'bio-mcp[postgres]'"

# Bound parameters per statement: far below SQLite's 32766 and PostgreSQL's 65535 limits.
IN_CLAUSE_BATCH = 500
# SQLite's page cache per connection, KiB (its default is 2 MiB). A graph write at a million
# sections dirties pages all over the edge indexes; with 2 MiB they are spilled and read back many
# times per transaction (building 60,000 sections: 7.4 GB written and 10.3 GB read for a 392 MB
# file, against 3.3 and 2.0 GB with 256 MiB). The cache only grows as pages are used.
SQLITE_CACHE_KIB = 262_144

_T = TypeVar("_T")


def in_batches(items: Sequence[_T], size: int = IN_CLAUSE_BATCH) -> Iterator[Sequence[_T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def normalise_url(url: str) -> str:
    # psycopg 3 is the PostgreSQL driver the `postgres` extra installs; a bare postgresql:// URL
    # would make SQLAlchemy look for psycopg2.
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def create_store_engine(url: str, *, busy_timeout_ms: int = 30_000) -> Engine:
    """An engine for a SQLite file or a PostgreSQL database; anything else is a VALIDATION error."""
    try:
        parsed = sa.make_url(normalise_url(url))
    except ArgumentError:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            "DATABASE_URL is not a valid database URL",
            {"expected": "sqlite:///FILE or postgresql://..."},
        ) from None
    shown = parsed.render_as_string(hide_password=True)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            raise BioMcpError(
                ErrorCode.VALIDATION,
                "the metadata store needs a SQLite file (an in-memory database is private to one connection)",
                {"url": shown},
            )
    elif backend != "postgresql":
        raise BioMcpError(
            ErrorCode.VALIDATION,
            f"unsupported database {backend!r}: use SQLite or PostgreSQL",
            {"url": shown},
        )
    try:
        if backend == "sqlite":
            engine = sa.create_engine(parsed)
            _configure_sqlite(engine, busy_timeout_ms)
        else:
            engine = sa.create_engine(parsed, pool_pre_ping=True)
    except ImportError as exc:
        driver = parsed.get_driver_name()
        message = (
            f"PostgreSQL needs the psycopg driver, which the default install leaves out: {POSTGRES_EXTRA_HINT}"
            if driver == "psycopg"
            else f"the database driver {driver!r} is not installed; use postgresql+psycopg://"
        )
        raise BioMcpError(ErrorCode.VALIDATION, message, {"url": shown, "missing": exc.name}) from None
    except SQLAlchemyError as exc:
        raise BioMcpError(
            ErrorCode.VALIDATION, f"cannot use this database URL: {exc}", {"url": shown}
        ) from None
    return engine


def _switch_to_wal(cursor: sqlite3.Cursor, busy_timeout_ms: int) -> None:
    # Changing the journal mode needs an exclusive lock and ignores busy_timeout, so several first
    # connections to a new file racing here would fail with "database is locked": retry until one
    # of them has switched it (the mode is persistent) or the busy timeout has passed.
    deadline = time.monotonic() + busy_timeout_ms / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: object, _record: object) -> None:
        # The sqlite3 module's own implicit transactions start only at the first write, so a
        # read-then-write would race other writers; SQLAlchemy issues BEGIN itself instead (below).
        dbapi_connection.isolation_level = None  # type: ignore[attr-defined]
        cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            _switch_to_wal(cursor, busy_timeout_ms)
        # NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the
        # last commits, which a re-sync recovers.
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute(f"PRAGMA cache_size = -{SQLITE_CACHE_KIB}")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        # IMMEDIATE takes the write lock up front, so two writers queue on busy_timeout instead of
        # both reading the same state and one failing when it tries to write.
        read_only = connection.get_execution_options().get(READ_ONLY_OPTION, False)
        connection.exec_driver_sql("BEGIN DEFERRED" if read_only else "BEGIN IMMEDIATE")


def analyze_after_bulk_load(connection: Connection, tables: Sequence[str]) -> None:
    """Refresh PostgreSQL's statistics of tables a bulk write has just filled (its own advice after a
    bulk load). A pooled connection's statements are prepared (psycopg, after five runs) and keep a
    generic plan chosen while the tables were empty: a sequential scan, which on the 85,000 rows of
    Duke's constituent evidence took 2.4 s per batch of 500 keys where the primary key takes
    milliseconds. ANALYZE invalidates such plans; autovacuum's would come later, or never within one
    transaction. SQLite's planner uses its indexes without statistics."""
    if dialect_of(connection) == "postgresql":
        for table in tables:
            connection.exec_driver_sql(f'ANALYZE "{table}"')


def dialect_of(connection: Connection) -> Dialect:
    name = connection.dialect.name
    if name == "sqlite":
        return "sqlite"
    if name == "postgresql":
        return "postgresql"
    raise BioMcpError(ErrorCode.STORE, f"unsupported database dialect {name!r}")


def upsert_insert(connection: Connection, table: sa.Table) -> UpsertInsert:
    """An INSERT that accepts `.on_conflict_do_update` / `.on_conflict_do_nothing` on this dialect."""
    if dialect_of(connection) == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


def store_error(exc: SQLAlchemyError, action: str, *, database: str | None = None) -> BioMcpError:
    """A STORE error naming what failed and the driver's first line, without SQL or parameters.

    `database` is the URL with its password hidden, so an operator can tell which store failed.
    """
    origin: BaseException = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    lines = str(origin).strip().splitlines()
    reason = lines[0] if lines else type(origin).__name__
    details: dict[str, str] = {"action": action, "error": type(origin).__name__}
    sqlstate = getattr(origin, "sqlstate", None)
    if isinstance(sqlstate, str):
        details["sqlstate"] = sqlstate
    if database is not None:
        details["database"] = database
    return BioMcpError(ErrorCode.STORE, f"database error while {action}: {reason}", details)
