"""Where each stored document stands with PubTator3's annotations (`kg_pubtator3`): annotated (at a
version), absent from PubTator3, or pending because PubTator3 could not be reached, so a later sync
fetches what an outage left out instead of the documents reading as having no entities. A record is
mostly absent because PubTator3 (updated weekly) has not annotated it yet: `updated_at` says when it
was last asked, so a later sync asks again once it has been absent for a while."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.store.database import in_batches, upsert_insert
from bio_mcp.store.document_keys import FILE_KEY_PREFIX
from bio_mcp.store.schema import documents, kg_pubtator3, utc_now

Status = Literal["annotated", "absent", "pending"]
ANNOTATED: Status = "annotated"
ABSENT: Status = "absent"
PENDING: Status = "pending"


def set_statuses(connection: Connection, statuses: Mapping[str, tuple[int, Status]]) -> None:
    """Record each PMID's (document version, status)."""
    if not statuses:
        return
    now = utc_now()
    statement = upsert_insert(connection, kg_pubtator3)
    connection.execute(
        statement.on_conflict_do_update(
            index_elements=["pmid"],
            set_={"version": statement.excluded.version, "status": statement.excluded.status,
                  "updated_at": statement.excluded.updated_at},
        ),
        [{"pmid": pmid, "version": version, "status": status, "updated_at": now}
         for pmid, (version, status) in sorted(statuses.items())],
    )


def statuses_of(connection: Connection, pmids: Iterable[str]) -> dict[str, tuple[int, Status]]:
    found: dict[str, tuple[int, Status]] = {}
    for batch in in_batches(sorted(set(pmids))):
        query = sa.select(kg_pubtator3.c.pmid, kg_pubtator3.c.version, kg_pubtator3.c.status).where(
            kg_pubtator3.c.pmid.in_(batch)
        )
        found.update({row.pmid: (row.version, row.status) for row in connection.execute(query)})
    return found


def pending_pmids(connection: Connection, limit: int) -> list[str]:
    """Up to `limit` PMIDs waiting for PubTator3, in PMID order."""
    query = (
        sa.select(kg_pubtator3.c.pmid).where(kg_pubtator3.c.status == PENDING).order_by(kg_pubtator3.c.pmid).limit(limit)
    )
    return list(connection.execute(query).scalars())


def absent_pmids(connection: Connection, asked_before: datetime, limit: int) -> list[str]:
    """Up to `limit` PMIDs PubTator3 held no annotations of when last asked, before `asked_before`,
    in PMID order (asking one again renews its `updated_at`, so the next sync takes the next ones)."""
    query = (
        sa.select(kg_pubtator3.c.pmid)
        .where(kg_pubtator3.c.status == ABSENT, kg_pubtator3.c.updated_at < asked_before)
        .order_by(kg_pubtator3.c.pmid)
        .limit(limit)
    )
    return list(connection.execute(query).scalars())


def unasked_pmids(connection: Connection, limit: int) -> list[str]:
    """Up to `limit` stored PubMed records PubTator3 was never asked about (synced while its
    mentions were off), in PMID order: turning them on reaches the corpus already there."""
    query = (
        sa.select(documents.c.pmid)
        .outerjoin(kg_pubtator3, kg_pubtator3.c.pmid == documents.c.pmid)
        .where(kg_pubtator3.c.pmid.is_(None), ~documents.c.pmid.startswith(FILE_KEY_PREFIX))
        .order_by(documents.c.pmid)
        .limit(limit)
    )
    return list(connection.execute(query).scalars())


def count_pending(connection: Connection) -> int:
    query = sa.select(sa.func.count()).select_from(kg_pubtator3).where(kg_pubtator3.c.status == PENDING)
    return int(connection.execute(query).scalar_one())


def reopen_annotated(connection: Connection) -> int:
    """Every annotated document pending again: a graph rebuilt from the store's chunks holds no
    PubTator3 mentions until a sync fetches them again. Returns how many."""
    statement = sa.update(kg_pubtator3).where(kg_pubtator3.c.status == ANNOTATED).values(
        status=PENDING, updated_at=utc_now()
    )
    return int(connection.execute(statement).rowcount or 0)
