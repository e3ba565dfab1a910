"""Entity linking: text -> mentions of MeSH descriptors and trials, by dictionary (no model, no LLM).

    linker = load_linker(settings)                 # built once per process (pickled under BIO_MCP_HOME)
    linker.link("Naloxone reverses the antihypertensive effect of clonidine (NCT00000102).")

One Aho–Corasick automaton holds every MeSH entry term, folded (lower case, punctuation as spaces)
and padded with a space on each side, matched against the text folded the same way, so every hit
starts and ends on a word boundary and keeps the text's offsets. On top of it:
- case rules: acronym-like terms (short, several capitals) and very short terms match only as
  written, so "AIDS" is found and "aids" is not;
- plural and adjectival variants of the terms ("seizures", "hypertensive" -> Hypertension), and their
  British spellings ("haemorrhage", "oedema", "oestrogen");
- the mention -> MeSH pairs of the BC5CDR training set where MeSH's own terms fall short
  (`BIO_MCP_LINKER_TRAINING`, else what the package ships of the training split: `LinkerPriors`);
- the same pairs carried over to the other heads of a generic disease phrase: the training set
  names "renal damage", "renal dysfunction" and "renal toxicity" Kidney Diseases, so "renal
  injury" and "renal disorders" are read the same way (`head_variants`); below those, MeSH's own
  "<organ> Diseases" terms read with the same heads ("retinal toxicity": Retinal Diseases);
- a modifier coordinated before a disease phrase shares its head ("memory and learning
  impairments": Memory Disorders too);
- MeSH's supplementary concepts with a pharmacological action, by name (drugs the descriptors do
  not hold: rizatriptan, mesh:C093622), from the pharmacological actions' table beside the
  descriptors (`pharm_actions_path`);
- terms that were mostly wrong on the training set (a common word that is also a MeSH term) are
  dropped, judged by their precision there;
- abbreviations the text defines (`long form (SF)`): every later SF names the long form's concept,
  and an SF whose long form names nothing is not linked at all;
- NCT ids by pattern.
The longest match wins where matches overlap. `Mention.linker` says which rule found each one.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import ahocorasick

from bio_mcp.config import Settings
from bio_mcp.data_files import BC5CDR_PRIORS, data_file, is_json, read_json
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.eval.pubtator import PubtatorDocument, read_pubtator
from bio_mcp.graph.abbreviations import find_abbreviations, short_form_uses
from bio_mcp.graph.ids import mesh_entity_id, sha256_hex, trial_entity_id
from bio_mcp.graph.mentions import EntityType, Mention
from bio_mcp.graph.vocabulary import (
    Vocabulary,
    file_digest,
    load_pharm_actions,
    load_supplementary_names,
    load_vocabulary,
)
from bio_mcp.mesh_files import mesh_path_of, pharm_actions_path
from bio_mcp.pickle_cache import load_cached

_NON_WORD_CHAR = re.compile(r"[^\w ]|_")
_ASCII_PUNCTUATION = str.maketrans({chr(code): " " for code in range(128) if not chr(code).isalnum()})
_SPACES = re.compile(r"\s+")
# Folded spaces inside one name, read as one: "Di-(2-ethylhexyl)phthalate" and "di(2-ethylhexyl)
# phthalate" are MeSH's "Di(2-ethylhexyl)phthalate". Only runs of brackets and hyphens, a space at
# most after them: never ". ", ", " or " (" (a parenthesis opened after a word).
_RUN = re.compile(r"  +")
_INSIDE_A_NAME = re.compile(r"[-\[\]()]+ ?")
_NCT = re.compile(r"\bNCT\s?(\d{8})\b")
# The modifier before a coordinated one: "ocular and auditory toxicity", "myocardial, renal or hepatic injury".
_COORDINATED_MODIFIER = re.compile(r"\b([a-z]{4,})\s*(?:,|\band\b|\bor\b|\band/or\b)\s*$")

# Entry terms that are everyday words or lab jargon far more often than they are the concept.
STOP_TERMS = frozenset(["a", "an", "and", "are", "as", "at", "be", "but", "by", "can", "for", "from", "has", "have", "he", "her", "his", "i", "if", "in", "is", "it", "its", "may", "no", "not", "of", "on", "or", "our", "she", "so", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "was", "we", "were", "which", "who", "will", "with", "aim", "aims", "all", "also", "rose", "tetra", "any", "arm", "arms", "back", "base", "bases", "cell", "cells", "change", "control", "controls", "day", "days", "dose", "doses", "effect", "effects", "face", "factor", "factors", "form", "forms", "group", "groups", "hand", "hands", "head", "help", "high", "human", "humans", "lead", "level", "levels", "life", "light", "line", "lines", "low", "male", "female", "man", "men", "mass", "methods", "mode", "model", "models", "name", "names", "need", "normal", "order", "pain", "part", "parts", "patient", "patients", "period", "phase", "plan", "point", "population", "power", "rate", "rates", "rest", "result", "results", "risk", "role", "safety", "scale", "sex", "sign", "signs", "size", "state", "states", "step", "study", "studies", "system", "systems", "test", "tests", "therapy", "time", "times", "type", "types", "use", "value", "values", "water", "wave", "way", "weight", "work"])

# Which rule found a mention, and how far it is trusted before the training set says otherwise.
DICTIONARY, VARIANT, MESH_HEAD, SUPPLEMENTARY, TRAINING, TRAINING_HEAD, ABBREVIATION, TRIAL = "mesh-dictionary", \
    "mesh-variant", "mesh-head", "mesh-supplementary", "bc5cdr-train", "bc5cdr-train-head", "abbreviation", "nct"
COORDINATED = "coordinated"
_SCORED = frozenset(("Chemical", "Disease"))
_PRIOR = {DICTIONARY: 0.9, VARIANT: 0.7, MESH_HEAD: 0.6, SUPPLEMENTARY: 0.8, TRAINING: 0.85, TRAINING_HEAD: 0.7}

# The last words of a phrase that names a disease by the organ or function it harms ("renal
# toxicity", "cardiac dysfunction"), in two groups that BC5CDR reads differently: harm done ("liver
# injury": drug-induced liver injury) and a state ("liver disease": Liver Diseases).
GENERIC_HEADS = (
    ("toxicity", "toxicities", "injury", "injuries", "damage"),
    ("disease", "diseases", "disorder", "disorders", "dysfunction", "dysfunctions", "abnormality", "abnormalities",
     "complication", "complications", "impairment", "impairments", "involvement", "deficit", "deficits", "symptoms"),
)
# MeSH's "<organ> Diseases" and "<function> Disorders" terms, whose modifier is read with every generic
# head ("retinal toxicity": Retinal Diseases; "cognitive deficits": Cognition Disorders, whose entry
# term is "Cognitive Disorders"). Only concepts filed under an organ system's or a mental disorder's
# branch: "chronic toxicity" is not Chronic Disease (C23) nor "occupational injury" Occupational Diseases.
_DISEASE_HEADS = frozenset(("disease", "diseases", "disorder", "disorders"))
# Heads that name a disease only after a modifier the training set vouches for ("bone involvement",
# "joint symptoms" are mostly not annotated).
_WEAK_HEADS = frozenset(("involvement", "symptoms"))
# A modifier that gives an organ's disease a course, stage or onset names one disease, not the
# organ's harm: "Chronic Renal Diseases" is chronic kidney disease, and "chronic renal toxicity" is
# not; nor is "end stage renal damage" kidney failure. Such modifiers are left out (`head_modifiers`).
_COURSE_WORDS = frozenset(("chronic", "acute", "subacute", "end", "stage", "early", "late", "onset", "severe", "mild",
                           "congenital", "hereditary", "familial", "inherited", "juvenile", "adult", "childhood",
                           "neonatal", "primary", "secondary", "progressive", "degenerative", "obstructive"))
_SYSTEM_BRANCH = re.compile(r"^(C(0[1-9]|1\d|20)|F03)\.")
# Read when the text is linked, not compiled into the dictionary (1,900 modifiers by 20 heads were
# 32,000 keys, 7 MB of the warm server, for a few dozen mentions); the heads are found in the folded
# text by an automaton of their own (a case-blind regular expression took as long as the dictionary).
_HEAD_WORDS = frozenset({head for group in GENERIC_HEADS for head in group} - _WEAK_HEADS)
_HEADS = ahocorasick.Automaton()
for _head in _HEAD_WORDS:
    _HEADS.add_word(f" {_head} ", _head)
_HEADS.make_automaton()
_MAX_MODIFIER_WORDS = 4


def fold(text: str) -> str:
    """Lower case, every non-word character a space; always the same length as `text`."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a few characters (e.g. 'İ') lower to two
        lowered = "".join(char.lower() if len(char.lower()) == 1 else char for char in text)
    # A translation table does ASCII in one C pass; the regular expression then only has non-ASCII
    # punctuation left to find, which most abstracts have little of.
    folded = lowered.translate(_ASCII_PUNCTUATION)
    return folded if folded.isascii() else _NON_WORD_CHAR.sub(" ", folded)


