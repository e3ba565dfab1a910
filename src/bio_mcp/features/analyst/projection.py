"""The JSONPath subset of plan selectors: `$`, `.name`, `[n]` and `[*]` (e.g. `$.results[*].nct_id`).

After a `[*]` the rest of the path applies to each element, and elements lacking the key are
skipped, so a projection over partial results returns what is there instead of failing.
"""

from __future__ import annotations

import re
from typing import Any

from bio_mcp.errors import BioMcpError, ErrorCode

_SEGMENT = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\*|\d+)\]")
_MISSING = object()


def parse_path(path: str) -> list[str | int | None]:
    """Segments of `path`: a key, an index, or None for `[*]`."""
    if not path.startswith("$"):
        raise BioMcpError(ErrorCode.VALIDATION, "a selector starts with '$'", {"selector": path})
    segments: list[str | int | None] = []
    position = 1
    while position < len(path):
        match = _SEGMENT.match(path, position)
        if match is None:
            raise BioMcpError(ErrorCode.VALIDATION, f"bad selector at character {position}", {"selector": path})
        key, index = match.groups()
        segments.append(key if key is not None else (None if index == "*" else int(index)))
        position = match.end()
    return segments


def _walk(value: Any, segments: list[str | int | None]) -> Any:
    for position, segment in enumerate(segments):
        if segment is None:
            if not isinstance(value, list):
                return _MISSING
            rest = segments[position + 1 :]
            return [found for item in value if (found := _walk(item, rest)) is not _MISSING]
        if isinstance(segment, int):
            if not isinstance(value, list) or segment >= len(value):
                return _MISSING
            value = value[segment]
        elif isinstance(value, dict) and segment in value:
            value = value[segment]
        else:
            return _MISSING
    return value


def select(document: Any, path: str) -> Any:
    """The value at `path`, a list for wildcard paths, None when a plain path is absent."""
    found = _walk(document, parse_path(path))
    return None if found is _MISSING else found


def flatten_unique(value: Any) -> list[Any]:
    """Nested lists of scalars to one list, first occurrence kept (`$.pubs_by_nct[*].pmids`)."""
    out: list[Any] = []
    seen: set[Any] = set()

    def visit(item: Any) -> None:
        if isinstance(item, list):
            for inner in item:
                visit(inner)
        elif item is not None and item not in seen:
            seen.add(item)
            out.append(item)

    visit(value)
    return out


def project(out: dict[str, str], result: Any) -> Any:
    """A step's `out` mapping applied to its result; the whole result when it has none."""
    if not out:
        return result
    return {name: select(result, path) for name, path in out.items()}
