"""The corpus tools against seed 000's JSON schemas, through the MCP server; checkpoints; NOT_FOUND."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from bio_mcp.features.corpus import models
from bio_mcp.features.kb.models import EntitiesRequest, KbSearchRequest, TraverseRequest
from bio_mcp.features.pubmed.mesh_lookup import MeshLookupRequest
from bio_mcp.features.pubmed.models import FullTextRequest
from bio_mcp.input_schema import schema_violations
from bio_mcp.server.app import build_server
from bio_mcp.server.toolsets.corpus import build_corpus_toolset

pytestmark = pytest.mark.anyio

# Seed 000, copied verbatim (descriptions dropped).
SYNC_REQUEST = {
    "type": "object", "required": ["query_key", "term"],
    "properties": {"query_key": {"type": "string", "minLength": 1}, "term": {"type": "string", "minLength": 1},
                   "overlap_days": {"type": "integer", "minimum": 0, "default": 5}},
    "additionalProperties": False,
}
SYNC_RESPONSE = {
    "type": "object", "required": ["job_id", "inserted", "updated", "skipped", "pmids_processed"],
    "properties": {"job_id": {"type": "string"}, "inserted": {"type": "integer", "minimum": 0},
                   "updated": {"type": "integer", "minimum": 0}, "skipped": {"type": "integer", "minimum": 0},
                   "pmids_processed": {"type": "integer", "minimum": 0}, "max_edat_seen": {"type": ["string", "null"]},
                   "warnings": {"type": "array", "items": {"type": "string"}},
                   # Additive (the seed's versioning policy allows new optional fields): the record cap stopped early.
                   "more_to_sync": {"type": "boolean"},
                   # Additive: PubTator3's annotations of the synced documents (null when they are off).
                   "pubtator3": {"type": ["object", "null"]}},
    "additionalProperties": False,
}
SEARCH_REQUEST = {
    "type": "object", "required": ["query"],
    "properties": {"query": {"type": "string", "minLength": 1},
                   "top_k": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                   "quality_bias": {"type": "boolean", "default": True}},
    "additionalProperties": False,
}
SEARCH_RESPONSE = {
    "type": "object", "required": ["results"],
    "properties": {"results": {"type": "array", "items": {
        "type": "object", "required": ["doc_id", "uuid", "score"],
        "properties": {"doc_id": {"type": "string", "pattern": "^pmid:[0-9]+$"}, "uuid": {"type": "string", "minLength": 10},
                       "sim": {"type": ["number", "null"]}, "bm25": {"type": ["number", "null"]},
                       "quality": {"type": ["number", "null"]}, "score": {"type": "number"},
                       # Additive: what a caller needs to judge a hit without rag.get.
                       "title": {"type": ["string", "null"]}, "year": {"type": ["integer", "null"]},
                       "snippet": {"type": ["string", "null"]}},
        "additionalProperties": False}},
        # Additive: why there are no results, or which query terms no result mentions.
        "note": {"type": ["string", "null"]},
        "unmatched_terms": {"type": "array", "items": {"type": "string"}}},
    "additionalProperties": False,
}
GET_REQUEST = {
    "type": "object", "required": ["doc_id"],
    "properties": {"doc_id": {"type": "string", "pattern": "^pmid:[0-9]+$"}}, "additionalProperties": False,
}
GET_RESPONSE = {
    "type": "object", "required": ["doc_id", "title", "journal", "pub_types", "quality", "version"],
    "properties": {
        "doc_id": {"type": "string"}, "title": {"type": ["string", "null"]}, "abstract": {"type": ["string", "null"]},
        "journal": {"type": ["string", "null"]}, "pub_types": {"type": "array", "items": {"type": "string"}},
        "pdat": {"type": ["string", "null"]}, "edat": {"type": ["string", "null"]}, "lr": {"type": ["string", "null"]},
        "pmcid": {"type": ["string", "null"]},
        "quality": {"type": "object", "required": ["total"],
                    "properties": {"design": {"type": ["integer", "null"]}, "recency": {"type": ["integer", "null"]},
                                   "journal": {"type": ["integer", "null"]}, "human": {"type": ["integer", "null"]},
                                   "total": {"type": "integer"}},
                    "additionalProperties": False},
        "version": {"type": "integer", "minimum": 1}},
    "additionalProperties": False,
}
CHECKPOINT_GET_REQUEST = {
    "type": "object", "required": ["query_key"], "properties": {"query_key": {"type": "string", "minLength": 1}},
    "additionalProperties": False,
}
CHECKPOINT_GET_RESPONSE = {
    "type": "object", "required": ["query_key"],
    "properties": {"query_key": {"type": "string"}, "last_edat": {"type": ["string", "null"]}},
    "additionalProperties": False,
}
CHECKPOINT_SET_REQUEST = {
    "type": "object", "required": ["query_key", "last_edat"],
    "properties": {"query_key": {"type": "string"}, "last_edat": {"type": "string"}}, "additionalProperties": False,
}
CHECKPOINT_SET_RESPONSE = {
    "type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}, "additionalProperties": False,
}
ERROR_ENVELOPE = {
    "type": "object", "required": ["error"],
    "properties": {"error": {
        "type": "object", "required": ["code", "message"],
        "properties": {"code": {"type": "string", "enum": ["RATE_LIMIT", "UPSTREAM", "VALIDATION", "NOT_FOUND",
                                                          "INVARIANT_FAILURE", "STORE", "EMBEDDINGS", "WEAVIATE",
                                                          "ENTREZ", "UNKNOWN"]},
                       "message": {"type": "string"}, "details": {"type": ["object", "array", "string", "null"]}},
        "additionalProperties": False}},
    "additionalProperties": False,
}

REQUESTS: list[tuple[type[Any], dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]] = [
    (models.SyncDeltaRequest, SYNC_REQUEST,
     [{"query_key": "k", "term": "t"}, {"query_key": "k", "term": "t", "overlap_days": 0}],
     [{"query_key": "", "term": "t"}, {"query_key": "k"}, {"query_key": "k", "term": "t", "overlap_days": -1},
      {"query_key": "k", "term": "t", "overlap_days": "5"}, {"query_key": "k", "term": "t", "extra": 1}]),
    (models.RagSearchRequest, SEARCH_REQUEST,
     [{"query": "q"}, {"query": "q", "top_k": 1, "quality_bias": False}, {"query": "q", "top_k": 100}],
     [{"query": ""}, {"query": "q", "top_k": 0}, {"query": "q", "top_k": 101}, {"query": "q", "top_k": "5"},
      {"query": "q", "quality_bias": "yes"}, {"query": "q", "filters": {}}]),
    (models.RagGetRequest, GET_REQUEST,
     [{"doc_id": "pmid:1"}], [{"doc_id": "1"}, {"doc_id": "pmid:x"}, {"doc_id": "PMID:1"}, {}]),
    (models.CheckpointGetRequest, CHECKPOINT_GET_REQUEST,
     [{"query_key": "k"}], [{"query_key": ""}, {}, {"query_key": "k", "x": 1}]),
    (models.CheckpointSetRequest, CHECKPOINT_SET_REQUEST,
     [{"query_key": "k", "last_edat": "2024-01-01T00:00:00Z"}], [{"query_key": "k"}, {"query_key": "k", "last_edat": "x", "y": 1}]),
]


@pytest.mark.parametrize(("model", "schema", "valid", "invalid"), REQUESTS, ids=lambda v: getattr(v, "__name__", ""))
def test_request_models_accept_and_reject_what_the_seed_schema_does(model, schema, valid, invalid) -> None:
    for example in valid:
        jsonschema.validate(example, schema)
        model.model_validate(example)
    for example in invalid:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(example, schema)
        with pytest.raises(ValidationError):
            model.model_validate(example)


def test_a_blank_sync_term_is_refused_here_not_sent_to_esearch() -> None:
    blank = {"query_key": "k", "term": " \t "}
    with pytest.raises(ValidationError, match="term"):
        models.SyncDeltaRequest.model_validate(blank)
    assert [(v["loc"], v["type"]) for v in schema_violations(models.SyncDeltaRequest, blank)] == [("term", "schema.pattern")]
    assert schema_violations(models.SyncDeltaRequest, {"query_key": "k", "term": " aspirin "}) == []


@pytest.mark.parametrize(
    ("model", "arguments", "field"),
    [
        (models.RagSearchRequest, {"query": "   "}, "query"),
        (KbSearchRequest, {"query": " \n "}, "query"),
        (EntitiesRequest, {"query": "  "}, "query"),
        (TraverseRequest, {"seed_ids": ["mesh:D000082", " "]}, "seed_ids.1"),
        (MeshLookupRequest, {"query": "\t"}, "query"),
    ],
)
def test_a_blank_query_or_id_is_a_validation_error_saying_so(model, arguments, field) -> None:
    # Searched for, it came back as "no results": the caller's mistake read as an empty corpus.
    assert schema_violations(model, arguments) == [{"loc": field, "msg": "must not be blank", "type": "schema.pattern"}]
    with pytest.raises(ValidationError):
        model.model_validate(arguments)


def test_a_wrong_type_for_an_optional_field_says_which_type() -> None:
    # fetchFullText's pmid is an optional string; a client sent the number.
    assert schema_violations(FullTextRequest, {"pmid": 30311380}) == [
        {"loc": "pmid", "msg": "30311380 is not of type 'string'", "type": "schema.type"}
    ]


def test_defaults_are_the_seeds() -> None:
    assert models.SyncDeltaRequest(query_key="k", term="t").overlap_days == 5
    search = models.RagSearchRequest(query="q")
    assert (search.top_k, search.quality_bias) == (20, True)


async def call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    result = await client.call_tool(name, arguments)
    if result.is_error:
        # A failed call carries the envelope as JSON text (and in _meta), never as structured content.
        assert result.structured_content is None
        return True, json.loads(result.content[0].text)
    return False, result.structured_content


async def test_every_tool_through_mcp_matches_the_seed(make_service, corpus_fakes) -> None:
    service = make_service()
    async with Client(build_server([build_corpus_toolset(service)])) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert listed == {"pubmed_sync_delta", "rag_search", "rag_get", "corpus_checkpoint_get", "corpus_checkpoint_set"}

        error, body = await call(client, "corpus.checkpoint.get", {"query_key": "mcp"})
        assert not error and body == {"query_key": "mcp", "last_edat": None}
        jsonschema.validate(body, CHECKPOINT_GET_RESPONSE)

        error, body = await call(client, "pubmed.sync_delta", {"query_key": "mcp", "term": "all[sb]"})
        assert not error
        jsonschema.validate(body, SYNC_RESPONSE)
        await service.drain()

        error, body = await call(client, "rag.search", {"query": "breast cancer tamoxifen", "top_k": 5})
        assert not error and 0 < len(body["results"]) <= 5
        jsonschema.validate(body, SEARCH_RESPONSE)
        doc_id = body["results"][0]["doc_id"]

        error, body = await call(client, "rag.get", {"doc_id": doc_id})
        assert not error and body["doc_id"] == doc_id and body["version"] == 1
        jsonschema.validate(body, GET_RESPONSE)

        resource = await client.read_resource(f"resource://pubmed/paper/{doc_id.removeprefix('pmid:')}")
        assert json.loads(resource.contents[0].text) == body

        error, body = await call(client, "rag.get", {"doc_id": "pmid:999999999"})
        assert error and body["error"]["code"] == "NOT_FOUND"
        jsonschema.validate(body, ERROR_ENVELOPE)
        with pytest.raises(MCPError, match="not in the local corpus"):
            await client.read_resource("resource://pubmed/paper/999999999")

        error, body = await call(client, "rag.search", {"query": "x", "top_k": 500})
        assert error and body["error"]["code"] == "VALIDATION"
        jsonschema.validate(body, ERROR_ENVELOPE)

        error, body = await call(client, "corpus.checkpoint.set", {"query_key": "mcp", "last_edat": "2020-01-01T00:00:00Z"})
        assert not error and body == {"ok": True}
        jsonschema.validate(body, CHECKPOINT_SET_RESPONSE)
        error, body = await call(client, "corpus.checkpoint.set", {"query_key": "mcp", "last_edat": "yesterday"})
        assert error and body["error"]["code"] == "VALIDATION"


async def test_checkpoints_are_monotonic_automatically_and_manual_sets_are_audited(make_service, database_url) -> None:
    service = make_service(database_url)
    first = await service.sync_delta(models.SyncDeltaRequest(query_key="c", term="all[sb]"))
    with service.store.transaction() as tx:
        ignored = tx.checkpoints.advance("c", "2020-01-01T00:00:00Z", "job-x")
    assert not ignored.changed and ignored.current == first.max_edat_seen

    backwards = models.CheckpointSetRequest(query_key="c", last_edat="2024-06-01T00:00:00Z")
    assert (await service.checkpoint_set(backwards)).ok
    got = await service.checkpoint_get(models.CheckpointGetRequest(query_key="c"))
    assert got.last_edat == "2024-06-01T00:00:00Z"
    with service.store.read() as tx:
        audit = tx.checkpoints.audit("c")
    manual = [entry for entry in audit if entry.kind == "manual"]
    assert len(manual) == 1 and manual[0].actor == "mcp"
    assert manual[0].old_edat == first.max_edat_seen and manual[0].new_edat == "2024-06-01T00:00:00Z"

    # The next sync starts at the manual watermark minus the overlap, and moves it forward again.
    again = await service.sync_delta(models.SyncDeltaRequest(query_key="c", term="all[sb]", overlap_days=0))
    assert again.inserted == 0 and again.pmids_processed > 0 and again.max_edat_seen == first.max_edat_seen