def _joined(text: str, folded: str) -> tuple[str, list[int], list[int]]:
    """`folded` with each run of spaces inside a name (`_INSIDE_A_NAME`) made one space, and where
    its positions move: from `points[k]` on, a position of the joined string is `removed[k]`
    characters before the same one of `text` (both lists start at position 0, nothing removed)."""
    if "  " not in folded:
        return folded, [], []
    pieces: list[str] = []
    points, removed = [0], [0]
    last = total = 0
    for run in _RUN.finditer(folded):
        start, end = run.span()
        if not _INSIDE_A_NAME.fullmatch(text, start, end) or not _closes_inside_a_name(text, start):
            continue
        pieces.append(folded[last : start + 1])
        total += end - start - 1
        last = end
        points.append(end - total)
        removed.append(total)
    if total == 0:
        return folded, [], []
    pieces.append(folded[last:])
    return "".join(pieces), points, removed


def _closes_inside_a_name(text: str, start: int) -> bool:
    """Whether a bracket closing at `start` was opened inside the same word ("di(2-ethylhexyl)"),
    not before it ("magnetic resonance (NMR) spectroscopy" is not "NMR spectroscopy")."""
    closing = text[start]
    if closing not in ")]":
        return True
    opened = text.rfind("(" if closing == ")" else "[", 0, start)
    return opened > 0 and (text[opened - 1].isalnum() or text[opened - 1] == "-") and not any(
        char.isspace() for char in text[opened:start])


def term_key(term: str) -> str:
    return " ".join(fold(term).split())


class Entry(NamedTuple):
    """What a folded term links to. `forms` set: only those exact spellings match (case rules)."""

    entity_id: str
    entity_type: EntityType
    linker: str
    confidence: float
    forms: frozenset[str] | None


@dataclass(slots=True)
class _Candidate:
    key: str
    entity_id: str
    linker: str
    confidence: float
    forms: set[str] | None
    rank: tuple[int, int, str]


