"""Fuzzing every tool through the wrapper the server uses, from its own published input schema.

Valid arguments come from the schema (hypothesis-jsonschema); invalid ones are valid arguments with
one property broken (a wrong type, null, an out-of-range number, an oversized string, a missing
required key, an unknown key where none is allowed). The oracle is the schema itself: arguments
it rejects must get the VALIDATION envelope; any other call must end ok (with structured content
that matches the output schema) or with a typed error, never UNKNOWN and never a crash.

Used by tests/server/test_fuzz_contracts.py (a few hundred cases per tool) and bench/fuzz_tools.py
(thousands). Needs the test extra (hypothesis, hypothesis-jsonschema).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonschema
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from mcp_types import CallToolResult

from bio_mcp.errors import ErrorCode

UNKNOWN_KEY = "zz_not_in_the_schema"
_TYPED_CODES = frozenset(code.value for code in ErrorCode) - {ErrorCode.UNKNOWN.value}


@dataclass(frozen=True)
class FuzzCase:
    arguments: dict[str, Any]
    # What the published schema says about these arguments (the oracle).
    schema_valid: bool


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = root.get("$defs", {}).get(str(schema["$ref"]).rsplit("/", 1)[-1], {})
    return schema


def _admits_object(schema: dict[str, Any], root: dict[str, Any]) -> bool:
    resolved = _resolve(schema, root)
    members = resolved.get("anyOf") or resolved.get("oneOf") or [resolved]
    return any(_resolve(member, root).get("type") == "object" for member in members)


# Values that break most property schemas; never blank strings, which count as absent by design.
_BAD_VALUES: list[Any] = [None, {}, [], [None], True, 1.5, -1, 10**15, -(10**15), "x" * 5000, "\u0000not valid", {"k": 1}]


def valid_arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    return from_schema(schema)


def broken_arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Valid arguments with one property broken."""
    properties = schema.get("properties", {})
    required = list(schema.get("required", ()))

    @st.composite
    def broken(draw: st.DrawFn) -> dict[str, Any]:
        arguments = dict(draw(valid_arguments(schema)))
        moves = ["replace"] * 4 + (["drop_required"] if required else []) + ["unknown_key"]
        move = draw(st.sampled_from(moves)) if properties else "unknown_key"
        if move == "drop_required":
            arguments.pop(draw(st.sampled_from(required)), None)
        elif move == "unknown_key":
            arguments[UNKNOWN_KEY] = draw(st.sampled_from(_BAD_VALUES))
        else:
            name = draw(st.sampled_from(sorted(properties)))
            value = draw(st.sampled_from(_BAD_VALUES))
            if value == {} and _admits_object(properties[name], schema):
                # An empty object for an optional object property counts as absent by design.
                value = {"k": 1}
            arguments[name] = value
        return arguments

    return broken()


def fuzz_cases(schema: dict[str, Any]) -> st.SearchStrategy[FuzzCase]:
    validator = jsonschema.Draft202012Validator(schema)
    return st.one_of(valid_arguments(schema), broken_arguments(schema)).map(
        lambda arguments: FuzzCase(arguments, validator.is_valid(arguments))
    )


def outcome(result: CallToolResult) -> str:
    """"ok", or the error code of the envelope."""
    if not result.is_error:
        return "ok"
    # A failed call carries its envelope in `_meta.error` (and as text), never as structured content.
    envelope = (result.meta or {}).get("error") or {}
    return str(envelope.get("code", "untyped"))


def check(case: FuzzCase, result: CallToolResult, output_schema: dict[str, Any]) -> str | None:
    """Why this answer breaks the contract (None when it keeps it)."""
    code = outcome(result)
    if not case.schema_valid and code != ErrorCode.VALIDATION.value:
        return f"schema-invalid arguments answered {code}, not VALIDATION"
    if code == "ok":
        errors = list(jsonschema.Draft202012Validator(output_schema).iter_errors(result.structured_content))
        return f"output breaks the output schema: {errors[0].message[:200]}" if errors else None
    if code not in _TYPED_CODES:
        return f"answered {code}"
    return None
