"""What entity linking produces and the graph stores: a span of text linked to one entity.

Entity ids are namespaced: `mesh:D000082` (a MeSH descriptor), `nct:NCT01234567` (a trial),
`gene:<NCBI Gene id or symbol>`, `herb:<slug>` (a plant MeSH does not cover).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

EntityType = Literal["Disease", "Chemical", "Organism", "Anatomy", "Gene", "Trial", "Concept"]
ENTITY_TYPES: tuple[EntityType, ...] = ("Disease", "Chemical", "Organism", "Anatomy", "Gene", "Trial", "Concept")


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