class EntityLinker:
    def __init__(self, automaton: ahocorasick.Automaton, lengths: array, rows: array,
                 entries: list[tuple[Entry, ...]], types: dict[str, EntityType], names: dict[str, str] | None = None,
                 current_ids: dict[str, str] | None = None, heads: dict[str, str] | None = None,
                 excluded_heads: frozenset[str] = frozenset()) -> None:
        """`automaton`: padded folded key -> its number; `lengths`, `rows`: by key number, the padded
        key's length and its row of `entries` (`_compile`); `heads`: `head_modifiers`, but the
        phrases in `excluded_heads` (mostly wrong on the training set)."""
        self._automaton = automaton
        self._lengths = lengths
        self._rows = rows
        self._entries = entries
        self.types = types
        # Entities the vocabulary does not describe (MeSH supplementary concepts the training set
        # names, such as venlafaxine, mesh:C047426): their most common spelling there.
        self.names = names or {}
        # Those of them that MeSH 2024 files under a descriptor by name or entry term (BC5CDR's 2015
        # sorafenib, mesh:C471405, is now the descriptor Sorafenib, mesh:D000077157): `CurrentIdLinker`.
        self.current_ids = current_ids or {}
        self._heads = heads or {}
        self._excluded_heads = excluded_heads

    def type_of(self, entity_id: str) -> EntityType:
        return self.types.get(entity_id, "Concept")

    def link(self, text: str) -> list[Mention]:
        mentions = self._dictionary_mentions(text)
        mentions = self._coordinated(text, mentions)
        abbreviations = find_abbreviations(text) if "(" in text else []
        if abbreviations:
            mentions = self._resolve_abbreviations(text, mentions, abbreviations)
        if "NCT" in text:
            mentions.extend(
                Mention(match.start(), match.end(), match.group(0), trial_entity_id("NCT" + match.group(1)),
                        "Trial", TRIAL, 1.0)
                for match in _NCT.finditer(text)
            )
            mentions.sort(key=lambda mention: (mention.start, mention.end))
        return mentions

    def _dictionary_mentions(self, text: str) -> list[Mention]:
        """Leftmost-longest matches, chemicals and diseases resolved apart from the other types, so
        "spontaneously hypertensive rats" (an organism) keeps "hypertensive" (a disease) inside it.

        Hits arrive in order of their end; a hit that starts no later than the accepted one it
        overlaps replaces it (it is longer), otherwise it is dropped (the accepted one is leftmost).
        """
        entries = self._entries
        scored: list[tuple[int, int, Entry]] = []
        other: list[tuple[int, int, Entry]] = []
        lengths, rows = self._lengths, self._rows
        folded = fold(text)
        joined, points, removed = _joined(text, folded)
        for end_index, key_number in self._automaton.iter(f" {joined} "):
            start = end_index - lengths[key_number] + 1
            end = end_index - 1
            if points:
                start = start + removed[bisect_right(points, start) - 1]
                end = end + removed[bisect_right(points, end - 1) - 1]
            for entry in entries[rows[key_number]]:
                if entry[4] is None or text[start:end] in entry[4]:
                    stack = scored if entry[1] in _SCORED else other
                    while stack and stack[-1][1] > start and start <= stack[-1][0]:
                        stack.pop()
                    if not stack or stack[-1][1] <= start:
                        stack.append((start, end, entry))
                    break
        if self._heads:
            scored = self._head_hits(text, folded, scored)
        hits = [hit for hit in scored if not (hit[2][1] == "Chemical" and _in_systematic_name(text, hit[0]))] + other
        # Spans are unique (one entry per folded key), so the entries themselves are never compared.
        hits.sort()
        return [Mention(start, end, text[start:end], entry[0], entry[1], entry[2], entry[3])
                for start, end, entry in hits]

    def _head_hits(self, text: str, folded: str, scored: list[tuple[int, int, Entry]]) -> list[tuple[int, int, Entry]]:
        """`scored` with each "<modifier> <generic head>" whose modifier names an organ's or a
        function's diseases (`head_modifiers`), the longest modifier first, where no match reaches
        past the phrase (a dictionary term of the same words wins); matches inside it give way.
        `folded`: `fold(text)`. The modifier's words are joined by a space or a hyphen."""
        for end_index, head in _HEADS.iter(f" {folded} "):
            head_start = end_index - len(head) - 1
            words: list[tuple[int, int]] = []
            position = head_start
            while len(words) < _MAX_MODIFIER_WORDS and position >= 2 and text[position - 1] in " -" \
                    and folded[position - 2] != " ":
                word_start = folded.rfind(" ", 0, position - 1) + 1
                words.insert(0, (word_start, position - 1))
                position = word_start
            for index, (start, _) in enumerate(words):
                modifier = " ".join(folded[a:b] for a, b in words[index:])
                entry = self._head_entry(modifier, head)
                if entry is None:
                    continue
                end = head_start + len(head)
                if any(hit[0] < end and start < hit[1] and not (start <= hit[0] and hit[1] <= end) for hit in scored):
                    break
                if any(hit[0] == start and hit[1] == end for hit in scored):
                    break
                scored = sorted([hit for hit in scored if not (start <= hit[0] and hit[1] <= end)] + [(start, end, entry)],
                                key=lambda hit: hit[:2])
                break
        return scored

    def _coordinated(self, text: str, mentions: list[Mention]) -> list[Mention]:
        """Each disease phrase's head shared by a modifier coordinated before it ("ocular and
        auditory toxicity": the ocular toxicity too), when that modifier and the head are a term of
        a disease; the modifier alone is its mention."""
        added: list[Mention] = []
        taken = 0
        for mention in mentions:
            if mention.entity_type != "Disease" or " " not in mention.text:
                taken = max(taken, mention.end)
                continue
            head = mention.text.rsplit(None, 1)[1]
            start = mention.start
            while (match := _COORDINATED_MODIFIER.search(text, max(taken, start - 40), start)) is not None:
                entry = self._disease_entry(f"{match.group(1)} {head}") or self._head_entry(match.group(1), head)
                if entry is None:
                    break
                added.append(Mention(match.start(1), match.end(1), match.group(1), entry[0], entry[1], COORDINATED,
                                     round(entry[3] * 0.9, 4)))
                start = match.start(1)
            taken = max(taken, mention.end)
        if not added:
            return mentions
        return sorted((*mentions, *added), key=lambda m: (m.start, m.end))

    def _head_entry(self, modifier: str, head: str) -> Entry | None:
        """What `_head_hits` reads "<modifier> <head>" as, if anything."""
        modifier, head = modifier.lower(), head.lower()
        entity_id = self._heads.get(modifier)
        if entity_id is None or head not in _HEAD_WORDS or f"{modifier} {head}" in self._excluded_heads:
            return None
        return Entry(entity_id, self.types.get(entity_id, "Disease"), MESH_HEAD, _PRIOR[MESH_HEAD], None)

    def _disease_entry(self, term: str) -> Entry | None:
        key_number = self._automaton.get(f" {term_key(term)} ", None)
        if key_number is None:
            return None
        return next((entry for entry in self._entries[self._rows[key_number]]
                     if entry[4] is None and entry[1] == "Disease"), None)

    def _resolve_abbreviations(self, text: str, mentions: list[Mention], abbreviations: Iterable) -> list[Mention]:
        for abbreviation in abbreviations:
            spans = short_form_uses(text, abbreviation)
            if not spans:
                continue
            # A longer match across an SF ("ACE inhibitors") keeps its reading; the SF there is skipped.
            first = spans[0][0]
            nearby = [m for m in mentions if m.end > first]
            spans = [(start, end) for start, end in spans
                     if not any(m.start < end and start < m.end and not (start <= m.start and m.end <= end)
                                for m in nearby)]
            inside = {id(m) for m in nearby for start, end in spans if start <= m.start and m.end <= end}
            kept = [m for m in mentions if id(m) not in inside]
            long_form = [m for m in mentions if m.end == abbreviation.long_end and m.start >= abbreviation.long_start]
            if long_form:
                named = long_form[0]
                confidence = round(named.confidence * 0.95, 4)
                kept.extend(Mention(start, end, text[start:end], named.entity_id, named.entity_type, ABBREVIATION,
                                    confidence) for start, end in spans)
                kept.sort(key=lambda mention: (mention.start, mention.end))
            mentions = kept
        return mentions


