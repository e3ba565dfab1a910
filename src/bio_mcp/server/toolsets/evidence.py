"""The `evidence` toolset (seed 003): herb knowledge, cited answers, contraindications, ingestion,
evaluation. Every tool carries the seed's audit in its body as well as in `_meta`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bio_mcp.features.evidence import contraindications, ingest_jobs, query_kg
from bio_mcp.features.evidence.contraindications import (
    FindContraindicationsRequest,
    FindContraindicationsResponse,
)
from bio_mcp.features.evidence.herb_knowledge import HerbKnowledge
from bio_mcp.features.evidence.herbs import HERB_URI
from bio_mcp.features.evidence.ingest_jobs import JOB_LOG_URI, JOB_URI, IngestService, require_job_id
from bio_mcp.features.evidence.ingest_models import IngestRunRequest, IngestRunResponse
from bio_mcp.features.evidence.query_kg import QueryKgRequest, QueryKgResponse
from bio_mcp.server.toolset import ResourceSpec, Toolset, ToolSpec

if TYPE_CHECKING:
    from bio_mcp.server.runtime import Runtime

_INGEST_DESCRIPTION = (
    "Ingest files (PDF, plain text, Markdown, HTML) into the local corpus and knowledge graph: PDF text layer "
    "(pypdf), OCR of image-only pages (Tesseract, Thai and English), sections, entity linking (MeSH and the Thai/"
    "English names of herbs), then Document/Section nodes with MENTIONS and corpus chunks searchable by kb.search. "
    "dry_run (default true) only reports pages, OCR'd pages, characters, sections and entities. Files must lie under "
    "the server's BIO_MCP_INGEST_ROOTS. Returns a job; its status is at bio-mcp://jobs/{job_id}, its log at log_uri."
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
            "(e.g. herb>constituent>indication), each edge with its strength and evidence sentences with sources. "
            "max_depth <= 4, max_paths <= 200; filters.relations (HAS_CONSTITUENT, TREATS, CAUSES, INTERACTS_WITH, "
            "HAS_INGREDIENT) and filters.min_strength (low|moderate|high).",
            input_model=QueryKgRequest, output_model=QueryKgResponse,
            run=knowledge.query_kg, summarize=query_kg.summarize, audit_in_body=True, open_world=False,
        ),
        ToolSpec(
            name="tool.find_contraindications",
            title="Find contraindications and interactions",
            description="Contraindications, adverse effects and drug interactions of herbs (mesh:D005737, herb:<slug> "
            "or an exact Thai/English/scientific name) and formulations (with all their herbs), each with the "
            "evidence sentence, its source and a strength (low|moderate|high from study design and the number of "
            "independent documents). Unknown ids are a VALIDATION error.",
            input_model=FindContraindicationsRequest, output_model=FindContraindicationsResponse,
            run=knowledge.find_contraindications, summarize=contraindications.summarize, audit_in_body=True,
            open_world=False,
        ),
    ]
    resources = [
        ResourceSpec(
            HERB_URI, "herb",
            "A herb node (kg://herb/mesh:D030024): Thai and English names, parts, constituents (with Dr. Duke's "
            "activities), indications with ICD-10-CM codes, and sources",
            "application/json", knowledge.read_herb,
        ),
    ]
    return tools, resources


def evidence_toolset(runtime: Runtime) -> Toolset:
    tools, resources = herb_tools(HerbKnowledge(runtime.corpus))
    ingest_specs, ingest_resources = ingest_tools(runtime.ingest)
    tools += ingest_specs
    resources += ingest_resources
    return Toolset(name="evidence", tools=tools, resources=resources)
