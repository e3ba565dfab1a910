"""The `evidence` toolset (seed 003): herb knowledge, cited answers, contraindications, ingestion,
evaluation. Every tool carries the seed's audit in its body as well as in `_meta`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bio_mcp.features.evidence import contraindications, query_kg
from bio_mcp.features.evidence.contraindications import (
    FindContraindicationsRequest,
    FindContraindicationsResponse,
)
from bio_mcp.features.evidence.herb_knowledge import HerbKnowledge
from bio_mcp.features.evidence.herbs import HERB_URI
from bio_mcp.features.evidence.query_kg import QueryKgRequest, QueryKgResponse
from bio_mcp.server.toolset import ResourceSpec, Toolset, ToolSpec

if TYPE_CHECKING:
    from bio_mcp.server.runtime import Runtime


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
    return Toolset(name="evidence", tools=tools, resources=resources)
