"""Sentence boundaries of an abstract, as offsets into its text (no model).

A sentence ends at `.`, `!` or `?` followed by space and a capital, digit or opening bracket,
unless the word before the stop is one that abbreviates (a single letter as in "G. lucidum" or
"Passiflora incarnata L.", "e.g.", "et al.", "sp.", "var.", "Fig.", "vs."), and at line breaks.

`is_quotable`: whether a span can be quoted as a relation's sentence. A long span that does not end
as a sentence ends is a piece of something else (a meeting's abstract book runs its poster titles
and author lists together without a stop for 30,000 characters, and the corpus cuts it into chunks).
"""

from __future__ import annotations

import re

# Titles and short list items end without a stop; the longest real sentences of the shared records
# (780 to 1,314 characters) end with one.
QUOTABLE_WITHOUT_STOP = 400
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*$")
_BOUNDARY = re.compile(r"[.!?](?=[\"')\]]?\s+[\"'(\[]?[A-Z0-9])|\n+")
_ABBREVIATING = frozenset(
    ["al", "e.g", "i.e", "sp", "spp", "var", "ssp", "subsp", "fig", "figs", "vs", "ca", "approx", "no", "cf", "etc", "dr", "mr", "mrs", "st", "resp", "ref", "refs"]
)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence, whitespace trimmed, in text order; together they cover every non-space character."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end() if match.group() != "\n" * len(match.group()) else match.start()
        if match.group() == ".":
            word = text[text.rfind(" ", 0, match.start()) + 1 : match.start()].lower().lstrip("([\"'")
            if len(word) == 1 or word in _ABBREVIATING:
                continue
        _append(text, start, end, spans)
        start = match.end()
    _append(text, start, len(text), spans)
    return spans


def _append(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))


def is_quotable(text: str, start: int, end: int) -> bool:
    return end - start <= QUOTABLE_WITHOUT_STOP or bool(_SENTENCE_END.search(text[start:end]))
