"""A subset of ClinicalTrials.gov's Essie expression syntax, for query.* and filter.advanced.

Supported: words and "quoted phrases" (case-insensitive, matched as whole words or phrases
inside a field), implicit AND between adjacent terms, AND / OR / NOT (uppercase, NOT binding
tightest, then AND, then OR), parentheses, AREA[Piece]expression to search one field, and
RANGE[low, high] (MIN and MAX allowed) over date, number and age fields. Enumerated fields
(AREA[Phase]PHASE3, AREA[OverallStatus]RECRUITING) match whole values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bio_mcp.testing.ctgov_studies import AREAS, Area, AreaKind, Study, values_at
from bio_mcp.testing.pubmed_records import normalize


class EssieSyntaxError(ValueError):
    """A CT.gov query expression the fake cannot parse; the real API answers it with HTTP 400."""


class UnknownArea(EssieSyntaxError):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


@dataclass(frozen=True)
class Words:
    text: str


@dataclass(frozen=True)
class ValueRange:
    low: str
    high: str


@dataclass(frozen=True)
class InArea:
    area: Area
    expression: Expression


@dataclass(frozen=True)
class Not:
    expression: Expression


@dataclass(frozen=True)
class Both:
    left: Expression
    right: Expression


@dataclass(frozen=True)
class Either:
    left: Expression
    right: Expression


Expression = Words | ValueRange | InArea | Not | Both | Either

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<area>AREA\[(?P<area_name>[^\]]*)\])
      | (?P<range>RANGE\[(?P<range_body>[^\]]*)\])
      | (?P<open>\()
      | (?P<close>\))
      | "(?P<quoted>[^"]*)"?
      | (?P<word>[^\s()"]+)
    )""",
    re.VERBOSE,
)


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            break
        position = match.end()
        kind = match.lastgroup
        if kind == "area_name":
            kind = "area"
        if kind == "range_body":
            kind = "range"
        if kind is None:
            break
        value = {"area": match.group("area_name"), "range": match.group("range_body")}.get(
            kind, match.group(kind) or ""
        )
        if kind == "word" and value in ("AND", "OR", "NOT"):
            kind = "operator"
        tokens.append((kind, value))
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.position = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.tokens[self.position]
        self.position += 1
        return token

    def either(self) -> Expression:
        left = self.both()
        while self.peek() == ("operator", "OR"):
            self.take()
            left = Either(left, self.both())
        return left

    def both(self) -> Expression:
        left = self.negation()
        while (token := self.peek()) is not None and token[0] != "close" and token != ("operator", "OR"):
            if token == ("operator", "AND"):
                self.take()
            left = Both(left, self.negation())
        return left

    def negation(self) -> Expression:
        if self.peek() == ("operator", "NOT"):
            self.take()
            return Not(self.negation())
        return self.primary()

    def primary(self) -> Expression:
        if self.peek() is None:
            raise EssieSyntaxError("expression ends early")
        kind, value = self.take()
        if kind == "open":
            inner = self.either()
            if self.peek() is not None and self.peek()[0] == "close":
                self.take()
            return inner
        if kind == "area":
            area = AREAS.get(value.strip().lower())
            if area is None:
                raise UnknownArea(value.strip())
            return InArea(area, self.negation())
        if kind == "range":
            low, _, high = value.partition(",")
            return ValueRange(low.strip(), high.strip())
        if kind in ("quoted", "word"):
            return Words(value)
        raise EssieSyntaxError(f"unexpected {value!r}")


def parse_essie(text: str) -> Expression | None:
    parser = _Parser(text)
    if parser.peek() is None:
        return None
    expression = parser.either()
    if parser.peek() is not None:
        raise EssieSyntaxError(f"unexpected {parser.peek()[1]!r}")
    return expression


def only_nct_ids(text: str) -> bool:
    """A query of nothing but NCT ids, which makes ClinicalTrials.gov ignore the filters."""
    parts = [part for part in re.split(r"[\s,]+", text.strip()) if part]
    return bool(parts) and all(re.fullmatch(r"(?i)NCT\d{8}", part) for part in parts)


_AGE_UNITS = {"year": 365.25, "month": 30.4375, "week": 7.0, "day": 1.0, "hour": 1 / 24, "minute": 1 / 1440}


def _age_in_days(text: str) -> float | None:
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+?)s?\s*", text)
    if not found:
        return None
    unit = _AGE_UNITS.get(found.group(2).lower())
    return float(found.group(1)) * unit if unit is not None else None


def _comparable(kind: AreaKind, value: Any) -> Any:
    if kind is AreaKind.NUMBER:
        try:
            return float(value)
        except (TypeError, ValueError):
            return None
    if kind is AreaKind.AGE:
        return _age_in_days(str(value))
    return str(value)


def _in_range(kind: AreaKind, value: Any, low: str, high: str) -> bool:
    current = _comparable(kind, value)
    if current is None:
        return False
    if low.upper() != "MIN":
        bound = _comparable(kind, low)
        if bound is None or current < bound:
            return False
    if high.upper() != "MAX":
        bound = _comparable(kind, high)
        if kind is AreaKind.DATE and isinstance(bound, str):
            # "2023-01" includes every day of January: compare only as many characters as given.
            return bound is not None and current[: len(bound)] <= bound
        if bound is None or current > bound:
            return False
    return True


def _words_match(area: Area, study: Study, text: str) -> bool:
    values = values_at(study, area.path)
    if area.kind is AreaKind.ENUM:
        wanted = text.strip().lower()
        return any(str(value).lower() == wanted for value in values)
    phrase = normalize(text)
    if not phrase:
        return False
    return any(f" {phrase} " in f" {normalize(str(value))} " for value in values)


def matches(expression: Expression, study: Study, areas: tuple[Area, ...]) -> bool:
    """Does `study` satisfy `expression`, searching `areas` unless an AREA[...] narrows it?"""
    if isinstance(expression, Words):
        return any(_words_match(area, study, expression.text) for area in areas)
    if isinstance(expression, ValueRange):
        return any(
            _in_range(area.kind, value, expression.low, expression.high)
            for area in areas
            if area.kind in (AreaKind.DATE, AreaKind.NUMBER, AreaKind.AGE)
            for value in values_at(study, area.path)
        )
    if isinstance(expression, InArea):
        return matches(expression.expression, study, (expression.area,))
    if isinstance(expression, Not):
        return not matches(expression.expression, study, areas)
    if isinstance(expression, Both):
        return matches(expression.left, study, areas) and matches(expression.right, study, areas)
    return matches(expression.left, study, areas) or matches(expression.right, study, areas)