# A chemical's name glued to the end of a longer bracketed prefix is the tail of a systematic name:
# "[4-chloro-6-(2,3-xylidino)-2-pyrimidinylthio]acetic acid" is Wy-14,643, not acetic acid. Short
# labels keep their chemical ("[3H]spiperone", "L-[3H]nicotine").
SYSTEMATIC_PREFIX = 12
# So is one after a substituent joined by a hyphen: "2-ethyl-1-hexanol" is not 1-hexanol.
_SUBSTITUENT = re.compile(r"[a-z]{2,}yl-$", re.IGNORECASE)


def _in_systematic_name(text: str, start: int) -> bool:
    if start == 0 or text[start - 1] not in "])-":
        return False
    first = start
    while first > 0 and not text[first - 1].isspace():
        first -= 1
    prefix = text[first:start]
    return (len(prefix) >= SYSTEMATIC_PREFIX and ("[" in prefix or "(" in prefix)) or bool(_SUBSTITUENT.search(prefix))


class CurrentIdLinker:
    """`linker`'s mentions named by the vocabulary in force: a supplementary concept of the training
    set that MeSH now files under a descriptor, by its name or an entry term, is that descriptor,
    which is also what NLM indexes the records with (HAS_TOPIC). The corpus's graph and queries read
    these; scoring against BC5CDR's own ids, and the relation extractors trained on them, read
    `linker` itself."""

    def __init__(self, linker: EntityLinker) -> None:
        self.linker = linker
        self.current_ids = linker.current_ids

    def link(self, text: str) -> list[Mention]:
        return current_mentions(self.linker.link(text), self.current_ids)


def current_mentions(mentions: list[Mention], current: Mapping[str, str]) -> list[Mention]:
    """`mentions` with each id `current` supersedes replaced."""
    if not current:
        return mentions
    return [m if m.entity_id not in current else replace(m, entity_id=current[m.entity_id]) for m in mentions]


def _plural(word: str) -> str | None:
    if len(word) < 4 or not word.isalpha():
        return None
    if word.endswith("is"):
        return word[:-2] + "es"
    if word.endswith(("s", "x", "ch", "sh")):
        return None
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


_ADJECTIVE_SUFFIXES = (("sion", "sive"), ("osis", "otic"), ("itis", "itic"), ("psy", "ptic"), ("emia", "emic"),
                       ("ia", "ic"), ("pathy", "pathic"), ("etes", "etic"))


def _adjective(word: str) -> str | None:
    if len(word) < 6 or not word.isalpha():
        return None
    for suffix, replacement in _ADJECTIVE_SUFFIXES:
        if word.endswith(suffix):
            return word[: -len(suffix)] + replacement
    return None


# American spellings of MeSH's terms and their British forms, by word ("haemorrhage", "oedema",
# "oestrogen", "ischaemic", "diarrhoea", "tumour"): British and Commonwealth authors, Thai ones among
# them, write these. Anchored to a word's start or end so that other words keep their letters.
_BRITISH_SPELLINGS = tuple((re.compile(pattern), replacement) for pattern, replacement in (
    (r"^hem(?=[aot])", "haem"), (r"^edem", "oedem"), (r"^estr", "oestr"), (r"^esophag", "oesophag"),
    (r"^anesth", "anaesth"), (r"^pediatr", "paediatr"), (r"^orthoped", "orthopaed"), (r"^fet(?=us|al)", "foet"),
    (r"^celiac", "coeliac"), (r"(?<=[a-z])emi(?=as?$|cs?$)", "aemi"), (r"rrhea(?=s?$)", "rrhoea"),
    (r"^tumor(?=s?$)", "tumour"), (r"^color", "colour"), (r"^behavior", "behaviour"),
))


# Every spelling above contains one of these: most of MeSH's 264,000 keys are passed over at once
# (the per-word patterns would double the time to build the linker's dictionary).
_BRITISH_HINT = re.compile("hem|edem|estr|esophag|anesth|pediatr|orthoped|fet|celiac|emi|rrhea|tumor|color|behavior")


