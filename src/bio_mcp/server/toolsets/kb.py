"""The `kb` toolset (seed 002): knowledge-graph search, evidence, traversal and entities."""

from __future__ import annotations

from typing import Any

from bio_mcp.config import Settings
from bio_mcp.features.kb import entities, retrieve_evidence, search, traverse
from bio_mcp.features.kb.diagnostics import DIAGNOSTICS_URI
from bio_mcp.features.kb.graph_service import KbGraph
from bio_mcp.features.kb.models import (
    EntitiesRequest,
    EntitiesResponse,
    KbSearchRequest,
    KbSearchResponse,
    RetrieveEvidenceRequest,
    RetrieveEvidenceResponse,
    TraverseRequest,
    TraverseResponse,
)
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.server.runtime import Runtime
from bio_mcp.server.toolset import ResourceSpec, Toolset, ToolSpec

# Seed 002's legacy names of kb.search and graph.traverse: always callable, listed only when the
# server lists legacy names (BIO_MCP_LEGACY_TOOL_NAMES, or the legacy REST surface).
LEGACY_SEARCH_NAME = "search_documentation"
LEGACY_TRAVERSE_NAME = "traverse_relationships"

_SEARCH_DESCRIPTION = (
    "Evidence sections of the local corpus: hybrid BM25 + semantic search boosted for the query's entities "
    "(any synonym); Thai is searched in English. verbosity snippet, full (+ text) or graph (+ the subgraph "
    "around the evidence). unmatched_terms: query words no section's document names."
)


# ---- kb.search, kb.retrieve_evidence, diagnostics (kbtools) ------------------------------------


def retrieval_tools(retrieval: KbRetrieval, settings: Settings) -> tuple[list[ToolSpec[Any, Any]], list[ResourceSpec]]:
    tools: list[ToolSpec[Any, Any]] = [
        ToolSpec(
            name="kb.search",
            title="Search the knowledge graph",
            description=_SEARCH_DESCRIPTION,
            input_model=KbSearchRequest, output_model=KbSearchResponse,
            run=retrieval.search, summarize=search.summarize, open_world=False,
            legacy_names=(LEGACY_SEARCH_NAME,),
        ),
        ToolSpec(
            name="kb.retrieve_evidence",
            title="Retrieve evidence sections",
            description="Whole sections by id (from kb.search or graph nodes) with their document and the "
            "entities they mention; text longer than max_chars is cut and whole at its scratch_uri.",
            input_model=RetrieveEvidenceRequest, output_model=RetrieveEvidenceResponse,
            run=retrieval.retrieve_evidence, summarize=retrieve_evidence.summarize, open_world=False,
        ),
    ]
    resources: list[ResourceSpec] = []
    if settings.diagnostics_resources_enabled:

        async def read_diagnostics(date: str, diagnostic_id: str) -> str:
            return await retrieval.diagnostics_markdown(diagnostic_id, date)

        resources.append(
            ResourceSpec(
                DIAGNOSTICS_URI, "retrievalDiagnostics",
                "The Markdown diagnostics of a kb.search or kb.retrieve_evidence call (its diagnostic_id)",
                "text/markdown", read_diagnostics,
            )
        )
    return tools, resources


# ---- graph.traverse, graph.entities (graph) ------------------------------------------------------

_TRAVERSE_DESCRIPTION = (
    "Walk the knowledge graph breadth-first from seed nodes (entity ids such as mesh:D000082 from "
    "graph.entities, section or document ids, pmid:N) under hard budgets. Returns scored nodes, edges and "
    "why the walk stopped."
)


def graph_tools(graph: KbGraph) -> list[ToolSpec[Any, Any]]:
    return [
        ToolSpec(
            name="graph.traverse",
            title="Traverse the knowledge graph",
            description=_TRAVERSE_DESCRIPTION,
            input_model=TraverseRequest, output_model=TraverseResponse,
            run=graph.traverse, summarize=traverse.summarize, open_world=False,
            legacy_names=(LEGACY_TRAVERSE_NAME,),
        ),
        ToolSpec(
            name="graph.entities",
            title="Find knowledge-graph entities",
            description="Find entities (MeSH descriptors, trials) by name, synonym or id, best match first, with "
            "their type, synonyms, MeSH tree numbers and how many corpus documents mention them: the seed ids "
            "for graph.traverse.",
            input_model=EntitiesRequest, output_model=EntitiesResponse,
            run=graph.entities, summarize=entities.summarize, open_world=False,
        ),
    ]


def build_kb_toolset(retrieval: KbRetrieval, settings: Settings, graph: KbGraph | None = None) -> Toolset:
    tools, resources = retrieval_tools(retrieval, settings)
    if graph is not None:
        tools += graph_tools(graph)
    return Toolset(name="kb", tools=tools, resources=resources)


def kb_toolset(runtime: Runtime) -> Toolset:
    return build_kb_toolset(KbRetrieval(runtime.corpus), runtime.settings, KbGraph(runtime.corpus))
