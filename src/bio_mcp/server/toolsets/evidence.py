"""The `evidence` toolset (seed 003): herb knowledge, cited answers, contraindications, ingestion,
evaluation. Every tool carries the seed's audit in its body as well as in `_meta`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bio_mcp.features.evidence import (
    answer,
    contraindications,
    evaluation,
    hybrid_search,
    ingest_jobs,
    query_kg,
)
from bio_mcp.features.evidence.answer import AnswerService, RagAnswerEngine
from bio_mcp.features.evidence.answer_models import RagAnswerRequest, RagAnswerResponse
from bio_mcp.features.evidence.contraindications import (
    FindContraindicationsRequest,
    FindContraindicationsResponse,
)
from bio_mcp.features.evidence.evaluation import (
    REPORT_JSON_URI,
    REPORT_URI,
    AnswerEngine,
    EvalRunRequest,
    EvalRunResponse,
    Evaluator,
)
from bio_mcp.features.evidence.herb_knowledge import HerbKnowledge
from bio_mcp.features.evidence.herbs import HERB_URI
from bio_mcp.features.evidence.hybrid_search import HybridSearch, HybridSearchRequest, HybridSearchResponse
from bio_mcp.features.evidence.ingest_jobs import JOB_LOG_URI, JOB_URI, IngestService, require_job_id
from bio_mcp.features.evidence.ingest_models import IngestRunRequest, IngestRunResponse
from bio_mcp.features.evidence.papers import PAPER_URI, PaperLibrary
from bio_mcp.features.evidence.query_kg import QueryKgRequest, QueryKgResponse
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.server.runtime import Runtime
from bio_mcp.server.sampling import SamplingAnswerWriter
from bio_mcp.server.toolset import ResourceSpec, Toolset, ToolSpec

if TYPE_CHECKING:
    from bio_mcp.features.corpus.service import CorpusService

_INGEST_DESCRIPTION = (
    "Ingest PDF, text, Markdown or HTML files under the server's BIO_MCP_INGEST_ROOTS into the local corpus "
    "and knowledge graph (text layer, else OCR in Thai and English; entities and relations linked). dry_run "
    "(default true) only reports what would be written. Returns a job: bio-mcp://jobs/{job_id}, log at log_uri."
)


def ingest_tools(service: IngestService) -> tuple[list[ToolSpec[Any, Any]], list[ResourceSpec]]:
    tools: list[ToolSpec[Any, Any]] = [
        ToolSpec(
            name="tool.ingest.run",
            title="Ingest documents",
            description=_INGEST_DESCRIPTION,
            input_model=IngestRunRequest, output_model=IngestRunResponse,
            run=service.run, summarize=ingest_jobs.summarize,
            audit_in_body=True, read_only=False, open_world=False,
        ),
    ]

    async def read_job(job_id: str) -> str:
        return await service.job_json(require_job_id(job_id))

    async def read_log(job_id: str) -> str:
        return await service.job_log(require_job_id(job_id))

    resources = [
        ResourceSpec(JOB_URI, "ingestJob", "An ingestion job's current status, counts and per-file reports (JSON)",
                     "application/json", read_job),
        ResourceSpec(JOB_LOG_URI, "ingestJobLog", "An ingestion job's log", "text/plain", read_log),
    ]
    return tools, resources


def herb_tools(knowledge: HerbKnowledge) -> tuple[list[ToolSpec[Any, Any]], list[ResourceSpec]]:
    tools: list[ToolSpec[Any, Any]] = [
        ToolSpec(
            name="tool.query_kg",
            title="Query knowledge-graph paths",
            description="Paths over the herb knowledge graph from a herb, constituent, indication or formulation "
            "(e.g. herb>constituent>indication), each edge stated (quoted) or only co-mentioned, with its strength "
            "and evidence. No path is not evidence of safety: coverage says what was searched.",
            input_model=QueryKgRequest, output_model=QueryKgResponse,
            run=knowledge.query_kg, summarize=query_kg.summarize, audit_in_body=True, open_world=False,
        ),
        ToolSpec(
            name="tool.find_contraindications",
            title="Find contraindications and interactions",
            description="Adverse effects, contraindications and drug interactions of herbs (id or exact Thai, English "
            "or scientific name) and formulations (through their herbs), each with its checked quote, source and "
            "strength. Finding none is not evidence of safety: coverage says what was searched.",
            input_model=FindContraindicationsRequest, output_model=FindContraindicationsResponse,
            run=knowledge.find_contraindications, summarize=contraindications.summarize, audit_in_body=True,
            open_world=False,
        ),
    ]
    resources = [
        ResourceSpec(
            HERB_URI, "herb",
            "A herb node (kg://herb/mesh:D030024, or kg://herb/garlic): Thai and English names, parts, constituents "
            "(Dr. Duke's and curated, with Dr. Duke's activities), indications the literature or a curated import "
            "states, with ICD-10-CM codes, traditional uses from Dr. Duke's ethnobotany (each labelled a traditional "
            "use, not evidence), and sources",
            "application/json", knowledge.read_herb,
        ),
    ]
    return tools, resources


_HYBRID_SEARCH_DESCRIPTION = (
    "Search the local corpus in Thai or English (BM25 + vectors); Thai is read in English, herbs by their "
    "names (ฟ้าทะลายโจร finds Andrographis paniculata). Hits: the herbs named (kg://herb/{id}), then per "
    "document a paper (paper://pmid/{pmid}) and its best passage. unmatched_terms: query words no hit names."
)
_EVAL_DESCRIPTION = (
    "Evaluate retrieval (R@k, MRR, nDCG@k) and answers (factuality) on a set: smoke (known items of the "
    "local corpus), curated (folders under BIO_MCP_EVAL_DATA) or custom (params.path, a BEIR folder). "
    "Returns the metrics and report_uri, the full report (JSON at report_uri + '/json')."
)


def search_tools(
    corpus: CorpusService, retrieval: KbRetrieval, answers: AnswerEngine | None = None
) -> tuple[list[ToolSpec[Any, Any]], list[ResourceSpec]]:
    search = HybridSearch(retrieval)
    evaluator = Evaluator(corpus, retrieval, answers)
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
    return tools, resources

_RAG_ANSWER_DESCRIPTION = (
    "Answer a question (Thai or English) from the local corpus, quoting only sentences that name its subject "
    "and outcome, each span checked against the stored text; a yes/no question gets a verdict. Withheld "
    "(withheld, reason) with fewer than 3 such quotes or answer_conf (in [0, 1]) below ANSWER_CONF_TAU."
)


def answer_tools(service: AnswerService) -> list[ToolSpec[Any, Any]]:
    return [
        ToolSpec(
            name="tool.rag_answer",
            title="Answer with citations",
            description=_RAG_ANSWER_DESCRIPTION,
            input_model=RagAnswerRequest, output_model=RagAnswerResponse,
            run=service.answer, summarize=answer.summarize, audit_in_body=True, open_world=False,
        )
    ]


def evidence_toolset(runtime: Runtime) -> Toolset:
    service = AnswerService(KbRetrieval(runtime.corpus), writer=SamplingAnswerWriter())
    tools: list[ToolSpec[Any, Any]] = answer_tools(service)
    resources: list[ResourceSpec] = []
    for part_tools, part_resources in (
        search_tools(runtime.corpus, KbRetrieval(runtime.corpus), RagAnswerEngine(service)),
        herb_tools(HerbKnowledge(runtime.corpus)),
        ingest_tools(runtime.ingest),
    ):
        tools += part_tools
        resources += part_resources
    return Toolset(name="evidence", tools=tools, resources=resources)
