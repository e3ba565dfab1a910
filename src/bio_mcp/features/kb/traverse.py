"""`graph.traverse` (seed name `traverse_relationships`): a budgeted walk from seed nodes.

The walk itself is `graph.traverse.traverse`; this module maps the seed's request onto it, enforces
the server-side limits around it and shapes the response. Limits: the connection must be had
within the connect timeout (BIO_MCP_GRAPH_CONNECT_TIMEOUT_MS, 1.5 s: PostgreSQL's driver cannot go
below 2 s, so the wait is bounded here), each query runs under the query timeout
(BIO_MCP_GRAPH_QUERY_TIMEOUT_MS, 2 s), and one call reads at most BIO_MCP_GRAPH_MAX_ROWS rows.
`walk` is the entry point for other features (kb.search's graph verbosity).
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, replace
from typing import Protocol

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.kb.models import (
    TraverseCaps,
    TraverseDiagnostics,
    TraverseEdge,
    TraverseExplain,
    TraverseNode,
    TraverseRequest,
    TraverseResponse,
)
from bio_mcp.graph.elements import RELATED_TO
from bio_mcp.graph.ids import resolve_alias
from bio_mcp.graph.related import META_KEY as RELATED_META_KEY
from bio_mcp.graph.related import MIN_SECTIONS, MIN_STRENGTH
from bio_mcp.graph.related_refresh import related_is_stale
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.graph.traverse import SCORING, Frontier, Subgraph, TraversalSpec, traverse, validate
from bio_mcp.store import MetadataStore


@dataclass(frozen=True)
class GraphLimits:
    max_rows: int = 100_000
    query_timeout_s: float = 2.0
    connect_timeout_s: float = 1.5

    @classmethod
    def from_settings(cls, settings: Settings) -> GraphLimits:
        return cls(
            max_rows=settings.graph_max_rows,
            query_timeout_s=settings.graph_query_timeout_ms / 1000,
            connect_timeout_s=settings.graph_connect_timeout_ms / 1000,
        )


def spec_of(request: TraverseRequest, limits: GraphLimits) -> TraversalSpec:
    return TraversalSpec(
        seeds=[resolve_alias(seed) for seed in request.seed_ids],
        direction=request.direction,
        max_depth=request.max_depth,
        max_nodes=request.max_nodes,
        relationships=list(dict.fromkeys(request.rel_whitelist)),
        labels=list(dict.fromkeys(request.label_whitelist)),
        frontier=Frontier(
            top_k=request.frontier.top_k,
            delta_threshold=request.frontier.delta_threshold,
            novelty_penalty=request.frontier.novelty_penalty,
        ),
        topics=[resolve_alias(topic) for topic in request.filters.topic or []],
        entities=[resolve_alias(entity) for entity in request.filters.entity or []],
        max_rows=limits.max_rows,
    )


async def walk(store: MetadataStore, spec: TraversalSpec, limits: GraphLimits) -> Subgraph:
    """`traverse` on a read connection of `store` under the connect and query timeouts."""
    validate(spec)
    loop = asyncio.get_running_loop()
    connected: asyncio.Future[None] = loop.create_future()
    abandoned = threading.Event()

    def signal_connected() -> None:
        if not connected.done():
            connected.set_result(None)

    def run() -> Subgraph | None:
        with store.read() as tx:
            loop.call_soon_threadsafe(signal_connected)
            if abandoned.is_set():
                return None
            graph = SqlGraphStore(tx.connection, timeout_s=limits.query_timeout_s)
            try:
                return traverse(graph, spec)
            finally:
                graph.close()

    task = asyncio.ensure_future(asyncio.to_thread(run))
    done, _ = await asyncio.wait({connected, task}, timeout=limits.connect_timeout_s, return_when=asyncio.FIRST_COMPLETED)
    if not done:
        abandoned.set()
        # The thread finishes on its own once its connect returns; its outcome is of no use now.
        task.add_done_callback(lambda finished: finished.cancelled() or finished.exception())
        raise BioMcpError(
            ErrorCode.STORE,
            f"no connection to the graph store within {limits.connect_timeout_s:g} s",
            {"connect_timeout_ms": round(limits.connect_timeout_s * 1000)},
        )
    result = await task
    if result is None:
        raise BioMcpError(ErrorCode.STORE, "the graph walk was abandoned")
    return result


def response_of(subgraph: Subgraph, spec: TraversalSpec, limits: GraphLimits, hint: str | None = None) -> TraverseResponse:
    return TraverseResponse(
        nodes=[
            TraverseNode(
                id=node.id, label=node.label, title=node.title or node.id, score=node.score, labels=list(node.labels),
                type=node.type, depth=node.depth,
            )
            for node in subgraph.nodes
        ],
        edges=[
            TraverseEdge(src=edge.src, dst=edge.dst, type=edge.type, depth=edge.depth, path=list(edge.path))
            for edge in subgraph.edges
        ],
        explain=TraverseExplain(
            scoring=SCORING,
            caps=TraverseCaps(
                max_depth=spec.max_depth, max_nodes=spec.max_nodes, max_rows=spec.max_rows,
                timeout_ms=round(limits.query_timeout_s * 1000),
            ),
        ),
        diagnostics=TraverseDiagnostics(
            expanded=subgraph.expanded, pruned=subgraph.pruned, reason=subgraph.reason,
            depth_reached=subgraph.depth_reached, rows_read=subgraph.rows_read, timed_out=subgraph.timed_out,
            missing_seeds=subgraph.missing_seeds, hint=hint,
        ),
    )


_OPPOSITE = {"out": "in", "in": "out"}


async def _direction_hint(store: MetadataStore, spec: TraversalSpec, limits: GraphLimits, subgraph: Subgraph) -> str | None:
    """When a one-way walk from seeds that exist found no edge, what one hop the other way finds.

    MENTIONS runs from a section to an entity, so a walk out of an entity (the seed's default
    direction) stops at once; an agent told only `delta<τ` would conclude the entity is isolated."""
    other = _OPPOSITE.get(spec.direction)
    if other is None or subgraph.edges or len(subgraph.missing_seeds) == len(spec.seeds):
        return None
    reverse = await walk(store, replace(spec, direction=other, max_depth=1), limits)
    if not reverse.edges:
        return None
    return (f"no {'/'.join(spec.relationships)} edge leaves the seeds in direction '{spec.direction}'; one hop in "
            f"direction '{other}' reaches {len(reverse.nodes) - len(subgraph.nodes)} nodes: call again with "
            f"direction '{other}' or 'both'")


def _related_hint(store: MetadataStore, spec: TraversalSpec, subgraph: Subgraph) -> str | None:
    """When a walk over RELATED_TO found none, whether the graph has them and whether they are current.

    RELATED_TO is a statistic of the whole corpus, recomputed after syncs rather than within them:
    until then `delta<τ` alone would read as an entity with no related entities."""
    if RELATED_TO not in spec.relationships or len(subgraph.missing_seeds) == len(spec.seeds):
        return None
    if any(edge.type == RELATED_TO for edge in subgraph.edges):
        return None
    with store.read() as tx:
        computed = SqlGraphStore(tx.connection).meta(RELATED_META_KEY)
        stale = related_is_stale(tx.connection)
    if computed is None:
        return (f"this graph has no {RELATED_TO} edges yet: they are computed over the whole corpus after a sync "
                "(by a running server in the background, by `bio-mcp sync` before it returns) or by "
                "`bio-mcp graph related`")
    when = f"{RELATED_TO} was computed at {computed.get('computed_at')} over {computed.get('sections')} sections"
    if stale:
        return (f"{when}, and the graph has changed since: a running server recomputes it shortly after its syncs; "
                "`bio-mcp graph related` does it now")
    return (f"{when} and is current (an edge joins entities sharing at least {MIN_SECTIONS} sections with an NPMI "
            f"of at least {MIN_STRENGTH}): this walk reached none")


async def traverse_relationships(request: TraverseRequest, store: MetadataStore, limits: GraphLimits) -> TraverseResponse:
    spec = spec_of(request, limits)
    subgraph = await walk(store, spec, limits)
    hints = [await _direction_hint(store, spec, limits, subgraph),
             await asyncio.to_thread(_related_hint, store, spec, subgraph)]
    return response_of(subgraph, spec, limits, "; ".join(hint for hint in hints if hint) or None)


class ShownNode(Protocol):
    """What the text shows of a node: a walk's (`TraverseNode`) or kb.search's subgraph's."""

    @property
    def id(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def type(self) -> str | None: ...
    @property
    def title(self) -> str: ...
    @property
    def score(self) -> float: ...


def node_line(node: ShownNode) -> str:
    """A node as a Markdown list item: score, label (and entity type), id, title cut at 100 characters."""
    title = node.title if len(node.title) <= 100 else node.title[:99].rstrip() + "…"
    return f"- {node.score:.3f} {node.label}{f' ({node.type})' if node.type else ''} `{node.id}` {title}"


def summarize(response: TraverseResponse) -> str:
    """Compact Markdown: the stop reason and budget, the nodes best first, then the edges."""
    diagnostics = response.diagnostics
    lines = [
        (f"**{len(response.nodes)} nodes, {len(response.edges)} edges** (stopped: {diagnostics.reason}; "
        f"expanded {diagnostics.expanded}, pruned {diagnostics.pruned}, depth {diagnostics.depth_reached}, "
        f"rows read {diagnostics.rows_read})"),
    ]
    if diagnostics.missing_seeds:
        lines.append(f"Not in the graph: {', '.join(diagnostics.missing_seeds)}")
    if diagnostics.hint:
        lines.append(f"Hint: {diagnostics.hint}")
    lines.append("")
    lines += [node_line(node) for node in response.nodes]
    if response.edges:
        lines.append("")
        lines.append("Edges: " + "; ".join(f"{e.src[:12]}-{e.type}->{e.dst[:12]}" for e in response.edges))
    return "\n".join(lines)
