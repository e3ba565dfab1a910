"""Which of a query's terms the documents a search returned name, by any synonym.

    terms = query_terms("Is metformin associated with lower cancer risk?", linker, names=catalog_names(catalog))
    unmatched = unmatched_terms(terms, [title + "\\n" + abstract for each returned document], linker)
    coverage_sentence(terms, unmatched)
    # "No document mentions metformin; the results below match only 'cancer risk'."

A ranked list always has a first result, and its score says how it compares with the others, not
whether it is about what was asked: a query naming a drug no document mentions still gets papers
that match its other words. `rag.search`, `kb.search` and `tool.hybrid_search` list the terms no
returned document names (`unmatched_terms`) and say so first in their text, and the score each
result reports is scaled by the share of the query's terms it names (`covered_score`), so the best
of a bad lot does not read as a near-perfect match.

A query's terms are
- the entities the linker finds in it (a MeSH descriptor, by the words the query names it with), and
  the entities the caller read from it otherwise (a herb named in Thai: `named`);
- its other content words: words of three or more letters that are neither function words nor the
  generic words of a question ("associated", "effect", "lower"), nor part of an entity's mention or
  of a name of an entity the query names (a Thai query is searched with its herbs' English names:
  those words are that herb, not terms of their own).

A document names an entity when one of the entity's names (its MeSH heading and entry terms, and
whatever `names` adds: a herb's Thai, English and scientific names) occurs in it as whole words, or
when the linker finds the entity in it (plurals, British spellings, abbreviations the text defines);
so "paracetamol" names Acetaminophen, and "breast cancer" names Neoplasms through its entry term
"cancer". It names a content word when one of its words has the same light stem ("interactions",
"interacting" and "interaction" meet). Short and acronym-like names (two or more capitals) are left
to the linker, whose case rules keep "AIDS" from matching "aids".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.linking import fold, term_key
from bio_mcp.graph.mentions import Mention
from bio_mcp.thai_script import THAI_CHAR

NameSource = Callable[[str], Iterable[str]]

# Words as `term_key` folds a document (punctuation and hyphens split them). Thai is left out: a
# Thai query is read in English before it gets here, and its untranslated words are said apart.
_WORD = re.compile(r"[^\W_]+")
# Function words, question words and the generic words a question wraps its subject in: a document
# that lacks "associated" or "lower" is not missing what the question is about.
STOPWORDS = frozenset([
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
    "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do",
    "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he",
    "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "may",
    "me", "might", "more", "most", "must", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or",
    "other", "our", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the",
    "their", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until",
    "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
    "with", "would", "you", "your", "yes", "versus", "vs", "whether", "among", "within", "without", "associated",
    "association", "associations", "associate", "link", "linked", "links", "relationship", "relation", "related",
    "effect", "effects", "affect", "affects", "affected", "impact", "influence", "role", "roles", "lower", "higher",
    "low", "high", "less", "greater", "increase", "increased", "increases", "increasing", "decrease", "decreased",
    "decreases", "decreasing", "reduce", "reduced", "reduces", "reducing", "reduction", "improve", "improved",
    "improves", "improving", "cause", "causes", "caused", "use", "used", "uses", "using", "good", "bad", "better",
    "worse", "best", "worst", "safe", "new", "many", "much", "well", "way", "ways", "people", "person", "evidence",
    "study", "studies", "known", "show", "shows", "shown", "result", "results", "common", "treat", "treated",
    "treats", "prevent", "prevents", "prevented", "help", "helps", "work", "works"
])
# Suffixes stripped so that inflections meet; a stem keeps at least four letters.
_SUFFIXES = ("ations", "ation", "ions", "ion", "ments", "ment", "ings", "ing", "ies", "ied", "ed", "es", "ly", "s")


def stem(word: str) -> str:
    """A light suffix strip (interactions / interacting / interaction: "interact")."""
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


class TextLinker(Protocol):
    def link(self, text: str) -> Sequence[Mention]: ...


@dataclass(frozen=True, slots=True)
class QueryTerm:
    """One term of the query: `label` as the query says it, at `start`:`end` of the searched text (-1
    for a name that text does not hold: a Thai herb name). An entity term has its `entity_id` and
    `forms`, the folded names that name it; a word term its `stem`."""

    label: str
    start: int
    end: int
    entity_id: str | None = None
    forms: tuple[str, ...] = ()
    stem: str = ""


def catalog_names(catalog: MeshCatalog | None) -> NameSource:
    """An entity's MeSH heading and entry terms (or the linker's name for an entity MeSH's
    descriptors do not describe)."""

    def names(entity_id: str) -> Iterable[str]:
        if catalog is None:
            return ()
        concept = catalog.vocabulary.get(entity_id) if catalog.vocabulary is not None else None
        if concept is not None:
            return (concept.name, *concept.synonyms)
        name = catalog.name_of(entity_id)
        return (name,) if name else ()

    return names


def _matchable(name: str) -> bool:
    """Whether a name is matched here as folded whole words; short and acronym-like names (which
    the linker matches only as written) are not."""
    letters = sum(char.isalpha() for char in name)
    capitals = sum(char.isupper() for char in name)
    return len(name) > 3 and not (capitals >= 2 and len(name) <= 8) and not (letters and capitals == letters)


def _entity_term(label: str, start: int, end: int, entity_id: str, names: NameSource) -> QueryTerm:
    forms = {term_key(name) for name in (label, *names(entity_id)) if _matchable(name)}
    return QueryTerm(label, start, end, entity_id, tuple(sorted(form for form in forms if form)))


def _outermost(mentions: Iterable[Mention]) -> list[Mention]:
    """The mentions not inside a longer one: "breast cancer" is one term, not also "breast" (the
    linker resolves diseases and chemicals apart from anatomy, so both come back)."""
    kept: list[Mention] = []
    for mention in sorted(mentions, key=lambda m: (m.start, -m.end)):
        if not kept or mention.end > kept[-1].end:
            kept.append(mention)
    return kept


def query_terms(
    text: str,
    linker: TextLinker | None,
    named: Sequence[tuple[str, str]] = (),
    names: NameSource = lambda entity_id: (),
) -> list[QueryTerm]:
    """The terms of `text` (the query as searched: a Thai query's English reading), in query order.
    `named`: (entity id, how the query names it) of entities read from the query otherwise (its herb
    names, Thai ones first as `text` does not hold them); `names(entity_id)`: the names that count as
    naming an entity."""
    terms: list[QueryTerm] = []
    seen: set[str] = set()
    # Words that are an entity the query names: the named entities' names, and the linked mentions.
    covered: set[str] = set()
    folded = fold(text)
    for entity_id, label in named:
        if entity_id in seen:
            continue
        seen.add(entity_id)
        # Where the query writes the name (an English herb name), as written; a Thai name is not
        # in the English text searched, and its term goes first.
        words = term_key(label).split()
        found = re.search(r"(?<!\w)" + r"\s+".join(map(re.escape, words)) + r"(?!\w)", folded) if words else None
        if found:
            terms.append(_entity_term(text[found.start() : found.end()], found.start(), found.end(), entity_id, names))
        else:
            terms.append(_entity_term(label, -1, -1, entity_id, names))
        for name in (label, *names(entity_id)):
            covered.update(term_key(name).split())
    spans: list[tuple[int, int]] = []
    for mention in _outermost(linker.link(text) if linker is not None else ()):
        spans.append((mention.start, mention.end))
        # A word of a named entity's names ("saffron" in turmeric's "Indian saffron") is that entity.
        if mention.entity_id in seen or set(term_key(mention.text).split()) <= covered:
            continue
        seen.add(mention.entity_id)
        terms.append(_entity_term(mention.text, mention.start, mention.end, mention.entity_id, names))
    for match in _WORD.finditer(text):
        word = match.group()
        key = word.lower()
        if (
            len(key) < 3 or key in STOPWORDS or not any(char.isalpha() for char in key) or key in covered
            or THAI_CHAR.search(key) or any(start <= match.start() < end for start, end in spans)
        ):
            continue
        word_stem = stem(key)
        if any(term.stem == word_stem for term in terms):
            continue
        terms.append(QueryTerm(word, match.start(), match.end(), stem=word_stem))
    terms.sort(key=lambda term: term.start)
    return terms


@dataclass
class _Document:
    text: str
    folded: str = field(init=False)
    stems: set[str] = field(init=False)
    _linked: set[str] | None = None

    def __post_init__(self) -> None:
        self.folded = f" {term_key(self.text)} "
        self.stems = {stem(word) for word in self.folded.split()}

    def linked(self, linker: TextLinker | None) -> set[str]:
        if self._linked is None:
            self._linked = {mention.entity_id for mention in linker.link(self.text)} if linker is not None else set()
        return self._linked

    def writes(self, term: QueryTerm) -> bool:
        """Whether the text holds one of the term's forms (a word term: a word of its stem)."""
        if term.entity_id is None:
            return term.stem in self.stems
        return any(f" {form} " in self.folded for form in term.forms)


def unmatched_terms(terms: Sequence[QueryTerm], texts: Iterable[str], linker: TextLinker | None) -> list[str]:
    """The labels of the terms no text names, in query order; none when there is no text (nothing
    was returned, so nothing is claimed to match). The linker reads a text only for an entity no
    text writes in one of its forms, the costly case `bench/unmatched_terms_cost.py` measures."""
    documents = [_Document(text) for text in texts]
    if not documents:
        return []
    unmatched = []
    for term in terms:
        if any(document.writes(term) for document in documents):
            continue
        if term.entity_id is not None and any(term.entity_id in document.linked(linker) for document in documents):
            continue
        unmatched.append(term.label)
    return list(dict.fromkeys(unmatched))


# What a result naming none of the query's terms keeps of its retrieval score, at most: a ranked
# list's best reads near 1 however poor the lot (BM25 is scaled by the query's best), so the score
# reported is scaled by the share of the query's terms the result names. The floor leaves a
# paraphrase (a match by meaning alone) below 0.5 yet above nothing. Results are re-sorted by the
# scaled score; on SciFact train (BM25 only, `bench/score_coverage.py`) that cost nDCG@10 0.002 on
# the even queries (0.7275 to 0.7254) and 0.007 on the odd ones (0.6799 to 0.6729); a floor of 0.6
# costs less but leaves an off-topic best at 0.6.
COVERAGE_FLOOR = 0.4


def term_coverage(terms: Sequence[QueryTerm], text: str, linker: TextLinker | None) -> float:
    """The share of `terms` that `text` names by any synonym (1.0 for a query without terms)."""
    if not terms:
        return 1.0
    document = _Document(text)
    named = sum(
        1 for term in terms
        if document.writes(term) or (term.entity_id is not None and term.entity_id in document.linked(linker))
    )
    return named / len(terms)


def covered_score(score: float, coverage: float, floor: float = COVERAGE_FLOOR) -> float:
    """A retrieval score in [0, 1] scaled by the result's term coverage: a result naming every term
    keeps its score, one naming none keeps `floor` of it."""
    return min(1.0, max(0.0, score)) * (floor + (1.0 - floor) * min(1.0, max(0.0, coverage)))


def _either(labels: Sequence[str]) -> str:
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} or {labels[-1]}"


def coverage_sentence(terms: Sequence[QueryTerm], unmatched: Sequence[str]) -> str | None:
    """What a search's text says first when some term is named by no returned document: which, and
    which of the query's terms the results do match (terms one space apart in the query as one
    phrase: 'cancer risk')."""
    if not unmatched:
        return None
    missing = set(unmatched)
    runs: list[list[QueryTerm]] = []
    for term in terms:
        if term.label in missing:
            continue
        if runs and runs[-1][-1].end >= 0 and term.start - runs[-1][-1].end == 1:
            runs[-1].append(term)
        else:
            runs.append([term])
    head = f"No document mentions {_either(list(unmatched))}"
    if not runs:
        return f"{head}; the results below match none of the query's terms, only its meaning."
    phrases = ", ".join(f"'{' '.join(term.label for term in run)}'" for run in runs)
    return f"{head}; the results below match only {phrases}."
