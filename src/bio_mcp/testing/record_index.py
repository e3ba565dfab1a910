"""Search, sort, citation and similarity over one snapshot of the records the fake E-utilities holds."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from datetime import date
from functools import cached_property

from bio_mcp.testing.entrez_query import DateRange, SearchField, Term, positive_terms
from bio_mcp.testing.entrez_query import Node as QueryNode
from bio_mcp.testing.mesh_tree import MeshTree
from bio_mcp.testing.pubmed_records import PubmedRecord, normalize
from bio_mcp.testing.spelling import vocabulary

# ELink gives a record's own PMID first among its neighbours, with the largest score there is.
SELF_SCORE = 2147483647
# Like ELink, list only the closest neighbours rather than every record sharing a word.
MAX_NEIGHBOURS = 200

_FILTERS: dict[str, Callable[[PubmedRecord], bool]] = {
    "all": lambda record: True,
    "hasabstract": lambda record: bool(record.article.abstract_sections),
    "medline": lambda record: record.article.status == "MEDLINE",
    "pubmednotmedline": lambda record: record.article.status == "PubMed-not-MEDLINE",
    "pmc": lambda record: bool(record.article.article_id("pmc")),
    "free full text": lambda record: bool(record.article.article_id("pmc")),
}


def _phrase_in(text: str, phrase: str, wildcard: bool) -> bool:
    return f" {phrase}" in text if wildcard else f" {phrase} " in text


def _value_in(values: Iterable[str], value: str, wildcard: bool) -> bool:
    if wildcard:
        return any(candidate.startswith(value) for candidate in values)
    return value in values


def _author_matches(names: Iterable[str], wanted: str, wildcard: bool) -> bool:
    """PubMed author matching: "smith"[au] and "smith j"[au] both find "Smith JA"; "smi"[au] does not."""
    wanted_tokens = wanted.split()
    for name in names:
        if wildcard:
            if name.startswith(wanted):
                return True
            continue
        tokens = name.split()
        if len(wanted_tokens) > len(tokens):
            continue
        *leading, last = wanted_tokens
        if tokens[: len(leading)] != leading:
            continue
        candidate = tokens[len(leading)]
        if candidate == last or (
            len(leading) == len(tokens) - 1 and len(leading) > 0 and candidate.startswith(last)
        ):
            return True
    return False


class RecordIndex:
    """Term and date matching over an immutable snapshot of records; cached results live as long as it.

    #N history references belong to a caller's WebEnv, not to the records: the fake answers those.
    """

    def __init__(self, records: Mapping[str, PubmedRecord], mesh_tree: Callable[[], MeshTree | None]) -> None:
        self.records = records
        # Loaded on the first MeSH search only: most tests never pay for the 30,000 descriptors.
        self.mesh_tree = mesh_tree
        self._term_cache: dict[Term, frozenset[str]] = {}

    @cached_property
    def vocabulary(self) -> Counter[str]:
        """The words of every record's searchable fields, with their counts (the fake ESpell's lexicon)."""
        return vocabulary(record.article.search.all_fields for record in self.records.values())

    def term_ids(self, term: Term) -> frozenset[str]:
        if term not in self._term_cache:
            matcher = self._matcher(term)
            self._term_cache[term] = frozenset(
                pmid for pmid, record in self.records.items() if matcher(record)
            )
        return self._term_cache[term]

    def date_ids(self, date_range: DateRange) -> frozenset[str]:
        def inside(day: date) -> bool:
            return date_range.start <= day <= date_range.end

        if date_range.field is SearchField.PUBLICATION_DATE:
            return frozenset(
                pmid
                for pmid, record in self.records.items()
                if any(inside(day) for day in record.article.publication_dates)
            )
        if date_range.field is SearchField.MODIFICATION_DATE:
            return frozenset(
                pmid for pmid, record in self.records.items() if inside(record.article.modification_date)
            )
        return frozenset(pmid for pmid, record in self.records.items() if inside(record.entrez_date.date()))

    def _matcher(self, term: Term) -> Callable[[PubmedRecord], bool]:
        wildcard = term.is_wildcard
        wanted = normalize(term.text)
        field = term.field
        if not wanted or field.is_date:
            # A date field reaches here only with text that is no date: PubMed finds nothing for it.
            return lambda record: False
        if field in (SearchField.ALL, SearchField.FILTER) and wanted in _FILTERS:
            return _FILTERS[wanted]
        if field is SearchField.UID:
            return lambda record: record.pmid == wanted
        if field in (SearchField.MESH, SearchField.MESH_MAJOR):
            return self._mesh_matcher(term, wanted)
        text_fields: dict[SearchField, Callable[[PubmedRecord], str]] = {
            SearchField.ALL: lambda record: record.article.search.all_fields,
            SearchField.TEXT_WORD: lambda record: record.article.search.all_fields,
            SearchField.TITLE_ABSTRACT: lambda record: record.article.search.title_abstract,
            SearchField.TITLE: lambda record: record.article.search.title,
            SearchField.ABSTRACT: lambda record: record.article.search.abstract,
            SearchField.OTHER_TERM: lambda record: record.article.search.keywords,
            SearchField.SUBSTANCE: lambda record: record.article.search.substances,
            SearchField.AFFILIATION: lambda record: record.article.search.affiliations,
        }
        if field in text_fields:
            text_of = text_fields[field]
            return lambda record: _phrase_in(text_of(record), wanted, wildcard)
        value_fields: dict[SearchField, Callable[[PubmedRecord], Iterable[str]]] = {
            SearchField.SUBHEADING: lambda record: record.article.search.qualifiers,
            SearchField.PUBLICATION_TYPE: lambda record: record.article.search.publication_types,
            SearchField.LANGUAGE: lambda record: record.article.search.languages,
            SearchField.JOURNAL: lambda record: record.article.search.journals,
            SearchField.SECONDARY_SOURCE_ID: lambda record: record.article.search.accessions,
            SearchField.LOCATION_ID: lambda record: record.article.search.article_ids,
            SearchField.CORPORATE_AUTHOR: lambda record: record.article.search.collectives,
            SearchField.FILTER: lambda record: (),
        }
        if field in value_fields:
            values_of = value_fields[field]
            return lambda record: _value_in(values_of(record), wanted, wildcard)
        if field is SearchField.FIRST_AUTHOR:
            return lambda record: _author_matches(record.article.search.authors[:1], wanted, wildcard)
        if field is SearchField.LAST_AUTHOR:
            return lambda record: _author_matches(record.article.search.authors[-1:], wanted, wildcard)
        return lambda record: (
            _author_matches(record.article.search.authors, wanted, wildcard)
            or _author_matches(record.article.search.full_authors, wanted, wildcard)
        )

    def _mesh_matcher(self, term: Term, wanted: str) -> Callable[[PubmedRecord], bool]:
        major = term.field is SearchField.MESH_MAJOR
        if "/" in term.text:
            return lambda record: (
                wanted
                in (
                    record.article.search.major_with_qualifiers
                    if major
                    else record.article.search.mesh_with_qualifiers
                )
            )
        if term.is_wildcard:
            return lambda record: _value_in(
                record.article.search.major_names if major else record.article.search.mesh_names, wanted, True
            )
        uis: frozenset[str] = frozenset()
        tree = self.mesh_tree()
        if tree is not None:
            named = tree.descriptors_named(term.text)
            uis = frozenset().union(*(tree.exploded(ui) for ui in named)) if term.explode else named

        def matches(record: PubmedRecord) -> bool:
            search = record.article.search
            names, record_uis = (
                (search.major_names, search.major_uis) if major else (search.mesh_names, search.mesh_uis)
            )
            return wanted in names or not uis.isdisjoint(record_uis)

        return matches

    def relevance(self, pmid: str, query: QueryNode | None) -> int:
        """A deterministic best-match score: where and how often the query's positive terms occur."""
        if query is None:
            return 0
        search = self.records[pmid].article.search
        score = 0
        for term in positive_terms(query):
            wanted = normalize(term.text)
            if not wanted or term.field.is_date:
                continue
            probe = f" {wanted}" if term.is_wildcard else f" {wanted} "
            score += (
                3 * search.title.count(probe)
                + search.abstract.count(probe)
                + 2 * search.keywords.count(probe)
            )
            score += 3 * (wanted in search.mesh_names) + 2 * (wanted in search.major_names)
        return score

    def sorted_ids(self, ids: Iterable[str], sort: str, query: QueryNode | None) -> list[str]:
        """ESearch's sort orders; ties always fall back to the newest PMID first, so order is stable."""
        records = self.records
        by_newest = sorted(ids, key=lambda pmid: (-records[pmid].entrez_date.timestamp(), -int(pmid)))
        order = sort.strip().lower().replace("+", " ").replace(" ", "_")
        if order in ("pub_date", "pubdate", "date"):
            return sorted(by_newest, key=lambda pmid: records[pmid].article.pub_date.as_date, reverse=True)
        if order in ("most_recent", "recently_added"):
            return by_newest
        if order in ("author", "first_author"):
            return sorted(by_newest, key=lambda pmid: _name_key(records[pmid], first=True))
        if order == "last_author":
            return sorted(by_newest, key=lambda pmid: _name_key(records[pmid], first=False))
        if order in ("journal", "journal_name", "journalname"):
            return sorted(by_newest, key=lambda pmid: (records[pmid].article.medline_ta or "~").lower())
        if order == "title":
            return sorted(by_newest, key=lambda pmid: normalize(records[pmid].article.title))
        return sorted(by_newest, key=lambda pmid: -self.relevance(pmid, query))

    @cached_property
    def cited_by(self) -> dict[str, list[str]]:
        """PMID -> the held records whose reference lists cite it, newest first."""
        citing: dict[str, list[str]] = {}
        for pmid in sorted(self.records, key=int, reverse=True):
            for reference in self.records[pmid].article.references:
                citing.setdefault(reference, []).append(pmid)
        return citing

    @cached_property
    def _document_frequency(self) -> Counter[str]:
        counts: Counter[str] = Counter()
        for record in self.records.values():
            counts.update(record.article.search.content_tokens)
        return counts

    def similar(self, pmid: str) -> list[tuple[str, int]]:
        """Held records sharing title/abstract words or MeSH with `pmid`, scored by summed IDF, best first."""
        source = self.records[pmid].article.search.content_tokens
        frequency = self._document_frequency
        total = len(self.records)
        scored = [(pmid, SELF_SCORE)]
        for other, record in self.records.items():
            if other == pmid:
                continue
            shared = source & record.article.search.content_tokens
            if shared:
                score = sum(math.log(total / frequency[token]) for token in shared)
                if score > 0:
                    scored.append((other, round(score * 1_000_000)))
        head, rest = scored[0], scored[1:]
        rest.sort(key=lambda item: (-item[1], -int(item[0])))
        return [head, *rest[: MAX_NEIGHBOURS - 1]]


def _name_key(record: PubmedRecord, first: bool) -> tuple[int, str]:
    authors = record.article.authors
    if not authors:
        return (1, "")
    author = authors[0] if first else authors[-1]
    return (0, normalize(author.display_name))
