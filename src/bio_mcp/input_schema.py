"""Tool arguments checked against the JSON schema a tool advertises, before pydantic sees them.

Pydantic is laxer than the schema it publishes (it coerces "5" to an integer, and `ToolInput`
drops null and `{}` as absent), so a client could send what the schema forbids and be served.
`schema_violations` holds the arguments to the published schema with one documented leniency:
an optional property whose value is a blank string counts as absent (agents fill every optional
field with ""), as does an all-blank object for an optional property that takes an object. Null
passes only where the schema allows null.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from pydantic import BaseModel

from bio_mcp.models import NON_BLANK_PATTERN

MAX_VIOLATIONS = 10
_MAX_MESSAGE_CHARS = 200


@lru_cache(maxsize=256)
def _validator(model: type[BaseModel]) -> Draft202012Validator:
    schema = model.model_json_schema(by_alias=True)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _resolve(schema: Any, root: dict[str, Any]) -> dict[str, Any]:
    while isinstance(schema, dict) and "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        schema = root.get("$defs", {}).get(name, {})
    return schema if isinstance(schema, dict) else {}


def _branches(schema: Any, root: dict[str, Any]) -> list[dict[str, Any]]:
    resolved = _resolve(schema, root)
    members = resolved.get("anyOf") or resolved.get("oneOf") or resolved.get("allOf")
    if not members:
        return [resolved]
    return [branch for member in members for branch in _branches(member, root)]


def _admits(schema: Any, root: dict[str, Any], kind: str) -> bool:
    return any(
        branch.get("type") == kind or (isinstance(branch.get("type"), list) and kind in branch["type"])
        for branch in _branches(schema, root)
    )


def _blank(value: Any) -> bool:
    return isinstance(value, str) and not value.strip()


def _all_blank(value: Any) -> bool:
    return isinstance(value, dict) and all(item is None or _blank(item) for item in value.values())


def _without_blank_optionals(schema: Any, root: dict[str, Any], value: Any) -> Any:
    if isinstance(value, list):
        items = next((b.get("items") for b in _branches(schema, root) if "items" in b), None)
        return [_without_blank_optionals(items, root, item) for item in value] if items is not None else value
    if not isinstance(value, dict):
        return value
    shape = next((b for b in _branches(schema, root) if "properties" in b), None)
    if shape is None:
        return value
    required = set(shape.get("required", ()))
    cleaned: dict[str, Any] = {}
    for key, item in value.items():
        prop = shape["properties"].get(key)
        if prop is not None and key not in required and (
            _blank(item) or (_all_blank(item) and _admits(prop, root, "object"))
        ):
            continue
        cleaned[key] = _without_blank_optionals(prop, root, item) if prop is not None else item
    return cleaned


def _deepest(error: ValidationError) -> ValidationError:
    """For an anyOf that failed, the branch error nearest the bad value (`dateRange.minDate`
    rather than `dateRange`), skipping the branch that only says "not null"."""
    candidates = [e for e in error.context or () if not (e.validator == "type" and e.validator_value == "null")]
    if not candidates:
        return error
    if len(candidates) == 1:
        # An optional value: the one branch that is not null says what is wrong ("is not of type
        # 'string'"), where the anyOf said only "is not valid under any of the given schemas".
        return _deepest(candidates[0])
    best = max(candidates, key=lambda e: len(e.absolute_path))
    return _deepest(best) if len(best.absolute_path) > len(error.absolute_path) or best.context else error


def _message(error: ValidationError) -> str:
    if error.validator == "pattern" and error.validator_value == NON_BLANK_PATTERN:
        return "must not be blank"
    return error.message


def schema_violations(model: type[BaseModel], arguments: Any) -> list[dict[str, Any]]:
    """How `arguments` break `model`'s published input schema (empty when they do not)."""
    validator = _validator(model)
    root = validator.schema
    cleaned = _without_blank_optionals(root, root, arguments)
    found: list[dict[str, Any]] = []
    errors = (_deepest(error) for error in validator.iter_errors(cleaned))
    for error in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]):
        message = _message(error)
        if len(message) > _MAX_MESSAGE_CHARS:
            message = message[: _MAX_MESSAGE_CHARS - 1] + "…"
        found.append(
            {"loc": ".".join(str(p) for p in error.absolute_path), "msg": message, "type": f"schema.{error.validator}"}
        )
        if len(found) == MAX_VIOLATIONS:
            break
    return found
