"""A document version's graph from what the corpus stores of it, and the entities it points to.

Pure functions: the same document, chunks, mentions and facts give the same nodes and edges (ids,
weights, properties) whether a sync or a rebuild calls them. Linking happens before, outside any
transaction; `document_graph` only assembles.

Edge weights (they order a node's edges best first and scale traversal scores): HAS_SECTION 1;
MENTIONS the best confidence of its spans; HAS_TOPIC 1 for a major topic, 0.6 otherwise (0.8 for a
trial the record lists in its DataBankList, 0.6 for a substance of its ChemicalList that is not also
a heading and for a symbol of its GeneSymbolList); BROADER and HAS_PHARM_ACTION 1. Relations the
sections' sentences state (TREATS, CAUSES, HAS_CONSTITUENT, ...) become evidence rows, one per
sentence; their edges are derived from the evidence of all documents (`graph/evidence_store.py`).

HAS_TOPIC edges say where they come from in `props.source`: MeSH, DataBankList, ChemicalList (to a
`mesh:` Chemical entity: a descriptor, or a supplementary concept `mesh:C...` named by the record)
or GeneSymbolList (to a `gene:<symbol>` Gene entity; once PubTator3's annotations of the record name
that gene, to its `ncbigene:<id>` entity instead: `graph/listed_genes.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Protocol

from bio_mcp.graph.elements import (
    BROADER,
    HAS_PHARM_ACTION,
    HAS_SECTION,
    HAS_TOPIC,
    MENTIONS,
    DocumentGraph,
    Edge,
    Node,
    StatedRelation,
)
from bio_mcp.graph.evidence_store import EvidenceRow, SqlEvidenceStore
from bio_mcp.graph.facts import DocumentFacts
from bio_mcp.graph.ids import (
    PUBMED_SOURCE_TYPE,
    document_node_id,
    gene_entity_id,
    mesh_entity_id,
    pubmed_source_uri,
    section_node_id,
    trial_entity_id,
)
from bio_mcp.graph.interactions import indexed_interactions
from bio_mcp.graph.mentions import EntityMentions
from bio_mcp.graph.store import GraphStore

MAJOR_TOPIC_WEIGHT = 1.0
MINOR_TOPIC_WEIGHT = 0.6
TRIAL_TOPIC_WEIGHT = 0.8
CHEMICAL_TOPIC_WEIGHT = 0.6
GENE_TOPIC_WEIGHT = 0.6
_UNLABELLED_SECTION = "Abstract"


@dataclass(frozen=True)
class SectionSource:
    chunk_id: str
    chunk_uuid: str
    label: str | None
    text: str
    position: int


@dataclass(frozen=True)
class DocumentSource:
    pmid: str
    title: str | None
    version: int
    last_edited: str | None
    sections: Sequence[SectionSource]
    facts: DocumentFacts = field(default_factory=DocumentFacts)
    # chunk_id -> the entities linked in that chunk's text, with their mentions (`group_mentions`).
    mentions: Mapping[str, Sequence[EntityMentions]] = field(default_factory=dict)
    created_at: datetime | None = None
    # chunk_id -> the relations that chunk's sentences state (offsets into its text).
    relations: Mapping[str, Sequence[StatedRelation]] = field(default_factory=dict)
    # An ingested file's URI and type (`file`); None: the PubMed record `pubmed:<pmid>`.
    source_uri: str | None = None
    source_type: str | None = None


class EntityCatalog(Protocol):
    """What the graph needs of a vocabulary: a name and type per entity id (or a name alone for an
    entity it knows only by name), the MeSH tree above it and its pharmacological actions (entity
    ids in, entity ids out)."""

    def describe(self, entity_id: str) -> tuple[str, str] | None: ...

    def name_of(self, entity_id: str) -> str | None: ...

    def broader(self, entity_id: str) -> Sequence[str]: ...

    def pharm_actions(self, entity_id: str) -> Sequence[str]: ...


def document_graph(source: DocumentSource) -> DocumentGraph:
    """The Document node, its Section nodes and their HAS_SECTION, MENTIONS and HAS_TOPIC edges."""
    uri = source.source_uri or pubmed_source_uri(source.pmid)
    doc_id = document_node_id(uri)
    document = Node(
        id=doc_id, label="Document", title=source.title, source_uri=uri,
        source_type=source.source_type or PUBMED_SOURCE_TYPE,
        version=str(source.version), last_edited=source.last_edited,
    )
    sections: list[Node] = []
    edges: list[Edge] = []
    evidence: list[EvidenceRow] = []
    for section in sorted(source.sections, key=lambda s: (s.position, s.chunk_id)):
        section_id = section_node_id(uri, section.chunk_id)
        sections.append(
            Node(
                id=section_id, label="Section", title=section.label or _UNLABELLED_SECTION, document_id=doc_id,
                chunk_uuid=section.chunk_uuid, level=1, order=section.position, anchor=f"chunk-{section.chunk_id}",
            )
        )
        edges.append(Edge(src=doc_id, type=HAS_SECTION, dst=section_id, weight=1.0, document_id=doc_id))
        edges.extend(
            Edge(section_id, MENTIONS, found.entity_id, found.weight, doc_id, found.props)
            for found in source.mentions.get(section.chunk_id, ())
        )
        evidence.extend(
            EvidenceRow(r.src, r.type, r.dst, doc_id, section_id, uri, section.text[r.start : r.end], r.start, r.end,
                        r.extractor, r.confidence)
            for r in source.relations.get(section.chunk_id, ())
        )
    topics: dict[str, Edge] = {}
    for ui, major in source.facts.topics:
        entity = mesh_entity_id(ui)
        weight = MAJOR_TOPIC_WEIGHT if major else MINOR_TOPIC_WEIGHT
        # A descriptor listed twice (with different qualifiers) is major if either listing is.
        if entity not in topics or weight > topics[entity].weight:
            topics[entity] = Edge(doc_id, HAS_TOPIC, entity, weight, doc_id, {"major": major, "source": "MeSH"})
    for nct in source.facts.trials:
        entity = trial_entity_id(nct)
        topics.setdefault(
            entity, Edge(doc_id, HAS_TOPIC, entity, TRIAL_TOPIC_WEIGHT, doc_id, {"major": False, "source": "DataBankList"})
        )
    topics.update({key: edge for key, edge in _listed_topics(doc_id, source.facts).items() if key not in topics})
    edges.extend(topics[key] for key in sorted(topics))
    return DocumentGraph(document=document, sections=sections, edges=edges, evidence=tuple(evidence))


def _listed_topics(doc_id: str, facts: DocumentFacts) -> dict[str, Edge]:
    """HAS_TOPIC edges of the record's ChemicalList and GeneSymbolList (a heading's own edge, when
    the substance is also a heading, is kept instead)."""
    listed = {
        mesh_entity_id(ui): Edge(doc_id, HAS_TOPIC, mesh_entity_id(ui), CHEMICAL_TOPIC_WEIGHT, doc_id,
                                 {"major": False, "source": "ChemicalList"})
        for ui, _name in facts.chemicals
    }
    for symbol in facts.genes:
        entity = gene_entity_id(symbol)
        listed[entity] = Edge(doc_id, HAS_TOPIC, entity, GENE_TOPIC_WEIGHT, doc_id, {"major": False, "source": "GeneSymbolList"})
    return listed


def listed_entities(sources: Iterable[DocumentSource]) -> tuple[dict[str, str], dict[str, str]]:
    """The types and names the records' own lists give their entities: ChemicalList substances are
    Chemicals named by NameOfSubstance, GeneSymbolList symbols Genes named by their symbol."""
    types: dict[str, str] = {}
    names: dict[str, str] = {}
    for source in sources:
        for ui, name in source.facts.chemicals:
            types[mesh_entity_id(ui)] = "Chemical"
            names.setdefault(mesh_entity_id(ui), name)
        for symbol in source.facts.genes:
            types[gene_entity_id(symbol)] = "Gene"
            names.setdefault(gene_entity_id(symbol), symbol)
    return types, names


def referenced_entities(graphs: Iterable[DocumentGraph]) -> set[str]:
    graphs = list(graphs)
    referenced = {edge.dst for graph in graphs for edge in graph.edges if edge.type in (MENTIONS, HAS_TOPIC)}
    referenced.update(end for graph in graphs for row in graph.evidence for end in (row.src, row.dst))
    return referenced


def entity_graph(
    entity_ids: Iterable[str],
    catalog: EntityCatalog,
    claimed_types: Mapping[str, str],
    claimed_names: Mapping[str, str] | None = None,
) -> tuple[list[Node], list[Edge]]:
    """Entity nodes for `entity_ids` and everything above them in the MeSH tree (with the BROADER
    edges), plus their pharmacological actions (HAS_PHARM_ACTION) and those actions' ancestors.
    An entity the catalog does not describe takes its claimed type (else Concept) and its claimed
    name (the record's own, as NameOfSubstance), else the catalog's name for it, else its id."""
    nodes: dict[str, Node] = {}
    edges: list[Edge] = []
    pending = sorted(set(entity_ids))
    while pending:
        entity_id = pending.pop()
        if entity_id in nodes:
            continue
        described = catalog.describe(entity_id)
        if described is not None:
            name, entity_type = described
        else:
            name = (claimed_names or {}).get(entity_id) or catalog.name_of(entity_id) or _fallback_name(entity_id)
            entity_type = claimed_types.get(entity_id, "Concept")
        nodes[entity_id] = Node(id=entity_id, label="Entity", type=entity_type, title=name)
        for parent in catalog.broader(entity_id):
            edges.append(Edge(src=entity_id, type=BROADER, dst=parent, weight=1.0))
            pending.append(parent)
        for action in catalog.pharm_actions(entity_id):
            edges.append(Edge(src=entity_id, type=HAS_PHARM_ACTION, dst=action, weight=1.0))
            pending.append(action)
    return [nodes[key] for key in sorted(nodes)], sorted(edges, key=lambda e: (e.src, e.type, e.dst))


def write_document_graphs(
    store: GraphStore, sources: Sequence[DocumentSource], catalog: EntityCatalog,
    evidence: SqlEvidenceStore | None = None,
) -> None:
    """Replace these documents' graphs in `store` (and their relation evidence in `evidence`) and
    add the entities they point to that it lacks (with their closure: a stored entity always has its
    ancestors and actions stored too). A record NLM indexed as an interaction study states its
    interactions too (`graph/interactions.py`), whichever path writes it."""
    sources = [_with_indexed_interactions(source, catalog) for source in sources]
    graphs = [document_graph(source) for source in sources]
    referenced = referenced_entities(graphs)
    missing = store.missing(referenced)
    claimed = {
        found.entity_id: found.entity_type
        for source in sources
        for mentions in source.mentions.values()
        for found in mentions
    }
    claimed.update({trial_entity_id(nct): "Trial" for source in sources for nct in source.facts.trials})
    # Plants MeSH lacks are named only by the relation extractor's dictionary.
    claimed.update({row.src: "Organism" for graph in graphs for row in graph.evidence if row.src.startswith("herb:")})
    listed_types, listed_names = listed_entities(sources)
    claimed.update(listed_types)
    store.write_documents(graphs)
    nodes, edges = entity_graph(missing, catalog, claimed, listed_names)
    store.insert(nodes, edges)
    if evidence is not None:
        evidence.replace_documents(
            [graph.document.id for graph in graphs], [row for graph in graphs for row in graph.evidence]
        )


def _with_indexed_interactions(source: DocumentSource, catalog: EntityCatalog) -> DocumentSource:
    ordered = sorted(source.sections, key=lambda s: (s.position, s.chunk_id))
    sections = [(section.chunk_id, section.text) for section in ordered]
    indexed = indexed_interactions(source.facts, sections, source.mentions, catalog)
    if not indexed:
        return source
    relations = {chunk_id: list(source.relations.get(chunk_id, ())) for chunk_id in {*source.relations, *indexed}}
    for chunk_id, found in indexed.items():
        stated = {(r.src, r.type, r.dst) for r in relations[chunk_id]}
        relations[chunk_id] += [r for r in found if (r.src, r.type, r.dst) not in stated]
    return replace(source, relations=relations)


def _fallback_name(entity_id: str) -> str:
    return entity_id.split(":", 1)[1] if ":" in entity_id else entity_id
