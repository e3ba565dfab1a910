"""Seed 003's read surfaces as one GraphQL schema over the same tool and resource functions as MCP.

A tool surface calls the tool through `call_tool`, the one wrapper MCP uses (contract validation,
error envelope, audit), so its data is the MCP tool's structured content, field for field. A
resource surface (`herb`, `paper`, `ingestJob`, `evalReport`) reads the MCP resource and adds the
seed's audit, computed as for a tool. A failed call is a GraphQL error whose `extensions` carry
the envelope's code and details and the audit.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from logging import ERROR
from typing import Any

import strawberry
from graphql import GraphQLError
from pydantic import BaseModel, create_model
from strawberry.scalars import JSON
from strawberry.schema.config import StrawberryConfig

from bio_mcp.audit import Audit, audit_record
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.sync_progress import SyncProgress
from bio_mcp.features.evidence.herb_knowledge import HerbResource
from bio_mcp.features.evidence.ingest_jobs import IngestJobView
from bio_mcp.features.evidence.papers import Paper
from bio_mcp.logs import get_logger
from bio_mcp.server.graphql.types import SCALAR_MAP, TypeBuilder, as_arguments, as_records
from bio_mcp.server.toolset import ResourceSpec, Toolset, ToolSpec, call_tool

log = get_logger("graphql")


@dataclass(frozen=True)
class ToolSurface:
    field: str
    tool: str
    mutation: bool = False


@dataclass(frozen=True)
class ResourceSurface:
    field: str
    resource: str
    argument: str  # the GraphQL argument: the seed's name (`herb(id)`, `paper(pmid)`)
    parameter: str  # the resource template's parameter it fills
    model: type[BaseModel] | None  # None: the body is free-form (JSON)



TOOL_SURFACES = (
    ToolSurface("queryKg", "tool.query_kg"),
    ToolSurface("hybridSearch", "tool.hybrid_search"),
    ToolSurface("ragAnswer", "tool.rag_answer"),
    ToolSurface("findContraindications", "tool.find_contraindications"),
    # The sections a cited answer quotes, whole, so a reader sees each quote in its place.
    ToolSurface("retrieveEvidence", "kb.retrieve_evidence"),
    ToolSurface("traverse", "graph.traverse"),
    ToolSurface("entities", "graph.entities"),
    ToolSurface("syncWatermark", "corpus.checkpoint.get"),
    # Starts a sync (a write, so a mutation) that `syncProgress` follows while it runs.
    ToolSurface("syncDelta", "pubmed.sync_delta", mutation=True),
    # Runs an evaluation and stores its report: a write, so a mutation.
    ToolSurface("evalRun", "tool.eval.run", mutation=True),
)
RESOURCE_SURFACES = (
    ResourceSurface("herb", "herb", "id", "id", HerbResource),
    ResourceSurface("paper", "paper", "pmid", "pmid", Paper),
    ResourceSurface("ingestJob", "ingestJob", "job_id", "job_id", IngestJobView),
    ResourceSurface("syncProgress", "syncProgress", "query_key", "query_key", SyncProgress),
    ResourceSurface("evalReport", "evalReportJson", "id", "report_id", None),
)


def _error(error: dict[str, Any], audit: dict[str, Any] | None) -> GraphQLError:
    return GraphQLError(error["message"], extensions={"code": error["code"], "details": error.get("details"),
                                                       "audit": audit})


def _resolver(name: str, parameters: list[inspect.Parameter], returns: Any,
              call: Callable[[dict[str, Any]], Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """A resolver whose signature strawberry reads as the field's arguments; arguments left out
    (or null) are not sent, so the contract's defaults apply exactly as over MCP."""

    async def resolve(**arguments: Any) -> Any:
        return await call({key: as_arguments(value) for key, value in arguments.items() if value is not None})

    resolve.__name__ = name
    resolve.__signature__ = inspect.Signature(parameters, return_annotation=returns)  # type: ignore[attr-defined]
    resolve.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": returns}
    return resolve


