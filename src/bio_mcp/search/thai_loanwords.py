"""English words spelt in Thai letters: drug names as Thai patients and pharmacists write them
(วาร์ฟาริน warfarin, เมทฟอร์มิน metformin, โซราฟีนิบ sorafenib), found again in an English vocabulary.

Thai spells a loanword letter by letter after its English spelling more than its sound: the karan
(์) keeps a letter that is not pronounced (วาร์ฟาริน keeps the r of "war"), ซ stands for s, c and z,
ฟ for f and ph, ก for g. So both spellings are reduced to one coarse Latin key and compared by edit
distance:

- the Thai word is read left to right into Latin letters: the vowels written before their consonant
  (เ แ โ ไ ใ) move after it, or after its cluster (โพร -> "pro"); อ is a silent vowel carrier at a
  syllable's start and the vowel o after a consonant; tone marks are dropped, karan'd letters kept;
- the English word loses what Thai does not write: a final silent e, h after a consonant (ph, th,
  ch, kh), c, g, x, q, z and v become the letters Thai uses for them;
- both keys then fold what Thai and English spell differently: vowels into three classes (a; e i;
  o u), doubled letters into one.

warfarin and วาร์ฟาริน both give "warfarin", metformin and เมทฟอร์มิน "mitformin", sorafenib and
โซราฟีนิบ "sorafinib".

`LoanwordIndex` holds an English vocabulary by key. A Thai word matches the vocabulary word whose key
is within an edit budget that grows with the key's length: none below 8 letters, one up to 11, two
from 12, and no key shorter than 6 letters is looked up, because short keys of ordinary Thai words
collide with short drug names. `bench/thai_drug_names.py` measures it: how many Thai spellings of
chemicals in pythainlp's transliteration dictionary find their MeSH descriptor, and how often Thai
Wikipedia titles (names of people and places, the hardest case) match a drug by chance.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

T = TypeVar("T", bound=Hashable)

MIN_KEY = 7

_CONSONANTS = {
    "ก": "k", "ข": "k", "ฃ": "k", "ค": "k", "ฅ": "k", "ฆ": "k", "ง": "ng", "จ": "j", "ฉ": "ch", "ช": "ch",
    "ซ": "s", "ฌ": "ch", "ญ": "y", "ฎ": "d", "ฏ": "t", "ฐ": "t", "ฑ": "t", "ฒ": "t", "ณ": "n", "ด": "d",
    "ต": "t", "ถ": "t", "ท": "t", "ธ": "t", "น": "n", "บ": "b", "ป": "p", "ผ": "p", "ฝ": "f", "พ": "p",
    "ฟ": "f", "ภ": "p", "ม": "m", "ย": "y", "ร": "r", "ล": "l", "ว": "w", "ศ": "s", "ษ": "s", "ส": "s",
    "ห": "h", "ฬ": "l", "อ": "", "ฮ": "h",
}
# Written before the consonant they follow in speech.
_LEADING_VOWELS = {"เ": "e", "แ": "a", "โ": "o", "ใ": "ai", "ไ": "ai"}
_FOLLOWING_VOWELS = {
    "ะ": "a", "ั": "a", "า": "a", "ำ": "am", "ิ": "i", "ี": "i", "ึ": "u", "ื": "u", "ุ": "u", "ู": "u", "ๅ": "a",
}
# Tone marks, the short-vowel mark (็), nikhahit and the karan: none changes the letters spelt.
_MARKS = frozenset("่้๊๋็ํ์")
_CLUSTER_FIRST = frozenset("กขคตปพผบดฟทซสถ")
_CLUSTER_SECOND = frozenset("รลว")
_NATIVE_LETTERS = frozenset("ฃฅฆฉฌญฎฏฐฑฒณฝผศษฬฤฦใๆฯ่้๊๋")
_VOWEL_CLASS = {"a": "a", "e": "i", "i": "i", "o": "o", "u": "o"}


def _romanised(thai: str) -> str:
    """The Latin letters a Thai loanword spells, in spoken order."""
    chars = [c for c in thai if c not in _MARKS]
    out: list[str] = []
    # A consonant was just read and no vowel has followed it yet.
    bare = False
    i, n = 0, len(chars)
    while i < n:
        c = chars[i]
        if c in _LEADING_VOWELS and i + 1 < n and chars[i + 1] in _CONSONANTS:
            onset, j = [chars[i + 1]], i + 2
            # A cluster (เกรล "grel", โพร "pro") when a consonant or another syllable follows the
            # second letter; before a vowel sign that letter starts the next syllable (ไพริน "pirin").
            if (j + 1 < n and chars[j] in _CLUSTER_SECOND and onset[0] in _CLUSTER_FIRST
                    and (chars[j + 1] in _CONSONANTS or chars[j + 1] in _LEADING_VOWELS)):
                onset.append(chars[j])
                j += 1
            out.append("".join(_CONSONANTS[letter] for letter in onset) + _LEADING_VOWELS[c])
            bare, i = False, j
            continue
        if c == "อ":
            out.append("o" if bare else "")
            bare = not bare
        elif c == "ฤ":
            out.append("ri")
            bare = False
        elif c in _CONSONANTS:
            out.append(_CONSONANTS[c])
            bare = True
        elif c in _FOLLOWING_VOWELS:
            out.append(_FOLLOWING_VOWELS[c])
            bare = False
        elif c.isascii() and c.isalpha():
            out.append(c.lower())
            bare = False
        i += 1
    return "".join(out)


def _folded(letters: str) -> str:
    letters = re.sub(r"(?<=[bdfgjklmnprstwz])h", "", letters)
    letters = letters.replace("ch", "c").replace("g", "k")
    letters = re.sub(r"y(?![aeiou])", "i", letters)
    letters = letters.replace("ai", "i").replace("ei", "i")
    letters = re.sub(r"[aeiou]+", lambda run: _VOWEL_CLASS[run.group(0)[0]], letters)
    return re.sub(r"(.)\1+", r"\1", letters)


def thai_key(thai: str) -> str:
    """The coarse key of a Thai spelling."""
    return _folded(_romanised(thai))


def english_key(word: str) -> str:
    """The coarse key of an English spelling."""
    letters = re.sub(r"[^a-z]", "", word.lower())
    if len(letters) > 3 and letters.endswith("e") and letters[-2] not in "aeiou":
        letters = letters[:-1]
    letters = letters.replace("ph", "f").replace("qu", "kw").replace("ck", "k").replace("sch", "sk")
    letters = re.sub(r"c(?=[eiy])", "s", letters)
    letters = re.sub(r"g(?=[eiy])", "j", letters)
    letters = re.sub(r"^x", "s", letters)
    letters = (letters.replace("x", "ks").replace("c", "k").replace("q", "k").replace("z", "s")
               .replace("v", "w"))
    return _folded(letters)


def edit_budget(key: str) -> int | None:
    """Edits a key of this length may differ by and still match (None: too short to look up)."""
    if len(key) < MIN_KEY:
        return None
    return 0 if len(key) < 10 else 1 if len(key) < 13 else 2


def looks_native(thai: str) -> bool:
    """Letters Thai spells its own words with and hardly ever a drug name: a loanword writes f with
    ฟ, not ฝ; s with ซ or ส, not ศ or ษ; and seldom carries a tone mark. Such a word is not looked up."""
    return any(c in _NATIVE_LETTERS for c in thai)


@dataclass(frozen=True)
class LoanwordMatch(Generic[T]):
    thai: str
    english: str
    values: tuple[T, ...]
    edits: int


class LoanwordIndex(Generic[T]):
    """English words (each with the values it stands for, e.g. MeSH ids) looked up by Thai spelling."""

    def __init__(self, words: Mapping[str, Iterable[T]]) -> None:
        by_key: dict[str, dict[str, set[T]]] = {}
        for word, values in words.items():
            key = english_key(word)
            if len(key) >= MIN_KEY:
                by_key.setdefault(key, {}).setdefault(word, set()).update(values)
        self._keys = sorted(by_key)
        self._words = by_key

    def __len__(self) -> int:
        return len(self._keys)

    def match(self, thai: str) -> LoanwordMatch[T] | None:
        """The vocabulary word `thai` spells, if one is within the edit budget (fewest edits, then the
        key first in order, so the answer is the same in every run)."""
        key = thai_key(thai)
        budget = edit_budget(key)
        if budget is None:
            return None
        if looks_native(thai):
            return None
        found = process.extractOne(key, self._keys, scorer=Levenshtein.distance, score_cutoff=budget)
        if found is None:
            return None
        words = self._words[found[0]]
        english = min(words)
        return LoanwordMatch(thai, english, tuple(sorted(set().union(*words.values()))), int(found[1]))
