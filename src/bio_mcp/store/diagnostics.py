"""Retrieval diagnostics of `kb.search` / `kb.retrieve_evidence`: one row per call, kept for a while.

A tool result carries only its `diagnostic_id`; the record (providers, stage timings, candidates,
graph budget) stays here, so the result is not bloated and every replica sharing a PostgreSQL
store can show a record another replica wrote (`bio-mcp://diagnostics/{date}/{id}`,
`bio-mcp diagnostics show --id ID`). `day` is the UTC date the call ran, the resource's `{date}`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.store.schema import Json, UtcDateTime, metadata, utc_now

DEFAULT_DIAGNOSTICS_TTL = timedelta(days=7)

kb_diagnostics = sa.Table(
    "kb_diagnostics",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("day", sa.String(10), nullable=False),
    sa.Column("tool", sa.String(64), nullable=False),
    sa.Column("record", Json, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("expires_at", UtcDateTime, nullable=False, index=True),
)


@dataclass(frozen=True)
class DiagnosticEntry:
    id: str
    day: str
    tool: str
    record: dict[str, Any]
    created_at: datetime


class DiagnosticsRepository:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def put(
        self, diagnostic_id: str, tool: str, record: dict[str, Any], ttl: timedelta = DEFAULT_DIAGNOSTICS_TTL
    ) -> DiagnosticEntry:
        now = utc_now()
        entry = DiagnosticEntry(diagnostic_id, now.date().isoformat(), tool, record, now)
        self._connection.execute(
            sa.insert(kb_diagnostics).values(
                id=diagnostic_id, day=entry.day, tool=tool, record=record, created_at=now, expires_at=now + ttl
            )
        )
        return entry

    def get(self, diagnostic_id: str) -> DiagnosticEntry | None:
        """The entry, or None when it never existed or has expired."""
        row = self._connection.execute(
            sa.select(kb_diagnostics).where(
                kb_diagnostics.c.id == diagnostic_id, kb_diagnostics.c.expires_at > utc_now()
            )
        ).first()
        if row is None:
            return None
        return DiagnosticEntry(row.id, row.day, row.tool, dict(row.record), row.created_at)

    def purge_expired(self) -> int:
        result = self._connection.execute(sa.delete(kb_diagnostics).where(kb_diagnostics.c.expires_at <= utc_now()))
        return result.rowcount or 0