def _tool_field(surface: ToolSurface, spec: ToolSpec[Any, Any], types: TypeBuilder) -> Any:
    returns = types.object_type(spec.output_schema(), spec.output_model.__name__, surface.field.title())
    schema = spec.input_schema()
    required = set(schema.get("required", []))
    parameters = []
    for argument, argument_schema in schema.get("properties", {}).items():
        annotation = types.argument_type(argument_schema, schema.get("$defs", {}), argument, surface.field.title())
        default = inspect.Parameter.empty if argument in required else None
        parameters.append(inspect.Parameter(argument, inspect.Parameter.KEYWORD_ONLY, default=default,
                                            annotation=annotation if argument in required else annotation | None))

    async def call(arguments: dict[str, Any]) -> Any:
        result = await call_tool(spec, arguments)
        if result.is_error:
            meta = result.meta or {}
            raise _error(meta["error"], meta.get("audit"))
        return as_records(result.structured_content)

    resolver = _resolver(surface.field, parameters, returns, call)
    return strawberry.field(resolver=resolver, name=surface.field, description=spec.description)


def _resource_field(surface: ResourceSurface, spec: ResourceSpec, types: TypeBuilder) -> Any:
    if surface.model is None:
        returns: Any = JSON
    else:
        model = create_model(surface.model.__name__, __base__=surface.model,
                             audit=(Audit | None, None))
        returns = types.object_type(model.model_json_schema(by_alias=True, mode="serialization"),
                                    surface.model.__name__)
    parameter = inspect.Parameter(surface.argument, inspect.Parameter.KEYWORD_ONLY, annotation=str)

    async def call(arguments: dict[str, Any]) -> Any:
        started = time.perf_counter()
        try:
            body = json.loads(await spec.read(**{surface.parameter: arguments[surface.argument]}))
        except Exception as exc:  # as call_tool does: a client never sees an internal error's text
            error = exc if isinstance(exc, BioMcpError) else BioMcpError(
                ErrorCode.UNKNOWN, f"{surface.field} failed unexpectedly; see the server log")
            if not isinstance(exc, BioMcpError):
                log.log(ERROR, "read surface crashed", exc_info=exc, extra={"fields": {"surface": surface.field}})
            audit = audit_record(arguments, error.envelope(), (time.perf_counter() - started) * 1000, "error")
            raise _error(error.envelope()["error"], audit.model_dump()) from None
        body["audit"] = audit_record(arguments, body, (time.perf_counter() - started) * 1000, "ok").model_dump()
        return as_records(body) if surface.model is not None else body

    resolver = _resolver(surface.field, [parameter], returns, call)
    return strawberry.field(resolver=resolver, name=surface.field, description=spec.description)


def build_schema(toolsets: Sequence[Toolset]) -> strawberry.Schema | None:
    """The schema of the surfaces whose tools and resources `toolsets` serve; None when none is."""
    tools = {spec.name: spec for toolset in toolsets for spec in toolset.tools}
    resources = {resource.name: resource for toolset in toolsets for resource in toolset.resources}
    types = TypeBuilder()
    queries: dict[str, Any] = {}
    mutations: dict[str, Any] = {}
    for surface in TOOL_SURFACES:
        if surface.tool in tools:
            (mutations if surface.mutation else queries)[surface.field] = _tool_field(surface, tools[surface.tool], types)
    for resource_surface in RESOURCE_SURFACES:
        if resource_surface.resource in resources:
            queries[resource_surface.field] = _resource_field(resource_surface, resources[resource_surface.resource],
                                                              types)
    if not queries:
        return None
    query = strawberry.type(type("Query", (), queries), name="Query")
    mutation = strawberry.type(type("Mutation", (), mutations), name="Mutation") if mutations else None
    # The contracts' own field names, not camelCase copies of them.
    return strawberry.Schema(query=query, mutation=mutation, config=StrawberryConfig(auto_camel_case=False, scalar_map=SCALAR_MAP))
