"""Entrez query building: a user's term made safe to embed, plus dates and publication types.

The term is still Entrez syntax (field tags and booleans are the point of PubMed search), but it
is repaired so that it cannot break the expression it is embedded in: control characters go,
quotes and parentheses are balanced, dangling boolean operators are dropped, and the whole term
is parenthesised before filters are ANDed to it. Filter values are quoted after removing the
characters that could close their quote or field tag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_TERM_CHARS = 4000
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_OPERATOR = re.compile(r"^(AND|OR|NOT)$")
_TOKENS = re.compile(r'"[^"]*"|\(|\)|[^\s()"]+|"')


@dataclass(frozen=True)
class TermRepair:
    """A repaired term and, in words, every change that altered what the user asked for."""

    term: str
    changes: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def _balance_quotes(term: str, changes: list[str]) -> str:
    if term.count('"') % 2 == 1:
        last = term.rfind('"')
        term = term[:last] + term[last + 1 :]
        changes.append("removed an unmatched double quote")
    return term


def _balance_parentheses(tokens: list[str], changes: list[str]) -> list[str]:
    depth = 0
    dropped = 0
    kept: list[str] = []
    for token in tokens:
        if token == ")":
            if depth == 0:
                dropped += 1
                continue
            depth -= 1
        elif token == "(":
            depth += 1
        kept.append(token)
    if dropped:
        changes.append(f"removed {dropped} unmatched ')'")
    if depth:
        changes.append(f"closed {depth} unclosed '('")
    return kept + [")"] * depth


def _drop_dangling_operators(tokens: list[str], changes: list[str]) -> list[str]:
    """Remove operators with nothing to bind: at the edges, before ')', after '(', or doubled."""
    operators: list[str] = []
    empty_groups = 0
    changed = True
    while changed:
        changed = False
        out: list[str] = []
        for i, token in enumerate(tokens):
            if _OPERATOR.match(token):
                prev = out[-1] if out else None
                nxt = tokens[i + 1] if i + 1 < len(tokens) else None
                if prev is None or prev == "(" or _OPERATOR.match(prev) or nxt is None or nxt == ")":
                    operators.append(token)
                    changed = True
                    continue
            out.append(token)
        cleaned: list[str] = []
        for token in out:
            if token == ")" and cleaned and cleaned[-1] == "(":
                cleaned.pop()
                empty_groups += 1
                changed = True
                continue
            cleaned.append(token)
        tokens = cleaned
    if operators:
        changes.append(f"dropped operators with nothing to combine: {' '.join(operators)}")
    if empty_groups:
        changes.append(f"dropped {empty_groups} empty parentheses")
    return tokens


def repair_term(term: str) -> TermRepair:
    """A user's Entrez term repaired so it parses on its own (empty if nothing searchable is left),
    with the repairs that changed its meaning; collapsing whitespace is not reported."""
    changes: list[str] = []
    text = _CONTROL.sub(" ", term)
    if text != term:
        changes.append("replaced control characters with spaces")
    if len(text) > MAX_TERM_CHARS:
        changes.append(f"cut the term to its first {MAX_TERM_CHARS} characters")
        text = text[:MAX_TERM_CHARS]
    text = _balance_quotes(text, changes)
    tokens = [t for t in _TOKENS.findall(text) if t != '""']
    if len(tokens) != len(_TOKENS.findall(text)):
        changes.append('dropped empty quotes ""')
    tokens = _drop_dangling_operators(_balance_parentheses(tokens, changes), changes)
    out = " ".join(tokens)
    return TermRepair(out.replace("( ", "(").replace(" )", ")").strip(), tuple(changes))


def quote_value(value: str) -> str:
    """A filter value as one quoted Entrez phrase; quotes and brackets cannot escape it."""
    cleaned = re.sub(r'["\[\]()]', " ", _CONTROL.sub(" ", value))
    return '"' + " ".join(cleaned.split()) + '"'


def date_clause(min_date: str | None, max_date: str | None, date_type: str) -> str | None:
    """Entrez's range syntax; an open end uses Entrez's own conventional bounds."""
    if not min_date and not max_date:
        return None
    low = min_date or "1000"
    high = max_date or "3000"
    return f'"{low}"[{date_type}] : "{high}"[{date_type}]'


def publication_type_clause(types: list[str]) -> str | None:
    values = [quote_value(t) for t in types if t and t.strip() and quote_value(t) != '""']
    if not values:
        return None
    return " OR ".join(f"{v}[Publication Type]" for v in values)


def effective_term(term: str, date: str | None = None, pub_types: str | None = None) -> str:
    parts = [f"({term})"] + [f"({clause})" for clause in (date, pub_types) if clause]
    return " AND ".join(parts) if len(parts) > 1 else term
