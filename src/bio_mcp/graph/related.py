"""RELATED_TO {strength}: entities that share sections more often than chance.

strength = NPMI(x, y) = log(p(x, y) / (p(x) p(y))) / -log p(x, y), with p over sections (a section
mentioning both counts once). Only pairs seen together in at least `MIN_SECTIONS` sections with
NPMI of at least `MIN_STRENGTH` become edges, one each way. It is a statistic of the whole corpus,
recomputed after syncs rather than within them (`graph/related_refresh.py`: in a snapshot, then a
short write), and by every `bio-mcp graph rebuild` and `bio-mcp graph related`.
`kg_meta['related_to']` records when, over how many sections, and the MENTIONS version
(`SqlGraphStore.mentions_version`) the edges were computed from: they are in step while it is
still the current one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.graph.elements import RELATED_TO, Edge
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.store.database import dialect_of
from bio_mcp.store.schema import utc_now
from bio_mcp.store.sync_lock import advisory_key
from bio_mcp.store.timestamps import format_iso_utc

MIN_SECTIONS = 3
MIN_STRENGTH = 0.2
META_KEY = "related_to"
# The key of META_KEY's value naming the MENTIONS version the edges were computed from.
COMPUTED_FROM = "mentions_version"
# Held to commit by every transaction that replaces RELATED_TO on PostgreSQL: two replicas' deletes
# and inserts of the same edges would otherwise interleave into a unique-key violation.
_WRITE_LOCK_KEY = advisory_key("bio-mcp:related-to")


@dataclass(frozen=True)
class RelatedEdges:
    """RELATED_TO computed over one state of the graph: the edges, the sections and pairs counted,
    and the MENTIONS version of that state."""

    edges: list[Edge]
    sections: int
    pairs: int
    mentions_version: str | None


@dataclass(frozen=True)
class RelatedReport:
    sections: int
    pairs: int
    edges: int


def related_edges(connection: Connection) -> tuple[list[Edge], int, int]:
    """The RELATED_TO edges of the current MENTIONS, the number of sections, and of pairs considered."""
    sections = section_count(connection)
    if sections == 0:
        return [], 0, 0
    marker = "?" if connection.dialect.name == "sqlite" else "%s"
    singles = {
        row[0]: int(row[1])
        for row in connection.exec_driver_sql("SELECT dst, COUNT(*) FROM kg_mentions GROUP BY dst")
    }
    pairs = connection.exec_driver_sql(
        "SELECT a.dst, b.dst, COUNT(*) FROM kg_mentions a JOIN kg_mentions b ON b.src = a.src AND b.dst > a.dst "
        f"GROUP BY a.dst, b.dst HAVING COUNT(*) >= {marker}",
        (MIN_SECTIONS,),
    ).fetchall()
    edges: list[Edge] = []
    for left, right, together in pairs:
        strength = npmi(int(together), singles[left], singles[right], sections)
        if strength >= MIN_STRENGTH:
            props = {"strength": strength, "sections": int(together)}
            edges.append(Edge(left, RELATED_TO, right, strength, None, props))
            edges.append(Edge(right, RELATED_TO, left, strength, None, props))
    return sorted(edges, key=lambda e: (e.src, e.dst)), sections, len(pairs)


def section_count(connection: Connection) -> int:
    return int(connection.exec_driver_sql("SELECT COUNT(*) FROM kg_nodes WHERE label = 'Section'").scalar_one())


def compute_related(connection: Connection) -> RelatedEdges:
    """RELATED_TO over the graph `connection` sees, with its MENTIONS version: read both in one
    snapshot (`MetadataStore.snapshot`) for the version to name the state the edges come from."""
    version = SqlGraphStore(connection).mentions_version()
    edges, sections, pairs = related_edges(connection)
    return RelatedEdges(edges, sections, pairs, version)


def npmi(together: int, left: int, right: int, total: int) -> float:
    """Normalised PMI in [-1, 1], rounded to 6 places; 1 when the two always occur together."""
    p_xy = together / total
    if p_xy >= 1.0:
        return 1.0
    pmi = math.log(p_xy / ((left / total) * (right / total)))
    return round(max(-1.0, min(1.0, pmi / -math.log(p_xy))), 6)


def computed_from(recorded: dict[str, Any] | None) -> tuple[bool, str | None]:
    """Whether a `kg_meta['related_to']` value names the MENTIONS version it was computed from, and
    that version (a value written before versions were kept names none: nothing is known of it)."""
    if recorded is None or COMPUTED_FROM not in recorded:
        return False, None
    return True, recorded[COMPUTED_FROM]


def write_related(connection: Connection, related: RelatedEdges) -> bool:
    """Replace every RELATED_TO edge with `related` in the caller's (write) transaction, unless the
    stored ones were already computed from the same MENTIONS version (another process's refresh of
    the same state): False then, and nothing is written."""
    if dialect_of(connection) == "postgresql":
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _WRITE_LOCK_KEY})
    store = SqlGraphStore(connection)
    if computed_from(store.meta(META_KEY)) == (True, related.mentions_version):
        return False
    store.replace_edges_of_type(RELATED_TO, related.edges)
    store.set_meta(META_KEY, {
        "computed_at": format_iso_utc(utc_now()), "sections": related.sections, "edges": len(related.edges),
        COMPUTED_FROM: related.mentions_version,
    })
    return True


def refresh_related(connection: Connection) -> RelatedReport:
    """Recompute every RELATED_TO edge inside the caller's write transaction (a rebuild's last one)."""
    related = compute_related(connection)
    write_related(connection, related)
    return RelatedReport(sections=related.sections, pairs=related.pairs, edges=len(related.edges))
