"""A budgeted breadth-first walk of the graph: one batched neighbour query per hop.

From the seeds (score 1), each hop reads the frontier's edges of the whitelisted types, best first
(`GraphStore.neighbours`: at most `top_k` edges per frontier node, type and direction, so a hub is
never expanded in full; of an entity's equally weighted sections the newest stored). A newly reached node v scores

    gain(v) = max over frontier nodes u with an edge u-v of  score(u) * weight(u, v) * DECAY
    score(v) = gain(v) * (1 - novelty_penalty) ** i

where i is how many nodes already taken this hop share v's best parent u (the i-th child of one
parent is worth less: a hop spreads over several parents instead of emptying one hub). Candidates
are taken best first (score, then id); one scoring below `delta_threshold` is pruned; each hop
expands at most `top_k` of the nodes it took. Scores stay in [0, 1] and ties break by id, so the
same graph and request always give the same subgraph.

The walk stops with a reason: `delta<τ` (no new node cleared the threshold), `depth_limit`
(max_depth reached with a frontier left) or `budget_exhausted` (max_nodes reached, more than
max_rows rows read, or a query ran past its timeout).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.graph.elements import HAS_SECTION, HAS_TOPIC, MENTIONS, RELATIONSHIP_TYPES, TRAVERSAL_LABELS
from bio_mcp.graph.store import Direction, GraphStore, Neighbour, QueryTimeout

StopReason = Literal["delta<τ", "budget_exhausted", "depth_limit"]

DECAY = 0.85
MAX_DEPTH_CAP = 5
MAX_NODES_CAP = 200
DEFAULT_MAX_ROWS = 100_000
DEFAULT_RELATIONSHIPS: tuple[str, ...] = (MENTIONS, HAS_SECTION)
DEFAULT_LABELS: tuple[str, ...] = ("Chunk", "Entity", "Topic", "Document")
SCORING = (
    "score(seed)=1; gain(v)=max_u score(u)*weight(u,v)*0.85 over frontier nodes u linked to v; "
    "score(v)=gain(v)*(1-novelty_penalty)^i for the i-th node taken this hop under the same best parent; "
    "candidates taken best first (ties by id) while score>=delta_threshold and nodes<max_nodes; "
    "each hop expands its top_k nodes, reading at most top_k edges per node, type and direction "
    "(best weight first; an entity's equally weighted sections newest first)"
)


@dataclass(frozen=True)
class Frontier:
    top_k: int = 20
    delta_threshold: float = 0.05
    novelty_penalty: float = 0.2


@dataclass(frozen=True)
class TraversalSpec:
    seeds: Sequence[str]
    direction: Direction = "out"
    max_depth: int = 3
    max_nodes: int = 150
    relationships: Sequence[str] = DEFAULT_RELATIONSHIPS
    labels: Sequence[str] = DEFAULT_LABELS
    frontier: Frontier = Frontier()
    topics: Sequence[str] = ()
    entities: Sequence[str] = ()
    max_rows: int = DEFAULT_MAX_ROWS


@dataclass(frozen=True)
class WalkNode:
    id: str
    label: str
    labels: tuple[str, ...]
    type: str | None
    title: str | None
    score: float
    depth: int


@dataclass(frozen=True)
class WalkEdge:
    src: str
    dst: str
    type: str
    depth: int
    path: tuple[str, ...]


@dataclass
class Subgraph:
    nodes: list[WalkNode]
    edges: list[WalkEdge]
    expanded: int
    pruned: int
    depth_reached: int
    reason: StopReason
    rows_read: int
    timed_out: bool = False
    missing_seeds: list[str] = field(default_factory=list)


def validate(spec: TraversalSpec) -> None:
    """VALIDATION errors for a request the graph cannot serve, naming what is allowed."""
    unknown = [name for name in spec.relationships if name not in RELATIONSHIP_TYPES]
    if unknown:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            f"relationship type(s) {unknown} are not in this graph; allowed: {list(RELATIONSHIP_TYPES)}",
            {"unknown": unknown, "allowed": list(RELATIONSHIP_TYPES)},
        )
    labels = [name for name in spec.labels if name not in TRAVERSAL_LABELS]
    if labels:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            f"label(s) {labels} are not in this graph; allowed: {list(TRAVERSAL_LABELS)}",
            {"unknown": labels, "allowed": list(TRAVERSAL_LABELS)},
        )
    if not 1 <= spec.max_depth <= MAX_DEPTH_CAP:
        raise BioMcpError(ErrorCode.VALIDATION, f"max_depth must be 1 to {MAX_DEPTH_CAP}", {"max_depth": spec.max_depth})
    if not 1 <= spec.max_nodes <= MAX_NODES_CAP:
        raise BioMcpError(ErrorCode.VALIDATION, f"max_nodes must be 1 to {MAX_NODES_CAP}", {"max_nodes": spec.max_nodes})


def node_labels(label: str, entity_type: str | None, via: str | None) -> tuple[str, ...]:
    """Every label a node answers to: Section is also Chunk; an Entity has its type, and is a Topic
    when reached through HAS_TOPIC."""
    if label == "Section":
        return ("Chunk", "Section")
    if label == "Entity":
        labels = ["Entity"] + ([entity_type] if entity_type else [])
        return (*labels, "Topic") if via == HAS_TOPIC else tuple(labels)
    return (label,)


def _shown_label(label: str) -> str:
    return "Chunk" if label == "Section" else label


@dataclass
class _Candidate:
    id: str
    gain: float
    parent: str
    via: str
    neighbour: Neighbour
    edges: list[Neighbour] = field(default_factory=list)


def _edge_of(row: Neighbour) -> tuple[str, str, str]:
    """(src, type, dst) of a neighbour row in the graph's own direction."""
    return (row.origin, row.type, row.other) if row.direction == "out" else (row.other, row.type, row.origin)


