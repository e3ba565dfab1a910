"""Bulk writes of graph rows in the caller's transaction, without per-row ORM work.

A sync writes about 50 graph rows per document: SQLAlchemy's compiled executemany spent more time
building and type-processing each row's parameters than the database spent storing it. Rows here
are plain tuples, already in the columns' bound form, sent as one prepared statement per batch
(`executemany`: SQLite runs it in-process; psycopg pipelines it) or, on PostgreSQL, for rows
that cannot conflict, as one COPY. Every write uses the caller's connection, so the graph commits
or rolls back with the documents it belongs to.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.store.database import dialect_of

# Rows per executemany call: bounds the parameter list held at once, not the transaction.
_BATCH = 5000
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

    def _insert_sql(self, table: str, columns: Sequence[str]) -> str:
        marks = ", ".join([self._mark] * len(columns))
        return f"INSERT INTO {table} ({_columns(columns)}) VALUES ({marks})"

    def _executemany(self, sql: str, rows: Sequence[tuple[Any, ...]]) -> None:
        for start in range(0, len(rows), _BATCH):
            self._connection.exec_driver_sql(sql, list(rows[start : start + _BATCH]))

    def insert_new(self, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> None:
        """Rows that are not stored yet (a duplicate key fails the statement, as a plain INSERT does)."""
        if not rows:
            return
        if self._dialect == "postgresql":
            self._copy(table, columns, rows)
        else:
            self._executemany(self._insert_sql(table, columns), rows)

    def insert_missing(
        self, table: str, columns: Sequence[str], key: Sequence[str], rows: Sequence[tuple[Any, ...]]
    ) -> None:
        """Rows whose `key` is not stored yet; the others are left as they are."""
        if rows:
            sql = f"{self._insert_sql(table, columns)} ON CONFLICT ({_columns(key)}) DO NOTHING"
            self._executemany(sql, rows)

    def upsert(
        self, table: str, columns: Sequence[str], key: Sequence[str], kept: Sequence[str], rows: Sequence[tuple[Any, ...]]
    ) -> None:
        """Insert rows or update the stored row of their `key`, all columns but `key` and `kept`."""
        if not rows:
            return
        updated = [name for name in columns if name not in key and name not in kept]
        assignments = ", ".join(f'"{name}" = excluded."{name}"' for name in updated)
        sql = f"{self._insert_sql(table, columns)} ON CONFLICT ({_columns(key)}) DO UPDATE SET {assignments}"
        self._executemany(sql, rows)

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
