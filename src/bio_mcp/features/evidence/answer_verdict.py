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

A verdict cites only the sentences that support it (`yes`: those stated plainly; `no`: the negated
ones; `mixed`: all), and says whose finding it is (`scope`): a yes drawn from rats and cell lines
is not a yes in people. "There is sufficient evidence for carcinogenicity of DEHP in rats and
mice; however, there is little epidemiological evidence ... in humans" is hedged (an evidence gap),
and a verdict whose supporting sentences name animals or laboratory models and none names people
alone is `animals_or_laboratory`; a sentence naming no population is read as its study's, by its
document's title ("Biochemical alterations in rat fetal liver ..."). A negation counts only in a clause naming the question's subject
(`read_text`), and "similar" only in a comparison. On PubMedQA's answered questions the verdict is
right for 0.669 of the dev half (majority class 0.504) and 0.625 of the tune half; before these
rules, 0.645 and 0.596 (bench/results/pubmedqa_answers.jsonl). A question whether something is
safe is decided apart (`decide_safety`): its yes is an all-clear, and its no needs a quote that
reports harm, not one naming what a study measured ("a subchronic toxicity study") or a route of
exposure ("contamination of water").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from bio_mcp.features.evidence.answer_models import Scope, Verdict

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
# "not only ... but also" affirms ("desirable not only for diagnosis but also to evaluate ...").
_NEGATION = re.compile(
    r"\b(?:no|not(?!\s+only\b)|neither|nor|never|none|cannot|can't|don't|doesn't|didn't|isn't|aren't|wasn't|weren't|"
    r"fail(?:s|ed)? to|lack(?:s|ed)? of|absence of|unrelated|independent of|did not differ|similar|comparable|"
    r"equivalent|unaffected|unchanged|insignificant|non-?significant)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(?:may|might|could|possibly|possible|perhaps|unclear|uncertain|inconclusive|controversial|remains? to be|"
    r"further (?:studies|research|investigation|trials)|warrant|limited|not clear|questionable|debat)\w*|"
    # An evidence gap: "little epidemiological evidence", "the largest gap in our knowledge".
    r"\b(?:little|scant|sparse|insufficient|inadequate)\s+(?:\w+\s+){0,2}(?:evidence|data)\b|"
    r"\bgaps?\s+in\s+(?:our\s+|the\s+)?knowledge\b|\b(?:unknown|not (?:yet )?known)\b",
    re.IGNORECASE,
)
_NONHUMAN = re.compile(
    r"\b(?:rats?|mice|mouse|murine|rodents?|animals?|rabbits?|dogs?|canine|pigs?|porcine|piglets?|sheep|ovine|"
    r"cattle|bovine|hamsters?|guinea pigs?|monkeys?|primates?|macaques?|zebrafish|drosophila|"
    r"in vitro|ex vivo|cell lines?|cultured|cultures?|xenografts?)\b",
    re.IGNORECASE,
)
# Not "pregnancy": rats are pregnant too ("exposure of mothers to DEHP during pregnancy" is a rat study's).
_HUMAN = re.compile(
    r"\b(?:humans?|people|persons?|patients?|men|women|children|adults?|infants?|neonates?|adolescents?|"
    r"participants?|volunteers?|individuals|subjects|populations?|cohorts?|epidemiolog\w*|clinical(?:ly)?|"
    r"randomi[sz]ed|case-control|smokers|workers)\b",
    re.IGNORECASE,
)
# "similar", "comparable" and "equivalent" say no effect only in a comparison ("similar between the
# groups"); "similar levels of peroxisome proliferation were observed with DEHP, MEHP, clofibrate"
# says each caused it.
_LIKENESS = re.compile(r"similar|comparable|equivalent", re.IGNORECASE)
_COMPARISON = re.compile(
    r"\b(?:between|compared|comparison|than|versus|vs\.?|groups?|controls?|placebo|arms?)\b", re.IGNORECASE
)
# A question whether something is safe ("Is DEHP safe for humans?", "ปลอดภัยไหม"): its yes is an
# all-clear, drawn only from sentences that say safe, and never while a quoted sentence reports harm.
_SAFETY_QUESTION = re.compile(r"\b(?:safe|harmless)\b|ปลอดภัย", re.IGNORECASE)
_SAFE = re.compile(
    r"\bsafe(?:ly)?\b|well[- ]tolerated|\btolerab|\bfeasib|\bunlikely\b|"
    r"\b(?:no|without)\s+(?:\w+\s+){0,2}(?:adverse|side effects?|toxicity|complications?|harm|deaths?|mortality|"
    r"increased risk|increase in risk)|"
    r"\blow\s+(?:\w+\s+){0,2}(?:risk|complications?|morbidity|mortality|toxicity)",
    re.IGNORECASE,
)
_HARM = re.compile(
    r"toxic|carcinogen|adverse|harm|hazard|\brisks?\b|damage|injur|death|fatal|mortality|morbidity|"
    r"complication|bleeding|haemorrhag|hemorrhag|danger|unsafe|threat|"
    # A concern stated ("are of concern for human health"), not one that motivated a study ("due to
    # concern over the potential for exposure").
    r"\bof (?:\w+\s+){0,2}concern\b|\bconcerns?\s+(?:for|to)\s+(?:\w+\s+){0,2}(?:health|safety)|"
    r"\brais\w*\s+(?:\w+\s+){0,2}concerns?\b",
    re.IGNORECASE,
)
# A harm word naming what a study measured, not what it found: "a subchronic toxicity study", "risk
# assessment". Contamination of water and food is a route of exposure, not a harm (no longer a cue).
_STUDY_OF_HARM = re.compile(
    r"\b(?:toxicity|toxicological|toxicology|carcinogenicity|safety|risk|hazard)\s+"
    r"(?:stud(?:y|ies)|tests?|testing|assessments?|evaluations?|bioassays?|screening|phase)\b",
    re.IGNORECASE,
)
# Where one clause ends and another begins: "; ", ": ", ", but", "whereas", "suggests that", ...
_CLAUSE_BREAK = re.compile(
    r";|:\s|,\s*(?:but|whereas|while|although|though|rather|however|and)\b|\b(?:but|whereas)\b|"
    r"\b(?:suggest|indicate|show|demonstrate|reveal|find|found)(?:s|ed)? that\b",
    re.IGNORECASE,
)
_CONCLUSION_LABEL = re.compile(
    r"(?:^|\n)\s*(CONCLUSIONS?|INTERPRETATION|SUMMARY|IMPLICATIONS?)\b[^\n:]*:", re.IGNORECASE
)
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
    """A quoted sentence and the section text it was quoted from, with its offset there, and the
    title of its document."""

    text: str
    section: str
    start: int
    title: str = ""


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
    # Whether the sentence names people, and animals or laboratory models.
    human: bool = False
    nonhuman: bool = False
    # A negation anywhere, of the subject or not: such a sentence never backs a yes.
    any_negation: bool = False
    # Of a safety question: the sentence says safe (unhedged), or reports harm (and does not say safe).
    safe: bool = False
    harm: bool = False


