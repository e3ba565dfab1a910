"""`kg://herb/{id}`: a herb node with its names, parts, constituents, indications and sources (seed 003).

- names: the imported Thai and English names (`kg_names`, preferred first; "" when the herb has none
  in a language, the English one then falls back on the node's MeSH or Duke name); `scientific`
  (additive) lists its scientific names.
- parts: the plant parts the imported facts name (the `part` of constituent and indication lines).
- constituents: HAS_CONSTITUENT edges, each with Dr. Duke's activities of that chemical (additive).
- indications: TREATS edges of the herb and, marked `via`, of its constituents; `icdCode` is the
  closest ICD-10-CM code through the Disease Ontology's cross-references ("" when DO has none),
  `icd10cm` all of them, `strength` how strong the evidence is.
- sources: every source behind the record: the evidence rows' sources (`pmid:N`, imported sources)
  and the tables the names came from.
An id that is not a herb of the graph is NOT_FOUND (a resource error).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field
from sqlalchemy.engine import Connection

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.evidence.relations import (
    EntityInfo,
    entities,
    evidence_of,
    known_entities,
    relation_edges,
    strength_of,
    supporting_documents,
)
from bio_mcp.graph.elements import HAS_CONSTITUENT, HAS_INGREDIENT, TREATS
from bio_mcp.graph.herb_catalog import is_plant
from bio_mcp.graph.icd10 import Icd10Index
from bio_mcp.graph.ids import resolve_alias
from bio_mcp.graph.names import entities_named
from bio_mcp.graph.vocabulary import Vocabulary, search_key

HERB_URI = "kg://herb/{id}"


class HerbNames(BaseModel):
    th: str
    en: str
    scientific: list[str] = Field(default_factory=list)


class HerbConstituent(BaseModel):
    id: str
    name: str
    activities: list[str] = Field(default_factory=list, description="Dr. Duke's activities of this chemical")
    sources: list[str] = Field(default_factory=list)


class HerbIndication(BaseModel):
    icdCode: str
    description: str
    id: str
    icd10cm: list[str] = Field(default_factory=list)
    via: str | None = None
    strength: str
    sources: list[str] = Field(default_factory=list)


class HerbRecord(BaseModel):
    id: str
    names: HerbNames
    parts: list[str]
    constituents: list[HerbConstituent]
    indications: list[HerbIndication]
    sources: list[str]
    formulations: list[str] = Field(default_factory=list)


def is_herb(entity_id: str, entity_type: str | None, vocabulary: Vocabulary | None) -> bool:
    """A `herb:` node, or a MeSH organism under Plants (B01.875): not a bacterium or an animal."""
    if entity_id.startswith("herb:"):
        return True
    if not entity_id.startswith("mesh:") or entity_type != "Organism":
        return False
    concept = vocabulary.get(entity_id) if vocabulary is not None else None
    return concept is None or is_plant(concept)


def herb_named(connection: Connection, name: str, vocabulary: Vocabulary | None) -> str | None:
    """The one herb `name` names: an imported name (Thai, English, scientific), else a MeSH plant's
    heading or entry term ('garlic', 'Allium sativum'), so a store with nothing imported still knows
    MeSH's plants by name. None when no herb, or more than one, has that name."""
    imported = [entity for entity in entities_named(connection, name) if not entity.startswith("formulation:")]
    if imported:
        return imported[0] if len(imported) == 1 else None
    if vocabulary is None:
        return None
    plants = {match.concept.id for match in vocabulary.search(name, limit=5)
              if match.how in ("name", "synonym") and is_plant(match.concept)}
    return plants.pop() if len(plants) == 1 else None


