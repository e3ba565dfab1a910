"""tool.eval.run: the smoke set on the local corpus, the curated folders of the real benchmark data,
a custom BEIR folder, the answer-engine protocol, the stored report and `bio-mcp eval run`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.answer import AnswerService, RagAnswerEngine
from bio_mcp.features.evidence.eval_sets import MESH_SMOKE_DOCUMENTS, mesh_smoke_set, smoke_set
from bio_mcp.features.evidence.evaluation import EvalRunRequest, Evaluator
from bio_mcp.features.evidence.hybrid_search import HybridSearch, HybridSearchRequest, SearchFilters
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.server.toolset import Toolset, call_tool
from bio_mcp.server.toolsets.evidence import search_tools
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.store import open_metadata_store
from tests.evidence.evidence_fixtures import evidence_settings

pytestmark = pytest.mark.anyio


async def _run_tool(corpus: CorpusService, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any], Any]:
    toolset = Toolset("evidence", *search_tools(corpus, KbRetrieval(corpus)))
    spec = next(tool for tool in toolset.tools if tool.name == "tool.eval.run")
    result = await call_tool(spec, arguments)
    body = json.loads(result.content[0].text) if result.is_error else result.structured_content
    return result.is_error, body, toolset


async def _read(toolset, uri: str) -> str:  # type: ignore[no-untyped-def]
    report_id = uri.removeprefix("bio-mcp://eval/")
    markdown = next(r for r in toolset.resources if r.uri == "bio-mcp://eval/{report_id}")
    return await markdown.read(report_id=report_id)


async def test_smoke_scores_known_item_queries_on_the_local_corpus(herbal_corpus: CorpusService) -> None:
    failed, body, toolset = await _run_tool(herbal_corpus, {"set": "smoke", "metrics": ["R@k", "MRR", "nDCG@k", "factuality"]})
    assert not failed, body
    assert body["audit"]["status"] == "ok"
    names = [m["name"] for m in body["metrics"]]
    assert names == ["R@10", "MRR", "nDCG@10", "factuality"]
    values = {m["name"]: m["value"] for m in body["metrics"]}
    # Each title finds its own abstract: a broken index, store or search drops these at once.
    assert values["R@10"] >= 0.9 and values["MRR"] >= 0.8 and 0 < values["nDCG@10"] <= 1
    factuality = body["metrics"][3]
    assert factuality["value"] is None and "answer engine" in factuality["note"]
    assert body["datasets"][0]["name"] == "smoke" and body["datasets"][0]["queries"] == 50
    assert "local corpus" in body["datasets"][0]["description"] and body["datasets"][0]["documents"] is None

    markdown = await _read(toolset, body["report_uri"])
    assert markdown.startswith(f"# Evaluation report {body['report_id']}") and "| R@10 |" in markdown
    json_resource = next(r for r in toolset.resources if r.uri == "bio-mcp://eval/{report_id}/json")
    report = json.loads(await json_resource.read(report_id=body["report_id"]))
    assert len(report["queries"]) == 50
    mean = sum(row["metrics"]["R@10"] for row in report["queries"]) / 50
    assert mean == pytest.approx(values["R@10"], abs=1e-6)
    # Same request, same corpus: the same report.
    again = (await _run_tool(herbal_corpus, {"set": "smoke", "metrics": ["R@k", "MRR", "nDCG@k", "factuality"]}))[1]
    assert again["report_id"] == body["report_id"] and again["metrics"] == body["metrics"]


@pytest.fixture
async def eval_corpus(tmp_path: Path, data_dir: Path, graph_indexer) -> AsyncIterator[CorpusService]:  # type: ignore[no-untyped-def]
    """An empty corpus whose settings name the real benchmark folder as BIO_MCP_EVAL_DATA."""
    settings = evidence_settings(tmp_path / "home", BIO_MCP_EVAL_DATA=str(data_dir / "bench"))
    eutils = EutilsClient(settings)
    service = CorpusService(settings, eutils, embed_in_background=False, graph=graph_indexer)
    yield service
    await service.aclose()
    await eutils.aclose()


async def test_smoke_on_an_empty_corpus_is_built_from_the_installed_mesh(eval_corpus: CorpusService) -> None:
    failed, body, toolset = await _run_tool(eval_corpus, {"set": "smoke", "metrics": ["R@k", "MRR"],
                                                          "params": {"max_queries": 20}})
    assert not failed, body
    dataset = body["datasets"][0]
    assert dataset["name"] == "smoke" and dataset["queries"] == 20 and dataset["documents"] == MESH_SMOKE_DOCUMENTS
    assert "MeSH" in dataset["description"] and "local corpus is empty" in dataset["description"]
    values = {m["name"]: m["value"] for m in body["metrics"]}
    # Each entry term finds its descriptor among the sampled ones: a broken scratch index or search drops this.
    assert values["R@10"] >= 0.8 and values["MRR"] >= 0.6
    markdown = await _read(toolset, body["report_uri"])
    assert "known-item over MeSH" in markdown
    json_resource = next(r for r in toolset.resources if r.uri == "bio-mcp://eval/{report_id}/json")
    report = json.loads(await json_resource.read(report_id=body["report_id"]))
    for row in report["queries"]:
        assert row["id"] == f"smoke-{row['relevant'][0]}" and row["relevant"][0].startswith("mesh:D")


def test_the_mesh_smoke_set_asks_entry_terms_left_out_of_their_documents(data_dir: Path) -> None:
    query_set = mesh_smoke_set(data_dir / "mesh" / "mesh_descriptors_2024.jsonl", 30, None)
    assert len(query_set.queries) == 30 and len(query_set.corpus) == MESH_SMOKE_DOCUMENTS
    documents = {item["_id"]: item for item in query_set.corpus}
    assert len(documents) == MESH_SMOKE_DOCUMENTS
    for query_id, term in query_set.queries.items():
        (descriptor,) = query_set.qrels[query_id]
        document = documents[descriptor]
        assert term != document["title"] and term not in document["text"].split("; ")
    # Deterministic: the same file, the same set.
    assert mesh_smoke_set(data_dir / "mesh" / "mesh_descriptors_2024.jsonl", 30, None).queries == query_set.queries


def test_smoke_with_neither_a_corpus_nor_mesh_is_a_clear_error(tmp_path: Path) -> None:
    settings = evidence_settings(tmp_path / "home")
    store = open_metadata_store(settings)
    try:
        with pytest.raises(BioMcpError) as raised:
            smoke_set(store, None, 50)
    finally:
        store.close()
    assert raised.value.code == ErrorCode.NOT_FOUND
    assert "MeSH" in raised.value.message and "sync" in raised.value.message


async def test_curated_runs_every_folder_of_the_benchmark_data(eval_corpus: CorpusService) -> None:
    params = {"max_queries": 8, "max_docs": 120}
    failed, body, toolset = await _run_tool(eval_corpus, {"set": "curated", "metrics": ["R@10", "MRR", "nDCG@10"], "params": params})
    assert not failed, body
    datasets = {d["name"]: d for d in body["datasets"]}
    assert set(datasets) == {"scifact", "pubmedqa", "bc5cdr", "ppr"}
    for dataset in datasets.values():
        # max_docs: the judged documents plus others up to it (BEIR's loader may pass it by the judged ones).
        assert dataset["queries"] == 8 and 8 <= dataset["documents"] <= 150
        for metric in dataset["metrics"]:
            assert 0.0 <= metric["value"] <= 1.0
    # A PubMedQA question is its abstract's title as a question: it must find that abstract.
    pubmedqa = {m["name"]: m["value"] for m in datasets["pubmedqa"]["metrics"]}
    assert pubmedqa["R@10"] >= 0.75
    report = json.loads(await next(r for r in toolset.resources if r.uri.endswith("/json")).read(report_id=body["report_id"]))
    assert {row["dataset"] for row in report["queries"]} == set(datasets)
    overall = {m["name"]: m["value"] for m in body["metrics"]}
    assert overall["MRR"] == pytest.approx(sum(r["metrics"]["MRR"] for r in report["queries"]) / 32, abs=1e-6)


async def test_custom_runs_a_beir_folder(eval_corpus: CorpusService, data_dir: Path) -> None:
    params = {"path": str(data_dir / "bench" / "scifact"), "split": "train", "max_queries": 5, "max_docs": 80}
    failed, body, _ = await _run_tool(eval_corpus, {"set": "custom", "params": params, "metrics": ["R@5", "nDCG@k"]})
    assert not failed, body
    assert [m["name"] for m in body["metrics"]] == ["R@5", "nDCG@10"]
    assert body["datasets"][0]["name"] == "custom" and body["datasets"][0]["queries"] == 5


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        ({"set": "weekly"}, "set"),
        ({"set": "smoke", "metrics": ["P@5"]}, "metrics.0"),
        ({"set": "smoke", "metrics": ["R@50"]}, "metrics.0"),
        ({"set": "smoke", "params": {"k": 0}}, "k"),
        ({"set": "smoke", "params": {"colour": 1}}, "colour"),
        ({"set": "custom"}, "params.path"),
        ({"set": "custom", "params": {"path": "/nonexistent"}}, "params.path"),
        ({"set": "curated"}, "BIO_MCP_EVAL_DATA"),
    ],
)
async def test_bad_arguments_are_validation_errors(herbal_corpus: CorpusService, arguments: dict[str, Any], needle: str) -> None:
    failed, body, _ = await _run_tool(herbal_corpus, arguments)
    assert failed and body["error"]["code"] == "VALIDATION"
    assert needle in json.dumps(body["error"])


@dataclass
class Sentence:
    text: str
    verified: bool


@dataclass
class Outcome:
    sentences: list[Sentence]
    withheld: bool
    citations: int
    answer_conf: float | None


class ExtractiveEngine:
    """An answer engine for the protocol: it answers with the top paper's first abstract sentence and
    restates the question as a claim; a sentence is verified when the cited abstract contains it."""

    def __init__(self, corpus: CorpusService) -> None:
        self.corpus = corpus
        self.search = HybridSearch(KbRetrieval(corpus))

    async def answer(self, question: str, lang: str, top_k: int) -> Outcome:
        found = await self.search.search(HybridSearchRequest(query=question, lang="auto", top_k=top_k,
                                                             filters=SearchFilters(types=["paper"])))
        if not found.hits:
            return Outcome([], True, 0, None)
        with self.corpus.store.read() as tx:
            abstract = tx.documents.get(found.hits[0].pmid).abstract or ""
        first = abstract.split(". ")[0]
        sentences = [Sentence(first, first in abstract), Sentence(question, question in abstract)]
        return Outcome(sentences, False, len(found.hits), found.hits[0].score)


async def test_factuality_and_answer_figures_come_from_the_answer_engine(herbal_corpus: CorpusService) -> None:
    evaluator = Evaluator(herbal_corpus, KbRetrieval(herbal_corpus), ExtractiveEngine(herbal_corpus))
    request = EvalRunRequest(set="smoke", metrics=["factuality", "withheld", "citations", "answer_conf"],
                             params={"answer_questions": 4})
    result = await evaluator.run(request)
    figures = {m.name: m.value for m in result.metrics}
    # The first sentence is the abstract's own; the restated title is not in the abstract.
    assert figures["factuality"] == pytest.approx(0.5)
    assert figures["withheld"] == 0.0 and figures["citations"] >= 1 and 0 < figures["answer_conf"] <= 1
    report = json.loads(await evaluator.report_json(result.report_id))
    assert len(report["answers"]) == 4 and report["queries"] == []


async def test_tool_rag_answer_is_the_servers_answer_engine(herbal_corpus: CorpusService) -> None:
    retrieval = KbRetrieval(herbal_corpus)
    evaluator = Evaluator(herbal_corpus, retrieval, RagAnswerEngine(AnswerService(retrieval)))
    request = EvalRunRequest(set="smoke", metrics=["factuality", "withheld", "citations", "answer_conf"],
                             params={"answer_questions": 3})
    result = await evaluator.run(request)
    figures = {m.name: m.value for m in result.metrics}
    report = json.loads(await evaluator.report_json(result.report_id))
    answered = [a for a in report["answers"] if not a["withheld"]]
    assert len(report["answers"]) == 3 and 0 <= figures["withheld"] <= 1 and 0 < figures["answer_conf"] <= 1
    # Every sentence of an extractive answer quotes a verified span, so all of them check out.
    if answered:
        assert figures["factuality"] == 1.0 and all(s["verified"] for a in answered for s in a["sentences"])
    else:
        assert figures["factuality"] is None


def test_the_cli_runs_the_smoke_set_and_prints_the_report(tmp_path: Path, data_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NCBI_", "MCP_", "BIO_MCP_"))}
    env |= {"BIO_MCP_CACHE_DIR": os.environ["BIO_MCP_CACHE_DIR"], "BIO_MCP_HOME": str(tmp_path / "home"),
            "BIO_MCP_EMBEDDINGS_PROVIDER": "hash", "BIO_MCP_MESH_PATH": str(data_dir / "mesh" / "mesh_descriptors_2024.jsonl")}
    root, data = str(Path(__file__).resolve().parents[2]), str(data_dir)
    fill = (
        f"import sys; sys.path.insert(0, {root!r})\n"
        "from bio_mcp.config import load_settings\n"
        "from bio_mcp.eval.corpus_fill import fill_scratch_corpus\n"
        "from bio_mcp.features.corpus.indexing import CorpusIndex\n"
        "from bio_mcp.features.corpus.service import index_folder\n"
        "from bio_mcp.search.embeddings import build_embeddings\n"
        "from bio_mcp.store import open_metadata_store\n"
        "from tests.evidence.evidence_fixtures import ppr_documents\n"
        "from pathlib import Path\n"
        "s = load_settings(); store = open_metadata_store(s)\n"
        f"fill_scratch_corpus(CorpusIndex(store, index_folder(s), build_embeddings(s)), ppr_documents(Path({data!r}))[:30], 64)\n"
        "store.close()\n"
    )
    subprocess.run([sys.executable, "-c", fill], env=env, check=True, timeout=300)
    done = subprocess.run(
        [sys.executable, "-m", "bio_mcp.cli", "eval", "run", "--set", "smoke", "--metric", "R@5", "--metric", "MRR",
         "--param", "max_queries=10"],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("# Evaluation report ") and "| R@5 |" in done.stdout and "| MRR |" in done.stdout
    assert "| smoke | 10 | local corpus |" in done.stdout