# Whether a stretch of text names the question's subject (`Focus.names_subject`).
NamesSubject = Callable[[str], bool]


def read_sentence(sentence: QuotedSentence, names_subject: NamesSubject | None = None) -> SentenceReading:
    """A sentence naming no population is read as its study's: one whose title names only animals or
    laboratory models ("... in rat fetal liver") reports an animal finding."""
    reading = read_text(sentence.text, in_conclusion(sentence), names_subject)
    if reading.human or reading.nonhuman or not _NONHUMAN.search(sentence.title) or _HUMAN.search(sentence.title):
        return reading
    return replace(reading, nonhuman=True)


def read_text(text: str, conclusion: bool, names_subject: NamesSubject | None = None) -> SentenceReading:
    """A sentence's reading, whether it is its abstract's conclusion being known. With
    `names_subject`, a negation counts only in a clause that names the question's subject (when
    some clause does): "selenium deficiency does not have a direct influence on ... peroxisome
    proliferation, but rather ... the pharmacokinetics of clofibrate" does not deny that
    clofibrate causes it."""
    negated, hedged = _negated(text), bool(_HEDGE.search(text))
    safe = not hedged and bool(_SAFE.search(text))
    return SentenceReading(
        conclusion,
        negated and (names_subject is None or _negated_of_subject(text, names_subject)),
        hedged,
        bool(_HUMAN.search(text)),
        bool(_NONHUMAN.search(text)),
        negated,
        safe,
        not safe and bool(_HARM.search(_STUDY_OF_HARM.sub(" ", text))),
    )