def traverse(store: GraphStore, spec: TraversalSpec) -> Subgraph:
    validate(spec)
    policy = spec.frontier
    wanted_labels = set(spec.labels)
    seeds = sorted(dict.fromkeys(spec.seeds))
    found = store.nodes(seeds)
    missing = [seed for seed in seeds if seed not in found]
    if not found:
        raise BioMcpError(
            ErrorCode.NOT_FOUND,
            "none of the seed ids is a node of the graph: entity ids come from graph.entities, section and "
            "document ids from kb.search (a graph with no documents yet is filled by pubmed.sync_delta)",
            {"seed_ids": seeds},
        )
    taken: dict[str, WalkNode] = {}
    paths: dict[str, tuple[str, ...]] = {}
    for seed in sorted(found)[: spec.max_nodes]:
        node = found[seed]
        taken[seed] = WalkNode(
            seed, _shown_label(node.label), node_labels(node.label, node.type, None), node.type, node.title, 1.0, 0
        )
        paths[seed] = (seed,)
    edges: dict[tuple[str, str, str], WalkEdge] = {}
    frontier = sorted(taken)[: policy.top_k]
    expanded = pruned = rows_read = depth_reached = 0
    reason: StopReason | None = None
    timed_out = False
    for depth in range(1, spec.max_depth + 1):
        if not frontier:
            reason = "delta<τ"
            break
        try:
            rows = store.neighbours(frontier, spec.direction, list(spec.relationships), policy.top_k)
        except QueryTimeout:
            reason, timed_out = "budget_exhausted", True
            break
        expanded += len(frontier)
        rows_read += len(rows)
        depth_reached = depth
        candidates: dict[str, _Candidate] = {}
        for row in sorted(rows, key=lambda r: (r.origin, r.type, r.direction, r.other)):
            key = _edge_of(row)
            if row.other in taken:
                if key not in edges:
                    edges[key] = WalkEdge(key[0], key[2], row.type, depth, paths[row.origin] + (row.other,))
                continue
            labels = node_labels(row.node_label, row.node_type, row.type)
            if wanted_labels.isdisjoint(labels):
                pruned += 1
                continue
            gain = taken[row.origin].score * max(0.0, min(1.0, row.weight)) * DECAY
            current = candidates.get(row.other)
            if current is None:
                candidates[row.other] = _Candidate(row.other, gain, row.origin, row.type, row, [row])
                continue
            current.edges.append(row)
            # Rows come sorted by origin, so on equal gains the parent with the smallest id stays.
            if gain > current.gain:
                current.gain, current.parent, current.via, current.neighbour = gain, row.origin, row.type, row
        if spec.topics or spec.entities:
            try:
                pruned += _apply_filters(store, spec, candidates)
            except QueryTimeout:
                reason, timed_out = "budget_exhausted", True
                break
        next_frontier: list[str] = []
        for candidate, score in _ranked(candidates, policy.novelty_penalty):
            if score < policy.delta_threshold:
                pruned += 1
                continue
            if len(taken) >= spec.max_nodes:
                pruned += 1
                reason = "budget_exhausted"
                continue
            row = candidate.neighbour
            taken[candidate.id] = WalkNode(
                candidate.id, _shown_label(row.node_label), node_labels(row.node_label, row.node_type, candidate.via),
                row.node_type, row.node_title, round(score, 6), depth,
            )
            paths[candidate.id] = paths[candidate.parent] + (candidate.id,)
            for edge_row in candidate.edges:
                key = _edge_of(edge_row)
                edges.setdefault(key, WalkEdge(key[0], key[2], edge_row.type, depth, paths[edge_row.origin] + (candidate.id,)))
            if len(next_frontier) < policy.top_k:
                next_frontier.append(candidate.id)
        if rows_read > spec.max_rows:
            reason = "budget_exhausted"
        if reason is not None:
            break
        frontier = next_frontier
    if reason is None:
        reason = "depth_limit" if frontier else "delta<τ"
    nodes = sorted(taken.values(), key=lambda n: (-n.score, n.id))
    return Subgraph(
        nodes=nodes,
        edges=sorted(edges.values(), key=lambda e: (e.depth, e.src, e.type, e.dst)),
        expanded=expanded,
        pruned=pruned,
        depth_reached=depth_reached,
        reason=reason,
        rows_read=rows_read,
        timed_out=timed_out,
        missing_seeds=missing,
    )


