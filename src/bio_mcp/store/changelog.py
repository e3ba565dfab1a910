"""The corpus change log: what every process's derived index follows to stay in step with the store.

A transaction that changes chunks (`ChunkRepository.replace_many`), their vectors
(`set_embeddings`) or every vector at once (a model switch) appends one row in that same
transaction, so a row exists exactly when its change is committed. A row names the chunk UUIDs
touched; a follower reads those chunks again and indexes the ones present, drops the ones absent,
which makes applying a row idempotent and applying rows late harmless (it always copies the
store's current state). `rebuild` rows ask followers to rebuild from the store.

Ids are monotonic in commit order, which is what lets a follower keep a single cursor: SQLite
serialises writers anyway, and on PostgreSQL the row is inserted under a transaction-scoped
advisory lock held until commit, so a later id is never committed before an earlier one.
Old rows are pruned (`prune`); a follower whose cursor fell behind the oldest row rebuilds.

On PostgreSQL each append also sends a NOTIFY on `CHANGES_CHANNEL` (delivered at commit), so a
follower can wake at once instead of at its next poll (`MetadataStore.change_listener`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.store.database import dialect_of
from bio_mcp.store.schema import corpus_changes, utc_now
from bio_mcp.store.sync_lock import advisory_key

ChangeKind = Literal["chunks", "vectors", "rebuild"]

_APPEND_LOCK_KEY = advisory_key("bio-mcp:corpus-changes")
CHANGES_CHANNEL = "bio_mcp_corpus_changes"


@dataclass(frozen=True)
class Change:
    id: int
    kind: ChangeKind
    uuids: tuple[str, ...]
    pmids: tuple[str, ...]


class ChangeLogRepository:
    """The change log, bound to one transaction."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def append(self, kind: ChangeKind, uuids: Iterable[str] = (), pmids: Iterable[str] = ()) -> int | None:
        """Log a change made in this transaction; returns its id (None when nothing changed)."""
        touched = sorted(set(uuids))
        if not touched and kind != "rebuild":
            return None
        if dialect_of(self._connection) == "postgresql":
            # Held to commit: ids are then taken and committed in one order (see the module doc).
            self._connection.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _APPEND_LOCK_KEY})
        statement = (
            sa.insert(corpus_changes)
            .values(kind=kind, uuids=touched, pmids=sorted(set(pmids)), at=utc_now())
            .returning(corpus_changes.c.id)
        )
        change_id = int(self._connection.execute(statement).scalar_one())
        if dialect_of(self._connection) == "postgresql":
            self._connection.execute(sa.text("SELECT pg_notify(:c, :p)"), {"c": CHANGES_CHANNEL, "p": str(change_id)})
        return change_id

    def head(self) -> int:
        """The id of the last committed change (0 when none)."""
        return int(self._connection.execute(sa.select(sa.func.coalesce(sa.func.max(corpus_changes.c.id), 0))).scalar_one())

    def oldest(self) -> int | None:
        return self._connection.execute(sa.select(sa.func.min(corpus_changes.c.id))).scalar_one_or_none()

    def since(self, after: int, limit: int) -> list[Change]:
        """Changes with an id above `after`, oldest first."""
        query = (
            sa.select(corpus_changes.c.id, corpus_changes.c.kind, corpus_changes.c.uuids, corpus_changes.c.pmids)
            .where(corpus_changes.c.id > after)
            .order_by(corpus_changes.c.id)
            .limit(limit)
        )
        return [
            Change(id=int(row.id), kind=row.kind, uuids=tuple(row.uuids), pmids=tuple(row.pmids))
            for row in self._connection.execute(query)
        ]

    def covers(self, cursor: int) -> bool:
        """Whether every change after `cursor` is still in the log (none was pruned)."""
        oldest = self.oldest()
        return oldest is None or cursor >= oldest - 1

    def prune(self, keep_rows: int, min_age_s: float) -> int:
        """Delete changes older than `min_age_s` and not among the newest `keep_rows`; the newest row
        always stays, so ids keep rising. Returns how many rows went."""
        head = self.head()
        cutoff = utc_now() - timedelta(seconds=min_age_s)
        result = self._connection.execute(
            sa.delete(corpus_changes).where(
                corpus_changes.c.id <= head - max(keep_rows, 1), corpus_changes.c.at < cutoff
            )
        )
        return int(result.rowcount)


class ChangeListener:
    """Waits for the change log's NOTIFY on a dedicated PostgreSQL connection (autocommit, LISTEN)."""

    def __init__(self, connection: Any) -> None:
        # A raw psycopg connection, owned here: LISTEN lasts as long as the session.
        self._connection = connection
        self._connection.autocommit = True
        self._connection.execute(f"LISTEN {CHANGES_CHANNEL}")

    def wait(self, timeout_s: float) -> bool:
        """True when a change was committed within `timeout_s` (then the caller follows the log)."""
        return any(True for _ in self._connection.notifies(timeout=timeout_s, stop_after=1))

    def close(self) -> None:
        self._connection.close()
