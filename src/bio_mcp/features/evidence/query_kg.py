"""`tool.query_kg`: path queries over the evidence relations (seed 003), e.g. Herb -> Constituent -> Indication.

A bounded walk over `kg_edges` of the relation types only (HAS_CONSTITUENT, TREATS, CAUSES,
INTERACTS_WITH, HAS_INGREDIENT), one batched query per hop:
- from a herb or formulation it follows edges forwards (herb -> constituent -> indication);
- from an indication backwards (indication <- constituent <- herb), so paths start at the start;
- from a constituent both ways (the herbs that contain it, what it treats, causes or interacts with).
Node types: herb, formulation, constituent (a chemical a curated import, or a sentence Dr. Duke's
tables confirm, says a plant contains), chemical (any other), indication, adverse_effect (CAUSES),
interaction (INTERACTS_WITH); a start given as a constituent may be any chemical. `pattern` (e.g. `herb>constituent>indication`; `>`, `->` or `→` between) keeps
the paths of exactly those node types; without one, every path that cannot be extended (or reached
max_depth) is returned. `filters.relations` narrows the edge types, `filters.min_strength` drops
edges whose evidence is weaker. A node is never visited twice on a path.

The start is a graph node or, with no paths, a MeSH descriptor the graph has no node for; a herb may
be named instead (`herbs.find_herb`: an imported name, or a MeSH plant's heading or entry term); anything
else is NOT_FOUND, and a start of another type than `start.type` says is VALIDATION.

Budgets: max_depth <= 4, max_paths <= 200 (paths beyond are cut and `truncated` says so), at most
MAX_EDGES_PER_NODE edges of each relation type read per node and hop, best weight first (a herb's
constituents with relations of their own first when the walk goes on). Order is deterministic:
edges by weight then ids, paths in walk order, a herb's constituents that lead nowhere last.
`edges` (additive) is aligned with `paths`: each edge with its strength and up to three evidence
sentences with their sources. `coverage` (additive) says what was searched; with no path the text
begins with the silence sentence (`coverage.py`): no path is not evidence of safety.

Two tiers (`features/evidence/relations.py`: `tier_of`), each edge's `tier` and each path's in
`path_tiers`, listed under their own headings in the text: stated relations (a sentence the
extractor found both ends in, a quote naming both by any of their names, or a curated import) and
co-mentions ("mentioned together, not a stated relation"). A CAUSES whose cause is a laboratory
measure (ALT, creatinine: `graph/lab_measures.py`) is an extractor's misreading and is not walked.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator
from sqlalchemy.engine import Connection

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.evidence.coverage import Coverage, coverage_of, searched_text, silence
from bio_mcp.features.evidence.herbs import find_formulation, find_herb
from bio_mcp.features.evidence.models import AuditedOutput
from bio_mcp.features.evidence.relations import (
    CO_MENTION,
    CO_MENTION_NOTE,
    STATED,
    EntityInfo,
    RelationEdge,
    curated_constituents,
    evidence_of,
    known_entities,
    names_for,
    relation_edges,
    strength_of,
    supporting_documents,
    tier_of,
)
from bio_mcp.features.evidence.strength import STRENGTH_ORDER
from bio_mcp.graph.duke_farmacy import carries_to_herb
from bio_mcp.graph.elements import (
    CAUSES,
    EVIDENCE_RELATIONS,
    HAS_CONSTITUENT,
    HAS_INGREDIENT,
    INTERACTS_WITH,
    TREATS,
)
from bio_mcp.graph.icd10 import Icd10Index
from bio_mcp.graph.ids import resolve_alias
from bio_mcp.graph.lab_measures import is_lab_measure
from bio_mcp.graph.vocabulary import Vocabulary
from bio_mcp.models import ToolInput, ToolOutput

MAX_DEPTH = 4
MAX_PATHS = 200
MAX_EDGES_PER_NODE = 50
EVIDENCE_PER_EDGE = 3
QUERY_RELATIONS: tuple[str, ...] = (*EVIDENCE_RELATIONS, HAS_INGREDIENT)
# "chemical": a chemical no curated import or Duke-confirmed sentence says a plant contains.
NODE_TYPES = ("herb", "formulation", "constituent", "chemical", "indication", "adverse_effect", "interaction")
_FORWARD_TYPE = {HAS_CONSTITUENT: "constituent", TREATS: "indication", CAUSES: "adverse_effect",
                 INTERACTS_WITH: "interaction", HAS_INGREDIENT: "herb"}
_SEPARATORS = re.compile(r"\s*(?:->|>|→)\s*")


class QueryStart(ToolInput):
    type: Literal["herb", "constituent", "indication", "formulation"] = Field(description="What the start node is")
    id: str = Field(min_length=1, description="Its entity id (mesh:D030024); a herb may be named "
                    "exactly (Thai, English, scientific or MeSH: 'garlic')")


class QueryFilters(ToolInput):
    relations: list[Literal[*QUERY_RELATIONS]] | None = Field(  # type: ignore[valid-type]
        default=None, description=f"Edge types to follow (default all of {', '.join(QUERY_RELATIONS)})"
    )
    min_strength: Literal["low", "moderate", "high"] | None = Field(
        default=None, description="Drop edges whose evidence is weaker than this"
    )


class QueryKgRequest(ToolInput):
    start: QueryStart = Field(description="The node the paths start from")
    pattern: str | None = Field(default=None, description="Node types of the wanted paths, e.g. herb>constituent>indication")
    filters: QueryFilters = Field(default_factory=QueryFilters, description="Edge type and strength filters")
    max_depth: int = Field(default=3, ge=1, le=MAX_DEPTH, description=f"Edges per path, at most {MAX_DEPTH}")
    max_paths: int = Field(default=50, ge=1, le=MAX_PATHS, description=f"Paths returned, at most {MAX_PATHS}")

    @field_validator("pattern")
    @classmethod
    def _known_types(cls, value: str | None) -> str | None:
        if value is None:
            return None
        steps = [step.lower() for step in _SEPARATORS.split(value.strip()) if step]
        unknown = [step for step in steps if step not in NODE_TYPES]
        if unknown or len(steps) < 2:
            raise ValueError(f"pattern must be two or more of {', '.join(NODE_TYPES)} joined by '>' (got {value!r})")
        return ">".join(steps)


class PathNode(ToolOutput):
    id: str
    type: str
    label: str
    icd10cm: str | None = Field(default=None, description="For an indication: its closest ICD-10-CM code")


class PathEvidence(ToolOutput):
    sentence: str
    source: str
    pmid: str | None = None
    document_id: str | None = None


class PathEdge(ToolOutput):
    src: str
    type: str
    dst: str
    strength: str
    documents: int
    evidence: list[PathEvidence]
    tier: Literal["stated", "co-mention"] = Field(
        default=STATED, description="stated: a quoted sentence naming both ends says it (or a curated import lists "
        f"it); co-mention: {CO_MENTION_NOTE}")


class QueryKgResponse(AuditedOutput):
    paths: list[list[PathNode]]
    edges: list[list[PathEdge]] = Field(default_factory=list, description="The edges of each path, aligned with paths")
    truncated: bool = False
    coverage: Coverage | None = Field(default=None, description="What was searched: documents, names and sources")
    path_tiers: list[Literal["stated", "co-mention"]] = Field(
        default_factory=list, description=f"Each path's tier, aligned with paths: co-mention ({CO_MENTION_NOTE}) when "
        "any of its edges is one")


def _node_type(info: EntityInfo | None, entity_id: str, constituents: set[str] | None = None) -> str:
    """A node's type; a chemical is a constituent only where a curated import or a sentence Dr.
    Duke's tables confirm says a plant contains it (`constituents`; None: taken as one, as a start
    node typed by the caller is)."""
    if entity_id.startswith("formulation:"):
        return "formulation"
    if entity_id.startswith("herb:") or (info is not None and info.type == "Organism"):
        return "herb"
    if info is not None and info.type in ("Disease", "Concept"):
        return "indication"
    return "constituent" if constituents is None or entity_id in constituents else "chemical"


def query_kg(
    connection: Connection, request: QueryKgRequest, icd10: Icd10Index, vocabulary: Vocabulary | None
) -> QueryKgResponse:
    start_id = resolve_alias(request.start.id)
    start_type = request.start.type
    start = known_entities(connection, [start_id], vocabulary).get(start_id)
    if start is None and start_type == "herb":
        # A herb by name, as tool.find_contraindications takes it ("garlic", "ขมิ้นชัน").
        herb = find_herb(connection, request.start.id, vocabulary)
        if herb is not None:
            start_id, start = herb
    if start is None and start_type == "formulation":
        # A formulation by slug or name, as tool.find_contraindications takes it ("triphala", "ตรีผลา").
        formulation = find_formulation(connection, request.start.id, vocabulary)
        if formulation is not None:
            start_id, start = formulation, known_entities(connection, [formulation], vocabulary)[formulation]
    if start is None:
        or_name = f" nor the name of a {start_type}" if start_type in ("herb", "formulation") else ""
        raise BioMcpError(ErrorCode.NOT_FOUND,
                          f"{request.start.id!r} is neither an id of the knowledge graph or MeSH{or_name}; graph.entities "
                          "finds ids by name",
                          {"field": "start.id"})
    actual = _node_type(start, start_id)
    if actual != start_type and not (start_type == "constituent" and actual == "chemical"):
        raise BioMcpError(ErrorCode.VALIDATION, f"start.id {start_id} is {_a(actual)}, not {_a(start_type)}",
                          {"field": "start.type", "actual": actual})
    pattern = request.pattern.split(">") if request.pattern else None
    if pattern is not None and pattern[0] != start_type:
        raise BioMcpError(ErrorCode.VALIDATION, f"pattern starts with {pattern[0]} but start.type is {start_type}",
                          {"field": "pattern"})
    depth_limit = min(request.max_depth, len(pattern) - 1) if pattern else request.max_depth
    types = list(request.filters.relations or QUERY_RELATIONS)
    minimum = STRENGTH_ORDER[request.filters.min_strength or "low"]
    directions: tuple[Literal["out", "in"], ...] = {"indication": ("in",), "constituent": ("out", "in")}.get(start_type, ("out",))

    # Partial paths: (node ids, node types, edges).
    frontier: list[tuple[list[str], list[str], list[RelationEdge]]] = [([start_id], [start_type], [])]
    finished: list[tuple[list[str], list[str], list[RelationEdge]]] = []
    # A herb's constituent that leads nowhere: listed after the paths that go on (a herb has hundreds
    # with Dr. Duke's table, and kg://herb lists them all).
    listed: list[tuple[list[str], list[str], list[RelationEdge]]] = []
    strengths: dict[tuple[str, str, str], tuple[str, int]] = {}
    info: dict[str, EntityInfo] = {start_id: start}
    truncated = False
    for depth in range(1, depth_limit + 1):
        last = sorted({path[0][-1] for path in frontier})
        hop: dict[str, list[tuple[RelationEdge, str]]] = {}
        for direction in directions:
            for edge in relation_edges(connection, last, types, direction):
                # A laboratory measure (ALT, creatinine) read as a cause is the extractor's error.
                if edge.type == CAUSES and is_lab_measure(edge.src):
                    continue
                origin, other = (edge.src, edge.dst) if direction == "out" else (edge.dst, edge.src)
                hop.setdefault(origin, []).append((edge, other))
        hop = {origin: _capped(connection, found, types, depth < depth_limit) for origin, found in hop.items()}
        new_edges = [edge for found in hop.values() for edge, _ in found if edge.key not in strengths]
        _grade(connection, new_edges, strengths)
        # Named by MeSH where the graph has no node for one yet (the edge came with its evidence).
        info.update(known_entities(connection, [other for found in hop.values() for _, other in found
                                                if other not in info], vocabulary))
        constituents = curated_constituents(connection, [other for found in hop.values() for _, other in found])
        extended: list[tuple[list[str], list[str], list[RelationEdge]]] = []
        for ids, kinds, path_edges in frontier:
            grew = False
            for edge, other in hop.get(ids[-1], []):
                if other in ids or STRENGTH_ORDER[strengths[edge.key][0]] < minimum:
                    continue
                # A widespread chemical only Duke's table names (water, iron) joins no herb to its relations.
                if path_edges and not all(carries_to_herb(e.props) for e in (edge, path_edges[-1]) if e.type == HAS_CONSTITUENT):
                    continue
                kind = _FORWARD_TYPE[edge.type] if edge.src == ids[-1] else _node_type(info.get(other), other,
                                                                                         constituents)
                if edge.type == HAS_CONSTITUENT and edge.src == ids[-1] and other not in constituents:
                    kind = "chemical"
                if pattern is not None and pattern[depth] != kind:
                    continue
                grew = True
                extended.append((ids + [other], kinds + [kind], path_edges + [edge]))
            if not grew and path_edges and pattern is None:
                ended = listed if len(path_edges) == 1 and path_edges[0].type == HAS_CONSTITUENT else finished
                ended.append((ids, kinds, path_edges))
        frontier = extended
        if len(finished) >= request.max_paths:
            break
    finished += [path for path in frontier if pattern is None or len(path[0]) == len(pattern)] + listed
    if len(finished) > request.max_paths:
        finished, truncated = finished[: request.max_paths], True
    evidence = evidence_of(connection, {edge.key for _, _, edges in finished for edge in edges})
    names: dict[str, set[str]] = {}

    def named(entity_id: str) -> set[str]:
        if entity_id not in names:
            names[entity_id] = names_for(info.get(entity_id), entity_id, vocabulary)
        return names[entity_id]

    def shown(rows: list) -> tuple[str, list]:
        """The edge's tier, and its rows to quote: the stated ones first."""
        stated = [row for row in rows if tier_of([row], named(row.src), named(row.dst)) == STATED]
        return (STATED if stated or not rows else CO_MENTION), stated + [row for row in rows if row not in stated]

    edges = [[(edge, *shown(evidence.get(edge.key, []))) for edge in path_edges] for _, _, path_edges in finished]
    return QueryKgResponse(
        paths=[[_path_node(node_id, kind, info.get(node_id), icd10) for node_id, kind in zip(ids, kinds, strict=True)]
               for ids, kinds, _ in finished],
        edges=[[PathEdge(src=edge.src, type=edge.type, dst=edge.dst, strength=strengths[edge.key][0],
                         documents=strengths[edge.key][1], tier=tier,
                         evidence=[PathEvidence(sentence=row.sentence, source=row.source, pmid=row.pmid,
                                                document_id=row.document_id)
                                   for row in rows[:EVIDENCE_PER_EDGE]])
                for edge, tier, rows in path] for path in edges],
        truncated=truncated,
        coverage=coverage_of(connection, [start_id], vocabulary),
        path_tiers=[CO_MENTION if any(tier == CO_MENTION for _, tier, _ in path) else STATED for path in edges],
    )


