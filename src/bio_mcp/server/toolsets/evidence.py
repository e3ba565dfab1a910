"""The `evidence` toolset (seed 003): herb knowledge, cited answers, contraindications, ingestion,
evaluation. Every tool carries the seed's audit in its body as well as in `_meta`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bio_mcp.features.evidence import answer
from bio_mcp.features.evidence.answer import AnswerService
from bio_mcp.features.evidence.answer_models import RagAnswerRequest, RagAnswerResponse
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.server.sampling import SamplingAnswerWriter
from bio_mcp.server.toolset import ResourceSpec, Toolset, ToolSpec

if TYPE_CHECKING:
    from bio_mcp.server.runtime import Runtime

_RAG_ANSWER_DESCRIPTION = (
    "Answer a question (Thai or English) from the local corpus with citations: graph-aware retrieval, evidence "
    "sentences picked for relevance and diversity, every citation's span checked against the stored text. "
    "Quotes keep their language; the framing follows lang. scores.retrieval and scores.answer_conf are in "
    "[0, 1]; with fewer than 3 citations or answer_conf below ANSWER_CONF_TAU the answer is withheld "
    "(withheld: true, reason), citations and scores still returned."
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
    return Toolset(name="evidence", tools=tools, resources=resources)
