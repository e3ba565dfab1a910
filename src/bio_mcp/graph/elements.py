"""The graph's nodes and edges as plain values, and the labels and relationship types it allows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from bio_mcp.graph.mentions import ENTITY_TYPES

NodeLabel = Literal["Document", "Section", "Entity"]

HAS_SECTION = "HAS_SECTION"
MENTIONS = "MENTIONS"
HAS_TOPIC = "HAS_TOPIC"
BROADER = "BROADER"
HAS_PHARM_ACTION = "HAS_PHARM_ACTION"
RELATED_TO = "RELATED_TO"
# Relations stated in the literature or imported (seed 003), each backed by rows of
# `kg_relation_evidence`: a plant contains a chemical; a plant or chemical treats a disease
# (an indication), causes or worsens one (an adverse effect), or interacts with a drug.
HAS_CONSTITUENT = "HAS_CONSTITUENT"
TREATS = "TREATS"
CAUSES = "CAUSES"
INTERACTS_WITH = "INTERACTS_WITH"
EVIDENCE_RELATIONS: tuple[str, ...] = (HAS_CONSTITUENT, TREATS, CAUSES, INTERACTS_WITH)
# A formulation (`formulation:<id>`) -> one of its herbs, as an imported table lists them.
HAS_INGREDIENT = "HAS_INGREDIENT"
# Every relationship type this graph has; anything else in a request is a VALIDATION error.
RELATIONSHIP_TYPES: tuple[str, ...] = (
    HAS_SECTION, MENTIONS, HAS_TOPIC, BROADER, HAS_PHARM_ACTION, RELATED_TO, *EVIDENCE_RELATIONS, HAS_INGREDIENT
)
# The labels a traversal may whitelist: the seed's, plus each entity type.
TRAVERSAL_LABELS: tuple[str, ...] = ("Document", "Section", "Chunk", "Entity", "Topic", *ENTITY_TYPES)


@dataclass(frozen=True, slots=True)
class Node:
    id: str
    label: NodeLabel
    type: str | None = None
    title: str | None = None
    source_uri: str | None = None
    source_type: str | None = None
    version: str | None = None
    last_edited: str | None = None
    document_id: str | None = None
    chunk_uuid: str | None = None
    level: int | None = None
    order: int | None = None
    anchor: str | None = None


class Edge(NamedTuple):
    """A row of the edge table, in its column order: a sync writes tens of thousands per batch, and
    a tuple is built and bound several times faster than a frozen dataclass."""

    src: str
    type: str
    dst: str
    # In [0, 1]: how strongly `src` points at `dst`; a node's edges are read in this order.
    weight: float = 1.0
    # The document whose version wrote the edge (None for vocabulary and co-occurrence edges).
    document_id: str | None = None
    # Its properties, or their JSON text where that was made beforehand (MENTIONS: `group_mentions`).
    props: dict[str, Any] | str | None = None


@dataclass(frozen=True)
class DocumentGraph:
    """What one document version contributes: its node, its sections, the edges it wrote and the
    relations its sentences state (`graph.evidence_store.EvidenceRow`s: their edges are derived
    from the evidence of every document, not written by one)."""

    document: Node
    sections: list[Node]
    edges: list[Edge]
    evidence: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class StatedRelation:
    """A relation one sentence states: `src` -[type]-> `dst` (a type of EVIDENCE_RELATIONS), in the
    sentence at `text[start:end]` of the linked text; `extractor` names the rule, `confidence` its
    measured precision in [0, 1]."""

    src: str
    type: str
    dst: str
    start: int
    end: int
    extractor: str
    confidence: float
