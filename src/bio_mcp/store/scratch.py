"""Scratch texts: what is too large for one tool result, kept for a while behind a resource URI.

A tool puts the overflow here and returns `scratch_uri(id)`; the server serves
`bio-mcp://scratch/{id}`. The table lives in the metadata store, so every replica sharing a
PostgreSQL store can serve a scratch text another replica wrote.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.store.database import upsert_insert
from bio_mcp.store.schema import scratch, utc_now

SCRATCH_URI_PREFIX = "bio-mcp://scratch/"
DEFAULT_TTL = timedelta(hours=24)


def scratch_uri(scratch_id: str) -> str:
    return f"{SCRATCH_URI_PREFIX}{scratch_id}"


def scratch_id_of(text: str, mime_type: str) -> str:
    return hashlib.sha256(f"{mime_type}\n{text}".encode()).hexdigest()


@dataclass(frozen=True)
class ScratchEntry:
    id: str
    mime_type: str
    text: str
    created_at: datetime
    expires_at: datetime

    @property
    def uri(self) -> str:
        return scratch_uri(self.id)


class ScratchRepository:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def put(self, text: str, mime_type: str = "text/plain", ttl: timedelta = DEFAULT_TTL) -> ScratchEntry:
        """Store `text` (idempotent: the same text and type get the same id; a re-put extends its life)."""
        now = utc_now()
        entry = ScratchEntry(scratch_id_of(text, mime_type), mime_type, text, now, now + ttl)
        statement = upsert_insert(self._connection, scratch).values(
            id=entry.id, mime_type=mime_type, text=text, created_at=now, expires_at=entry.expires_at
        )
        self._connection.execute(
            statement.on_conflict_do_update(index_elements=["id"], set_={"expires_at": entry.expires_at})
        )
        return entry

    def get(self, scratch_id: str) -> ScratchEntry | None:
        """The entry, or None when it never existed or has expired."""
        row = self._connection.execute(
            sa.select(scratch).where(scratch.c.id == scratch_id, scratch.c.expires_at > utc_now())
        ).first()
        if row is None:
            return None
        return ScratchEntry(row.id, row.mime_type, row.text, row.created_at, row.expires_at)

    def purge_expired(self) -> int:
        result = self._connection.execute(sa.delete(scratch).where(scratch.c.expires_at <= utc_now()))
        return result.rowcount or 0
