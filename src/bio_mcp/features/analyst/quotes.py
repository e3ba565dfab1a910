"""The sentence of an abstract a free question's answer quotes: the one sharing most words with the
question's search words, a conclusion first among equals; verbatim, so a reader finds it in the record."""

from __future__ import annotations

import re
from typing import Any

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(])")
_WORD = re.compile(r"[a-z0-9]+")
# Words are compared by their first letters, so "inflammatory" meets "inflammation".
_STEM = 6


def _stems(text: str) -> set[str]:
    return {word[:_STEM] for word in _WORD.findall(text.lower()) if len(word) > 2}


def on_question(shared: int, terms: str) -> bool:
    """A quote is about the question when it names every search word (all but one past three):
    a sentence on "cancer risk" alone is no evidence about metformin and cancer risk."""
    wanted = len(_stems(terms))
    return shared >= (wanted if wanted <= 3 else wanted - 1)


def best_quote(article: dict[str, Any], terms: str) -> tuple[str, int]:
    """(sentence, shared words): the abstract's best sentence for `terms`, else the title with its share."""
    wanted = _stems(terms)
    best, best_key = article.get("title") or "", (len(wanted & _stems(article.get("title") or "")), 0, 0)
    for position, section in enumerate(article.get("abstract") or []):
        conclusion = int("conclu" in (section.get("label") or "").lower())
        for sentence in _SENTENCE_END.split(section.get("text") or ""):
            key = (len(wanted & _stems(sentence)), conclusion, position)
            if sentence.strip() and key > best_key:
                best, best_key = sentence.strip(), key
    return best, best_key[0]
