"""The vocabulary of plant relation extraction: span kinds (a plant or a phenotype's polarity, PPR's
entity types), pair labels (PPR's relation classes) and a recognised span. Shared by the trained
pair model (`graph/relations.py`) and the untrained cue rules (`graph/relation_cues.py`)."""

from __future__ import annotations

from typing import NamedTuple

PLANT_KIND = "plant"
NEGATIVE, POSITIVE, NEUTRAL = "Negative_phenotype", "Positive_phenotype", "Neutral_phenotype"
INCREASE, DECREASE, NONE = "Increase", "Decrease", "none"


class Span(NamedTuple):
    start: int
    end: int
    kind: str  # PLANT_KIND or a phenotype type
    entity_id: str | None
    key: str