def british_spelling(key: str) -> str:
    """A folded key with each word in its British spelling (the key itself when none differs)."""
    if not _BRITISH_HINT.search(key):
        return key
    words = key.split(" ")
    for index, word in enumerate(words):
        for pattern, replacement in _BRITISH_SPELLINGS:
            word = pattern.sub(replacement, word)
        words[index] = word
    return " ".join(words)


def _case_sensitive(term: str) -> bool:
    """Acronym-like (two or more capitals in a short term) or very short terms match only as written."""
    letters = sum(char.isalpha() for char in term)
    capitals = sum(char.isupper() for char in term)
    return len(term) <= 3 or (capitals >= 2 and len(term) <= 8) or (letters and capitals == letters)


def dictionary_candidates(vocabulary: Vocabulary, types: dict[str, EntityType]) -> dict[str, list[_Candidate]]:
    """Every usable MeSH entry term, and its variants, by folded key."""
    found: dict[str, list[_Candidate]] = defaultdict(list)
    for concept in vocabulary.concepts.values():
        entity_type = types[concept.id]
        for position, term in enumerate((concept.name, *concept.synonyms)):
            if ", " in term:  # inverted forms ('Abdomen, Acute') are not how texts say it
                continue
            key = term_key(term)
            if len(key) < 2 or key in STOP_TERMS or key.isdigit():
                continue
            # One-word terms of the catch-all type are mostly everyday words of method and setting
            # ("treatment", "women", "report"): linked, they only make hubs of the graph.
            if entity_type == "Concept" and " " not in key:
                continue
            sensitive = _case_sensitive(term)
            rank = (0 if position == 0 else 1, 0 if entity_type in _SCORED else 1, concept.id)
            found[key].append(_Candidate(key, concept.id, DICTIONARY, _PRIOR[DICTIONARY],
                                         {term, term + "s"} if sensitive else None, rank))
            if sensitive:
                continue
            variant_rank = (2, rank[1], concept.id)
            british = british_spelling(key)
            if british != key:
                found[british].append(_Candidate(british, concept.id, VARIANT, _PRIOR[VARIANT], None, variant_rank))
            if " " in key and entity_type != "Disease":
                continue
            for spelling in (key,) if british == key else (key, british):
                head, _, last = spelling.rpartition(" ")
                for variant_last in (_plural(last), _adjective(last) if entity_type == "Disease" else None):
                    if variant_last:
                        variant = f"{head} {variant_last}".strip()
                        found[variant].append(_Candidate(variant, concept.id, VARIANT, _PRIOR[VARIANT], None,
                                                         variant_rank))
    return found


# Longer supplementary names are systematic names and drug combinations that texts seldom write as
# MeSH does; they were half the characters (and of the memory) the 7,527 names add to the dictionary.
SUPPLEMENTARY_LONGEST = 40


def supplementary_candidates(supplementary: Mapping[str, str], candidates: dict[str, list[_Candidate]],
                             types: dict[str, EntityType]) -> None:
    """MeSH's supplementary concepts with a pharmacological action (`load_supplementary_names`) by
    their name, as chemicals: below every descriptor's reading of the same words."""
    for entity_id, name in supplementary.items():
        key = term_key(name)
        if not 4 <= len(key) <= SUPPLEMENTARY_LONGEST or key in STOP_TERMS or key.isdigit():
            continue
        types.setdefault(entity_id, "Chemical")
        forms = {name, name + "s"} if _case_sensitive(name) else None
        candidates[key].append(_Candidate(key, entity_id, SUPPLEMENTARY, _PRIOR[SUPPLEMENTARY], forms,
                                          (3, 0, entity_id)))


def head_modifiers(vocabulary: Vocabulary) -> dict[str, str]:
    """The modifier of each organ-system or mental-disorder descriptor's "<modifier> Diseases" or
    "<modifier> Disorders" term (name first) -> the descriptor; read with the generic heads when
    a text is linked (`EntityLinker._head_mentions`)."""
    found: dict[str, tuple[tuple[int, str], str]] = {}
    for concept in vocabulary.concepts.values():
        if concept.type != "Disease" or not any(map(_SYSTEM_BRANCH.match, concept.tree_numbers)):
            continue
        for position, term in enumerate((concept.name, *concept.synonyms)):
            if ", " in term:
                continue
            modifier, _, last = term_key(term).rpartition(" ")
            if last in _DISEASE_HEADS and len(modifier) > 3 and modifier not in STOP_TERMS:
                rank = (min(position, 1), concept.id)
                if modifier not in found or rank < found[modifier][0]:
                    found[modifier] = (rank, concept.id)
    return {modifier: entity_id for modifier, (_, entity_id) in sorted(found.items())
            if not _COURSE_WORDS.intersection(modifier.split()[:-1])}


@dataclass(slots=True)
class TrainingPairs:
    """What a PubTator training set says: folded mention text -> its MeSH ids (counted) and the
    spellings it was written in; MeSH id -> the types it was annotated as and the texts that name
    it (both counted)."""

    ids: dict[str, Counter[str]]
    spellings: dict[str, set[str]]
    types: dict[str, Counter[str]]
    texts: dict[str, Counter[str]]

    def name_of(self, entity_id: str) -> str:
        """The name that names `entity_id` most often, whatever its case, spelt-out names before
        acronyms (an abstract defines "PDTC" once, then writes it throughout); written as it is most
        often, of equals with the fewest capitals ("Chloroacetaldehyde" once, "chloroacetaldehyde"
        once: the latter)."""
        texts = self.texts[entity_id]
        spelt = {text: count for text, count in texts.items() if not _case_sensitive(text)} or texts
        groups: dict[str, Counter[str]] = defaultdict(Counter)
        for text, count in spelt.items():
            groups[text.casefold()][text] += count
        group = min(groups.items(), key=lambda item: (-item[1].total(), item[0]))[1]
        return min(group.items(), key=lambda item: (-item[1], sum(map(str.isupper, item[0])), item[0]))[0]


