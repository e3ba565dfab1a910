"""CueWords answers exactly what searching each pattern would: every stretch of real abstracts
(BC5CDR development, ASCII and not) and stretches where a word overlaps another, sits across a
stretch's end or needs a word boundary the stretch itself makes."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from bio_mcp.eval.pubtator import read_pubtator
from bio_mcp.graph.adverse_effects import _CUE_FAMILIES, _PROTECTIVE, _STRONG_CUE
from bio_mcp.graph.cue_words import CueWords

CUES = CueWords((_STRONG_CUE, _PROTECTIVE, *_CUE_FAMILIES.values()))
NEGATION = _CUE_FAMILIES["negation"]


def searched(text: str, start: int, end: int, sliced: bool) -> set[re.Pattern[str]]:
    return {pattern for pattern in CUES.patterns
            if (pattern.search(text[start:end]) if sliced else pattern.search(text, start, end))}


@pytest.mark.parametrize("sliced", [True, False])
@pytest.mark.parametrize(("text", "start", "end"), [
    ("Intoxication followed.", 0, 22),          # "toxic" inside "intoxicat"
    ("Intoxication followed.", 2, 7),           # only "toxic", cut out of the word
    ("It was not known.", 7, 10),               # "not", a whole word
    ("Cannot recur.", 3, 5),                    # "no" inside a word: a boundary only the slice makes
    ("Cannot recur.", 3, 6),
    ("Seizures due to cocaine.", 9, 14),        # "due to" across the stretch's end
    ("Seizures due to cocaine.", 9, 15),
    ("pretreatment with X", 3, 19),             # "treat" after a letter: no boundary before it
    ("Naïve rats: no toxicity", 0, 23),         # not ASCII: searched pattern by pattern
    ("", 0, 0),
])
def test_stretches_where_words_are_tricky(text: str, start: int, end: int, sliced: bool) -> None:
    assert CUES.scan(text).matching(start, end, sliced) == searched(text, start, end, sliced)


def test_a_word_a_slice_cuts_out_of_a_longer_one_needs_its_boundary() -> None:
    # The pre-check finds "no" inside "cannot"; only the negation's own search may decide.
    assert NEGATION in CUES.scan("Cannot recur.").matching(3, 5)
    assert NEGATION not in CUES.scan("Cannot recur.").matching(3, 5, sliced=False)


def test_random_stretches_of_real_abstracts(data_dir: Path) -> None:
    documents = read_pubtator(data_dir / "bench" / "bc5cdr" / "CDR_DevelopmentSet.PubTator.txt")[:120]
    rng = random.Random(7)
    for document in documents:
        text = document.text
        scan = CUES.scan(text)
        for _ in range(40):
            start = rng.randrange(len(text) + 1)
            end = rng.randrange(start, min(len(text), start + rng.choice((20, 60, 300))) + 1)
            for sliced in (True, False):
                assert scan.matching(start, end, sliced) == searched(text, start, end, sliced)


def test_only_alternations_of_words_are_taken() -> None:
    with pytest.raises(ValueError):
        CueWords((re.compile(r"induc(ed|ing)", re.IGNORECASE),))
    with pytest.raises(ValueError):
        CueWords((re.compile(r"induc|caus"),))