def _capped(
    connection: Connection, found: list[tuple[RelationEdge, str]], types: list[str], onwards: bool
) -> list[tuple[RelationEdge, str]]:
    """At most MAX_EDGES_PER_NODE edges of each type. A herb's constituents (hundreds, with Dr. Duke's
    table) that have relations of their own come first when the walk goes on, so that a herb's
    indications through its constituents are not cut for constituents that lead nowhere."""
    constituents = [other for edge, other in found if edge.type == HAS_CONSTITUENT and edge.dst == other]
    if onwards and len(constituents) > MAX_EDGES_PER_NODE:
        onward = {edge.src for edge in relation_edges(connection, constituents, [t for t in types if t != HAS_CONSTITUENT])}
        found = sorted(found, key=lambda pair: pair[0].type == HAS_CONSTITUENT and pair[1] not in onward)
    taken: dict[str, int] = {}
    kept = []
    for edge, other in found:
        if taken.get(edge.type, 0) < MAX_EDGES_PER_NODE:
            taken[edge.type] = taken.get(edge.type, 0) + 1
            kept.append((edge, other))
    return kept


def _grade(connection: Connection, edges: list[RelationEdge], strengths: dict[tuple[str, str, str], tuple[str, int]]) -> None:
    """The strength of each edge's evidence (a recipe's HAS_INGREDIENT edge: its table's line, an unknown design)."""
    evidence = evidence_of(connection, [edge.key for edge in edges])
    documents = supporting_documents(connection, [row for rows in evidence.values() for row in rows])
    for edge in edges:
        rows = evidence.get(edge.key, [])
        if rows:
            strength = strength_of(rows, documents)
            strengths[edge.key] = (strength.level, strength.documents)
        else:
            strengths[edge.key] = ("low", 0)


