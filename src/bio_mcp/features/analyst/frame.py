"""Question to `Frame`: regex and keyword heuristics (seed 004 M1), deterministic given `today`.

Filters are cut out of the question first (phases, statuses, the time window, the sponsor, NCT ids);
what is left, less the words that only say what kind of answer is wanted, names the indication or
the topic. In a trial question a drug MeSH knows, or a word named as a drug by its INN stem
(`graph/inn_stems.py`: pembrolizumab), is the intervention, never the indication; the
indication is the longest other span that MeSH knows, else the words as given; and the words named
beside a known indication ("pembrolizumab" of "pembrolizumab in melanoma", a drug MeSH lists only
as a supplementary concept) are the intervention too, so no asked word is dropped and the trials
listed are those testing it.
"""

from __future__ import annotations

import re

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.indications import MAX_TERM_TOKENS, MeshIndex, normalise
from bio_mcp.features.analyst.models import MAX_WINDOW_DAYS, Entities, FetchPolicy, Filters, Frame, Intent
from bio_mcp.features.kb.language import build_lexicon, cross_lingual
from bio_mcp.graph.inn_stems import is_inn_drug
from bio_mcp.thai_script import contains_thai

SUPPORTED_QUESTIONS = {
    "indication_phase_trials": "active phase 2/3 trials in non-small cell lung cancer",
    "trials_with_pubs": "Phase 3 Alzheimer's trials that are recruiting and their publications in the last 180 days",
    "recent_pubs_by_topic": "recent publications on GLP-1 and obesity in the past 6 months",
    "free_question": "Is metformin associated with lower cancer risk? (or in Thai: ขมิ้นชันช่วยลดการอักเสบหรือไม่)",
}
# Publications asked for as "recent" without a window.
DEFAULT_RECENT_DAYS = 365

_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "1": "1", "2": "2", "3": "3", "4": "4"}
_PHASE = re.compile(
    r"\b(early\s+)?phase\s*(iv|iii|ii|i|[1-4])\b(?:\s*(?:/|-|and|or|&)\s*(?:phase\s*)?(iv|iii|ii|i|[1-4])\b)?", re.IGNORECASE
)
_STATUSES: list[tuple[re.Pattern[str], list[str]]] = [
    (re.compile(r"\bactive,?\s+(?:but\s+)?not\s+recruiting\b", re.IGNORECASE), ["Active, not recruiting"]),
    (re.compile(r"\bnot\s+yet\s+recruiting\b", re.IGNORECASE), ["Not yet recruiting"]),
    (re.compile(r"\benrolling\s+by\s+invitation\b", re.IGNORECASE), ["Enrolling by invitation"]),
    (re.compile(r"\b(?:currently\s+)?(?:recruiting|enrolling|open\s+for\s+enrollment)\b", re.IGNORECASE), ["Recruiting"]),
    (re.compile(r"\b(?:active|ongoing|open)\b", re.IGNORECASE), ["Recruiting", "Active, not recruiting", "Enrolling by invitation"]),
    (re.compile(r"\bcompleted\b", re.IGNORECASE), ["Completed"]),
    (re.compile(r"\bterminated\b", re.IGNORECASE), ["Terminated"]),
]
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "eighteen": 18, "thirty": 30}
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_WINDOW = re.compile(
    r"\b(?:(?:in|within|over|during|from)\s+)?(?:the\s+)?(?:last|past|previous|prior)\s+"
    r"(?:(\d+|" + "|".join(_NUMBERS) + r")\s+)?(day|week|month|year)s?\b",
    re.IGNORECASE,
)
_SPONSOR = re.compile(
    r"\b(?:sponsored\s+by|run\s+by|by|from)\s+([A-Z][\w&.\-]*(?:\s+(?:[A-Z][\w&.\-]*|&))*)"
)
_NCT = re.compile(r"\bNCT\d{8}\b", re.IGNORECASE)
_TRIALS = re.compile(r"\b(?:clinical\s+)?(?:trials?|studies|study)\b", re.IGNORECASE)
_PUBS = re.compile(r"\b(?:publications?|papers?|articles?|literature|pubs|reports?)\b", re.IGNORECASE)
_RECENT = re.compile(r"\b(?:recent(?:ly)?|latest|new(?:est)?)\b", re.IGNORECASE)
_FILLER = frozenset(
    ["a", "an", "and", "any", "are", "all", "about", "at", "be", "by", "can", "find", "for", "from", "give", "has", "have", "in", "is", "list", "me", "of", "on", "or", "over", "regarding", "related", "show", "that", "the", "their", "them", "these", "those", "to", "what", "which", "who", "with", "were", "was", "please", "tell", "any", "there", "any", "published", "linked", "associated", "corresponding", "get"]
)

