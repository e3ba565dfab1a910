"""Common Thai health complaints with the English words the literature uses for them, shipped with
the package (`thai_health_words.tsv` beside this module, a curated glossary) and read before Thai
WordNet. WordNet's first sense of an everyday complaint is often not the medical one: ไอ (cough) is
filed first as "vapor", ท้องผูก (constipation) as "costive", สิว (acne) as "pimple"; and many complaints
as people write them (นอนไม่หลับ, insomnia; หอบหืด, asthma; ริดสีดวง, hemorrhoids) are not in it at all.

    health_words()['ไอ']    # ('cough',)
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

HEALTH_WORDS = Path(__file__).with_name("thai_health_words.tsv")


@lru_cache(maxsize=1)
def health_words() -> dict[str, tuple[str, ...]]:
    """Thai complaint -> its English words, the literature's term first."""
    with HEALTH_WORDS.open(encoding="utf-8") as handle:
        return {row["thai"]: tuple(row["english"].split()) for row in csv.DictReader(handle, delimiter="\t")}
