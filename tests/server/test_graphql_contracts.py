"""Seed 003's GraphQL read surface on the real HTTP server: each query returns the same JSON as the MCP
tool or resource for the same input (the tool through the SDK's client, GraphQL over HTTP), with the
same audit but its latency; errors carry the envelope's code; /graphql has /mcp's token and origin checks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from bio_mcp.canonical import canonical_sha256
from bio_mcp.server.auth import mint_token
from tests.server.evidence_server import SEMAGLUTIDE, SYNC_KEY, EvidenceServer, evidence_server
from tests.server.graphql_client import INTROSPECT, schema_types, whole_answer
from tests.server.test_transports import authed

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server(running_fakes, tmp_path_factory) -> Iterator[EvidenceServer]:
    yield from evidence_server(running_fakes, tmp_path_factory.mktemp("graphql-home"))


@pytest.fixture(scope="module")
def types(server: EvidenceServer) -> dict[str, Any]:
    response = httpx2.post(server.base + "/graphql", json={"query": INTROSPECT}, timeout=30,
                           headers={"Authorization": f"Bearer {server.token()}"})
    return schema_types(response.json())


async def graphql(server: EvidenceServer, query: str, variables: dict[str, Any] | None = None,
                  **headers: str) -> httpx2.Response:
    async with authed(server.token(), **headers) as http:
        return await http.post(server.base + "/graphql", json={"query": query, "variables": variables or {}})


def without_nulls(value: Any) -> Any:
    """GraphQL answers null for a key the contract leaves out; the JSON is otherwise the same."""
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


def without_latency(body: dict[str, Any]) -> dict[str, Any]:
    audit = {key: value for key, value in body["audit"].items() if key != "latency_ms"}
    return {**body, "audit": audit}


async def ask(server: EvidenceServer, types: dict[str, Any], field: str, arguments: dict[str, Any],
              root: str = "Query") -> dict[str, Any]:
    response = await graphql(server, whole_answer(types, field, arguments, root))
    assert response.status_code == 200, response.text
    body = response.json()
    assert "errors" not in body, body["errors"]
    return body["data"][field]


TOOL_CASES = {
    "queryKg": ("tool_query_kg", {"start": {"type": "herb", "id": "garlic"}, "max_depth": 2, "max_paths": 10}),
    "hybridSearch": ("tool_hybrid_search", {"query": "semaglutide body weight", "top_k": 5,
                                            "filters": {"types": ["paper", "chunk"], "year_from": 2000}}),
    "ragAnswer": ("tool_rag_answer", {"question": "Does semaglutide reduce body weight?"}),
    "findContraindications": ("tool_find_contraindications", {"herb_ids": ["garlic"], "formulation_ids": []}),
    "traverse": ("graph_traverse", {"seed_ids": [f"pmid:{SEMAGLUTIDE}"], "max_depth": 2, "max_nodes": 20,
                                    "frontier": {"top_k": 8}}),
    "entities": ("graph_entities", {"query": "diabetes mellitus"}),
    "syncWatermark": ("corpus_checkpoint_get", {"query_key": SYNC_KEY}),
}


@pytest.mark.parametrize("field", sorted(TOOL_CASES))
async def test_each_tool_surface_returns_the_mcp_tools_json(server, types, field) -> None:
    tool, arguments = TOOL_CASES[field]
    async with server.mcp() as client:
        result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    expected = result.structured_content
    got = await ask(server, types, field, arguments)
    if "audit" in expected:  # seed 003's tools carry it in the body; the others in _meta only
        assert without_latency(without_nulls(got)) == without_latency(without_nulls(expected))
        assert got["audit"]["in_hash"] == canonical_sha256(arguments) == result.meta["audit"]["in_hash"]
    else:
        assert without_nulls(got) == without_nulls(expected)


async def test_the_cited_answer_and_the_herb_say_something(server, types) -> None:
    """The contract comparisons above are not of empty answers."""
    answer = await ask(server, types, "ragAnswer", TOOL_CASES["ragAnswer"][1])
    assert not answer["withheld"] and len(answer["citations"]) >= 3
    assert answer["citations"][0]["id"] == f"pmid:{SEMAGLUTIDE}" and answer["citations"][0]["quote"]
    quoted = {"section_ids": sorted({c["section_id"] for c in answer["citations"]})}
    sections = await ask(server, types, "retrieveEvidence", quoted)
    async with server.mcp() as client:
        expected = (await client.call_tool("kb_retrieve_evidence", quoted)).structured_content
    # Each call gets its own diagnostics id; the rest is the same.
    sections.pop("diagnostic_id", None)
    expected.pop("diagnostic_id", None)
    assert without_nulls(sections) == without_nulls(expected)
    texts = {section["section_id"]: section["text"] for section in sections["sections"]}
    assert all(texts[c["section_id"]][c["start"]:c["end"]] == c["quote"] for c in answer["citations"])
    herb = await ask(server, types, "herb", {"id": "garlic"})
    assert herb["names"] == {"th": "กระเทียม", "en": "Garlic", "scientific": herb["names"]["scientific"]}
    assert {"Allicin", "Alliin"} <= {c["name"] for c in herb["constituents"]}
    assert any(use["icdCode"] for use in herb["traditional_uses"])


RESOURCE_CASES = {
    "herb": ({"id": "garlic"}, "kg://herb/garlic"),
    "paper": ({"pmid": SEMAGLUTIDE}, f"paper://pmid/{SEMAGLUTIDE}"),
    "syncProgress": ({"query_key": SYNC_KEY}, f"bio-mcp://sync/{SYNC_KEY}"),
}


@pytest.mark.parametrize("field", sorted(RESOURCE_CASES))
async def test_each_resource_surface_returns_the_mcp_resources_json_with_an_audit(server, types, field) -> None:
    arguments, uri = RESOURCE_CASES[field]
    async with server.mcp() as client:
        # A paper's first read may fetch it (source eutils) and store it; from then on it is the corpus's.
        await client.read_resource(uri)
        expected = json.loads((await client.read_resource(uri)).contents[0].text)
    got = await ask(server, types, field, arguments)
    audit = got.pop("audit")
    assert without_nulls(got) == without_nulls(expected)
    assert audit["status"] == "ok" and audit["in_hash"] == canonical_sha256(arguments)
    assert audit["out_hash"] == canonical_sha256(expected) and audit["seed"] == int(audit["in_hash"][:16], 16)


async def test_eval_run_and_its_report_match_mcp(server, types) -> None:
    arguments = {"set": "smoke", "metrics": ["R@k", "MRR"], "params": {"max_queries": 3}}
    async with server.mcp() as client:
        result = await client.call_tool("tool_eval_run", arguments)
        assert not result.is_error, result.content
        run = await ask(server, types, "evalRun", arguments, root="Mutation")
        assert without_latency(without_nulls(run)) == without_latency(without_nulls(result.structured_content))
        report_id = run["report_id"]
        expected = json.loads((await client.read_resource(f"bio-mcp://eval/{report_id}/json")).contents[0].text)
    response = await graphql(server, "query($id: String!) { evalReport(id: $id) }", {"id": report_id})
    report = response.json()["data"]["evalReport"]
    assert report.pop("audit")["in_hash"] == canonical_sha256({"id": report_id})
    assert report == expected and report["metrics"] == run["metrics"]


async def test_a_sync_started_by_the_mutation_is_followed_by_sync_progress(server, types) -> None:
    arguments = {"query_key": "graphql-sync", "term": "semaglutide"}
    run = await ask(server, types, "syncDelta", arguments, root="Mutation")
    assert run["inserted"] + run["skipped"] + run["updated"] == run["pmids_processed"] > 0
    progress = await ask(server, types, "syncProgress", {"query_key": "graphql-sync"})
    [job] = progress.pop("jobs")
    assert job["job_id"] == run["job_id"] and job["status"] == "done" and job["term"] == "semaglutide"
    assert job["planned"] == job["fetched"] == run["pmids_processed"] and job["finished_at"]
    assert progress["last_edat"] == run["max_edat_seen"]
    async with server.mcp() as client:
        again = await client.call_tool("pubmed_sync_delta", arguments)
        expected = json.loads((await client.read_resource("bio-mcp://sync/graphql-sync")).contents[0].text)
    assert not again.is_error and [j["job_id"] for j in expected["jobs"]] == [again.structured_content["job_id"],
                                                                              run["job_id"]]


async def test_an_ingestion_job_reads_as_over_mcp(server, types) -> None:
    async with server.mcp() as client:
        started = await client.call_tool("tool_ingest_run", {"batch": [{"uri": (server.home / "inbox" / "note.md").as_uri()}]})
        assert not started.is_error, started.content
        job_id = started.structured_content["job_id"]
        job = await ask(server, types, "ingestJob", {"job_id": job_id})
        for _ in range(100):
            if job["status"] in ("done", "error"):
                break
            job = await ask(server, types, "ingestJob", {"job_id": job_id})
        expected = json.loads((await client.read_resource(f"bio-mcp://jobs/{job_id}")).contents[0].text)
    job.pop("audit")
    assert job["status"] == "done" and without_nulls(job) == without_nulls(expected)


async def test_errors_carry_the_envelopes_code_and_the_audit(server) -> None:
    bad = await graphql(server, '{ ragAnswer(question: "semaglutide", retrieval: {top_k: 50}) { answer } }')
    error = bad.json()["errors"][0]
    assert error["extensions"]["code"] == "VALIDATION" and error["extensions"]["audit"]["status"] == "error"
    async with server.mcp() as client:
        mcp = await client.call_tool("tool_rag_answer", {"question": "semaglutide", "retrieval": {"top_k": 50}})
    assert mcp.is_error and mcp.meta["error"]["details"] == error["extensions"]["details"]
    missing = await graphql(server, '{ herb(id: "no such herb at all") { id } }')
    assert missing.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    typo = await graphql(server, '{ hybridSearch(query: "x", top_k: "five") { hits { id } } }')
    assert typo.status_code in (200, 400) and typo.json()["errors"]


INPUT_TYPE = """query($name: String!) { __type(name: $name) { kind inputFields { name type { ...ref } } } }
fragment ref on __Type { kind name ofType { kind name ofType { kind name } } }"""


async def test_object_arguments_are_input_types_of_the_tools_fields(server) -> None:
    """Introspection shows an object argument's fields, typed as in the tool's input schema."""
    retrieval = (await graphql(server, INPUT_TYPE, {"name": "AnswerRetrievalInput"})).json()["data"]["__type"]
    assert retrieval["kind"] == "INPUT_OBJECT"
    assert [(f["name"], f["type"]["name"]) for f in retrieval["inputFields"]] == [("top_k", "Int")]
    start = (await graphql(server, INPUT_TYPE, {"name": "QueryStartInput"})).json()["data"]["__type"]
    assert {f["name"]: f["type"]["kind"] for f in start["inputFields"]} == {"type": "NON_NULL", "id": "NON_NULL"}
    filters = (await graphql(server, INPUT_TYPE, {"name": "SearchFiltersInput"})).json()["data"]["__type"]
    assert {f["name"] for f in filters["inputFields"]} == {"types", "year_from", "year_to", "pub_types"}


async def test_a_bad_field_of_an_object_argument_is_a_graphql_validation_error_naming_it(server) -> None:
    inline = (await graphql(server, '{ ragAnswer(question: "semaglutide", retrieval: {top_n: 5}) { answer } }')).json()
    assert inline.get("data") is None
    [error] = inline["errors"]
    # Refused by GraphQL's validation, before the tool runs: no envelope, no audit.
    assert "top_n" in error["message"] and "AnswerRetrievalInput" in error["message"]
    assert "code" not in (error.get("extensions") or {})
    variables = (await graphql(server, "query($r: AnswerRetrievalInput) { ragAnswer(question: \"x\", retrieval: $r) "
                                       "{ answer } }", {"r": {"top_k": "five"}})).json()
    assert variables.get("data") is None and "top_k" in variables["errors"][0]["message"]
    missing = (await graphql(server, '{ queryKg(start: {type: "herb"}) { __typename } }')).json()
    assert missing.get("data") is None and "id" in missing["errors"][0]["message"]


async def test_graphql_has_the_transports_token_and_origin_checks(server) -> None:
    query = {"query": "{ syncWatermark(query_key: \"semaglutide\") { last_edat } }"}
    async with httpx2.AsyncClient(timeout=30) as anonymous:
        denied = await anonymous.post(server.base + "/graphql", json=query)
        assert denied.status_code == 401 and denied.headers["www-authenticate"] == "Bearer"
        forged = await anonymous.post(server.base + "/graphql", json=query,
                                      headers={"Authorization": "Bearer " + mint_token("x" * 40)})
        assert forged.status_code == 401
    own_origin = await graphql(server, query["query"], Origin=server.base)
    assert own_origin.status_code == 200 and own_origin.json()["data"]["syncWatermark"]["last_edat"]
    foreign = await graphql(server, query["query"], Origin="https://evil.example.org")
    assert foreign.status_code == 403
    async with authed(server.token()) as http:
        assert (await http.get(server.base + "/graphql", params=query)).status_code == 405
        assert (await http.post(server.base + "/graphql", content=b"query=x",
                                headers={"Content-Type": "application/x-www-form-urlencoded"})).status_code == 400
