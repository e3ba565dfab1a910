"""graph.traverse / traverse_relationships and graph.entities through MCP, against seed 002's shapes,
after a sync of the real records from the fake E-utilities."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import jsonschema
import pytest
import sqlalchemy as sa
from mcp import Client
from pydantic import ValidationError

from bio_mcp.features.corpus.models import SyncDeltaRequest
from bio_mcp.features.corpus.sync import SyncOptions
from bio_mcp.features.kb.graph_service import KbGraph
from bio_mcp.features.kb.models import TraverseRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.graph.related_refresh import refresh_related_now
from bio_mcp.server.app import build_server
from bio_mcp.server.toolsets.kb import build_kb_toolset
from bio_mcp.store.schema import kg_mentions, kg_nodes
from tests.corpus.corpus_fixtures import TERM, UNTIL
from tests.graph.graph_sync_fixtures import synced

pytestmark = pytest.mark.anyio

# Seed 002's traverse_relationships, as JSON Schema (descriptions dropped; additive response fields allowed).
TRAVERSE_REQUEST = {
    "type": "object", "required": ["seed_ids"],
    "properties": {
        "seed_ids": {"type": "array", "items": {"type": "string"}},
        "direction": {"type": "string", "enum": ["out", "in", "both"], "default": "out"},
        "max_depth": {"type": "integer", "default": 3, "maximum": 5},
        "max_nodes": {"type": "integer", "default": 150, "maximum": 200},
        "rel_whitelist": {"type": "array", "items": {"type": "string"}},
        "label_whitelist": {"type": "array", "items": {"type": "string"}},
        "frontier": {"type": "object", "properties": {
            "top_k": {"type": "integer", "default": 20}, "delta_threshold": {"type": "number", "default": 0.05},
            "novelty_penalty": {"type": "number", "default": 0.2}}},
        "filters": {"type": "object", "properties": {
            "topic": {"type": "array", "items": {"type": "string"}},
            "entity": {"type": "array", "items": {"type": "string"}}}},
    },
}
TRAVERSE_RESPONSE = {
    "type": "object", "required": ["nodes", "edges", "explain"],
    "properties": {
        "nodes": {"type": "array", "items": {
            "type": "object", "required": ["id", "label", "title", "score"],
            "properties": {"id": {"type": "string"}, "label": {"type": "string"}, "title": {"type": "string"},
                           "score": {"type": "number", "minimum": 0.0, "maximum": 1.0}}}},
        "edges": {"type": "array", "items": {
            "type": "object", "required": ["src", "dst", "type", "depth"],
            "properties": {"src": {"type": "string"}, "dst": {"type": "string"}, "type": {"type": "string"},
                           "depth": {"type": "integer"}}}},
        "explain": {"type": "object", "required": ["scoring", "caps"],
                    "properties": {"scoring": {"type": "string"},
                                   "caps": {"type": "object", "required": ["max_depth", "max_nodes"],
                                            "properties": {"max_depth": {"type": "integer"},
                                                           "max_nodes": {"type": "integer"}}}}},
    },
}
ENTITIES_RESPONSE = {
    "type": "object", "required": ["entities"],
    "properties": {"entities": {"type": "array", "items": {
        "type": "object", "required": ["id", "name", "type", "synonyms", "tree_numbers", "mentions"],
        "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "type": {"type": "string"},
                       "synonyms": {"type": "array", "items": {"type": "string"}},
                       "tree_numbers": {"type": "array", "items": {"type": "string"}},
                       "mentions": {"type": "integer", "minimum": 0}}}}},
}


def test_request_defaults_and_caps_are_the_seeds() -> None:
    request = TraverseRequest(seed_ids=["mesh:D000082"])
    assert (request.direction, request.max_depth, request.max_nodes) == ("out", 3, 150)
    assert request.rel_whitelist == ["MENTIONS", "HAS_SECTION"]
    assert request.label_whitelist == ["Chunk", "Entity", "Topic", "Document"]
    assert (request.frontier.top_k, request.frontier.delta_threshold, request.frontier.novelty_penalty) == (20, 0.05, 0.2)
    for valid in ({"seed_ids": ["x"]}, {"seed_ids": ["x"], "direction": "both", "max_depth": 5, "max_nodes": 200}):
        jsonschema.validate(valid, TRAVERSE_REQUEST)
        TraverseRequest.model_validate(valid)
    for invalid in ({"seed_ids": ["x"], "max_depth": 6}, {"seed_ids": ["x"], "max_nodes": 201},
                    {"seed_ids": ["x"], "direction": "sideways"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(invalid, TRAVERSE_REQUEST)
        with pytest.raises(ValidationError):
            TraverseRequest.model_validate(invalid)


async def call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any], str]:
    result = await client.call_tool(name, arguments)
    # A failed call's envelope is in _meta.error (and the text), not in structured content.
    body = {"error": result.meta["error"]} if result.is_error else result.structured_content
    return bool(result.is_error), body, result.content[0].text


async def test_tylenol_to_acetaminophen_then_its_documents_through_mcp(make_graph_service) -> None:
    service = await synced(make_graph_service, None)
    toolset = build_kb_toolset(KbRetrieval(service), service.settings, KbGraph(service))
    async with Client(build_server([toolset])) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        # The seed's legacy name is callable (below) but listed only with the legacy names on.
        assert {"graph_traverse", "graph_entities"} <= listed and "traverse_relationships" not in listed

        error, body, text = await call(client, "graph.entities", {"query": "tylenol"})
        assert not error
        jsonschema.validate(body, ENTITIES_RESPONSE)
        best = body["entities"][0]
        assert best["id"] == "mesh:D000082" and best["name"] == "Acetaminophen" and best["type"] == "Chemical"
        assert "Tylenol" in best["synonyms"] and best["tree_numbers"] and best["mentions"] >= 1
        assert "mesh:D000082" in text and "Acetaminophen" in text

        # The seed's default direction is out, and MENTIONS runs from sections to entities: the
        # walk stops at the seed, and says which direction would have found its documents.
        error, body, text = await call(client, "graph.traverse", {"seed_ids": [best["id"]]})
        assert not error
        jsonschema.validate(body, TRAVERSE_RESPONSE)
        assert [node["id"] for node in body["nodes"]] == [best["id"]] and body["edges"] == []
        hint = body["diagnostics"]["hint"]
        reached = re.search(r"direction 'in' reaches (\d+) nodes", hint)
        assert reached and int(reached.group(1)) >= best["mentions"]
        assert f"Hint: {hint}" in text

        arguments = {"seed_ids": [best["id"]], "direction": "in", "max_depth": 2}
        results = []
        for name in ("graph.traverse", "traverse_relationships"):
            error, body, text = await call(client, name, arguments)
            assert not error
            jsonschema.validate(body, TRAVERSE_RESPONSE)
            results.append(body)
        # One implementation, two names: the same subgraph.
        assert results[0] == results[1]
        documents = [node for node in results[0]["nodes"] if node["label"] == "Document"]
        assert len(documents) == best["mentions"]
        assert results[0]["explain"]["caps"] == {"max_depth": 2, "max_nodes": 150, "max_rows": 100_000, "timeout_ms": 2000}
        assert results[0]["diagnostics"]["reason"] in ("delta<τ", "depth_limit", "budget_exhausted")
        assert "stopped:" in text and documents[0]["id"] in text

        error, body, _ = await call(client, "traverse_relationships", {"seed_ids": [best["id"]], "rel_whitelist": ["CITES"]})
        assert error and body["error"]["code"] == "VALIDATION"
        assert "HAS_TOPIC" in body["error"]["message"] and body["error"]["details"]["unknown"] == ["CITES"]

        error, body, _ = await call(client, "graph.traverse", {"seed_ids": ["mesh:D000082"], "max_nodes": 500})
        assert error and body["error"]["code"] == "VALIDATION"

        error, body, _ = await call(client, "graph.traverse", {"seed_ids": ["nct:NCT00000000"]})
        assert error and body["error"]["code"] == "NOT_FOUND" and "graph.entities" in body["error"]["message"]

        error, body, _ = await call(client, "graph.entities", {"query": "NCT02149199"})
        assert not error and body["entities"][0]["id"] == "nct:NCT02149199" and body["entities"][0]["type"] == "Trial"


async def test_a_walk_over_related_to_that_finds_none_says_whether_it_is_computed_and_current(make_graph_service) -> None:
    service = make_graph_service(None, sync_options=SyncOptions(until=date(2024, 7, 1), batch_size=100))
    request = SyncDeltaRequest(query_key="graph", term=TERM)
    await service.sync_delta(request)
    with service.store.read() as tx:
        # RELATED_TO joins entities mentioned in the same sections: one no section mentions (a broader
        # MeSH heading, a topic) has none whatever the state.
        unmentioned = tx.connection.execute(
            sa.select(kg_nodes.c.id)
            .where(kg_nodes.c.label == "Entity", ~sa.exists().where(kg_mentions.c.dst == kg_nodes.c.id))
            .order_by(kg_nodes.c.id).limit(1)
        ).scalar_one()
    toolset = build_kb_toolset(KbRetrieval(service), service.settings, KbGraph(service))
    arguments = {"seed_ids": [unmentioned], "direction": "both", "rel_whitelist": ["RELATED_TO"]}
    async with Client(build_server([toolset])) as client:
        # Not computed yet (this service is no server, whose refresher would have): the walk finds
        # none, and says why instead of leaving `delta<τ` to read as an entity with no related ones.
        error, body, text = await call(client, "graph.traverse", arguments)
        assert not error and body["edges"] == []
        hint = body["diagnostics"]["hint"]
        assert "no RELATED_TO edges yet" in hint and "after a sync" in hint and "`bio-mcp graph related`" in hint
        assert "Hint:" in text

        refresh_related_now(service.store)
        error, body, _ = await call(client, "graph.traverse", arguments)
        assert not error and "is current" in body["diagnostics"]["hint"]

        await service.sync_delta(request, options=SyncOptions(until=UNTIL, batch_size=100))
        error, body, _ = await call(client, "graph.traverse", arguments)
        assert not error and "the graph has changed since" in body["diagnostics"]["hint"]
