"""The schemas `tools/list` carries: what a client needs to call a tool and check its result, and no more.

Every tool's input and output schemas go to the client in every `tools/list` reply, and many clients
put that reply in the model's context, so its size is a cost paid on every conversation. Pydantic's
schemas carry a generated `title` on every property, and the output schemas add field descriptions,
defaults and `additionalProperties: false`, none of which a client needs to validate a result (and
the last refuses the additive fields the seeds' versioning policy allows). The listing drops them.
An output schema is listed to the depth a client checks a result's shape by: the result's own
fields, each with its type, bounds and whether it is required; the objects they hold (and the
items of their lists) are listed by their type alone, a looser schema every valid result still
meets. The seeds' nested answer and graph models had made output schemas half the listing, and
with 27 tools the second level alone would have taken the listing past its 60,000 characters.
"String or null" stays an `anyOf` of single types: the Inspector's strict check warns that a type
array (`["string", "null"]`) is lost on clients that map schemas onto one-type dialects (Gemini's
function declarations, OpenAPI 3.0). The full annotated schemas stay readable at
`bio-mcp://tools/{name}/schema` and are what the server itself validates arguments against.
"""

from __future__ import annotations

from typing import Any

TOOL_SCHEMA_URI = "bio-mcp://tools/{name}/schema"

# Annotations, not constraints: without them an output schema accepts exactly the same results.
_OUTPUT_NOISE = ("description", "default", "examples")


def _compact(node: Any, output: bool) -> Any:
    if isinstance(node, list):
        return [_compact(item, output) for item in node]
    if not isinstance(node, dict):
        return node
    compact: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("properties", "$defs") and isinstance(value, dict):
            compact[key] = {name: _compact(schema, output) for name, schema in value.items()}
            continue
        if (key == "title" and isinstance(value, str)) or (key == "default" and value is None):
            continue
        if output and (key in _OUTPUT_NOISE or (key == "additionalProperties" and value is False)):
            continue
        compact[key] = _compact(value, output)
    return compact


def listed_input_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The input schema without generated titles or the model's own docstring; field descriptions
    stay, since they tell the model what to pass."""
    compact = _compact(schema, output=False)
    compact.pop("description", None)
    return compact


# A result's own fields; what they hold is listed by its type.
LISTED_OUTPUT_DEPTH = 1
_NESTED = ("properties", "items", "anyOf", "$defs", "$ref")


def _to_depth(node: Any, defs: dict[str, Any], depth: int) -> Any:
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        node = defs[node["$ref"].rsplit("/", 1)[-1]]
    if "anyOf" in node:
        return {"anyOf": [_to_depth(option, defs, depth) for option in node["anyOf"]]}
    if node.get("type") == "array" and "items" in node:
        return {**{k: v for k, v in node.items() if k not in _NESTED}, "items": _to_depth(node["items"], defs, depth)}
    if node.get("type") == "object" and "properties" in node:
        if depth == 0:
            return {"type": "object"}
        kept = {k: v for k, v in node.items() if k not in _NESTED}
        kept["properties"] = {name: _to_depth(child, defs, depth - 1) for name, child in node["properties"].items()}
        return kept
    return {k: v for k, v in node.items() if k not in _NESTED}


def listed_output_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The output schema's structure and constraints (types, required fields, enums, bounds) to
    `LISTED_OUTPUT_DEPTH`; the full schema is at `TOOL_SCHEMA_URI`."""
    compact = _compact(schema, output=True)
    return _to_depth(compact, compact.get("$defs", {}), LISTED_OUTPUT_DEPTH)
