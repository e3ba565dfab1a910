"""What entity linking produces and the graph stores: a span of text linked to one entity, and
one section's mentions of one entity grouped as its MENTIONS edge stores them.

Entity ids are namespaced: `mesh:D000082` (a MeSH descriptor), `nct:NCT01234567` (a trial),
`gene:<symbol>` (a record's GeneSymbolList), `herb:<slug>` (a plant MeSH does not cover), and
PubTator3's `ncbigene:`, `dbsnp:`, `hgvs:`, `ncbitaxon:` and `cellosaurus:` ids (`pubtator3_mentions.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from operator import attrgetter
from typing import Literal, NamedTuple

from bio_mcp.graph.bulk_rows import json_text

EntityType = Literal["Disease", "Chemical", "Organism", "Anatomy", "Gene", "Variant", "CellLine", "Trial", "Concept"]
ENTITY_TYPES: tuple[EntityType, ...] = (
    "Disease", "Chemical", "Organism", "Anatomy", "Gene", "Variant", "CellLine", "Trial", "Concept"
)


@dataclass(frozen=True, slots=True)
class Mention:
    """`text[start:end]` of the linked text names `entity_id`; `linker` says which rule found it."""

    start: int
    end: int
    text: str
    entity_id: str
    entity_type: EntityType
    linker: str
    confidence: float


class EntityMentions(NamedTuple):
    """A section's mentions of one entity: its MENTIONS edge's weight (the most confident span's
    confidence, in [0, 1]) and properties, already as the JSON text the store keeps (`spans` in text
    order as [start, end, text], the `linker` and `confidence` of the most confident span)."""

    entity_id: str
    entity_type: EntityType
    weight: float
    props: str


_SPAN_ORDER = attrgetter("start", "end")


def group_mentions(mentions: Iterable[Mention]) -> list[EntityMentions]:
    """One text's mentions per entity, in entity id order.

    Grouped where the text is linked (in the annotation worker during a sync), so the process that
    writes the graph only copies ready values: plain loops and C key functions, no lambdas."""
    by_entity: dict[str, list[Mention]] = {}
    for mention in mentions:
        by_entity.setdefault(mention.entity_id, []).append(mention)
    grouped = []
    for entity_id in sorted(by_entity):
        spans = by_entity[entity_id]
        spans.sort(key=_SPAN_ORDER)
        # The most confident span; the first of equals (spans are in text order).
        best = spans[0]
        for span in spans:
            if span.confidence > best.confidence:
                best = span
        props = {"spans": [[m.start, m.end, m.text] for m in spans], "linker": best.linker, "confidence": best.confidence}
        grouped.append(EntityMentions(
            entity_id, best.entity_type, round(max(0.0, min(1.0, best.confidence)), 6), json_text(props)
        ))
    return grouped
