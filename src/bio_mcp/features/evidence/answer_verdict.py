"""The verdict of a yes/no question, drawn from the sentences an answer quotes: `yes`, `no`, `mixed`
or `insufficient` (nothing quoted, or the answer withheld).

Each quoted sentence is read for its direction: a negation of the finding ("no significant", "did
not", "was not associated", "failed to", "similar", "no difference", ...) says no, a finding stated
plainly says yes, and hedging ("may", "unclear", "further studies are needed", ...) weakens either.
Sentences of an abstract's conclusion (under a CONCLUSION(S), INTERPRETATION or SUMMARY label, or
opened by "we conclude", "these results suggest", ...) weigh `CONCLUSION_WEIGHT` times the others.
The weighted share of negated sentences and of hedged ones decide (`NO_SHARE`, `HEDGE_SHARE`);
both thresholds were tuned on the tune half of PubMedQA's labelled questions
(bench/pubmedqa_answers.py --fit) and are reported on its other half.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Verdict = Literal["yes", "no", "mixed", "insufficient"]

CONCLUSION_WEIGHT = 5.0
# A verdict is `no` when at least this weighted share of the quoted sentences is negated ...
NO_SHARE = 0.25
# ... and `mixed` when neither direction holds this share once hedged sentences are set aside.
HEDGE_SHARE = 0.9

_YES_NO_EN = re.compile(
    r"(?:^|[:;?.]\s*|\b(?:and|or|but)\s+)(?:is|are|was|were|do|does|did|can|could|should|would|will|has|have|had|"
    r"may|might|must|shall)\b",
    re.IGNORECASE,
)
_YES_NO_TH = re.compile(r"(?:ไหม|มั้ย|หรือไม่|หรือเปล่า|ใช่ไหม|หรือยัง|ได้ไหม|จริงไหม)\s*\??\s*$")
_NEGATION = re.compile(
    r"\b(?:no|not|neither|nor|never|none|cannot|can't|don't|doesn't|didn't|isn't|aren't|wasn't|weren't|"
    r"fail(?:s|ed)? to|lack(?:s|ed)? of|absence of|unrelated|independent of|did not differ|similar|comparable|"
    r"equivalent|unaffected|unchanged|insignificant|non-?significant)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(?:may|might|could|possibly|possible|perhaps|unclear|uncertain|inconclusive|controversial|remains? to be|"
    r"further (?:studies|research|investigation|trials)|warrant|limited|not clear|questionable|debat)\w*",
    re.IGNORECASE,
)
_CONCLUSION_LABEL = re.compile(r"(?:^|\n)\s*(CONCLUSIONS?|INTERPRETATION|SUMMARY|IMPLICATIONS?)\b[^\n:]*:", re.IGNORECASE)
_ANY_LABEL = re.compile(r"(?:^|\n)\s*[A-Z][A-Z /&-]{2,40}:")
_CONCLUSION_CUE = re.compile(
    r"^\s*(?:in conclusion|we conclude|to conclude|in summary|overall|taken together|these (?:results|data|findings)|"
    r"our (?:results|data|findings)|this study (?:shows|demonstrates|suggests|indicates))",
    re.IGNORECASE,
)


def is_yes_no(question: str) -> bool:
    """A question answered by yes or no: English opened (or a clause of it opened) by an auxiliary
    verb ("Is ...", "Does ...", "...: is it safe?"), Thai closed by a yes/no particle (ไหม, หรือไม่)."""
    text = question.strip()
    return bool(_YES_NO_TH.search(text) or _YES_NO_EN.search(text))


@dataclass(frozen=True)
class QuotedSentence:
    """A quoted sentence and the section text it was quoted from, with its offset there."""

    text: str
    section: str
    start: int


def in_conclusion(sentence: QuotedSentence) -> bool:
    before = sentence.section[: sentence.start]
    labels = list(_ANY_LABEL.finditer(before))
    if labels and _CONCLUSION_LABEL.match(before, labels[-1].start()):
        return True
    return bool(_CONCLUSION_CUE.search(sentence.text))


@dataclass(frozen=True)
class SentenceReading:
    conclusion: bool
    negated: bool
    hedged: bool


def read_sentence(sentence: QuotedSentence) -> SentenceReading:
    return SentenceReading(in_conclusion(sentence), bool(_NEGATION.search(sentence.text)),
                           bool(_HEDGE.search(sentence.text)))


@dataclass(frozen=True)
class VerdictShares:
    """Weighted shares of the quoted sentences that are negated and hedged."""

    negated: float
    hedged: float


def shares(readings: Sequence[SentenceReading], conclusion_weight: float = CONCLUSION_WEIGHT) -> VerdictShares | None:
    """None when nothing was quoted."""
    total = negated = hedged = 0.0
    for reading in readings:
        weight = conclusion_weight if reading.conclusion else 1.0
        total += weight
        negated += weight * reading.negated
        hedged += weight * reading.hedged
    return VerdictShares(negated / total, hedged / total) if total else None


def decide(found: VerdictShares | None, no_share: float = NO_SHARE, hedge_share: float = HEDGE_SHARE) -> Verdict:
    if found is None:
        return "insufficient"
    if found.negated >= no_share:
        return "no"
    if found.hedged >= hedge_share:
        return "mixed"
    return "yes"


def verdict_of(sentences: Sequence[QuotedSentence]) -> Verdict:
    return decide(shares([read_sentence(sentence) for sentence in sentences]))
