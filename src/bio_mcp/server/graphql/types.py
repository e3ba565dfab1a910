"""GraphQL types generated from the JSON schemas the MCP tools publish (their pydantic models'), so
the two surfaces share one contract: a field added to a model appears in both.

Field names are the contract's own (snake_case as in seed 003: `in_hash`, `entity_id`; `icdCode`
where the model says so). What GraphQL cannot type (free-form objects, unions of shapes) is the
`JSON` scalar; integers are `BigInt` (serialised as JSON numbers): the audit's seed is 64 bits,
past GraphQL's 32-bit `Int`.
"""

from __future__ import annotations

import json
import re
from typing import Any, NewType

import strawberry
from strawberry.scalars import JSON

BigInt = NewType("BigInt", int)
# Given to the schema's scalar map (strawberry deprecates scalars made from a class): a GraphQL scalar of its own.
SCALAR_MAP = {
    BigInt: strawberry.scalar(
        name="BigInt", description="An integer of any size, as a JSON number", serialize=int, parse_value=int,
    ),
}

_SCALARS: dict[str, Any] = {"string": str, "number": float, "boolean": bool, "integer": BigInt}
_INT32 = 2**31 - 1


class Record(dict[str, Any]):
    """A JSON object whose keys strawberry's default resolver reads as attributes."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # protocol probes (`__await__`) are not fields
            raise AttributeError(name)
        return self.get(name)


def as_records(value: Any) -> Any:
    if isinstance(value, dict):
        return Record({key: as_records(item) for key, item in value.items()})
    if isinstance(value, list):
        return [as_records(item) for item in value]
    return value


def _type_name(title: str) -> str:
    return re.sub(r"\W", "", title.title().replace(" ", "")) if not title.isidentifier() else title


class TypeBuilder:
    """Builds strawberry object types from JSON schemas, one type per distinct schema of a name."""

    def __init__(self) -> None:
        self._types: dict[str, tuple[str, Any]] = {}

    def object_type(self, schema: dict[str, Any], name: str, prefix: str = "") -> Any:
        return self._object(schema, schema.get("$defs", {}), name, prefix)

    def _object(self, schema: dict[str, Any], defs: dict[str, Any], name: str, prefix: str) -> Any:
        key = json.dumps(schema, sort_keys=True)
        known = self._types.get(name)
        if known is not None:
            if known[0] == key:
                return known[1]
            name = prefix + name  # two models of one name in different tools
            known = self._types.get(name)
            if known is not None and known[0] == key:
                return known[1]
        required = set(schema.get("required", []))
        annotations: dict[str, Any] = {}
        namespace: dict[str, Any] = {}
        for field_name, field_schema in schema.get("properties", {}).items():
            python_name = field_name if field_name.isidentifier() else re.sub(r"\W", "_", field_name)
            graphql_type = self._field_type(field_schema, defs, name + _type_name(field_name), prefix)
            if field_name not in required or _nullable(field_schema):
                graphql_type = graphql_type | None
            annotations[python_name] = graphql_type
            namespace[python_name] = strawberry.field(name=field_name, description=field_schema.get("description"))
        namespace["__annotations__"] = annotations
        cls = strawberry.type(type(name, (), namespace), name=name, description=schema.get("description"))
        self._types[name] = (key, cls)
        return cls

    def _field_type(self, schema: dict[str, Any], defs: dict[str, Any], name: str, prefix: str) -> Any:
        if "$ref" in schema:
            ref = schema["$ref"].rsplit("/", 1)[-1]
            return self._object(defs[ref], defs, ref, prefix)
        options = [option for option in schema.get("anyOf", schema.get("oneOf", [])) if option.get("type") != "null"]
        if options:
            return self._field_type(options[0], defs, name, prefix) if len(options) == 1 else JSON
        kind = schema.get("type")
        if kind == "array" and "items" in schema:
            return list[self._field_type(schema["items"], defs, name, prefix)]  # type: ignore[misc]
        if kind == "object" and schema.get("properties"):
            return self._object(schema, defs, schema.get("title", name), prefix)
        return _SCALARS.get(kind, JSON) if isinstance(kind, str) else JSON


def _nullable(schema: dict[str, Any]) -> bool:
    return any(option.get("type") == "null" for option in schema.get("anyOf", []))


def argument_type(schema: dict[str, Any]) -> Any:
    """The GraphQL type of a tool argument: a scalar or a list of scalars as such, objects as `JSON`
    (the tool's own validation then holds them to the contract, with the same errors as MCP)."""
    options = [option for option in schema.get("anyOf", []) if option.get("type") != "null"]
    if len(options) == 1:
        return argument_type(options[0])
    kind = schema.get("type")
    if kind == "integer":
        bounded = -_INT32 - 1 <= schema.get("minimum", -(2**63)) and schema.get("maximum", 2**63) <= _INT32
        return int if bounded else BigInt
    if kind == "array" and "items" in schema and "$ref" not in schema["items"]:
        item = argument_type(schema["items"])
        return JSON if item is JSON else list[item]  # type: ignore[valid-type]
    return _SCALARS.get(kind, JSON) if isinstance(kind, str) and kind != "object" else JSON