def _ranked(candidates: dict[str, _Candidate], novelty_penalty: float) -> list[tuple[_Candidate, float]]:
    by_parent: dict[str, list[_Candidate]] = {}
    for candidate in candidates.values():
        by_parent.setdefault(candidate.parent, []).append(candidate)
    scored: list[tuple[_Candidate, float]] = []
    for group in by_parent.values():
        group.sort(key=lambda c: (-c.gain, c.id))
        for index, candidate in enumerate(group):
            scored.append((candidate, candidate.gain * (1.0 - novelty_penalty) ** index))
    scored.sort(key=lambda item: (-item[1], item[0].id))
    return scored


def _apply_filters(store: GraphStore, spec: TraversalSpec, candidates: dict[str, _Candidate]) -> int:
    """Drop Documents (and Sections of documents) outside the topic and entity filters; returns how many."""
    document_of: dict[str, str] = {}
    for candidate in candidates.values():
        row = candidate.neighbour
        if row.node_label == "Document":
            document_of[candidate.id] = candidate.id
        elif row.node_label == "Section" and row.node_document_id:
            document_of[candidate.id] = row.node_document_id
    if not document_of:
        return 0
    allowed = store.documents_matching(set(document_of.values()), list(spec.topics), list(spec.entities))
    dropped = [node_id for node_id, document in document_of.items() if document not in allowed]
    for node_id in dropped:
        del candidates[node_id]
    return len(dropped)
