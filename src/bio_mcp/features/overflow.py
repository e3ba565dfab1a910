"""The result budget a feature keeps to, and where what does not fit goes (a scratch text).

A feature that can return more than a client should take in one result (records, citations)
keeps items while they fit `budget` characters and hands the rest to `put`, which keeps the text
behind a `bio-mcp://scratch/{id}` URI and returns that URI.

The budget is the text content's (`BIO_MCP_TEXT_BUDGET`), which is what most clients show the model.
An item's JSON is larger than its Markdown (a record's JSON carries every author's affiliation, its
history dates and identifiers: about 2.5 times its text in the real records), so an item counts
as the larger of its text and its JSON over `STRUCTURED_FACTOR`: the kept items fill the text budget
while the structured content stays within that many times it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")

ScratchPut = Callable[[str, str], Awaitable[str]]


@dataclass(frozen=True)
class Overflow:
    budget: int
    put: ScratchPut | None = None


STRUCTURED_FACTOR = 4


def json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def text_and_json_size(text_size: Callable[[T], int]) -> Callable[[T], int]:
    """An item's share of the budget: its text, or its JSON over STRUCTURED_FACTOR if that is more."""

    def size(item: T) -> int:
        return max(text_size(item), -(-json_size(item) // STRUCTURED_FACTOR))

    return size


def split_to_budget(items: Sequence[T], size: Callable[[T], int], budget: int) -> tuple[list[T], list[T]]:
    """The leading items whose sizes add up to at most `budget`, and the rest (order kept)."""
    used = 0
    for index, item in enumerate(items):
        used += size(item)
        if used > budget:
            return list(items[:index]), list(items[index:])
    return list(items), []


# Room left in the budget for the fields around a result's list of records.
ENVELOPE_ROOM = 4_096


@dataclass(frozen=True)
class Spilled(Generic[T]):
    kept: list[T]
    rest: list[T]
    uri: str | None = None
    chars: int = 0


async def spill(overflow: Overflow | None, items: Sequence[T], size: Callable[[T], int],
                as_text: Callable[[list[T]], str], mime_type: str, reserved: int = 0) -> Spilled[T]:
    """The items that fit the budget less `reserved` (the result's other fields), and the others kept as
    one scratch text (`uri`).

    Without an `Overflow` (no budget given, e.g. the CLI) every item is kept.
    """
    if overflow is None:
        return Spilled(list(items), [])
    kept, rest = split_to_budget(items, size, max(0, overflow.budget - ENVELOPE_ROOM - reserved))
    if not rest or overflow.put is None:
        return Spilled(kept, rest)
    text = as_text(rest)
    return Spilled(kept, rest, await overflow.put(text, mime_type), len(text))
