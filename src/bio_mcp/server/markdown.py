"""The text content of a tool result: a generic JSON-to-Markdown renderer and the text budget.

Many clients show the model only the text block, so it carries the whole answer as compact
Markdown. A tool with its own renderer (`ToolSpec.summarize`) uses it; every other tool gets
`render_json`. Text past the budget is cut at a line boundary, the full text goes to a scratch
resource, and the text says what was cut and where the rest is.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from bio_mcp.features.overflow import ScratchPut

log = logging.getLogger("bio_mcp.tools")

# A list of flat objects renders as a table only while it stays readable.
MAX_TABLE_COLUMNS = 8
MAX_CELL_CHARS = 300


def _scalar(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _cell(value: Any) -> str:
    text = _scalar(value) if not isinstance(value, (dict, list)) else json.dumps(value, ensure_ascii=False)
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def _is_flat(value: Any) -> bool:
    return not isinstance(value, dict) and not (isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value))


def table(rows: list[dict[str, Any]], columns: list[str] | None = None) -> list[str]:
    """A Markdown table of `rows` (every row, every listed column)."""
    columns = columns or list(dict.fromkeys(key for row in rows for key in row))
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join(
            _cell(", ".join(map(_scalar, v)) if isinstance(v, list) else v)
            for v in (row.get(c) for c in columns)) + " |")
    return lines


def _render(value: Any, depth: int) -> list[str]:
    indent = "  " * depth
    if isinstance(value, dict):
        lines: list[str] = []
        for key, item in value.items():
            if _is_flat(item):
                shown = ", ".join(map(_scalar, item)) if isinstance(item, list) else _scalar(item)
                lines.append(f"{indent}- **{key}**: {shown if shown else '(none)'}")
            else:
                lines.append(f"{indent}- **{key}**:")
                lines += _render(item, depth + 1)
        return lines
    if isinstance(value, list):
        if not value:
            return [f"{indent}- (none)"]
        flat_objects = all(isinstance(v, dict) and all(_is_flat(x) for x in v.values()) for v in value)
        columns = list(dict.fromkeys(key for v in value if isinstance(v, dict) for key in v))
        if flat_objects and len(columns) <= MAX_TABLE_COLUMNS:
            return [indent + line for line in table(value, columns)]
        lines = []
        for index, item in enumerate(value, 1):
            if _is_flat(item):
                lines.append(f"{indent}- {_scalar(item)}")
            else:
                lines.append(f"{indent}- {index}.")
                lines += _render(item, depth + 1)
        return lines
    return [f"{indent}{_scalar(value)}"]


def render_json(body: dict[str, Any], title: str | None = None) -> str:
    """Every field of a JSON result as Markdown: scalars inline, lists of flat objects as tables."""
    lines = [f"## {title}"] if title else []
    return "\n".join(lines + _render(body, 0))


async def fit_text(text: str, budget: int, put: ScratchPut | None) -> str:
    """`text` itself when it fits the budget; else its head cut at a line and a note naming the rest."""
    if len(text) <= budget:
        return text
    where = "the rest is not kept (no scratch store)"
    if put is not None:
        try:
            uri = await put(text, "text/markdown")
            where = f"the full text is at {uri} (read it as an MCP resource; a long one comes in pages, each naming the next)"
        except Exception:  # the answer still goes out, cut, when the scratch store is down
            log.exception("could not keep the full text in a scratch resource")
            where = "the rest could not be kept (scratch store unavailable)"
    # Room for the note itself, so the whole text stays within the budget.
    room = max(0, budget - 400)
    head = text[:room]
    cut = head.rfind("\n")
    head = head[:cut] if cut > room // 2 else head
    return (f"{head}\n\n---\n*Cut at the text budget: {len(head):,} of {len(text):,} characters shown; {where}. "
            "The structured content carries the data as JSON.*")