def find_herb(connection: Connection, value: str, vocabulary: Vocabulary | None) -> tuple[str, EntityInfo] | None:
    """The herb `value` stands for, as every herb tool takes one, with what the graph knows of it: an
    entity id (a graph node, or a MeSH plant the graph has no node for yet: known, with nothing
    recorded), else a name (`herb_named`). None when it is no herb."""
    entity_id = resolve_alias(value.strip())
    found = known_entities(connection, [entity_id], vocabulary).get(entity_id)
    if found is None or not is_herb(entity_id, found.type, vocabulary):
        named = herb_named(connection, value, vocabulary)
        if named is None:
            return None
        entity_id, found = named, known_entities(connection, [named], vocabulary).get(named)
    return (entity_id, found) if found is not None and is_herb(entity_id, found.type, vocabulary) else None


def find_formulation(connection: Connection, value: str, vocabulary: Vocabulary | None) -> str | None:
    """The formulation `value` stands for, as every herb tool takes one: its id (`formulation:triphala`),
    its slug (`triphala`), or an imported name (ตรีผลา, Triphala). None when it is no formulation, or
    the name is shared by more than one."""
    candidate = value.strip()
    candidate = resolve_alias(candidate if candidate.startswith("formulation:") else f"formulation:{candidate}")
    if candidate in known_entities(connection, [candidate], vocabulary):
        return candidate
    named = [entity for entity in entities_named(connection, value) if entity.startswith("formulation:")]
    return named[0] if len(named) == 1 else None


def herb_record(
    connection: Connection, herb_id: str, icd10: Icd10Index, activities: Mapping[str, tuple[str, ...]],
    vocabulary: Vocabulary | None,
) -> HerbRecord:
    herb_found = find_herb(connection, herb_id, vocabulary)
    if herb_found is None:
        raise BioMcpError(ErrorCode.NOT_FOUND, f"{herb_id!r} is neither a herb of the knowledge graph, a MeSH plant "
                          "nor a herb's name", {"id": herb_id})
    entity_id, herb = herb_found
    own = relation_edges(connection, [entity_id], (HAS_CONSTITUENT, TREATS))
    constituent_ids = [edge.dst for edge in own if edge.type == HAS_CONSTITUENT]
    via = relation_edges(connection, constituent_ids, (TREATS,)) if constituent_ids else []
    edges = own + via
    evidence = evidence_of(connection, [edge.key for edge in edges])
    documents = supporting_documents(connection, [row for rows in evidence.values() for row in rows])
    info = entities(connection, [edge.dst for edge in edges])
    constituents = [
        HerbConstituent(
            id=edge.dst, name=info[edge.dst].title if edge.dst in info else edge.dst,
            activities=list(activities.get(search_key(info[edge.dst].title), ())) if edge.dst in info else [],
            sources=sorted({row.source for row in evidence.get(edge.key, [])}),
        )
        for edge in own if edge.type == HAS_CONSTITUENT
    ]
    indications: list[HerbIndication] = []
    seen: set[str] = set()
    for edge in [e for e in own if e.type == TREATS] + via:
        if edge.dst in seen and edge.src != entity_id:
            continue
        seen.add(edge.dst)
        name = info[edge.dst].title if edge.dst in info else edge.dst
        codes = icd10.codes(edge.dst, name)
        rows = evidence.get(edge.key, [])
        indications.append(HerbIndication(
            icdCode=codes[0].code if codes else "", description=name, id=edge.dst,
            icd10cm=[code.code for code in codes], via=None if edge.src == entity_id else edge.src,
            strength=strength_of(rows, documents).level if rows else "low",
            sources=sorted({row.source for row in rows}),
        ))
    formulations = [edge.src for edge in relation_edges(connection, [entity_id], (HAS_INGREDIENT,), "in")]
    parts = sorted({part for edge in own for part in edge.props.get("parts", [])})
    sources = {row.source for rows in evidence.values() for row in rows} | {name.source for name in herb.names}
    return HerbRecord(
        id=entity_id,
        names=HerbNames(
            th=herb.name("th") or "", en=herb.name("en") or herb.title,
            scientific=sorted({name.name for name in herb.names if name.kind == "scientific"}),
        ),
        parts=parts, constituents=constituents, indications=indications, sources=sorted(sources),
        formulations=sorted(set(formulations)),
    )
