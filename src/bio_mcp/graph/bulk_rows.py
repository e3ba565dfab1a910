"""Bulk writes of graph rows in the caller's transaction, without per-row ORM work.

A sync writes about 50 graph rows per document: SQLAlchemy's compiled executemany spent more time
building and type-processing each row's parameters than the database spent storing it. Rows here
are plain tuples, already in the columns' bound form: on SQLite as INSERTs of many rows each, on
PostgreSQL as one prepared statement per batch (`executemany`, which psycopg pipelines) or, for rows
that cannot conflict, as one COPY. Every write uses the caller's connection, so the graph commits
or rolls back with the documents it belongs to.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import chain
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.store.database import dialect_of

# Rows per executemany call: bounds the parameter list held at once, not the transaction.
_BATCH = 5000
# Rows per INSERT statement on SQLite, within its 32,766 bound parameters (SQLite 3.32 and later).
_SQLITE_GROUP = 500
_SQLITE_MAX_VARIABLES = 32766
# One encoder for every row: json.dumps with options builds a new encoder per call.
_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def json_text(value: Any) -> str:
    """A JSON column's text as compact as JSON allows (None: JSON null, as SQLAlchemy's JSON type
    stores it); it reads back as the same value."""
    return _COMPACT_JSON.encode(value)


def _columns(names: Sequence[str]) -> str:
    # Quoted: `order` is a keyword on both dialects.
    return ", ".join(f'"{name}"' for name in names)


class BulkRows:
    """Inserts tuples of `columns` values into one table on `connection`."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._dialect = dialect_of(connection)
        self._mark = "?" if self._dialect == "sqlite" else "%s"

    def _insert_sql(self, table: str, columns: Sequence[str], suffix: str, rows: int = 1) -> str:
        """INSERT of `rows` rows of `columns`, then `suffix` (an ON CONFLICT clause, or nothing)."""
        row = f"({', '.join([self._mark] * len(columns))})"
        return f"INSERT INTO {table} ({_columns(columns)}) VALUES {', '.join([row] * rows)}{suffix}"

    def _insert(self, table: str, columns: Sequence[str], suffix: str, rows: Sequence[tuple[Any, ...]]) -> None:
        if self._dialect != "sqlite":
            sql = self._insert_sql(table, columns, suffix)
            for start in range(0, len(rows), _BATCH):
                self._connection.exec_driver_sql(sql, list(rows[start : start + _BATCH]))
            return
        # SQLite: many rows per statement. sqlite3's executemany releases the GIL around every row's
        # step and has to win it back each time, which the sync's other busy threads (parsing the
        # next batch while this one commits) made slow: one step per group of rows instead.
        group = min(_SQLITE_GROUP, _SQLITE_MAX_VARIABLES // len(columns))
        statements: dict[int, str] = {}
        for start in range(0, len(rows), group):
            chunk = rows[start : start + group]
            sql = statements.get(len(chunk)) or statements.setdefault(
                len(chunk), self._insert_sql(table, columns, suffix, len(chunk))
            )
            self._connection.exec_driver_sql(sql, tuple(chain.from_iterable(chunk)))

    def insert_new(self, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> None:
        """Rows that are not stored yet (a duplicate key fails the statement, as a plain INSERT does)."""
        if not rows:
            return
        if self._dialect == "postgresql":
            self._copy(table, columns, rows)
        else:
            self._insert(table, columns, "", rows)

    def insert_missing(
        self, table: str, columns: Sequence[str], key: Sequence[str], rows: Sequence[tuple[Any, ...]]
    ) -> None:
        """Rows whose `key` is not stored yet; the others are left as they are."""
        if rows:
            self._insert(table, columns, f" ON CONFLICT ({_columns(key)}) DO NOTHING", rows)

    def upsert(
        self, table: str, columns: Sequence[str], key: Sequence[str], kept: Sequence[str], rows: Sequence[tuple[Any, ...]]
    ) -> None:
        """Insert rows or update the stored row of their `key`, all columns but `key` and `kept`."""
        if not rows:
            return
        updated = [name for name in columns if name not in key and name not in kept]
        assignments = ", ".join(f'"{name}" = excluded."{name}"' for name in updated)
        self._insert(table, columns, f" ON CONFLICT ({_columns(key)}) DO UPDATE SET {assignments}", rows)

    def _copy(self, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> None:
        import psycopg

        sql = f"COPY {table} ({_columns(columns)}) FROM STDIN"
        raw = self._connection.connection.driver_connection
        try:
            with raw.cursor() as cursor, cursor.copy(sql) as copy:
                for row in rows:
                    copy.write_row(row)
        except psycopg.Error as exc:
            # As any other statement's failure reaches the store: a SQLAlchemy DBAPIError.
            raise sa.exc.DBAPIError.instance(sql, None, exc, psycopg.Error) from exc
