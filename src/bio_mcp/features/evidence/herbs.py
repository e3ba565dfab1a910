"""`kg://herb/{id}`: a herb node with its names, parts, constituents, indications and sources (seed 003).

- names: the imported Thai and English names (`kg_names`, preferred first; "" when the herb has none
  in a language, the English one then falls back on the node's MeSH or Duke name); `scientific`
  (additive) lists its scientific names.
- parts: the plant parts the imported facts name (the `part` of constituent and indication lines).
- constituents: HAS_CONSTITUENT edges (Dr. Duke's constituent table, curated imports, the
  literature), each with Dr. Duke's activities of that chemical, and (additive) the plant `parts` and
  whether it is `widespread` (found in 5% of Duke's plants or more: nutrients, common terpenes);
  characteristic ones first.
- indications: TREATS edges of the herb and, marked `via`, of its constituents (not of a widespread
  one that only Duke's table names: water or calcium says nothing of a herb); `icdCode` is the
  closest ICD-10-CM code through the Disease Ontology's cross-references ("" when DO has none),
  `icd10cm` all of them, `strength` how strong the evidence is.
- traditional_uses (additive): what Dr. Duke's ethnobotany records the plant was used for, each
  labelled `kind` "traditional use (Dr. Duke's ethnobotany), not evidence", with the MeSH disease
  and ICD-10-CM codes where the use names one. Never an indication: no evidence says they work.
- sources: every source behind the record: the evidence rows' sources (`pmid:N`, imported sources)
  and the tables the names came from.
An id that is not a herb of the graph is NOT_FOUND (a resource error).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

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
from bio_mcp.graph.duke_farmacy import ETHNOBOTANY_SOURCE, TRADITIONAL_USE, TraditionalUse, carries_to_herb
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
    parts: list[str] = Field(default_factory=list, description="The plant parts said to contain it")
    widespread: bool = Field(default=False, description="Found in 5% of Dr. Duke's plants or more (nutrients, "
                             "common terpenes): its indications are not carried to the herb")


class HerbIndication(BaseModel):
    icdCode: str
    description: str
    id: str
    icd10cm: list[str] = Field(default_factory=list)
    via: str | None = None
    strength: str
    sources: list[str] = Field(default_factory=list)


class HerbTraditionalUse(BaseModel):
    kind: str = Field(default=TRADITIONAL_USE, description="What this is: a recorded traditional use, not evidence")
    use: str = Field(description="Dr. Duke's term, as recorded")
    id: str | None = Field(default=None, description="The MeSH disease the term names, if it names one")
    description: str = Field(default="", description="That disease's MeSH name")
    icdCode: str = Field(default="", description="Its closest ICD-10-CM code (Disease Ontology); '' if none")
    icd10cm: list[str] = Field(default_factory=list)
    taxon: str = Field(description="The taxon the use is recorded for")
    source: str = ETHNOBOTANY_SOURCE


class HerbRecord(BaseModel):
    id: str
    names: HerbNames
    parts: list[str]
    constituents: list[HerbConstituent]
    indications: list[HerbIndication]
    sources: list[str]
    formulations: list[str] = Field(default_factory=list)
    traditional_uses: list[HerbTraditionalUse] = Field(
        default_factory=list, description=f"Each a {TRADITIONAL_USE}; never a stated treatment")


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
    vocabulary: Vocabulary | None, uses_of: Callable[[list[str]], list[TraditionalUse]] = lambda taxa: [],
) -> HerbRecord:
    """`uses_of`: the traditional uses recorded for a herb's scientific names (`duke_farmacy.traditional_uses`)."""
    herb_found = find_herb(connection, herb_id, vocabulary)
    if herb_found is None:
        raise BioMcpError(ErrorCode.NOT_FOUND, f"{herb_id!r} is neither a herb of the knowledge graph, a MeSH plant "
                          "nor a herb's name", {"id": herb_id})
    entity_id, herb = herb_found
    own = relation_edges(connection, [entity_id], (HAS_CONSTITUENT, TREATS))
    carrying = [edge.dst for edge in own if edge.type == HAS_CONSTITUENT and carries_to_herb(edge.props)]
    via = relation_edges(connection, carrying, (TREATS,)) if carrying else []
    edges = own + via
    evidence = evidence_of(connection, [edge.key for edge in edges])
    documents = supporting_documents(connection, [row for rows in evidence.values() for row in rows])
    info = entities(connection, [edge.dst for edge in edges])
    constituents = sorted((
        HerbConstituent(
            id=edge.dst, name=info[edge.dst].title if edge.dst in info else edge.dst,
            activities=list(activities.get(search_key(info[edge.dst].title), ())) if edge.dst in info else [],
            sources=sorted({row.source for row in evidence.get(edge.key, [])}),
            parts=list(edge.props.get("parts") or []), widespread=bool(edge.props.get("widespread")),
        )
        for edge in own if edge.type == HAS_CONSTITUENT
    ), key=lambda c: (c.widespread, c.name.casefold(), c.id))
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
    taxa = [name.name for name in herb.names if name.kind == "scientific"]
    concept = vocabulary.get(entity_id) if vocabulary is not None and not taxa else None
    if concept is not None:
        # A MeSH plant the graph holds no names for (nothing imported yet): its binomial is among
        # its entry terms (Garlic: Allium sativum); Duke's table is keyed by taxa, so common names miss.
        taxa = [concept.name, *concept.synonyms]
    traditional = [_traditional_use(use, icd10, vocabulary) for use in uses_of(taxa)]
    if traditional:
        sources.add(ETHNOBOTANY_SOURCE)
    return HerbRecord(
        id=entity_id,
        names=HerbNames(
            th=herb.name("th") or "", en=herb.name("en") or herb.title,
            scientific=sorted({name.name for name in herb.names if name.kind == "scientific"}),
        ),
        parts=parts, constituents=constituents, indications=indications, sources=sorted(sources),
        formulations=sorted(set(formulations)), traditional_uses=traditional,
    )


def _traditional_use(use: TraditionalUse, icd10: Icd10Index, vocabulary: Vocabulary | None) -> HerbTraditionalUse:
    concept = vocabulary.get(use.disease_id) if vocabulary is not None and use.disease_id else None
    codes = icd10.codes(use.disease_id, concept.name if concept else None) if use.disease_id else []
    return HerbTraditionalUse(
        use=use.use, id=use.disease_id, description=concept.name if concept else "",
        icdCode=codes[0].code if codes else "", icd10cm=[code.code for code in codes], taxon=use.taxon,
    )
