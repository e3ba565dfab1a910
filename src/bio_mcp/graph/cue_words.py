"""Which of some cue patterns match in stretches of one text, from one pass over it for all their words.

The adverse-effect model asks the same cue patterns ("induc|caus|due to", "\\b(no|not)\\b") of many
stretches of one text: each sentence, the words between every chemical and disease it names, the
words before every chemical. A regular-expression search per pattern and stretch was most of its
time. Each of these patterns is an alternation of lower-case words, so in an ASCII text it matches
in a stretch exactly when one of its words lies wholly inside the stretch of the text's lower-case
copy (ASCII lowers letter for letter, offsets unchanged) and, for a pattern with word boundaries
(`\\b`), its search there succeeds. `CueWords.scan` finds every occurrence of every word in one
Aho–Corasick pass; a stretch is answered from the occurrences inside it, and only a pattern with
boundaries one of whose words is inside is still searched. A text with other characters is
searched pattern by pattern as before (lower-casing it might move offsets or fold differently).

    cues = CueWords([induce, negation])           # case-insensitive patterns written in lower case
    scan = cues.scan(text)
    scan.matching(10, 42)                         # {p for p in (induce, negation) if p.search(text[10:42])}
    scan.matching(10, 42, sliced=False)           # ... if p.search(text, 10, 42)
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable

import ahocorasick

# A pattern this answers for: lower-case words (spaces allowed) joined by "|", the whole in at most
# one group, with word boundaries anywhere (they only narrow where a word counts).
_ALTERNATION = re.compile(r"\(?([a-z ]+(?:\|[a-z ]+)*)\)?")
_BOUNDARY = r"\b"


def _words(pattern: re.Pattern[str]) -> list[str]:
    """The words `pattern` is an alternation of; ValueError for any other pattern."""
    unbounded = pattern.pattern.replace(_BOUNDARY, "")
    alternation = _ALTERNATION.fullmatch(unbounded)
    if (not pattern.flags & re.IGNORECASE or alternation is None
            or unbounded.startswith("(") != unbounded.endswith(")")):
        raise ValueError(f"not a case-insensitive alternation of lower-case words: {pattern.pattern!r}")
    return alternation.group(1).split("|")


class CueWords:
    """The words of `patterns`, each a case-insensitive alternation of lower-case words."""

    def __init__(self, patterns: Iterable[re.Pattern[str]]) -> None:
        self.patterns = tuple(patterns)
        owners: dict[str, list[re.Pattern[str]]] = {}
        for pattern in self.patterns:
            for word in _words(pattern):
                owners.setdefault(word, []).append(pattern)
        # The same pattern without IGNORECASE, over the lower-case copy: it finds what the pattern finds.
        self.twins = {pattern: re.compile(pattern.pattern) for pattern in self.patterns}
        self.bounded = frozenset(pattern for pattern in self.patterns if _BOUNDARY in pattern.pattern)
        self._automaton = ahocorasick.Automaton()
        for word, owning in owners.items():
            self._automaton.add_word(word, (len(word), tuple(owning)))
        self._automaton.make_automaton()

    def scan(self, text: str) -> CueScan:
        if not text.isascii():
            return CueScan(self, text, None)
        folded = text.lower()
        # Every occurrence, overlapping ones too ("toxic" inside "intoxicat"), by where it starts;
        # no two share a start and an end (each word is one key), so the patterns are never compared.
        occurrences = sorted((end + 1 - length, end + 1, patterns)
                             for end, (length, patterns) in self._automaton.iter(folded))
        return CueScan(self, folded, occurrences)


class CueScan:
    """One text's cue words (`occurrences` None: a text the words cannot answer for)."""

    def __init__(self, words: CueWords, text: str,
                 occurrences: list[tuple[int, int, tuple[re.Pattern[str], ...]]] | None) -> None:
        self._words = words
        self._text = text
        self._occurrences = occurrences
        self._starts = [start for start, _, _ in occurrences] if occurrences is not None else []

    def matching(self, start: int, end: int, sliced: bool = True) -> set[re.Pattern[str]]:
        """The patterns that match in text[start:end]: searching that slice as a string of its
        own (`sliced`: its ends are word boundaries), else the text from `start` to `end` (a
        boundary at `start` reads the character before it)."""
        if self._occurrences is None:
            return {pattern for pattern in self._words.patterns if self._search(pattern, start, end, sliced)}
        found: set[re.Pattern[str]] = set()
        occurrences = self._occurrences
        for index in range(bisect.bisect_left(self._starts, start), len(occurrences)):
            word_start, word_end, patterns = occurrences[index]
            if word_start >= end:
                break
            if word_end <= end:
                found.update(patterns)
        for pattern in found & self._words.bounded:
            if not self._search(self._words.twins[pattern], start, end, sliced):
                found.discard(pattern)
        return found

    def _search(self, pattern: re.Pattern[str], start: int, end: int, sliced: bool) -> bool:
        if sliced:
            return pattern.search(self._text[start:end]) is not None
        return pattern.search(self._text, start, end) is not None