def _path_node(node_id: str, kind: str, info: EntityInfo | None, icd10: Icd10Index) -> PathNode:
    label = info.label if info is not None else node_id
    code = None
    if kind in ("indication", "adverse_effect"):
        codes = icd10.codes(node_id, info.title if info else None)
        code = codes[0].code if codes else None
    return PathNode(id=node_id, type=kind, label=label, icd10cm=code)


def _a(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def _path_text(nodes: list[PathNode], edges: list[PathEdge]) -> str:
    """The path with each hop's arrow the way its edge points: a walk from an indication or a
    constituent goes against some edges ("Hepatitis ← Curcumin ← Turmeric": turmeric contains
    curcumin, which treats hepatitis), and an arrow drawn along the walk would say the reverse."""
    def label(node: PathNode) -> str:
        return f"{node.label} ({node.type}{', ' + node.icd10cm if node.icd10cm else ''})"

    parts = [label(nodes[0])]
    for before, edge, node in zip(nodes[:-1], edges, nodes[1:], strict=True):
        parts.append(f"{'→' if edge.src == before.id else '←'} {label(node)}")
    return " ".join(parts)


def summarize(response: QueryKgResponse) -> str:
    if not response.paths:
        said = f"{silence(response.coverage)}\n{searched_text(response.coverage)}\n\n" if response.coverage else ""
        return f"{said}### Knowledge-graph paths\nNo path from this start node over the evidence relations."
    lines = [f"### Knowledge-graph paths ({len(response.paths)}{', truncated' if response.truncated else ''})"]
    tiers = response.path_tiers or [STATED] * len(response.paths)
    for tier, heading in ((STATED, "Stated relations (a quoted sentence naming both ends says so)"),
                          (CO_MENTION, f"Co-mentions ({CO_MENTION_NOTE})")):
        chosen = [(nodes, edges) for nodes, edges, path_tier in zip(response.paths, response.edges, tiers, strict=True)
                  if path_tier == tier]
        if not chosen:
            continue
        lines.append(f"#### {heading}: {len(chosen)}")
        for nodes, edges in chosen:
            lines.append("- " + _path_text(nodes, edges))
            for edge in edges:
                cited = "; ".join(f"{e.source}: “{e.sentence}”" for e in edge.evidence[:1])
                relation = edge.type if edge.tier == STATED else f"{edge.type}? ({CO_MENTION_NOTE})"
                lines.append(f"  - {relation} [{edge.strength}, {edge.documents} doc(s)] {cited}")
    return "\n".join(lines)
