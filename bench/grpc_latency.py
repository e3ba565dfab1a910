"""Seed 003's read surfaces over gRPC beside the same MCP tools and resources: P50/P95 per call, JSON lines.

    .venv/bin/python bench/grpc_latency.py [--data ../shared/data] [--runs 20] [--embeddings onnx]

One process serves one evidence toolset three ways, each called by its own client in the same process:
the MCP SDK client in memory (no transport: the floor), the MCP SDK client over Streamable HTTP on
loopback (uvicorn, bearer token checked), and the generated gRPC client on loopback (grpc.aio,
bearer token checked). The calls are interleaved, so a slow moment of the machine falls on all three.
The corpus is real: the PPR dev abstracts (chunked, embedded, MeSH-linked), the Thai herb table and
formulations (examples/kg) and the herb catalog (MeSH plants, Dr. Duke's constituents). Each figure
is a call's wall time at the client; `ratio` lines give gRPC's P50 over MCP-over-HTTP's.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import socket
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import httpx2
import uvicorn
from figures import emit
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bio_mcp.config import load_settings
from bio_mcp.eval.corpus_fill import fill_scratch_corpus, ppr_documents
from bio_mcp.eval.ppr import read_ppr
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.answer import AnswerService, RagAnswerEngine
from bio_mcp.features.evidence.herb_knowledge import HerbKnowledge
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.graph.herb_catalog import write_herb_catalog
from bio_mcp.graph.indexer import GraphIndexer, load_catalog
from bio_mcp.graph.kg_import import import_file
from bio_mcp.graph.linking import load_linker_from
from bio_mcp.server.app import build_server, portable_name
from bio_mcp.server.auth import mint_token
from bio_mcp.server.grpc import evidence_pb2 as pb
from bio_mcp.server.grpc import evidence_pb2_grpc as pb_grpc
from bio_mcp.server.grpc.messages import message_of
from bio_mcp.server.grpc.service import start_grpc_server
from bio_mcp.server.http import MCP_PATH, build_http_app
from bio_mcp.server.toolset import Toolset
from bio_mcp.server.toolsets.evidence import answer_tools, herb_tools, search_tools
from bio_mcp.sources.ncbi.client import EutilsClient

REPO = Path(__file__).resolve().parents[1]
SECRET = "grpc-latency-bench-secret-0123456789abcdef"
GARLIC, ANDROGRAPHIS_PAPER = "mesh:D005737", "25553378"

# (name, MCP tool or resource URI, gRPC method, request type, arguments)
CALLS: list[tuple[str, str, str, type, dict[str, Any]]] = [
    ("herb", f"kg://herb/{GARLIC}", "GetHerb", pb.HerbRequest, {"id": GARLIC}),
    ("paper", f"paper://pmid/{ANDROGRAPHIS_PAPER}", "GetPaper", pb.PaperRequest, {"pmid": ANDROGRAPHIS_PAPER}),
    ("query_kg", "tool.query_kg", "QueryKg", pb.QueryKgRequest, {"start": {"type": "herb", "id": GARLIC}}),
    ("find_contraindications", "tool.find_contraindications", "FindContraindications",
     pb.FindContraindicationsRequest, {"herb_ids": [GARLIC, "ชา"]}),
    ("hybrid_search_th", "tool.hybrid_search", "HybridSearch", pb.HybridSearchRequest,
     {"query": "ฟ้าทะลายโจร", "top_k": 10}),
    ("hybrid_search_en", "tool.hybrid_search", "HybridSearch", pb.HybridSearchRequest,
     {"query": "ginseng diabetes insulin", "top_k": 10}),
    ("rag_answer", "tool.rag_answer", "RagAnswer", pb.RagAnswerRequest,
     {"question": "Does andrographolide prevent cancer?"}),
]




async def build_corpus(data: Path, home: Path, embeddings: str) -> tuple[CorpusService, EutilsClient]:
    mesh = data / "mesh" / "mesh_descriptors_2024.jsonl"
    settings = load_settings(
        BIO_MCP_HOME=str(home), BIO_MCP_EMBEDDINGS_PROVIDER=embeddings, BIO_MCP_PAPER_FETCH=False,
        BIO_MCP_MESH_PATH=str(mesh), BIO_MCP_DUKE_DIR=str(data / "herbs" / "duke"),
        BIO_MCP_DUKE_FARMACY_DIR=str(data / "herbs" / "duke_farmacy"),
        BIO_MCP_DO_XREFS_PATH=str(data / "ontology" / "do_xrefs.tsv"),
    )
    catalog = load_catalog(mesh, home)
    graph = GraphIndexer(catalog, load_linker_from(mesh, None, home))
    eutils = EutilsClient(settings)
    corpus = CorpusService(settings, eutils, embed_in_background=False, graph=graph)
    await corpus.open()
    documents = ppr_documents(read_ppr(data / "bench" / "ppr" / "PPR_dev_corpus.txt"))
    fill_scratch_corpus(corpus.index, documents, settings.embeddings_batch_size, graph=graph)
    for name in ("thai_herb_names.tsv", "thai_formulations.tsv"):
        with corpus.store.transaction() as tx:
            import_file(tx.connection, REPO / "examples" / "kg" / name, catalog)
    with corpus.store.transaction() as tx:
        write_herb_catalog(tx.connection, catalog, data / "herbs" / "duke")
    return corpus, eutils


def evidence_toolset(corpus: CorpusService) -> Toolset:
    answers = AnswerService(KbRetrieval(corpus))
    tools, resources = search_tools(corpus, KbRetrieval(corpus), RagAnswerEngine(answers))
    herb, herb_resources = herb_tools(HerbKnowledge(corpus))
    return Toolset(name="evidence", tools=tools + herb + answer_tools(answers), resources=resources + herb_resources)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


def mcp_call(client: Client, target: str, arguments: dict[str, Any]) -> Callable[[], Awaitable[Any]]:
    async def call() -> None:
        if "://" in target:
            await client.read_resource(target)
        else:
            result = await client.call_tool(portable_name(target), arguments)
            assert not result.is_error, result.content[0].text

    return call


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--embeddings", default="onnx", help="the embedding provider (onnx: the default install's)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        started = time.perf_counter()
        corpus, eutils = await build_corpus(args.data, home, args.embeddings)
        emit("grpc_bench_corpus_build_s", time.perf_counter() - started, "s", embeddings=args.embeddings)
        toolset = evidence_toolset(corpus)
        http_port = free_port()
        settings = load_settings(BIO_MCP_HOME=str(home), MCP_AUTH_SECRET_KEY=SECRET, MCP_HTTP_PORT=http_port)
        token = mint_token(SECRET)

        grpc_server, grpc_port = await start_grpc_server(settings, toolset, "127.0.0.1", 0)
        config = uvicorn.Config(build_http_app(settings, [toolset]), host="127.0.0.1", port=http_port,
                                log_config=None, access_log=False)
        http_server = uvicorn.Server(config)
        serving = asyncio.create_task(http_server.serve())
        while not http_server.started:
            await asyncio.sleep(0.05)
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=300)
        metadata = (("authorization", f"Bearer {token}"),)
        try:
            async with (
                Client(build_server([toolset])) as memory,
                Client(streamable_http_client(f"http://127.0.0.1:{http_port}{MCP_PATH}", http_client=http)) as over_http,
                grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}") as channel,
            ):
                stub = pb_grpc.EvidenceStub(channel)
                clients: dict[str, Callable[[str, str, type, dict[str, Any]], Callable[[], Awaitable[Any]]]] = {
                    "mcp_memory": lambda target, _rpc, _type, arguments: mcp_call(memory, target, arguments),
                    "mcp_http": lambda target, _rpc, _type, arguments: mcp_call(over_http, target, arguments),
                    "grpc": lambda _target, rpc, request_type, arguments: lambda: getattr(stub, rpc)(
                        message_of(arguments, request_type), metadata=metadata),
                }
                timings: dict[tuple[str, str], list[float]] = {}
                for run in range(args.runs + 1):  # the first run warms every path up and is not counted
                    for name, target, rpc, request_type, arguments in CALLS:
                        for transport, client in clients.items():
                            ms = await timed(client(target, rpc, request_type, arguments))
                            if run:
                                timings.setdefault((name, transport), []).append(ms)
        finally:
            await http.aclose()
            http_server.should_exit = True
            await serving
            await grpc_server.stop(None)
            await corpus.aclose()
            await eutils.aclose()
        p50: dict[tuple[str, str], float] = {}
        for (name, transport), values in timings.items():
            ordered = sorted(values)
            p50[(name, transport)] = statistics.median(ordered)
            params = {"call": name, "transport": transport, "runs": args.runs, "embeddings": args.embeddings}
            emit("evidence_call_latency_ms", p50[(name, transport)], "ms", stat="p50", **params)
            nearest_rank = max(0, math.ceil(0.95 * len(ordered)) - 1)
            emit("evidence_call_latency_ms", ordered[nearest_rank], "ms", stat="p95", **params)
        for name, *_ in CALLS:
            emit("grpc_over_mcp_http_p50_ratio", p50[(name, "grpc")] / p50[(name, "mcp_http")], "ratio", call=name)
            emit("grpc_minus_mcp_memory_p50_ms", p50[(name, "grpc")] - p50[(name, "mcp_memory")], "ms", call=name)


if __name__ == "__main__":
    asyncio.run(main())