def _negated_of_subject(text: str, names_subject: NamesSubject) -> bool:
    """Whether a clause naming the subject holds the negation (any clause, when none names it)."""
    naming = [clause for clause in _CLAUSE_BREAK.split(text) if names_subject(clause)]
    return any(_negated(clause) for clause in naming) if naming else True


def _negated(text: str) -> bool:
    compared = _COMPARISON.search(text) is not None
    return any(compared or not _LIKENESS.fullmatch(m.group(0)) for m in _NEGATION.finditer(text))


@dataclass(frozen=True)
class VerdictShares:
    """Weighted shares of the quoted sentences that are negated and hedged."""

    negated: float
    hedged: float


def shares(
    readings: Sequence[SentenceReading], conclusion_weight: float = CONCLUSION_WEIGHT
) -> VerdictShares | None:
    """None when nothing was quoted."""
    total = negated = hedged = 0.0
    for reading in readings:
        weight = conclusion_weight if reading.conclusion else 1.0
        total += weight
        negated += weight * reading.negated
        hedged += weight * reading.hedged
    return VerdictShares(negated / total, hedged / total) if total else None


def decide(
    found: VerdictShares | None, no_share: float = NO_SHARE, hedge_share: float = HEDGE_SHARE
) -> Verdict:
    if found is None:
        return "insufficient"
    if found.negated >= no_share:
        return "no"
    if found.hedged >= hedge_share:
        return "mixed"
    return "yes"


def is_safety_question(question: str) -> bool:
    return bool(_SAFETY_QUESTION.search(question))


def decide_safety(readings: Sequence[SentenceReading]) -> Verdict:
    """A safety question's verdict: yes only when quoted sentences say safe and none reports harm, no
    when some report harm and none says safe, mixed when both, insufficient when neither (the quotes
    do not speak to safety)."""
    safe, harm = any(r.safe for r in readings), any(r.harm for r in readings)
    if safe and harm:
        return "mixed"
    return "yes" if safe else "no" if harm else "insufficient"


def supporting(readings: Sequence[SentenceReading], verdict: Verdict, safety: bool = False) -> list[int]:
    """The indices of the sentences that support `verdict`: the plainly stated ones for `yes` (no
    negation, no hedge; the unnegated ones when there are none), the negated ones for `no`, all for
    `mixed`."""
    every = list(range(len(readings)))
    if safety:
        wanted = {"yes": (True, False), "no": (False, True), "mixed": (True, True)}.get(verdict, (False, False))
        return [i for i in every if (wanted[0] and readings[i].safe) or (wanted[1] and readings[i].harm)]
    if verdict == "yes":
        plain = [i for i in every if not readings[i].any_negation and not readings[i].hedged]
        return plain or [i for i in every if not readings[i].negated] or every
    if verdict == "no":
        return [i for i in every if readings[i].negated]
    return every if verdict == "mixed" else []


def scope_of(readings: Sequence[SentenceReading]) -> Scope:
    if any(r.human and not r.nonhuman for r in readings):
        return "humans"
    return "animals_or_laboratory" if any(r.nonhuman for r in readings) else "unstated"


@dataclass(frozen=True)
class VerdictReading:
    verdict: Verdict
    supporting: tuple[int, ...]
    scope: Scope
    # Those of `supporting` that name animals or laboratory models: with `animals_or_laboratory`
    # the others name no population, and the answer must not say they are animal findings too.
    in_models: tuple[int, ...] = ()


def verdict_of(
    sentences: Sequence[QuotedSentence], names_subject: NamesSubject | None = None, safety: bool = False
) -> VerdictReading:
    """The verdict of the quoted sentences, which of them support it (indices), and whose finding
    they report; `names_subject` scopes negations to the question's subject (`read_text`); `safety`:
    the question asks whether something is safe (`decide_safety`)."""
    readings = [read_sentence(sentence, names_subject) for sentence in sentences]
    verdict = decide_safety(readings) if safety else decide(shares(readings))
    backing = supporting(readings, verdict, safety)
    return VerdictReading(verdict, tuple(backing), scope_of([readings[i] for i in backing]),
                          tuple(i for i in backing if readings[i].nonhuman))
