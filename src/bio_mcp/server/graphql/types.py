"""GraphQL types generated from the JSON schemas the MCP tools publish (their pydantic models'), so
the two surfaces share one contract: a field added to a model appears in both.

Field names are the contract's own (snake_case as in seed 003: `in_hash`, `entity_id`; `icdCode`
where the model says so). A tool's object arguments are input types built from its input schema
(`AnswerRetrievalInput`), so a misspelt or mistyped field is a GraphQL validation error naming it,
and introspection lists the fields. What GraphQL cannot type (free-form objects, unions of shapes)
is the `JSON` scalar; integers are `BigInt` (serialised as JSON numbers): the audit's seed is 64
bits, past GraphQL's 32-bit `Int`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, NewType

import strawberry
from strawberry.scalars import JSON
from strawberry.types.base import has_object_definition

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


def _nullable(schema: dict[str, Any]) -> bool:
    return any(option.get("type") == "null" for option in schema.get("anyOf", []))


class TypeBuilder:
    """Builds strawberry object types from JSON schemas, one type per distinct schema of a name, and
    input types from tools' input schemas (named `<title>Input`)."""

    def __init__(self) -> None:
        self._types: dict[str, tuple[str, Any]] = {}
        self._inputs: dict[str, tuple[str, Any]] = {}

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

    def argument_type(self, schema: dict[str, Any], defs: dict[str, Any], name: str, prefix: str) -> Any:
        """The GraphQL type of a tool argument: scalars and lists as such, objects with properties as
        input types. Left to the tool's own validation (the same errors as over MCP): bounds, lengths,
        enum values, and free-form objects (`JSON`)."""
        if "$ref" in schema:
            ref = schema["$ref"].rsplit("/", 1)[-1]
            return self.argument_type(defs[ref], defs, ref, prefix)
        options = [option for option in schema.get("anyOf", []) if option.get("type") != "null"]
        if len(options) == 1:
            return self.argument_type(options[0], defs, name, prefix)
        kind = schema.get("type")
        if kind == "integer":
            bounded = -_INT32 - 1 <= schema.get("minimum", -(2**63)) and schema.get("maximum", 2**63) <= _INT32
            return int if bounded else BigInt
        if kind == "array" and "items" in schema:
            item = self.argument_type(schema["items"], defs, name, prefix)
            return JSON if item is JSON else list[item]  # type: ignore[valid-type]
        if kind == "object" and schema.get("properties") and not schema.get("additionalProperties", False):
            return self._input(schema, defs, schema.get("title", name), prefix)
        return _SCALARS.get(kind, JSON) if isinstance(kind, str) and kind != "object" else JSON

    def _input(self, schema: dict[str, Any], defs: dict[str, Any], title: str, prefix: str) -> Any:
        key = json.dumps(schema, sort_keys=True)
        name = f"{_type_name(title)}Input"
        known = self._inputs.get(name)
        if known is not None and known[0] != key:
            name = prefix + name  # two argument shapes of one name in different tools
            known = self._inputs.get(name)
        if known is not None and known[0] == key:
            return known[1]
        required = set(schema.get("required", []))
        annotations: dict[str, Any] = {}
        namespace: dict[str, Any] = {}
        for field_name, field_schema in schema.get("properties", {}).items():
            python_name = field_name if field_name.isidentifier() else re.sub(r"\W", "_", field_name)
            graphql_type = self.argument_type(field_schema, defs, title + _type_name(field_name), prefix)
            # A field left out stays out (UNSET), so the contract's default applies as over MCP.
            optional = field_name not in required
            annotations[python_name] = graphql_type | None if optional else graphql_type
            namespace[python_name] = strawberry.field(name=field_name, description=field_schema.get("description"),
                                                      default=strawberry.UNSET if optional else dataclasses.MISSING)
        namespace["__annotations__"] = annotations
        cls = strawberry.input(type(name, (), namespace), name=name, description=schema.get("description"))
        self._inputs[name] = (key, cls)
        return cls


def as_arguments(value: Any) -> Any:
    """Input objects back to the JSON the tool takes, by their contract field names; fields left
    out are left out."""
    if has_object_definition(value):
        fields = value.__strawberry_definition__.fields
        return {field.graphql_name or field.python_name: as_arguments(getattr(value, field.python_name))
                for field in fields if getattr(value, field.python_name) is not strawberry.UNSET}
    if isinstance(value, list):
        return [as_arguments(item) for item in value]
    return value
