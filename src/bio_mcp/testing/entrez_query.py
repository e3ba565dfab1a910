"""The PubMed query language of ESearch's `term`: parsing, QueryTranslation text and set evaluation.

Supported: bare words (All Fields), quoted phrases, trailing `*` wildcards, field tags such as
[tiab] [ti] [ab] [au] [1au] [lastau] [cn] [mh] [mh:noexp] [majr] [sh] [pt] [la] [ta]/[jour] [si]
[pmid]/[uid] [ot] [nm] [ad] [aid] [sb] [tw], the date tags [dp]/[pdat] [edat] [mdat] [crdt] with single
dates ("2020"[pdat], 2020/03[dp]) and ranges ("2020/01/01"[edat] : "2020/12/31"[edat] or
2020:2021[dp]), history references (#1), and AND / OR / NOT with parentheses.

As in PubMed, booleans are uppercase, apply strictly left to right (`a OR b AND c` is
`(a OR b) AND c`), adjacent terms are ANDed, and several words directly before one tag form a
single term (`gene therapy[mh]`, `smith j[au]`).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from enum import Enum
from typing import Protocol


class SearchField(Enum):
    """PubMed search fields: (EInfo name, the full name QueryTranslation prints, is a date)."""

    ALL = ("ALL", "All Fields", False)
    TEXT_WORD = ("WORD", "Text Word", False)
    TITLE_ABSTRACT = ("TIAB", "Title/Abstract", False)
    TITLE = ("TITL", "Title", False)
    ABSTRACT = ("ABST", "Abstract", False)
    AUTHOR = ("FULL", "Author", False)
    FIRST_AUTHOR = ("FAUT", "Author - First", False)
    LAST_AUTHOR = ("LAUT", "Author - Last", False)
    CORPORATE_AUTHOR = ("COLN", "Author - Corporate", False)
    MESH = ("MESH", "MeSH Terms", False)
    MESH_MAJOR = ("MAJR", "MeSH Major Topic", False)
    SUBHEADING = ("SUBH", "MeSH Subheading", False)
    PUBLICATION_TYPE = ("PTYP", "Publication Type", False)
    LANGUAGE = ("LANG", "Language", False)
    JOURNAL = ("JOUR", "Journal", False)
    SECONDARY_SOURCE_ID = ("SI", "Secondary Source ID", False)
    UID = ("UID", "UID", False)
    OTHER_TERM = ("OTRM", "Other Term", False)
    SUBSTANCE = ("SUBS", "Supplementary Concept", False)
    AFFILIATION = ("AFFL", "Affiliation", False)
    LOCATION_ID = ("LID", "Location ID", False)
    FILTER = ("FILT", "Filter", False)
    PUBLICATION_DATE = ("PDAT", "Date - Publication", True)
    ENTRY_DATE = ("EDAT", "Date - Entry", True)
    MODIFICATION_DATE = ("MDAT", "Date - Modification", True)
    CREATE_DATE = ("CRDT", "Date - Create", True)

    @property
    def full_name(self) -> str:
        return self.value[1]

    @property
    def is_date(self) -> bool:
        return self.value[2]


_TAGS: dict[str, SearchField] = {}
for _field, _aliases in {
    SearchField.ALL: ("all", "all fields"),
    SearchField.TEXT_WORD: ("tw", "text word", "word"),
    SearchField.TITLE_ABSTRACT: ("tiab", "title/abstract"),
    SearchField.TITLE: ("ti", "title", "titl"),
    SearchField.ABSTRACT: ("ab", "abstract"),
    SearchField.AUTHOR: ("au", "author", "auth", "full", "fau", "full author name"),
    SearchField.FIRST_AUTHOR: ("1au", "author - first", "faut"),
    SearchField.LAST_AUTHOR: ("lastau", "author - last", "laut"),
    SearchField.CORPORATE_AUTHOR: ("cn", "corporate author", "author - corporate", "coln"),
    SearchField.MESH: ("mh", "mesh", "mesh terms"),
    SearchField.MESH_MAJOR: ("majr", "mesh major topic"),
    SearchField.SUBHEADING: ("sh", "subheading", "mesh subheading", "subh"),
    SearchField.PUBLICATION_TYPE: ("pt", "publication type", "ptyp"),
    SearchField.LANGUAGE: ("la", "language", "lang"),
    SearchField.JOURNAL: ("ta", "jour", "journal", "jt", "jo"),
    SearchField.SECONDARY_SOURCE_ID: ("si", "secondary source id"),
    SearchField.UID: ("pmid", "uid", "pubmed id"),
    SearchField.OTHER_TERM: ("ot", "other term", "otrm", "kw", "keyword"),
    SearchField.SUBSTANCE: ("nm", "substance name", "subs"),
    SearchField.AFFILIATION: ("ad", "affiliation", "affl"),
    SearchField.LOCATION_ID: ("aid", "lid", "location id", "article identifier"),
    SearchField.FILTER: ("sb", "filter", "filt", "subset"),
    SearchField.PUBLICATION_DATE: ("dp", "pdat", "publication date", "date - publication"),
    SearchField.ENTRY_DATE: ("edat", "entrez date", "date - entry"),
    SearchField.MODIFICATION_DATE: ("mdat", "lr", "modification date", "date - modification"),
    SearchField.CREATE_DATE: ("crdt", "create date", "date - create"),
}.items():
    for _alias in _aliases:
        _TAGS[_alias] = _field

DATE_FIELDS_BY_DATETYPE = {
    "pdat": SearchField.PUBLICATION_DATE,
    "edat": SearchField.ENTRY_DATE,
    "mdat": SearchField.MODIFICATION_DATE,
    "crdt": SearchField.CREATE_DATE,
}


@dataclass(frozen=True)
class Term:
    text: str
    field: SearchField = SearchField.ALL
    quoted: bool = False
    explode: bool = True

    @property
    def is_wildcard(self) -> bool:
        return self.text.endswith("*")


@dataclass(frozen=True)
class DateRange:
    """Both bounds inclusive, already widened to whole years or months when given that coarsely."""

    field: SearchField
    start: date
    end: date
    start_text: str
    end_text: str | None = None


@dataclass(frozen=True)
class HistoryReference:
    query_key: str


@dataclass(frozen=True)
class Boolean:
    operator: str
    left: Node
    right: Node


Node = Term | DateRange | HistoryReference | Boolean


@dataclass(frozen=True)
class ParsedQuery:
    root: Node | None
    unknown_fields: tuple[str, ...] = ()


class QuerySyntaxError(ValueError):
    """A term the fake cannot parse; NCBI answers such terms with a search error."""


_TOKEN = re.compile(
    r"""\s*(?:
        (?P<open>\()
      | (?P<close>\))
      | "(?P<quoted>[^"]*)"?
      | (?P<tag>\[[^\]]*\]?)
      | (?P<colon>:)
      | (?P<word>[^\s()"\[\]:][^\s()"\[\]]*)
    )""",
    re.VERBOSE,
)
OPERATORS = ("AND", "OR", "NOT")


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str


def _tokens(term: str) -> list[_Token]:
    tokens = []
    position = 0
    while position < len(term):
        match = _TOKEN.match(term, position)
        if match is None or match.end() == position:
            if term[position:].strip():
                raise QuerySyntaxError(f"cannot read the query at {term[position:]!r}")
            break
        position = match.end()
        kind = match.lastgroup
        if kind is None:
            break
        text = match.group(kind)
        if kind == "word" and text in OPERATORS:
            kind = "operator"
        tokens.append(_Token(kind, text))
    return tokens


def parse_date_bound(text: str, *, end: bool) -> date | None:
    """YYYY, YYYY/MM or YYYY/MM/DD (also with - or .), widened to the last day when `end`."""
    parts = [part for part in re.split(r"[/\-.\s]+", text.strip()) if part]
    if not parts or not all(part.isdigit() for part in parts) or len(parts) > 3:
        return None
    year = int(parts[0])
    if not 1 <= year <= 9999:
        return None
    try:
        if len(parts) == 1:
            return date(year, 12, 31) if end else date(year, 1, 1)
        month = int(parts[1])
        if len(parts) == 2:
            return date(year, month, calendar.monthrange(year, month)[1]) if end else date(year, month, 1)
        return date(year, month, int(parts[2]))
    except ValueError:
        return None


def canonical_date_text(text: str) -> str:
    return "/".join(
        part.zfill(2) if index else part for index, part in enumerate(re.split(r"[/\-.\s]+", text.strip()))
    )


class _Parser:
    def __init__(self, tokens: list[_Token], default_field: SearchField) -> None:
        self.tokens = tokens
        self.position = 0
        self.default_field = default_field
        self.unknown_fields: list[str] = []

    def peek(self) -> _Token | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.position]
        self.position += 1
        return token

    def expression(self, nested: bool) -> Node | None:
        node: Node | None = None
        pending_operator = "AND"
        while (token := self.peek()) is not None:
            if token.kind == "close":
                if nested:
                    break
                self.take()
                continue
            if token.kind == "operator":
                self.take()
                pending_operator = token.text
                continue
            for unit in self.units():
                # A leading NOT has nothing to subtract from; PubMed drops it.
                node = unit if node is None else Boolean(pending_operator, node, unit)
                pending_operator = "AND"
        return node

    def units(self) -> list[Node]:
        token = self.take()
        if token.kind == "open":
            inner = self.expression(nested=True)
            if self.peek() is not None and self.peek().kind == "close":
                self.take()
            return [inner] if inner is not None else []
        if token.kind == "tag" or token.kind == "colon":
            return []
        if token.kind == "quoted":
            return [self.with_range(self.tagged(token.text, quoted=True))]
        words = [token.text]
        while (following := self.peek()) is not None and following.kind == "word":
            words.append(self.take().text)
        if (following := self.peek()) is not None and following.kind == "tag":
            return [self.with_range(self.tagged(" ".join(words), quoted=False))]
        return [self.plain_word(word) for word in words]

    def plain_word(self, word: str) -> Node:
        if re.fullmatch(r"#\d+", word):
            return HistoryReference(word[1:])
        if self.default_field.is_date:
            return self.date_node(word, self.default_field, quoted=False)
        return Term(text=word, field=self.default_field)

    def tagged(self, text: str, quoted: bool) -> Node:
        field, explode = self.default_field, True
        if (following := self.peek()) is not None and following.kind == "tag":
            field, explode = self.field_of(self.take().text)
        if field.is_date:
            return self.date_node(text, field, quoted)
        return Term(text=text, field=field, quoted=quoted, explode=explode)

    def field_of(self, tag: str) -> tuple[SearchField, bool]:
        name = tag.strip("[]")
        explode = not name.lower().endswith(":noexp")
        field = field_named(name if explode else name[: -len(":noexp")])
        if field is None:
            self.unknown_fields.append(name)
            return SearchField.ALL, explode
        return field, explode

    def date_node(self, text: str, field: SearchField, quoted: bool) -> Node:
        if ":" in text:
            start_text, end_text = (part.strip() for part in text.split(":", 1))
            return self.date_range(field, start_text, end_text) or Term(text=text, field=field, quoted=quoted)
        return self.date_range(field, text, None) or Term(text=text, field=field, quoted=quoted)

    def date_range(self, field: SearchField, start_text: str, end_text: str | None) -> DateRange | None:
        start = parse_date_bound(start_text, end=False)
        end = parse_date_bound(end_text if end_text is not None else start_text, end=True)
        if start is None or end is None:
            return None
        return DateRange(
            field=field,
            start=start,
            end=end,
            start_text=canonical_date_text(start_text),
            end_text=canonical_date_text(end_text) if end_text is not None else None,
        )

    def with_range(self, node: Node) -> Node:
        """`start[field] : end[field]`: the colon joins two tagged dates into one range."""
        following = self.peek()
        if following is None or following.kind != "colon":
            return node
        self.take()
        if (upper_token := self.peek()) is None or upper_token.kind not in ("word", "quoted"):
            return node
        self.take()
        upper = self.tagged(upper_token.text, quoted=upper_token.kind == "quoted")
        if not isinstance(node, DateRange | Term) or not isinstance(upper, DateRange | Term):
            return node
        start_text = node.start_text if isinstance(node, DateRange) else node.text
        end_text = (upper.end_text or upper.start_text) if isinstance(upper, DateRange) else upper.text
        field = node.field if node.field.is_date else upper.field
        if not field.is_date:
            return node
        return self.date_range(field, start_text, end_text) or node


def field_named(name: str) -> SearchField | None:
    """The field an ESearch `field=` parameter or a tag names, if PubMed has it."""
    return _TAGS.get(" ".join(name.strip("[]").lower().split()))


def parse_query(term: str, default_field: SearchField = SearchField.ALL) -> ParsedQuery:
    """Parse an ESearch `term`; untagged terms search `default_field`. Empty terms give `root=None`."""
    parser = _Parser(_tokens(term), default_field)
    root = parser.expression(nested=False)
    return ParsedQuery(root=root, unknown_fields=tuple(parser.unknown_fields))


def translate(node: Node) -> str:
    """The QueryTranslation PubMed would print for `node`."""
    if isinstance(node, Term):
        text = node.text if node.is_wildcard else f'"{node.text.lower()}"'
        field = node.field.full_name + ("" if node.explode else ":noexp")
        return f"{text}[{field}]"
    if isinstance(node, DateRange):
        if node.end_text is None:
            return f'"{node.start_text}"[{node.field.full_name}]'
        return f"{node.start_text}:{node.end_text}[{node.field.full_name}]"
    if isinstance(node, HistoryReference):
        return f"#{node.query_key}"
    left = translate(node.left)
    if isinstance(node.left, Boolean) and node.left.operator != node.operator:
        left = f"({left})"
    right = translate(node.right)
    if isinstance(node.right, Boolean):
        right = f"({right})"
    return f"{left} {node.operator} {right}"


def leaves(node: Node) -> Iterator[Term | DateRange | HistoryReference]:
    if isinstance(node, Boolean):
        yield from leaves(node.left)
        yield from leaves(node.right)
    else:
        yield node


def positive_terms(node: Node) -> Iterator[Term]:
    """Terms whose presence makes a record match (not those under the right side of a NOT)."""
    if isinstance(node, Boolean):
        yield from positive_terms(node.left)
        if node.operator != "NOT":
            yield from positive_terms(node.right)
    elif isinstance(node, Term):
        yield node


class QuerySource(Protocol):
    def term_ids(self, term: Term) -> frozenset[str]: ...

    def date_ids(self, date_range: DateRange) -> frozenset[str]: ...

    def history_ids(self, query_key: str) -> frozenset[str]: ...


def evaluate(node: Node, source: QuerySource) -> frozenset[str]:
    if isinstance(node, Term):
        return source.term_ids(node)
    if isinstance(node, DateRange):
        return source.date_ids(node)
    if isinstance(node, HistoryReference):
        return source.history_ids(node.query_key)
    left = evaluate(node.left, source)
    right = evaluate(node.right, source)
    if node.operator == "AND":
        return left & right
    if node.operator == "OR":
        return left | right
    return left - right
