"""The Thai -> English word map joined from pythainlp's Thai WordNet and Debian's Princeton WordNet 3.0
(`wordnet-base`, installed by .ci/run): real files, real words."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bio_mcp.search.thai_english import DEBIAN_WORDNET_DIR, PER_WORD, thai_english_words


def test_thai_medical_words_have_their_english_words() -> None:
    words = thai_english_words()
    assert words["เบาหวาน"] == ("diabetes",)
    assert words["มะเร็ง"] == ("cancer",)
    assert words["ผลข้างเคียง"] == ("side effect",)
    assert words["ความดันโลหิตสูง"] == ("high blood pressure",)
    assert words["ไข้"] == ("fever",)
    # The most frequently tagged sense first: a drug before a drug of abuse.
    assert words["ยา"][0] == "drug"
    # An adjective past the byte where Debian's data.adj drifts from Thai WordNet's offsets.
    assert words["ขม"] == ("bitter",)


def test_the_map_is_thai_nouns_and_adjectives_only_and_small_per_word() -> None:
    words = thai_english_words()
    assert len(words) > 50_000
    assert all(any("\u0e01" <= ch <= "\u0e5b" for ch in thai) for thai in words)
    assert all(0 < len(english) <= PER_WORD for english in words.values())
    assert "รักษา" not in words  # "treat" is a verb in WordNet


def test_without_wordnet_the_map_is_empty_and_says_how_to_install_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert tmp_path != DEBIAN_WORDNET_DIR
    with caplog.at_level(logging.WARNING):
        assert thai_english_words(tmp_path) == {}
    assert "apt-get install wordnet-base" in caplog.text


def test_senses_that_fit_a_health_question_win_and_weak_second_senses_are_left_out() -> None:
    words = thai_english_words()
    assert words["ทับทิม"] == ("pomegranate",)  # the fruit (noun.food), not the gem (noun.substance, noun.possession)
    assert words["ใบ"] == ("leaf",)  # not the adjective "bladed"
    assert words["น้ำตาล"] == ("sugar",)  # not the colour brown
    assert words["เลือด"] == ("blood",)  # gore was never tagged in SemCor
    assert "I" not in words["ไอ"]  # cough is not the letter I (noun.communication)
    assert "ทับทิม" in words.first_tier and "ยา" not in words.first_tier
