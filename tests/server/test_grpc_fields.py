"""evidence.proto against the pydantic models of the MCP tools and resources it mirrors: the same field
names, compatible types, presence where the JSON may be null or a request field has a default; and
the committed stubs against the .proto (regenerated with grpcio-tools). Drift fails here. The messages
need protobuf only (a dependency of the default install), not grpcio."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from pydantic import BaseModel, create_model

from bio_mcp.audit import Audit
from bio_mcp.features.evidence.answer_models import RagAnswerRequest, RagAnswerResponse
from bio_mcp.features.evidence.contraindications import (
    FindContraindicationsRequest,
    FindContraindicationsResponse,
)
from bio_mcp.features.evidence.coverage import Coverage
from bio_mcp.features.evidence.evaluation import EvalRunRequest, EvalRunResponse
from bio_mcp.features.evidence.herb_knowledge import HerbResource
from bio_mcp.features.evidence.hybrid_search import HybridSearchRequest, HybridSearchResponse
from bio_mcp.features.evidence.papers import Paper
from bio_mcp.features.evidence.query_kg import QueryKgRequest, QueryKgResponse
from bio_mcp.server.grpc import evidence_pb2 as pb
from bio_mcp.server.grpc.messages import is_list_message

REPO = Path(__file__).resolve().parents[2]
GRPC_DIR = REPO / "src" / "bio_mcp" / "server" / "grpc"

# Every gRPC reply of a resource carries the audit, as the seed-003 tools' bodies do.
HerbReply = create_model("HerbReply", __base__=HerbResource, audit=(Audit | None, None))
PaperReply = create_model("PaperReply", __base__=Paper, audit=(Audit | None, None))

# rpc -> (the MCP tool it serves, its request model, its reply model); resources have no request model.
RPCS: dict[str, tuple[str, type[BaseModel] | None, type[BaseModel]]] = {
    "GetHerb": ("kg://herb/{id}", None, HerbReply),
    "GetPaper": ("paper://pmid/{pmid}", None, PaperReply),
    "QueryKg": ("tool.query_kg", QueryKgRequest, QueryKgResponse),
    "HybridSearch": ("tool.hybrid_search", HybridSearchRequest, HybridSearchResponse),
    "RagAnswer": ("tool.rag_answer", RagAnswerRequest, RagAnswerResponse),
    "FindContraindications": ("tool.find_contraindications", FindContraindicationsRequest, FindContraindicationsResponse),
    "EvalRun": ("tool.eval.run", EvalRunRequest, EvalRunResponse),
    "GetEvalReport": ("bio-mcp://eval/{report_id}/json", None, BaseModel),  # no model: test_grpc_contracts
}

_SCALARS = {
    FieldDescriptor.TYPE_STRING: "string", FieldDescriptor.TYPE_BOOL: "boolean", FieldDescriptor.TYPE_DOUBLE: "number",
    FieldDescriptor.TYPE_INT32: "integer", FieldDescriptor.TYPE_INT64: "integer", FieldDescriptor.TYPE_UINT64: "integer",
}


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The schema of a property without its `null` alternative and its $ref, and whether it may be null."""
    nullable = False
    if "anyOf" in schema:
        options = [option for option in schema["anyOf"] if option.get("type") != "null"]
        nullable = len(options) < len(schema["anyOf"])
        assert len(options) == 1, f"a union the proto cannot mirror: {schema}"
        schema = {**options[0], **{k: v for k, v in schema.items() if k != "anyOf"}}
    if "$ref" in schema:
        schema = {**defs[schema["$ref"].rsplit("/", 1)[1]], **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema, nullable


def _scalar(field: FieldDescriptor, schema: dict[str, Any], where: str) -> None:
    expected = _SCALARS[field.type]
    found = schema.get("type") or ("string" if all(isinstance(v, str) for v in schema.get("enum", [None])) else None)
    assert found == expected, f"{where}: proto {expected}, model {schema}"


def _value(field: FieldDescriptor, schema: dict[str, Any], defs: dict[str, Any], request: bool, where: str) -> None:
    """One value (a list's item too) of `field` against its schema."""
    message = field.message_type
    if message is None:
        _scalar(field, schema, where)
    elif message.full_name == "google.protobuf.Struct":
        assert schema.get("type") == "object", f"{where}: a Struct stands for a free-form object, model {schema}"
    else:
        _compare(message, schema, defs, request, where)


def _compare(descriptor: Descriptor, schema: dict[str, Any], defs: dict[str, Any], request: bool, where: str) -> None:
    properties = schema.get("properties", {})
    proto_fields = set(descriptor.fields_by_name)
    assert proto_fields == set(properties), (
        f"{where} ({descriptor.full_name}): only in the proto {sorted(proto_fields - set(properties))}, "
        f"only in the model {sorted(set(properties) - proto_fields)}"
    )
    required = set(schema.get("required", []))
    for field in descriptor.fields:
        at = f"{where}.{field.name}"
        prop, nullable = _resolve(properties[field.name], defs)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            assert prop.get("type") == "object", f"{at}: a map stands for an object, model {prop}"
            _value(value_field, _resolve(prop["additionalProperties"], defs)[0], defs, request, at)
            continue
        # A repeated field has no presence: unset and empty are one, the MCP JSON's null or absent list.
        if not field.is_repeated and (nullable or (request and field.name not in required)):
            assert field.has_presence, f"{at} may be null or has a default: it must be optional (presence) in the proto"
        if not field.is_repeated:
            _value(field, prop, defs, request, at)
            continue
        assert prop.get("type") == "array", f"{at}: repeated in the proto, model {prop}"
        item, _ = _resolve(prop["items"], defs)
        if field.message_type is not None and is_list_message(field.message_type):
            assert item.get("type") == "array", f"{at}: a list of lists in the proto, model {prop}"
            inner = field.message_type.fields[0]
            _value(inner, _resolve(item["items"], defs)[0], defs, request, f"{at}[]")
        else:
            _value(field, item, defs, request, f"{at}[]")


def _check(message: Descriptor, model: type[BaseModel], request: bool) -> None:
    mode = "validation" if request else "serialization"
    schema = model.model_json_schema(by_alias=True, mode=mode)
    _compare(message, schema, schema.get("$defs", {}), request, model.__name__)


@pytest.mark.parametrize("rpc", [name for name, (_, _, reply) in RPCS.items() if reply is not BaseModel])
def test_each_message_has_the_fields_of_the_model_behind_the_mcp_surface(rpc: str) -> None:
    method = pb.DESCRIPTOR.services_by_name["Evidence"].methods_by_name[rpc]
    _, request_model, reply_model = RPCS[rpc]
    _check(method.output_type, reply_model, request=False)
    if request_model is not None:
        _check(method.input_type, request_model, request=True)


def test_every_rpc_is_mapped_to_an_mcp_surface() -> None:
    assert set(pb.DESCRIPTOR.services_by_name["Evidence"].methods_by_name) == set(RPCS)


def test_a_field_the_model_gains_fails_the_comparison() -> None:
    """The check can fail: a model with one more field than its message is caught, naming the field."""
    grown = create_model("GrownCoverage", __base__=Coverage, languages=(list[str], []))
    with pytest.raises(AssertionError, match="only in the model \\['languages'\\]"):
        _check(pb.Coverage.DESCRIPTOR, grown, request=False)
    nullable = create_model("NullableCoverage", __base__=Coverage, documents_searched=(int | None, None))
    with pytest.raises(AssertionError, match="must be optional"):
        _check(pb.Coverage.DESCRIPTOR, nullable, request=False)


def test_the_committed_stubs_are_what_evidence_proto_generates(tmp_path: Path) -> None:
    if importlib.util.find_spec("grpc_tools") is None:
        if os.environ.get("BIO_MCP_STRICT") == "1":
            pytest.fail("required for CI but missing: grpcio-tools (the test extra)", pytrace=False)
        pytest.skip("grpcio-tools is not installed (the test extra)")
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{REPO / 'src'}", f"--python_out={tmp_path}",
         f"--pyi_out={tmp_path}", f"--grpc_python_out={tmp_path}", str(GRPC_DIR / "evidence.proto")],
        check=True, capture_output=True,
    )
    for name in ("evidence_pb2.py", "evidence_pb2.pyi", "evidence_pb2_grpc.py"):
        generated = (tmp_path / "bio_mcp" / "server" / "grpc" / name).read_text()
        assert (GRPC_DIR / name).read_text() == generated, f"{name} is stale: regenerate it (evidence.proto's header)"
