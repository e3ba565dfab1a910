"""Word breaks for Thai runs, which BM25's tokenizer cannot see: Thai is written without spaces, so
tantivy's simple tokenizer reads a whole run as one token (and drops it past 40 characters).

Text with Thai letters gets a space between the words pythainlp's newmm finds (its dictionary ships
in the wheel); other text is returned unchanged, and pythainlp is imported only when Thai is met.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_THAI_RUN = re.compile(r"[\u0E00-\u0E7F]+")


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    from pythainlp.tokenize import Tokenizer

    return Tokenizer(engine="newmm")


def spaced_thai(text: str) -> str:
    """`text` with its Thai runs cut into space-separated words."""
    if not _THAI_RUN.search(text):
        return text
    tokenizer = _tokenizer()
    return _THAI_RUN.sub(lambda run: " " + " ".join(tokenizer.word_tokenize(run.group(0))) + " ", text)