# Words of a trial question that say what trials do or whom they enrol, or qualify the indication
# loosely: neither an indication nor an intervention ("trials testing X in advanced Y").
_TRIAL_WORDS = frozenset(
    ["test", "tests", "testing", "tested", "evaluate", "evaluates", "evaluating", "investigate", "investigates",
     "investigating", "use", "uses", "using", "treat", "treats", "treating", "treatment", "treatments", "therapy",
     "therapies", "patients", "people", "participants", "adults", "adult", "children", "pediatric", "paediatric",
     "advanced", "metastatic", "early", "late", "stage", "severe", "mild", "moderate", "new", "novel", "drug",
     "drugs", "do", "does", "involving", "running", "conducted", "underway",
     # A count is asked of the trials found ("How many trials of X for Y are recruiting?"): searched
     # as the condition, "How many" matched no trial and the answer read as none.
     "how", "many", "number", "count",
     # What is asked of the trials found, not what they study: "What adverse events were reported in
     # pembrolizumab trials?" and "Compare phase 3 trials of keytruda in melanoma" were searched as
     # the conditions "adverse events reported pembrolizumab" and "Compare keytruda melanoma".
     "compare", "compared", "comparing", "comparison", "adverse", "events", "reported", "side", "effects",
     "versus", "vs"]
)

# Words of a free question that say how it is asked or which way an effect goes, not what it is
# about: searched for, they would drop every paper that words its finding otherwise.
_QUESTION_WORDS = frozenset(
    ["affect", "affects", "association", "benefit", "benefits", "cause", "causes", "could", "decrease", "decreases",
     "do", "does", "effect", "effective", "effects", "help", "helps", "how", "improve", "improves", "increase",
     "increases", "linked", "lower", "lowers", "may", "might", "prevent", "prevents", "reduce", "reduced", "reduces",
     "should", "whether", "why", "will", "work", "works", "what's", "it", "many", "much", "often"]
)


def _phases(text: str) -> tuple[list[str], str]:
    phases: list[str] = []
    for match in _PHASE.finditer(text):
        if match.group(1):
            phases.append("early_1")
            continue
        phases.append(_ROMAN[match.group(2).lower()])
        if match.group(3):
            phases.append(_ROMAN[match.group(3).lower()])
    return sorted(set(phases)), _PHASE.sub(" ", text)


def _statuses(text: str) -> tuple[list[str], str]:
    found: list[str] = []
    for pattern, names in _STATUSES:
        if pattern.search(text):
            found.extend(name for name in names if name not in found)
            text = pattern.sub(" ", text)
    return found, text


def _window(text: str) -> tuple[int | None, str]:
    match = _WINDOW.search(text)
    if match is None:
        return None, text
    count_text = (match.group(1) or "1").lower()
    count = int(count_text) if count_text.isdigit() else _NUMBERS[count_text]
    days = count * _UNIT_DAYS[match.group(2).lower()]
    if not 1 <= days <= MAX_WINDOW_DAYS:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            f"the time window {match.group(0)!r} is outside 1 to {MAX_WINDOW_DAYS} days",
            {"window": match.group(0)[:100], "max_days": MAX_WINDOW_DAYS},
        )
    return days, text[: match.start()] + " " + text[match.end() :]


def _sponsor(text: str) -> tuple[str | None, str]:
    match = _SPONSOR.search(text)
    if match is None:
        return None, text
    return match.group(1).strip(), text[: match.start()] + " " + text[match.end() :]


def _trim(words: list[str]) -> list[str]:
    start, end = 0, len(words)
    while start < end and words[start].lower().strip(",.?!;:") in _FILLER:
        start += 1
    while end > start and words[end - 1].lower().strip(",.?!;:") in _FILLER:
        end -= 1
    return [word.strip(",.?!;:") for word in words[start:end]]


def _remaining(text: str) -> list[str]:
    text = _PUBS.sub(" ", _TRIALS.sub(" ", _RECENT.sub(" ", text)))
    return _trim(text.split())


def _spans(words: list[str], mesh: MeshIndex) -> list[tuple[int, int, str]]:
    """The spans of `words` MeSH names, longest first, none overlapping: (start, end, preferred name)."""
    found: list[tuple[int, int, str]] = []
    taken: set[int] = set()
    for size in range(min(len(words), MAX_TERM_TOKENS), 0, -1):
        for start in range(len(words) - size + 1):
            if taken.intersection(range(start, start + size)):
                continue
            name = mesh.lookup(" ".join(words[start : start + size]))
            if name is not None:
                found.append((start, start + size, name))
                taken.update(range(start, start + size))
    return found


