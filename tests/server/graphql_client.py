"""What a GraphQL client of /graphql sends: the schema by introspection, and a query asking for a
surface's whole answer (every field, nested objects in full), as the contract tests and
bench/graphql_latency.py do."""

from __future__ import annotations

import json
from typing import Any

INTROSPECT = """{ __schema { types { name kind fields { name type { ...ref } } } } }
fragment ref on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name
  ofType { kind name ofType { kind name } } } } } } }"""


def schema_types(introspected: dict[str, Any]) -> dict[str, Any]:
    return {t["name"]: t for t in introspected["data"]["__schema"]["types"]}


def _named(ref: dict[str, Any]) -> dict[str, Any]:
    while ref.get("ofType"):
        ref = ref["ofType"]
    return ref


def selection(types: dict[str, Any], name: str) -> str:
    """Every field of `name`, nested objects in full."""
    fields = []
    for field in types[name]["fields"]:
        ref = _named(field["type"])
        fields.append(f"{field['name']} {{ {selection(types, ref['name'])} }}" if ref["kind"] == "OBJECT"
                      else field["name"])
    return " ".join(fields)


def _literal(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{name}: {{{_literal(value)}}}" if isinstance(value, dict) else f"{name}: {json.dumps(value)}"
                     for name, value in arguments.items())


def whole_answer(types: dict[str, Any], field: str, arguments: dict[str, Any], root: str = "Query") -> str:
    """The query (or mutation) for `field` with `arguments` inline, selecting every field of its answer."""
    returned = _named(next(f for f in types[root]["fields"] if f["name"] == field)["type"])
    if returned["kind"] != "OBJECT":
        return f"{root.lower()} {{ {field}({_literal(arguments)}) }}"
    return f"{root.lower()} {{ {field}({_literal(arguments)}) {{ {selection(types, returned['name'])} }} }}"
