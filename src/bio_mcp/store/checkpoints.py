"""Sync watermarks per query key (seed 000 `corpus.checkpoint.get` / `.set`), with their audit trail.

Automatic advancement after a sync is monotonic: a lower EDAT is ignored and reported. A manual set
may move a watermark backwards, for backfills, never past now. Every change, of either kind, writes
an audit row. A query key is bound to the term of its first sync (`bind_term`); only an explicit,
audited `reset_term` rebinds it, clearing the watermark.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store.database import upsert_insert
from bio_mcp.store.schema import (
    checkpoint_audit,
    checkpoints,
    query_term_audit,
    query_terms,
    sync_jobs,
    utc_now,
)
from bio_mcp.store.timestamps import format_iso_utc, require_iso_utc

CheckpointKind = Literal["auto", "manual"]


@dataclass(frozen=True)
class CheckpointChange:
    query_key: str
    previous: str | None
    current: str | None
    changed: bool
    # The EDAT an automatic advance refused because it was below the watermark.
    ignored_edat: str | None = None


@dataclass(frozen=True)
class CheckpointAuditEntry:
    query_key: str
    old_edat: str | None
    new_edat: str
    kind: CheckpointKind
    job_id: str | None
    actor: str | None
    reason: str | None
    at: datetime


def _require_query_key(query_key: str) -> str:
    if not isinstance(query_key, str) or not query_key.strip() or len(query_key) > 255:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            "query_key must be a non-empty string of at most 255 characters",
            {"query_key": query_key if isinstance(query_key, str) else repr(query_key)},
        )
    return query_key


class CheckpointRepository:
    """Checkpoints, bound to one transaction."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def get(self, query_key: str) -> str | None:
        """The last processed EDAT of `query_key` (ISO 8601 UTC), or None before its first sync."""
        query = sa.select(checkpoints.c.last_edat).where(
            checkpoints.c.query_key == _require_query_key(query_key)
        )
        last_edat: str | None = self._connection.execute(query).scalar_one_or_none()
        return last_edat

    def advance(self, query_key: str, edat: str, job_id: str) -> CheckpointChange:
        """Move the watermark forward to `edat`; an equal or lower value changes nothing."""
        new = require_iso_utc(edat, "edat")
        previous = self._lock(_require_query_key(query_key), new)
        if previous is None:
            self._audit(query_key, None, new, "auto", job_id=job_id)
            return CheckpointChange(query_key, None, new, changed=True)
        if new <= previous:
            return CheckpointChange(
                query_key, previous, previous, changed=False, ignored_edat=new if new < previous else None
            )
        self._write(query_key, new)
        self._audit(query_key, previous, new, "auto", job_id=job_id)
        return CheckpointChange(query_key, previous, new, changed=True)

    def set(self, query_key: str, edat: str, *, actor: str, reason: str | None = None) -> CheckpointChange:
        """Set the watermark by hand, backwards too; audited even when the value stays the same."""
        new = require_iso_utc(edat, "last_edat")
        now = format_iso_utc(utc_now())
        if new > now:
            # No record has an Entrez date after now: such a watermark would skip everything until then.
            raise BioMcpError(
                ErrorCode.VALIDATION,
                f"last_edat {new} is in the future (now {now}); a watermark can only be a time already passed",
                {"last_edat": new, "now": now},
            )
        if not actor:
            raise BioMcpError(ErrorCode.VALIDATION, "a manual checkpoint change names its actor")
        previous = self._lock(_require_query_key(query_key), new)
        if previous is not None and previous != new:
            self._write(query_key, new)
        self._audit(query_key, previous, new, "manual", actor=actor, reason=reason)
        return CheckpointChange(query_key, previous, new, changed=previous != new)

    def term(self, query_key: str) -> str | None:
        """The term `query_key` is bound to; for a key synced before terms were bound, its newest job's."""
        key = _require_query_key(query_key)
        bound: str | None = self._connection.execute(
            sa.select(query_terms.c.term).where(query_terms.c.query_key == key)
        ).scalar_one_or_none()
        if bound is not None:
            return bound
        newest: str | None = self._connection.execute(
            sa.select(sync_jobs.c.term)
            .where(sync_jobs.c.query_key == key)
            .order_by(sync_jobs.c.started_at.desc(), sync_jobs.c.job_id.desc())
            .limit(1)
        ).scalar_one_or_none()
        return newest

    def bind_term(self, query_key: str, term: str) -> None:
        """Bind `query_key` to `term` on its first sync; another term later is a VALIDATION error.

        A watermark only means something for the term that produced it: syncing another term from
        it would silently skip that term's older records.
        """
        current = self.term(query_key)
        if current is not None and current != term:
            raise BioMcpError(
                ErrorCode.VALIDATION,
                f"query_key {query_key!r} is bound to the term {current!r}; use a new query_key for the term "
                f"{term!r}, or pass reset_term=true to rebind this key (its watermark is cleared, audited)",
                {"query_key": query_key, "bound_term": current, "term": term},
            )
        if current is None or not self._bound_row(query_key):
            self._connection.execute(
                upsert_insert(self._connection, query_terms)
                .values(query_key=query_key, term=term, bound_at=utc_now())
                .on_conflict_do_nothing(index_elements=[query_terms.c.query_key])
            )

    def reset_term(self, query_key: str, term: str, *, actor: str) -> str | None:
        """Rebind `query_key` to `term` and clear its watermark (the next sync is a first sync); audited.

        Returns the previous term. Rebinding to the same term changes nothing and writes nothing.
        """
        previous = self.term(query_key)
        if previous == term and self._bound_row(query_key):
            return previous
        old_edat = self.get(query_key)
        self._connection.execute(sa.delete(query_terms).where(query_terms.c.query_key == query_key))
        self._connection.execute(
            sa.insert(query_terms).values(query_key=query_key, term=term, bound_at=utc_now())
        )
        if previous != term:
            self._connection.execute(sa.delete(checkpoints).where(checkpoints.c.query_key == query_key))
            self._connection.execute(
                sa.insert(query_term_audit).values(
                    query_key=query_key, old_term=previous, new_term=term, old_edat=old_edat, actor=actor, at=utc_now()
                )
            )
        return previous

    def term_audit(self, query_key: str) -> list[dict[str, object]]:
        """Every term reset of `query_key`, oldest first."""
        query = (
            sa.select(query_term_audit)
            .where(query_term_audit.c.query_key == _require_query_key(query_key))
            .order_by(query_term_audit.c.id)
        )
        return [dict(row) for row in self._connection.execute(query).mappings()]

    def _bound_row(self, query_key: str) -> bool:
        found = self._connection.execute(
            sa.select(query_terms.c.query_key).where(query_terms.c.query_key == query_key)
        ).scalar_one_or_none()
        return found is not None

    def audit(self, query_key: str) -> list[CheckpointAuditEntry]:
        """Every change of `query_key`'s watermark, oldest first."""
        query = (
            sa.select(checkpoint_audit)
            .where(checkpoint_audit.c.query_key == _require_query_key(query_key))
            .order_by(checkpoint_audit.c.id)
        )
        return [
            CheckpointAuditEntry(
                query_key=row.query_key,
                old_edat=row.old_edat,
                new_edat=row.new_edat,
                kind=row.kind,
                job_id=row.job_id,
                actor=row.actor,
                reason=row.reason,
                at=row.at,
            )
            for row in self._connection.execute(query)
        ]

    def _lock(self, query_key: str, initial: str) -> str | None:
        """The current watermark, locked for this transaction; a missing one is created as `initial`.

        Returns None when this call created the row, so concurrent first syncs cannot both think
        they set the first watermark.
        """
        select = (
            sa.select(checkpoints.c.last_edat).where(checkpoints.c.query_key == query_key).with_for_update()
        )
        current: str | None = self._connection.execute(select).scalar_one_or_none()
        if current is not None:
            return current
        created = self._connection.execute(
            upsert_insert(self._connection, checkpoints)
            .values(query_key=query_key, last_edat=initial, updated_at=utc_now())
            .on_conflict_do_nothing(index_elements=[checkpoints.c.query_key])
            .returning(checkpoints.c.query_key)
        ).scalar_one_or_none()
        if created is not None:
            return None
        committed: str = self._connection.execute(select).scalar_one()
        return committed

    def _write(self, query_key: str, edat: str) -> None:
        self._connection.execute(
            sa.update(checkpoints)
            .where(checkpoints.c.query_key == query_key)
            .values(last_edat=edat, updated_at=utc_now())
        )

    def _audit(
        self,
        query_key: str,
        old: str | None,
        new: str,
        kind: CheckpointKind,
        *,
        job_id: str | None = None,
        actor: str | None = None,
        reason: str | None = None,
    ) -> None:
        self._connection.execute(
            sa.insert(checkpoint_audit).values(
                query_key=query_key,
                old_edat=old,
                new_edat=new,
                kind=kind,
                job_id=job_id,
                actor=actor,
                reason=reason,
                at=utc_now(),
            )
        )