def _subjects(words: list[str], mesh: MeshIndex) -> tuple[str | None, str | None]:
    """(indication, intervention) of a trial question's remaining words."""
    words = [word for word in words if word.lower() not in _FILLER and word.lower() not in _TRIAL_WORDS]
    chemicals = [(start, end, name) for start, end, name in _spans(words, mesh) if name in mesh.chemicals]
    taken = {index for start, end, _ in chemicals for index in range(start, end)}
    chemicals += [(index, index + 1, word) for index, word in enumerate(words)
                  if index not in taken and is_inn_drug(word)]
    named = {index for start, end, _ in chemicals for index in range(start, end)}
    interventions = [name for _, _, name in sorted(chemicals)]
    words = [word for index, word in enumerate(words) if index not in named]
    total_tokens = len(normalise(" ".join(words)).split())
    for start, end, name in _spans(words, mesh):
        # A match covering under half the words is a generic fragment ("Syndrome" of
        # "Phelan-McDermid syndrome"), not the indication.
        if name in mesh.chemicals or 2 * len(normalise(" ".join(words[start:end])).split()) < total_tokens:
            continue
        rest = " ".join(words[:start] + words[end:])
        return name, " ".join([*interventions, rest]).strip() or None
    return " ".join(words) or None, " ".join(interventions) or None


def free_terms(question: str) -> str:
    """The English words a free question is searched with: a Thai question is read into English
    (its herbs by their scientific names, other words by dictionary); an English one loses the words
    that only say how it is asked."""
    if contains_thai(question):
        reading = cross_lingual(question, "th", build_lexicon([]))
        return " ".join((reading.link_text_en or reading.search_text_en).split()) if reading.translated else ""
    words = [w for w in _trim(question.split()) if w.lower() not in _FILLER and w.lower() not in _QUESTION_WORDS]
    return " ".join(w.strip(",.?!;:") for w in words if w.strip(",.?!;:"))


def unsupported(question: str, reason: str) -> BioMcpError:
    return BioMcpError(
        ErrorCode.VALIDATION,
        f"cannot plan this question: {reason}. Supported kinds: "
        + "; ".join(f"{kind} (e.g. \"{example}\")" for kind, example in SUPPORTED_QUESTIONS.items()),
        {"question": question[:300], "supported": SUPPORTED_QUESTIONS},
    )


def parse_frame(
    question: str, *, mesh: MeshIndex, fetch_policy: FetchPolicy = "cache_then_network", time_budget_ms: int = 5000
) -> Frame:
    text = " ".join(question.split())
    ncts = sorted({match.upper() for match in _NCT.findall(text)})
    text = _NCT.sub(" ", text)
    phases, text = _phases(text)
    within_days, text = _window(text)
    sponsor, text = _sponsor(text)
    wants_trials = bool(_TRIALS.search(text)) or bool(ncts)
    wants_pubs = bool(_PUBS.search(text))
    statuses, text = _statuses(text) if wants_trials else ([], text)
    recent = bool(_RECENT.search(text))
    words = _remaining(text)
    intent: Intent
    if wants_trials and (wants_pubs or (ncts and not phases and not statuses)):
        intent = "trials_with_pubs"
    elif wants_trials:
        intent = "indication_phase_trials"
    elif wants_pubs or recent:
        intent = "recent_pubs_by_topic"
    else:
        intent = "free_question"
    entities = Entities(company=sponsor, trial_nct=ncts[0] if ncts else None)
    if intent == "free_question":
        entities = Entities(topic=free_terms(question) or None)
        if not entities.topic:
            raise unsupported(question, "no English search words could be read from it")
        phases, statuses = [], []
    elif intent == "recent_pubs_by_topic":
        if not words:
            raise unsupported(question, "it names no topic")
        entities.topic = " ".join(words)
        within_days = within_days or DEFAULT_RECENT_DAYS
    else:
        entities.indication, entities.intervention = _subjects(words, mesh)
        within_days = within_days if intent == "trials_with_pubs" else None
        if not (entities.indication or entities.intervention or sponsor or ncts):
            raise unsupported(question, "it names no indication, intervention, sponsor or NCT id")
    return Frame(
        intent=intent,
        entities=entities,
        filters=Filters(phase=phases, status=statuses, published_within_days=within_days),
        fetch_policy=fetch_policy,
        time_budget_ms=time_budget_ms,
    )
