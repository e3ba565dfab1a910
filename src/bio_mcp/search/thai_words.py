"""Word breaks for Thai runs, which BM25's tokenizer cannot see: Thai is written without spaces, so
tantivy's simple tokenizer reads a whole run as one token (and drops it past 40 characters).

Text with Thai letters gets a space between the words pythainlp's newmm finds (its dictionary ships
in the wheel, held in `word_trie.WordTrie`); other text is returned unchanged, and pythainlp is imported only when Thai is met.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from bio_mcp.thai_script import THAI_RUN


@lru_cache(maxsize=1)
def _words() -> Any:
    from pythainlp.corpus import thai_words

    from bio_mcp.search.word_trie import WordTrie

    return WordTrie(thai_words())


def spaced_thai(text: str) -> str:
    """`text` with its Thai runs cut into space-separated words."""
    if not THAI_RUN.search(text):
        return text
    from bio_mcp.search.word_trie import thai_segments

    words = _words()
    return THAI_RUN.sub(lambda run: " " + " ".join(thai_segments(run.group(0), words)) + " ", text)
