"""The gRPC read surface against the MCP tools on a corpus of real PPR abstracts (with the real MeSH linker
and Thai herb names) and the fake E-utilities: HybridSearch, RagAnswer, GetPaper, EvalRun and
GetEvalReport through the generated client answer the JSON the MCP tools and resources answer through
the SDK client for the same input."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from bio_mcp.eval.corpus_fill import fill_scratch_corpus
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.answer import AnswerService, RagAnswerEngine
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.graph.names import write_names
from bio_mcp.server.app import build_server, portable_name
from bio_mcp.server.toolset import Toolset
from bio_mcp.server.toolsets.evidence import answer_tools, search_tools
from bio_mcp.sources.ncbi.client import EutilsClient
from tests.evidence.evidence_fixtures import (
    ANDROGRAPHIS,
    ANDROGRAPHIS_PAPER,
    evidence_settings,
    herb_names,
    ppr_documents,
)
from tests.server.grpc_harness import (
    comparable,
    evidence_over_grpc,
    grpc,
    json_of,
    message_of,
    pb,
    resource_audit_ok,
)

pytestmark = pytest.mark.anyio

RECORDED = "20412080"  # a real record the fake E-utilities serves (pubmed/MANIFEST.tsv)


@pytest.fixture(scope="module")
async def corpus(
    tmp_path_factory: pytest.TempPathFactory, data_dir: Path, graph_indexer: GraphIndexer, running_fakes: Any
) -> AsyncIterator[CorpusService]:
    settings = evidence_settings(
        tmp_path_factory.mktemp("grpc-search-home"), NCBI_EUTILS_BASE_URL=running_fakes.eutils_base_url,
        NCBI_API_KEY="test-key", NCBI_MAX_RETRIES=1,
    )
    eutils = EutilsClient(settings)
    service = CorpusService(settings, eutils, embed_in_background=False, graph=graph_indexer)
    await service.open()
    documents = ppr_documents(data_dir)
    chosen = documents[:60] + [d for d in documents[60:] if d.record.pmid == ANDROGRAPHIS_PAPER]
    fill_scratch_corpus(service.index, chosen, 64, graph=graph_indexer)
    with service.store.transaction() as tx:
        write_names(tx.connection, herb_names(data_dir))
    yield service
    await service.aclose()
    await eutils.aclose()


def search_toolset(corpus: CorpusService) -> Toolset:
    answers = AnswerService(KbRetrieval(corpus))
    tools, resources = search_tools(corpus, KbRetrieval(corpus), RagAnswerEngine(answers))
    return Toolset(name="evidence", tools=tools + answer_tools(answers), resources=resources)


async def mcp_call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(portable_name(name), arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def mcp_read(client: Client, uri: str) -> dict[str, Any]:
    return json.loads((await client.read_resource(uri)).contents[0].text)


def without_audit(body: dict[str, Any], arguments: dict[str, Any], mcp: dict[str, Any]) -> dict[str, Any]:
    """A resource reply without the audit gRPC adds, after checking that audit against the MCP JSON."""
    audit = body.pop("audit")
    assert resource_audit_ok(audit, arguments, mcp)
    return body


TOOL_CALLS: list[tuple[str, str, type, dict[str, Any]]] = [
    ("tool.hybrid_search", "HybridSearch", pb.HybridSearchRequest, {"query": "ฟ้าทะลายโจร", "lang": "th", "top_k": 5}),
    ("tool.hybrid_search", "HybridSearch", pb.HybridSearchRequest,
     {"query": "ginseng diabetes insulin", "filters": {"types": ["paper", "chunk"]}}),
    ("tool.rag_answer", "RagAnswer", pb.RagAnswerRequest, {"question": "Does andrographolide prevent cancer?"}),
    ("tool.rag_answer", "RagAnswer", pb.RagAnswerRequest,
     {"question": "ฟ้าทะลายโจรป้องกันมะเร็งได้ไหม", "lang": "th", "retrieval": {"top_k": 8}}),
    ("tool.eval.run", "EvalRun", pb.EvalRunRequest,
     {"set": "smoke", "metrics": ["R@5", "MRR"], "params": {"k": 5, "max_queries": 5}}),
]


async def test_each_surface_answers_the_json_of_the_mcp_tool_for_the_same_input(corpus, tmp_path) -> None:
    toolset = search_toolset(corpus)
    async with Client(build_server([toolset])) as client, evidence_over_grpc(toolset, tmp_path) as (stub, token):
        replies: dict[str, list[dict[str, Any]]] = {}
        for tool, rpc, request_type, arguments in TOOL_CALLS:
            mcp = await mcp_call(client, tool, arguments)
            body = json_of(await getattr(stub, rpc)(message_of(arguments, request_type), metadata=token))
            assert comparable(body) == comparable(mcp), (tool, arguments)
            assert {k: v for k, v in body["audit"].items() if k != "latency_ms"} == {
                k: v for k, v in mcp["audit"].items() if k != "latency_ms"}
            replies.setdefault(rpc, []).append(body)

        report_id = replies["EvalRun"][0]["report_id"]
        mcp = await mcp_read(client, f"bio-mcp://eval/{report_id}/json")
        body = json_of(await stub.GetEvalReport(pb.EvalReportRequest(report_id=report_id), metadata=token))
        assert comparable(without_audit(body, {"report_id": report_id}, mcp)) == comparable(mcp)
        assert body["queries"] and body["metrics"] == replies["EvalRun"][0]["metrics"]

        await mcp_read(client, f"paper://pmid/{RECORDED}")  # fetched from the fakes and stored: both read it stored
        mcp = await mcp_read(client, f"paper://pmid/{RECORDED}")
        body = json_of(await stub.GetPaper(pb.PaperRequest(pmid=RECORDED), metadata=token))
        assert comparable(without_audit(body, {"pmid": RECORDED}, mcp)) == comparable(mcp)
        assert body["pmid"] == RECORDED and body["authors"] and body["source"] == "corpus"

        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await stub.GetPaper(pb.PaperRequest(pmid="not-a-pmid"), metadata=token)
        assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await stub.GetEvalReport(pb.EvalReportRequest(report_id="0" * 24), metadata=token)
        assert raised.value.code() == grpc.StatusCode.NOT_FOUND

    thai = replies["HybridSearch"][0]
    assert thai["hits"][0] == {**thai["hits"][0], "type": "herb", "id": ANDROGRAPHIS}
    assert any(hit.get("pmid") == ANDROGRAPHIS_PAPER for hit in thai["hits"])
    assert all(answer["citations"] for answer in replies["RagAnswer"])