def training_pairs(documents: Iterable[PubtatorDocument]) -> TrainingPairs:
    pairs = TrainingPairs(defaultdict(Counter), defaultdict(set), defaultdict(Counter), defaultdict(Counter))
    for document in documents:
        for annotation in document.annotations:
            if len(annotation.ids) != 1:
                continue  # composite mentions name several concepts; -1 names none
            entity_id = mesh_entity_id(annotation.ids[0])
            key = term_key(annotation.text)
            pairs.ids[key][entity_id] += 1
            pairs.spellings[key].add(annotation.text)
            pairs.types[entity_id][annotation.type] += 1
            pairs.texts[entity_id][annotation.text] += 1
    return pairs


def head_variants(pairs: TrainingPairs, min_count: int = 2, min_share: float = 0.6) -> dict[str, str]:
    """Folded key -> MeSH id for every head of a group whose modifier the training set gives one
    reading with the group's other heads: at least `min_count` mentions, `min_share` of them."""
    heads = {head: group for group in GENERIC_HEADS for head in group}
    readings: dict[tuple[str, tuple[str, ...]], Counter[str]] = defaultdict(Counter)
    for key, counts in pairs.ids.items():
        modifier, _, head = key.rpartition(" ")
        if head in heads and len(modifier) > 2:
            readings[modifier, heads[head]].update(counts)
    variants: dict[str, str] = {}
    for (modifier, group), counts in sorted(readings.items()):
        entity_id, count = counts.most_common(1)[0]
        if count >= min_count and count >= min_share * sum(counts.values()):
            variants.update((f"{modifier} {head}", entity_id) for head in group)
    return variants


def _compile(candidates: dict[str, list[_Candidate]], types: dict[str, EntityType],
             names: dict[str, str] | None = None, current_ids: dict[str, str] | None = None,
             heads: dict[str, str] | None = None, excluded_heads: frozenset[str] = frozenset()) -> EntityLinker:
    # Each key's value is its number, which indexes two arrays: its padded length and its row in a
    # table of distinct rows of entries. 134,000 keys name 34,000 distinct rows (a concept's
    # variants read the same); a tuple per key and an Entry per key and concept took 30 MB of the
    # warm server.
    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    lengths, key_rows = array("H"), array("I")
    entries: list[tuple[Entry, ...]] = []
    rows: dict[tuple[Entry, ...], int] = {}
    shared: dict[Entry, Entry] = {}
    for key, options in candidates.items():
        if not options:
            continue
        ordered = sorted(options, key=lambda option: option.rank)
        # Exact-spelling entries first, then the first case-free one: a folded key names one concept
        # per spelling rule.
        chosen: list[Entry] = []
        seen: set[str] = set()
        for option in ordered:
            if option.forms is not None:
                forms = frozenset(option.forms - seen)
                if forms:
                    chosen.append(Entry(option.entity_id, types.get(option.entity_id, "Concept"), option.linker,
                                        option.confidence, forms))
                    seen |= forms
        free = next((option for option in ordered if option.forms is None), None)
        if free is not None:
            chosen.append(Entry(free.entity_id, types.get(free.entity_id, "Concept"), free.linker, free.confidence,
                                None))
        row = tuple(shared.setdefault(entry, entry) for entry in chosen)
        index = rows.setdefault(row, len(entries))
        if index == len(entries):
            entries.append(row)
        automaton.add_word(f" {key} ", len(lengths))
        lengths.append(len(key) + 2)
        key_rows.append(index)
    automaton.make_automaton()
    return EntityLinker(automaton, lengths, key_rows, entries, types, names, current_ids, heads, excluded_heads)


