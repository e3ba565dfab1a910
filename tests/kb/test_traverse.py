"""graph.traverse on the graph of the real records: caps, whitelists, filters, hubs, determinism and
every stop reason; SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from pydantic import ValidationError

from bio_mcp.errors import BioMcpError
from bio_mcp.features.kb.models import TraverseRequest
from bio_mcp.features.kb.traverse import GraphLimits, spec_of, traverse_relationships
from bio_mcp.graph.elements import RELATIONSHIP_TYPES
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.graph.traverse import TraversalSpec, traverse
from bio_mcp.store.schema import kg_edges, kg_mentions

pytestmark = pytest.mark.anyio

LIMITS = GraphLimits()


def hub(store) -> tuple[str, int]:
    """The entity with the most incoming MENTIONS edges, and how many."""
    with store.read() as tx:
        row = tx.connection.execute(
            sa.select(kg_mentions.c.dst, sa.func.count().label("n"))
            .group_by(kg_mentions.c.dst)
            .order_by(sa.desc("n"), kg_mentions.c.dst)
            .limit(1)
        ).one()
    return row[0], int(row[1])


def run(store, **arguments) -> dict:
    request = TraverseRequest.model_validate(arguments)
    with store.read() as tx:
        walk = traverse(SqlGraphStore(tx.connection), spec_of(request, LIMITS))
    return {"walk": walk, "ids": [node.id for node in walk.nodes]}


def test_a_hub_is_read_best_first_up_to_the_frontier_budget_never_in_full(graph_store) -> None:
    entity, degree = hub(graph_store)
    assert degree > 20
    result = run(graph_store, seed_ids=[entity], direction="in", max_depth=1, frontier={"top_k": 20})
    walk = result["walk"]
    # Two default relationship types, one direction: at most 2 x top_k rows for the one seed.
    assert walk.rows_read <= 40 and walk.expanded == 1
    assert walk.reason == "depth_limit"
    sections = [node for node in walk.nodes if node.label == "Chunk"]
    assert 0 < len(sections) <= 20
    assert all(0.0 <= node.score <= 1.0 for node in walk.nodes)


def test_max_nodes_is_a_hard_cap_and_says_budget_exhausted(graph_store) -> None:
    entity, _ = hub(graph_store)
    walk = run(graph_store, seed_ids=[entity], direction="both", max_nodes=10, max_depth=3)["walk"]
    assert len(walk.nodes) == 10 and walk.reason == "budget_exhausted" and walk.pruned > 0
    with pytest.raises(ValidationError):
        TraverseRequest(seed_ids=[entity], max_nodes=201)
    with pytest.raises(ValidationError):
        TraverseRequest(seed_ids=[entity], max_depth=6)


def test_max_depth_bounds_every_edge_and_node(graph_store) -> None:
    entity, _ = hub(graph_store)
    for depth in (1, 2, 3):
        walk = run(graph_store, seed_ids=[entity], direction="both", max_depth=depth, max_nodes=200)["walk"]
        assert walk.depth_reached <= depth
        assert max(node.depth for node in walk.nodes) <= depth
        assert all(1 <= edge.depth <= depth for edge in walk.edges)
        assert all(len(edge.path) == edge.depth + 1 for edge in walk.edges if edge.path[-1] in {n.id for n in walk.nodes})


def test_a_threshold_no_neighbour_clears_stops_with_delta(graph_store) -> None:
    entity, _ = hub(graph_store)
    walk = run(graph_store, seed_ids=[entity], direction="in", frontier={"delta_threshold": 0.99})["walk"]
    assert walk.reason == "delta<τ"
    assert [node.id for node in walk.nodes] == [entity] and walk.pruned > 0


def test_the_row_budget_stops_the_walk_as_budget_exhausted(graph_store) -> None:
    entity, _ = hub(graph_store)
    request = TraverseRequest(seed_ids=[entity], direction="both", max_depth=5, max_nodes=200)
    spec = spec_of(request, GraphLimits(max_rows=30))
    with graph_store.read() as tx:
        walk = traverse(SqlGraphStore(tx.connection), spec)
    assert walk.reason == "budget_exhausted" and 30 < walk.rows_read and walk.depth_reached < 5


def test_the_same_request_gives_the_same_subgraph_ordered_by_score_then_id(graph_store) -> None:
    entity, _ = hub(graph_store)
    first = run(graph_store, seed_ids=[entity], direction="both", max_depth=3)["walk"]
    second = run(graph_store, seed_ids=[entity], direction="both", max_depth=3)["walk"]
    assert first == second
    keys = [(-node.score, node.id) for node in first.nodes]
    assert keys == sorted(keys)
    assert len({node.score for node in first.nodes}) < len(first.nodes)  # ties exist, and are broken by id


def test_unknown_relationship_types_are_a_validation_error_listing_the_allowed_ones(graph_store) -> None:
    entity, _ = hub(graph_store)
    request = TraverseRequest(seed_ids=[entity], rel_whitelist=["MENTIONS", "CITES"])
    with pytest.raises(BioMcpError) as raised, graph_store.read() as tx:
        traverse(SqlGraphStore(tx.connection), spec_of(request, LIMITS))
    assert raised.value.code.value == "VALIDATION"
    assert raised.value.details["allowed"] == list(RELATIONSHIP_TYPES) and raised.value.details["unknown"] == ["CITES"]
    with pytest.raises(BioMcpError) as labels, graph_store.read() as tx:
        traverse(SqlGraphStore(tx.connection), spec_of(TraverseRequest(seed_ids=[entity], label_whitelist=["Command"]), LIMITS))
    assert labels.value.code.value == "VALIDATION" and "Chunk" in labels.value.details["allowed"]


def test_whitelists_limit_edge_types_and_labels(graph_store) -> None:
    document = "pmid:" + first_pmid_with_topics(graph_store)
    topics = run(graph_store, seed_ids=[document], rel_whitelist=["HAS_TOPIC"], max_depth=1, frontier={"top_k": 50})["walk"]
    assert {edge.type for edge in topics.edges} == {"HAS_TOPIC"}
    assert all("Topic" in node.labels for node in topics.nodes if node.depth == 1)
    chemicals = run(
        graph_store, seed_ids=[document], rel_whitelist=["HAS_TOPIC"], label_whitelist=["Chemical"], max_depth=1,
        frontier={"top_k": 50},
    )["walk"]
    reached = [node for node in chemicals.nodes if node.depth == 1]
    assert reached and all(node.type == "Chemical" for node in reached)
    assert len(reached) < len([node for node in topics.nodes if node.depth == 1])
    # Sections only: an entity reaches nothing when sections (Chunk) are not allowed.
    entity, _ = hub(graph_store)
    blocked = run(graph_store, seed_ids=[entity], direction="in", label_whitelist=["Document", "Entity"])["walk"]
    assert [node.id for node in blocked.nodes] == [entity] and blocked.reason == "delta<τ"


def test_topic_filters_keep_only_documents_indexed_with_the_topic(graph_store) -> None:
    entity, _ = hub(graph_store)
    unfiltered = run(graph_store, seed_ids=[entity], direction="both", max_depth=2, max_nodes=200)["walk"]
    reached = sorted(node.id for node in unfiltered.nodes if node.label == "Document")
    with graph_store.read() as tx:
        rows = tx.connection.execute(
            sa.select(kg_edges.c.dst, kg_edges.c.src).where(kg_edges.c.type == "HAS_TOPIC", kg_edges.c.src.in_(reached))
        ).all()
    indexed: dict[str, set[str]] = {}
    for topic, document in rows:
        indexed.setdefault(topic, set()).add(document)
    # The topic shared by most, but not all, of the documents the unfiltered walk reached.
    topic = min((t for t, docs in indexed.items() if len(docs) < len(reached)), key=lambda t: (-len(indexed[t]), t))
    assert len(indexed[topic]) >= 2
    walk = run(graph_store, seed_ids=[entity], direction="both", max_depth=2, max_nodes=200, filters={"topic": [topic]})["walk"]
    with graph_store.read() as tx:
        every = set(
            tx.connection.execute(
                sa.select(kg_edges.c.src).where(kg_edges.c.type == "HAS_TOPIC", kg_edges.c.dst == topic)
            ).scalars()
        )
    documents = {node.id for node in walk.nodes if node.label == "Document"}
    sections = [node for node in walk.nodes if node.label == "Chunk"]
    assert documents and documents <= every and sections
    outside = set(reached) - every
    assert outside and not outside & documents


def test_a_query_past_its_timeout_stops_the_walk_as_budget_exhausted(graph_store) -> None:
    entity, _ = hub(graph_store)
    spec = TraversalSpec(seeds=[entity], direction="both", max_depth=3)
    with graph_store.transaction() as writer:
        if graph_store.dialect == "postgresql":
            # Another transaction holds the edge table: the neighbour query waits until its timeout.
            writer.connection.exec_driver_sql("LOCK TABLE kg_edges IN ACCESS EXCLUSIVE MODE")
            timeout_s = 0.2
        else:
            # A deadline already past: the progress handler interrupts the first query long enough
            # to be checked (every 1,000 SQLite steps).
            timeout_s = 1e-9
        with graph_store.read() as tx:
            graph = SqlGraphStore(tx.connection, timeout_s=timeout_s)
            try:
                walk = traverse(graph, spec)
            finally:
                graph.close()
    assert walk.timed_out and walk.reason == "budget_exhausted" and walk.depth_reached < spec.max_depth


async def test_unknown_seeds_are_not_found_and_known_ones_are_reported_missing(graph_store) -> None:
    with pytest.raises(BioMcpError) as raised:
        await traverse_relationships(TraverseRequest(seed_ids=["mesh:D999999"]), graph_store, LIMITS)
    assert raised.value.code.value == "NOT_FOUND"
    entity, _ = hub(graph_store)
    response = await traverse_relationships(
        TraverseRequest(seed_ids=[entity, "mesh:D999999"], direction="in"), graph_store, LIMITS
    )
    assert response.diagnostics.missing_seeds == ["mesh:D999999"] and response.nodes[0].id == entity


def first_pmid_with_topics(store) -> str:
    with store.read() as tx:
        row = tx.connection.execute(
            sa.text(
                "SELECT n.source_uri FROM kg_nodes n JOIN kg_edges e ON e.src = n.id AND e.type = 'HAS_TOPIC' "
                "GROUP BY n.source_uri HAVING COUNT(*) >= 8 ORDER BY n.source_uri LIMIT 1"
            )
        ).one()
    return row[0].split(":", 1)[1]
