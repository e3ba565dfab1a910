"""Which characters are Thai: the one definition every layer uses.

Unicode's Thai block runs from U+0E00 to U+0E7F, but only U+0E01 to U+0E5B are assigned (letters,
vowels, tone marks, the baht sign, digits and punctuation); the rest never occur in text.
"""

from __future__ import annotations

import re

THAI_CHARS = "\u0e01-\u0e5b"  # for building character classes
THAI_CHAR = re.compile(f"[{THAI_CHARS}]")
THAI_RUN = re.compile(f"[{THAI_CHARS}]+")


def contains_thai(text: str) -> bool:
    return THAI_CHAR.search(text) is not None
