"""RELATED_TO {strength}: entities that share sections more often than chance.

strength = NPMI(x, y) = log(p(x, y) / (p(x) p(y))) / -log p(x, y), with p over sections (a section
mentioning both counts once). Only pairs seen together in at least `MIN_SECTIONS` sections with
NPMI of at least `MIN_STRENGTH` become edges, one each way. It is a statistic of the whole corpus,
so a sync does not change it: `bio-mcp graph related` (and every `bio-mcp graph rebuild`) recomputes
it, and `kg_meta['related_to']` records when and over how many sections.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlalchemy.engine import Connection

from bio_mcp.graph.elements import RELATED_TO, Edge
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.store.schema import utc_now
from bio_mcp.store.timestamps import format_iso_utc

MIN_SECTIONS = 3
MIN_STRENGTH = 0.2
META_KEY = "related_to"


@dataclass(frozen=True)
class RelatedReport:
    sections: int
    pairs: int
    edges: int


def related_edges(connection: Connection) -> tuple[list[Edge], int, int]:
    """The RELATED_TO edges of the current MENTIONS, the number of sections, and of pairs considered."""
    sections = int(connection.exec_driver_sql("SELECT COUNT(*) FROM kg_nodes WHERE label = 'Section'").scalar_one())
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


def npmi(together: int, left: int, right: int, total: int) -> float:
    """Normalised PMI in [-1, 1], rounded to 6 places; 1 when the two always occur together."""
    p_xy = together / total
    if p_xy >= 1.0:
        return 1.0
    pmi = math.log(p_xy / ((left / total) * (right / total)))
    return round(max(-1.0, min(1.0, pmi / -math.log(p_xy))), 6)


def refresh_related(connection: Connection) -> RelatedReport:
    """Recompute every RELATED_TO edge inside the caller's transaction."""
    edges, sections, pairs = related_edges(connection)
    store = SqlGraphStore(connection)
    store.replace_edges_of_type(RELATED_TO, edges)
    store.set_meta(META_KEY, {"computed_at": format_iso_utc(utc_now()), "sections": sections, "edges": len(edges)})
    return RelatedReport(sections=sections, pairs=pairs, edges=len(edges))