@dataclass(slots=True)
class LinkerPriors:
    """What the linker learns from an annotated training set, without its texts: the mention ->
    MeSH pairs, and the keys and tree branches whose dictionary matches were mostly wrong there
    (`_imprecise`). Shipped in the package (`data_files.BC5CDR_PRIORS`, built by
    `bio-mcp data build-vocabularies`), so an install links as the checkout does."""

    pairs: TrainingPairs
    imprecise_keys: frozenset[str]
    imprecise_branches: frozenset[str]
    # The training documents' PMIDs, so a score on documents the priors learnt from is flagged.
    pmids: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, object]:
        return {
            # In the order training met them: `Counter.most_common` breaks ties by it.
            "ids": {key: dict(counts) for key, counts in self.pairs.ids.items()},
            "spellings": {key: sorted(texts) for key, texts in self.pairs.spellings.items()},
            "types": {key: dict(counts) for key, counts in self.pairs.types.items()},
            "texts": {key: dict(counts) for key, counts in self.pairs.texts.items()},
            "imprecise_keys": sorted(self.imprecise_keys), "imprecise_branches": sorted(self.imprecise_branches),
            "pmids": sorted(self.pmids),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> LinkerPriors:
        def counters(value: object) -> defaultdict[str, Counter[str]]:
            return defaultdict(Counter, {key: Counter(counts) for key, counts in value.items()})  # type: ignore[union-attr]

        pairs = TrainingPairs(counters(data["ids"]), defaultdict(set, {key: set(texts) for key, texts in
                                                                      data["spellings"].items()}),  # type: ignore[union-attr]
                              counters(data["types"]), counters(data["texts"]))
        return cls(pairs, frozenset(data["imprecise_keys"]), frozenset(data["imprecise_branches"]),  # type: ignore[arg-type]
                   frozenset(data.get("pmids", ())))  # type: ignore[arg-type]


def _with_pairs(vocabulary: Vocabulary, pairs: TrainingPairs, supplementary: Mapping[str, str]
                ) -> tuple[dict[str, list[_Candidate]], dict[str, EntityType]]:
    """MeSH's terms (and `supplementary` names) plus the training set's pairs (which outrank them),
    and the types they give."""
    types: dict[str, EntityType] = {concept.id: concept.type for concept in vocabulary.concepts.values()}
    # BC5CDR's reading of a concept's type wins over the tree's ("Death" is annotated a disease).
    for entity_id, counts in pairs.types.items():
        types[entity_id] = counts.most_common(1)[0][0]  # type: ignore[assignment]
    candidates = dictionary_candidates(vocabulary, types)
    supplementary_candidates(supplementary, candidates, types)
    for key, counts in pairs.ids.items():
        entity_id, count = counts.most_common(1)[0]
        if len(key) < 2 or count * 2 < sum(counts.values()):
            continue
        share = count / sum(counts.values())
        spellings = pairs.spellings[key]
        forms = spellings | {text + "s" for text in spellings} if all(map(_case_sensitive, spellings)) else None
        # The training pair outranks MeSH's own reading of the same words (rank -1 sorts first).
        option = _Candidate(key, entity_id, TRAINING, round(_PRIOR[TRAINING] * share, 4), forms, (-1, 0, entity_id))
        candidates[key].insert(0, option)
    for key, entity_id in head_variants(pairs).items():
        if key not in candidates:
            candidates[key].append(_Candidate(key, entity_id, TRAINING_HEAD, _PRIOR[TRAINING_HEAD], None,
                                              (-1, 1, entity_id)))
    return candidates, types


def linker_priors(vocabulary: Vocabulary, training: list[PubtatorDocument], min_precision: float = 0.4,
                  min_branch_precision: float = 0.4, supplementary: Mapping[str, str] | None = None) -> LinkerPriors:
    """What `training` teaches the linker over `vocabulary` and `supplementary` (see `LinkerPriors`)."""
    pairs = training_pairs(training)
    candidates, types = _with_pairs(vocabulary, pairs, supplementary or {})
    keys, branches = _imprecise(_compile(candidates, types, heads=head_modifiers(vocabulary)), training, vocabulary,
                                min_precision, min_branch_precision)
    return LinkerPriors(pairs, frozenset(keys), frozenset(branches), frozenset(d.pmid for d in training))


def build_linker(vocabulary: Vocabulary, training: list[PubtatorDocument] | LinkerPriors | None = None,
                 min_precision: float = 0.4, min_branch_precision: float = 0.4,
                 supplementary: Mapping[str, str] | None = None, drugs: Collection[str] = frozenset()) -> EntityLinker:
    """MeSH's terms and the `supplementary` concepts' names (`load_supplementary_names`), plus the
    training set's pairs and minus the terms it shows to be mostly wrong; `training` is the
    annotated documents or what was learnt from them (`LinkerPriors`). `drugs`: the concepts with a
    pharmacological action (`load_pharm_actions`), linked even in a branch the training set shows
    to be mostly wrong."""
    supplementary = supplementary or {}
    if not training:
        types: dict[str, EntityType] = {concept.id: concept.type for concept in vocabulary.concepts.values()}
        candidates = dictionary_candidates(vocabulary, types)
        supplementary_candidates(supplementary, candidates, types)
        return _compile(candidates, types, _named(candidates, supplementary), heads=head_modifiers(vocabulary))
    if isinstance(training, LinkerPriors):
        priors = training
        candidates, types = _with_pairs(vocabulary, priors.pairs, supplementary)
        keys, branches = priors.imprecise_keys, priors.imprecise_branches
    else:
        priors = LinkerPriors(training_pairs(training), frozenset(), frozenset())
        candidates, types = _with_pairs(vocabulary, priors.pairs, supplementary)
        keys, branches = _imprecise(_compile(candidates, types, heads=head_modifiers(vocabulary)), training,
                                    vocabulary, min_precision, min_branch_precision)
    pairs = priors.pairs
    for key in keys:
        candidates.pop(key, None)
    # A concept the training set never names, filed (anywhere) in a branch of the tree whose terms
    # were mostly wrong there (proteins, enzymes, drug classes: BC5CDR does not annotate them), is
    # not linked, unless it is a drug: infliximab, trastuzumab and etanercept are proteins.
    unconfirmed = {
        concept.id for concept in vocabulary.concepts.values()
        if concept.id not in pairs.types and concept.id not in drugs and _branch_of(concept.tree_numbers, branches)
    }
    for key in list(candidates):
        kept = [option for option in candidates[key]
                if option.linker == TRAINING or option.entity_id not in unconfirmed]
        if kept:
            candidates[key] = kept
        else:
            del candidates[key]
    linked = {option.entity_id for options in candidates.values() for option in options}
    names = {entity_id: pairs.name_of(entity_id) for entity_id in sorted(linked)
             if entity_id in pairs.texts and vocabulary.get(entity_id) is None}
    promoted = _promoted(names, types, vocabulary)
    heads = {modifier: entity_id for modifier, entity_id in head_modifiers(vocabulary).items()
             if entity_id not in unconfirmed}
    excluded = frozenset(key for key in keys if key.rpartition(" ")[2] in _HEAD_WORDS)
    return _compile(candidates, types, {**_named(candidates, supplementary), **names}, promoted, heads, excluded)


def _named(candidates: Mapping[str, list[_Candidate]], supplementary: Mapping[str, str]) -> dict[str, str]:
    """The supplementary concepts some key still links, by their MeSH name."""
    linked = {option.entity_id for options in candidates.values() for option in options}
    return {entity_id: name for entity_id, name in sorted(supplementary.items()) if entity_id in linked}


def _promoted(names: Mapping[str, str], types: Mapping[str, EntityType], vocabulary: Vocabulary) -> dict[str, str]:
    """Concepts the descriptors do not hold -> the one descriptor of their type named so, or having
    that name as an entry term, as NLM indexes it ("venlafaxine" is Venlafaxine Hydrochloride's); a
    name several descriptors share says nothing, nor does one of another type (BC5CDR's disease
    "muscle contractions" is not the physiology of Muscle Contraction)."""
    promoted: dict[str, str] = {}
    for entity_id, name in names.items():
        descriptors = vocabulary.exactly(name)
        if len(descriptors) == 1 and vocabulary.concepts[descriptors[0]].type == types.get(entity_id):
            promoted[entity_id] = descriptors[0]
    return promoted


def _branch_of(tree_numbers: Iterable[str], branches: set[str]) -> bool:
    return any(tree == branch or tree.startswith(branch + ".") for tree in tree_numbers for branch in branches)


def _imprecise(linker: EntityLinker, training: list[PubtatorDocument], vocabulary: Vocabulary,
               min_precision: float, min_branch_precision: float) -> tuple[set[str], set[str]]:
    """Keys, and tree branches (two levels deep), whose Chemical or Disease mentions on the training
    set were right less often than the bounds (smoothed: one right and one wrong added)."""
    predicted: Counter[str] = Counter()
    correct: Counter[str] = Counter()
    branch_predicted: Counter[str] = Counter()
    branch_correct: Counter[str] = Counter()
    for document in training:
        gold = [(a.start, a.end, {mesh_entity_id(ui) for ui in a.ids}) for a in document.annotations]
        for mention in linker._dictionary_mentions(document.text):
            if mention.entity_type not in _SCORED:
                continue
            key = term_key(mention.text)
            right = any(start < mention.end and mention.start < end and mention.entity_id in ids
                        for start, end, ids in gold)
            predicted[key] += 1
            correct[key] += right
            concept = vocabulary.concepts.get(mention.entity_id)
            for branch in {".".join(tree.split(".")[:2]) for tree in (concept.tree_numbers if concept else ())}:
                branch_predicted[branch] += 1
                branch_correct[branch] += right
    keys = {key for key, count in predicted.items() if (correct[key] + 1) / (count + 2) < min_precision}
    branches = {branch for branch, count in branch_predicted.items()
                if (branch_correct[branch] + 1) / (count + 2) < min_branch_precision}
    return keys, branches


def training_path_of(settings: Settings) -> Path | None:
    """BIO_MCP_LINKER_TRAINING (a PubTator file), else the priors learnt from BC5CDR's training split
    shipped in the package (`LinkerPriors`), else None (MeSH alone)."""
    if settings.linker_training_path is not None:
        return settings.linker_training_path
    return data_file(None, BC5CDR_PRIORS)


def load_linker_from(mesh_path: Path, training_path: Path | None, cache_dir: Path | None,
                     held_out: frozenset[str] = frozenset()) -> EntityLinker:
    """Built from the files, or read from a pickle in `cache_dir` keyed by the files' hashes.

    `held_out`: PMIDs whose training documents are left out, so a linker scored on a file never
    learnt from that file's documents (the shared BC5CDR training file also holds the development
    split's 500 abstracts).
    """
    supplementary_path = pharm_actions_path(mesh_path)
    if cache_dir is None:
        return build_linker(load_vocabulary(mesh_path), _training(training_path, held_out),
                            supplementary=_supplementary(supplementary_path), drugs=_drugs(supplementary_path))
    digest = file_digest(mesh_path)[:12]
    if supplementary_path is not None:
        digest += f"-{file_digest(supplementary_path)[:12]}"
    if training_path is not None:
        digest += f"-{file_digest(training_path)[:12]}"
    if held_out:
        digest += "-" + sha256_hex(" ".join(sorted(held_out)))[:12]
    cache = cache_dir / f"entity-linker-{_code_digest()}-{digest}.pickle"
    # Pickles of the same files built by earlier code are dead weight (about 45 MB each).
    # The vocabulary is read only to build: a linker read back does not need it.
    return load_cached(cache, EntityLinker,
                       lambda: build_linker(load_vocabulary(mesh_path, cache_dir), _training(training_path, held_out),
                                            supplementary=_supplementary(supplementary_path),
                                            drugs=_drugs(supplementary_path)),
                       stale=f"entity-linker-*-{digest}.pickle")


def _supplementary(path: Path | None) -> dict[str, str]:
    return load_supplementary_names(path) if path is not None else {}


def _drugs(path: Path | None) -> frozenset[str]:
    return frozenset(load_pharm_actions(path)) if path is not None else frozenset()


def _training(training_path: Path | None, held_out: frozenset[str]) -> list[PubtatorDocument] | LinkerPriors | None:
    """The training file's documents but `held_out`, or the priors a shipped file holds (learnt
    without BC5CDR's development split); read only to build a linker (a cached one does not need
    them: the annotation worker starts that much sooner)."""
    if training_path is None:
        return None
    if is_json(training_path):
        return LinkerPriors.from_json(read_json(training_path)["linker"])  # type: ignore[index]
    return [document for document in read_pubtator(training_path) if document.pmid not in held_out]


@lru_cache(maxsize=1)
def _code_digest() -> str:
    """The linker's own source, so a pickle built by other code is never read back."""
    here = Path(__file__)
    sources = (here, here.with_name("abbreviations.py"), here.with_name("vocabulary.py"))
    return sha256_hex("".join(path.read_text(encoding="utf-8") for path in sources))[:12]


@lru_cache(maxsize=4)
def _cached_linker(mesh_path: Path, training_path: Path | None, cache_dir: Path | None) -> EntityLinker:
    return load_linker_from(mesh_path, training_path, cache_dir)


def load_linker(settings: Settings) -> EntityLinker:
    """The process's linker for these settings; built (or read from BIO_MCP_HOME/cache) once."""
    mesh_path = mesh_path_of(settings)
    if mesh_path is None or not mesh_path.is_file():
        raise BioMcpError(ErrorCode.INVARIANT_FAILURE, "MeSH descriptors not found: set BIO_MCP_MESH_PATH",
                          {"setting": "BIO_MCP_MESH_PATH"})
    return _cached_linker(mesh_path, training_path_of(settings), settings.caches)
