"""The pure parts of kb.search: the entity boost (scores kept in [0, 1]), snippets and the 16 KB cut, on text
from the real records."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from lxml import etree

from bio_mcp.features.kb.models import FULL_TEXT_MAX_BYTES, SNIPPET_MAX_CHARS
from bio_mcp.features.kb.ranking import entity_boost
from bio_mcp.features.kb.search import cut_utf8, make_snippet


def test_the_boost_lifts_documents_mentioning_more_query_entities() -> None:
    scored = [("a", 1.0), ("b", 0.95), ("c", 0.9), ("d", 0.5)]
    boosted = entity_boost(scored, {"b": 2, "c": 1}, entity_count=2, weight=0.1)
    assert [key for key, _ in boosted] == ["b", "a", "c", "d"]
    # Every entity matched keeps the score; none costs 1 / (1 + weight): a score in [0, 1] stays there.
    assert dict(boosted)["b"] == pytest.approx(0.95) and dict(boosted)["a"] == pytest.approx(1.0 / 1.1)
    assert all(0.0 <= score <= 1.0 for _, score in entity_boost([("a", 1.0)], {"a": 3}, entity_count=2, weight=5.0))
    # No entities, or weight 0: the hybrid's order, untouched.
    assert entity_boost(scored, {"d": 1}, entity_count=0, weight=0.5) == scored
    assert entity_boost(scored, {"d": 1}, entity_count=1, weight=0.0) == scored
    # Ties break by key, whatever the input order.
    assert [key for key, _ in entity_boost([("z", 0.5), ("y", 0.5)], {}, 1, 0.1)] == ["y", "z"]


@pytest.fixture(scope="module")
def abstracts(data_dir: Path) -> list[str]:
    with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        root = etree.parse(handle).getroot()
    texts = [" ".join("".join(node.itertext()) for node in article.iter("AbstractText")) for article in root.iter("PubmedArticle")]
    return [text for text in texts if len(text) > 600]


def test_snippets_are_at_most_200_characters_around_the_first_query_word(abstracts: list[str]) -> None:
    for text in abstracts[:200]:
        words = text.split()
        late = next((w for w in words[len(words) // 2 :] if w.isalpha() and len(w) > 6), None)
        for query in ("zzzz unmatched", late or "zzzz"):
            snippet = make_snippet(text, query)
            assert 0 < len(snippet) <= SNIPPET_MAX_CHARS
            if query == late and late.lower() in text.lower():
                assert late.lower() in snippet.lower()
    short = "Aspirin reduces stroke."
    assert make_snippet(short, "stroke") == short


def test_full_text_is_cut_at_16_kb_on_a_character_boundary() -> None:
    text = "é" * FULL_TEXT_MAX_BYTES
    cut = cut_utf8(text)
    assert len(cut.encode()) <= FULL_TEXT_MAX_BYTES and cut == "é" * (FULL_TEXT_MAX_BYTES // 2)
    assert cut_utf8("short") == "short"
