"""Keeping RELATED_TO in step with the corpus after syncs, off the syncs' own path.

    related_is_stale(connection)            # two kg_meta rows: has MENTIONS changed since?
    refresh_related_if_stale(store)         # compute in a snapshot, write in a short transaction

The edges are computed in a read snapshot (`MetadataStore.snapshot`), which blocks no writer for
however long it takes (8 to 11 s at 100,000 sections), and written in a write transaction of their
own (0.2 to 0.7 s there) together with the MENTIONS version of that snapshot. A sync that commits meanwhile
renews the version, which leaves the result stale for the next refresh rather than wrong. Two
processes refreshing at once both compute; the second to write finds the first's edges computed
from the same version and keeps them (`write_related`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy.engine import Connection

from bio_mcp.graph.related import META_KEY, compute_related, computed_from, section_count, write_related
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.store import MetadataStore

RefreshStatus = Literal["current", "too_large", "written", "kept"]


@dataclass(frozen=True)
class RelatedRefresh:
    """What a refresh did: `current` (nothing to do; the counts are the last computation's),
    `too_large` (more sections than allowed; not computed), `written`, or `kept` (computed, but the
    stored edges already came from the same state: another process's, or an earlier refresh's).
    `read_s` is the snapshot's computation, `write_s` the write transaction's."""

    status: RefreshStatus
    sections: int
    pairs: int = 0
    edges: int = 0
    read_s: float = 0.0
    write_s: float = 0.0


def related_is_stale(connection: Connection) -> bool:
    """Whether MENTIONS changed since RELATED_TO was computed (or it never was, or was computed
    before versions were kept)."""
    store = SqlGraphStore(connection)
    return _is_stale(store.meta(META_KEY), store.mentions_version())


def _is_stale(recorded: dict[str, Any] | None, current_version: str | None) -> bool:
    known, version = computed_from(recorded)
    return not known or version != current_version


def refresh_related_now(store: MetadataStore) -> RelatedRefresh:
    """Compute RELATED_TO in a snapshot, then write it in a short transaction."""
    started = time.perf_counter()
    with store.snapshot() as tx:
        related = compute_related(tx.connection)
    computed = time.perf_counter()
    with store.transaction() as tx:
        written = write_related(tx.connection, related)
    return RelatedRefresh(
        status="written" if written else "kept", sections=related.sections, pairs=related.pairs,
        edges=len(related.edges), read_s=round(computed - started, 3), write_s=round(time.perf_counter() - computed, 3),
    )


def refresh_related_if_stale(store: MetadataStore, max_sections: int | None = None) -> RelatedRefresh:
    """`refresh_related_now` when MENTIONS changed since the last computation and the graph has at
    most `max_sections` sections (None: any number)."""
    with store.read() as tx:
        graph = SqlGraphStore(tx.connection)
        recorded = graph.meta(META_KEY)
        if recorded is not None and not _is_stale(recorded, graph.mentions_version()):
            return RelatedRefresh(status="current", sections=recorded["sections"], edges=recorded["edges"])
        sections = section_count(tx.connection) if max_sections is not None else 0
    if max_sections is not None and sections > max_sections:
        return RelatedRefresh(status="too_large", sections=sections)
    return refresh_related_now(store)
