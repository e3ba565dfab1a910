"""The fake ESpell: each unknown word of a query corrected to the nearest indexed word.

A small, honest stand-in for NCBI's speller over the fake's own vocabulary (the words of its
records' searchable fields): a word the records already contain is kept; any other word of four
or more letters becomes the indexed word at the smallest edit distance (at most two edits), the
most frequent one on a tie. Operators, field tags, brackets and quoted phrases are kept as written.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

MAX_EDITS = 2
MIN_LENGTH = 4
# Words, the tokens a correction may replace; everything else (brackets, tags, quotes) is kept.
_SEGMENTS = re.compile(r'"[^"]*"|\[[^\]]*\]|[A-Za-z][A-Za-z0-9-]*|[^A-Za-z"\[]+|["\[]')
_OPERATORS = frozenset({"AND", "OR", "NOT"})


def vocabulary(texts: Iterable[str]) -> Counter[str]:
    """Word counts over normalised texts (lowercase words separated by spaces and `|`)."""
    words: Counter[str] = Counter()
    for text in texts:
        words.update(word for word in text.split() if word.isalpha())
    return words


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of `a` and `b`, or `limit + 1` once it must exceed `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


def correct_word(word: str, words: Counter[str]) -> str | None:
    lowered = word.lower()
    if len(lowered) < MIN_LENGTH or lowered in words:
        return None
    best: tuple[int, int, str] | None = None
    for candidate, count in words.items():
        distance = edit_distance(lowered, candidate, MAX_EDITS)
        if distance <= MAX_EDITS and (best is None or (distance, -count, candidate) < best):
            best = (distance, -count, candidate)
    return best[2] if best else None


def spell(query: str, words: Counter[str]) -> list[tuple[str, bool]]:
    """The query as (text, replaced) segments; joined, the texts are the corrected query."""
    segments: list[tuple[str, bool]] = []
    for segment in _SEGMENTS.findall(query):
        correction = None
        if segment[0].isalpha() and segment not in _OPERATORS:
            correction = correct_word(segment, words)
        segments.append((correction, True) if correction else (segment, False))
    return segments
