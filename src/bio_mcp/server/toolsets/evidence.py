"""The `evidence` toolset (seed 003): herb knowledge, cited answers, contraindications, ingestion,
evaluation. Every tool carries the seed's audit in its body as well as in `_meta`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bio_mcp.features.evidence import evaluation, hybrid_search
from bio_mcp.features.evidence.evaluation import (
    REPORT_JSON_URI,
    REPORT_URI,
    EvalRunRequest,
    EvalRunResponse,
    Evaluator,
)
from bio_mcp.features.evidence.hybrid_search import HybridSearch, HybridSearchRequest, HybridSearchResponse
from bio_mcp.features.evidence.papers import PAPER_URI, PaperLibrary
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.server.toolset import ResourceSpec, Toolset, ToolSpec

if TYPE_CHECKING:
    from bio_mcp.features.corpus.service import CorpusService
    from bio_mcp.server.runtime import Runtime

_HYBRID_SEARCH_DESCRIPTION = (
    "Search the local biomedical corpus in Thai or English (BM25 + vectors, boosted by the entities the "
    "query names). lang th|en|auto (by script). Thai queries are segmented with the graph's herb names "
    "kept whole and matched to herbs by their Thai names, then searched through the herbs' English and "
    "scientific names, so ฟ้าทะลายโจร finds the Andrographis paniculata literature. Hits: herb (the herbs "
    "named, kg://herb/{id}), then per document a paper hit (paper://pmid/{pmid}) and its best passage "
    "as a chunk hit; filters: types, year_from, year_to, pub_types."
)
_EVAL_DESCRIPTION = (
    "Evaluate retrieval (R@k, MRR, nDCG@k through tool.hybrid_search) and answers (factuality: the "
    "share of answer sentences whose citation checks out). set smoke (known-item queries from the local "
    "corpus, seconds), curated (the BEIR, PubMedQA, BC5CDR and PPR folders under BIO_MCP_EVAL_DATA), "
    "custom (params.path: a BEIR folder). Returns the metrics and report_uri, a resource with the full "
    "report in Markdown (JSON at report_uri + '/json')."
)


def build_evidence_toolset(corpus: CorpusService, retrieval: KbRetrieval) -> Toolset:
    search = HybridSearch(retrieval)
    evaluator = Evaluator(corpus, retrieval)
    papers = PaperLibrary(corpus)
    tools: list[ToolSpec[Any, Any]] = [
        ToolSpec(
            name="tool.hybrid_search", title="Hybrid search (Thai/English)", description=_HYBRID_SEARCH_DESCRIPTION,
            input_model=HybridSearchRequest, output_model=HybridSearchResponse, run=search.search,
            summarize=hybrid_search.summarize, audit_in_body=True, open_world=False,
        ),
        ToolSpec(
            name="tool.eval.run", title="Run an evaluation", description=_EVAL_DESCRIPTION,
            input_model=EvalRunRequest, output_model=EvalRunResponse, run=evaluator.run,
            summarize=evaluation.summarize, audit_in_body=True, open_world=False,
        ),
    ]

    async def read_paper(pmid: str) -> str:
        return await papers.read_json(pmid)

    async def read_report(report_id: str) -> str:
        return await evaluator.report_markdown(report_id)

    async def read_report_json(report_id: str) -> str:
        return await evaluator.report_json(report_id)

    resources = [
        ResourceSpec(
            PAPER_URI, "paper",
            "A paper's metadata (pmid, title, abstract, authors, journal, year, links) from the local corpus; "
            "fetched from PubMed and stored when absent, if BIO_MCP_PAPER_FETCH allows",
            "application/json", read_paper,
        ),
        ResourceSpec(REPORT_URI, "evalReport", "A tool.eval.run report in Markdown", "text/markdown", read_report),
        ResourceSpec(
            REPORT_JSON_URI, "evalReportJson", "A tool.eval.run report as JSON: every query, its ranking and figures",
            "application/json", read_report_json,
        ),
    ]
    return Toolset(name="evidence", tools=tools, resources=resources)


def evidence_toolset(runtime: Runtime) -> Toolset:
    return build_evidence_toolset(runtime.corpus, KbRetrieval(runtime.corpus))
