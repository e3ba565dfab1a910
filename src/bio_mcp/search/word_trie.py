"""A word list as pythainlp's `newmm` segmenter reads it (`prefixes`), held in C.

pythainlp's own `Trie` is a Python object per node with a dict of children: its 62,000 Thai words
plus the transliterations and herb names took 63 MB of the server's resident memory (tracemalloc,
after warm-up); the same words in a pyahocorasick trie take about 12 MB. Segmentation is the
same, token for token: `prefixes` returns the same words in the same order (shortest first).

    trie = WordTrie(["ขมิ้น", "ขมิ้นชัน"])
    trie.prefixes("กินขมิ้นชัน", 3)            # ['ขมิ้น', 'ขมิ้นชัน']: shortest first
    thai_segments("กินขมิ้นชัน", trie)         # newmm, as pythainlp's Tokenizer runs it
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import ahocorasick
from pythainlp.tokenize import word_tokenize


class WordTrie:
    """pythainlp `Trie`'s reading side: words stripped of surrounding spaces, empty ones left out."""

    def __init__(self, words: Iterable[str]) -> None:
        self._trie = ahocorasick.Automaton(ahocorasick.STORE_LENGTH)
        longest = 0
        for word in words:
            word = word.strip()
            if word:
                self._trie.add_word(word)
                longest = max(longest, len(word))
        self._longest = longest

    def prefixes(self, text: str, start: int = 0) -> list[str]:
        """The words that `text` starts with at `start`, shortest first."""
        window = text[start:start + self._longest]
        reach = self._trie.longest_prefix(window)
        exists = self._trie.exists
        return [window[:end] for end in range(1, reach + 1) if exists(window[:end])]

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._trie.exists(word)

    def __len__(self) -> int:
        return len(self._trie)

    def __iter__(self) -> Iterator[str]:
        return iter(self._trie.keys())


def thai_segments(text: str, trie: WordTrie) -> list[str]:
    """pythainlp's `Tokenizer(custom_dict=..., engine="newmm").word_tokenize(text)` over `trie`."""
    return word_tokenize(text, custom_dict=trie, engine="newmm", keep_whitespace=True,  # type: ignore[arg-type]
                         join_broken_num=True)
