"""Entrez query building: a user's term made safe to embed, plus dates and publication types.

The term is still Entrez syntax (field tags and booleans are the point of PubMed search), but it
is repaired so that it cannot break the expression it is embedded in: control characters go,
quotes and parentheses are balanced, dangling boolean operators are dropped, and the whole term
is parenthesised before filters are ANDed to it. Filter values are quoted after removing the
characters that could close their quote or field tag.
"""

from __future__ import annotations

import re

MAX_TERM_CHARS = 4000
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_OPERATOR = re.compile(r"^(AND|OR|NOT)$")
_TOKENS = re.compile(r'"[^"]*"|\(|\)|[^\s()"]+|"')


def _balance_quotes(term: str) -> str:
    if term.count('"') % 2 == 1:
        last = term.rfind('"')
        term = term[:last] + term[last + 1 :]
    return term


def _balance_parentheses(tokens: list[str]) -> list[str]:
    depth = 0
    kept: list[str] = []
    for token in tokens:
        if token == ")":
            if depth == 0:
                continue
            depth -= 1
        elif token == "(":
            depth += 1
        kept.append(token)
    return kept + [")"] * depth


def _drop_dangling_operators(tokens: list[str]) -> list[str]:
    """Remove operators with nothing to bind: at the edges, before ')', after '(', or doubled."""
    changed = True
    while changed:
        changed = False
        out: list[str] = []
        for i, token in enumerate(tokens):
            if _OPERATOR.match(token):
                prev = out[-1] if out else None
                nxt = tokens[i + 1] if i + 1 < len(tokens) else None
                if prev is None or prev == "(" or _OPERATOR.match(prev) or nxt is None or nxt == ")":
                    changed = True
                    continue
            out.append(token)
        cleaned: list[str] = []
        for token in out:
            if token == ")" and cleaned and cleaned[-1] == "(":
                cleaned.pop()
                changed = True
                continue
            cleaned.append(token)
        tokens = cleaned
    return tokens


def sanitize_term(term: str) -> str:
    """A user's Entrez term repaired so it parses on its own; empty if nothing searchable is left."""
    text = _CONTROL.sub(" ", term)[:MAX_TERM_CHARS]
    text = _balance_quotes(text)
    tokens = [t for t in _TOKENS.findall(text) if t != '""']
    tokens = _drop_dangling_operators(_balance_parentheses(tokens))
    out = " ".join(tokens)
    return out.replace("( ", "(").replace(" )", ")").strip()


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
