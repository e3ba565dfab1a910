"""Untrained plant relation cues: what labels a plant x phenotype pair when no annotated corpus is
at hand to fit the pair model on (PPR may be used here but not redistributed, so an install has
no training split unless its user brings one).

A small rule set over one sentence, read in this order:
1. The phenotype named before the plant, a negation between the two, or another plant between
   them: none (PPR's relations are mostly stated plant first: "X reduced Y", "X is used for Y").
2. A positive phenotype ("anti-inflammatory", "hepatoprotective") after the plant: Increase (the
   plant has that property).
3. A negative or neutral phenotype: Decrease when a decrease cue ("reduce", "inhibit", "attenuate",
   "ameliorate", "protect against", "treat", "used for", "effect" ...) lies between the two;
   otherwise none. Harms (Increase of a negative phenotype, CAUSES) are not stated: increase cues
   ("induce", "cause", "increase the risk" ...) were right for 6 of 47 pairs on the training split
   and 1 of 16 on dev, mostly another agent's ("alloxan-induced diabetic rats"), and a wrong CAUSES
   would reach `tool.find_contraindications` as a contraindication.

Tuned on PPR's training split only, and scored on its dev split end to end (`bio-mcp eval relations
--untrained`; README "`evidence`"). `CUE_CONFIDENCE` is the rules' precision per graph edge type
on the training split (a TREATS the rules state whose pair is a gold relation of that class), the
same measure the trained model's confidence is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bio_mcp.graph.elements import TREATS
from bio_mcp.graph.relation_kinds import DECREASE, INCREASE, NONE, PLANT_KIND, POSITIVE, Span

CUE_EXTRACTOR = "plant-cue-rules"
# Measured on PPR's training split, end to end (the project's linker, these recognisers): 2,060
# TREATS stated, 65.8% of them a gold Decrease (or anti-X Increase) of their pair.
CUE_CONFIDENCE = {TREATS: 0.6583}

_DECREASE_CUE = re.compile(
    r"\b(?:reduc|decreas|inhibit|suppress|attenuat|ameliorat|alleviat|prevent|protect|against|treat|therap|"
    r"lower|reliev|improv|revers|block|mitigat|counteract|combat|cur(?:e|es|ed|ing)\b|heal|diminish|"
    r"down-?regulat|antagoni|used\b|effects?\b|activit|efficac|benefi|useful|potential|remed|manag|apopto)"
    # Studied in a model of the disease that another agent induces ("in alloxan-induced diabetic rats").
    r"|\b(?:in|on)\b.*\binduced\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|no|neither|nor|without|failed to|lack(?:ed|s)?)\b", re.IGNORECASE)


class CueRules:
    """The untrained pair classifier (`relations.PairClassifier`): cue words, no fitted weights."""

    def label(self, text: str, sentence: tuple[int, int], plant: Span, phenotype: Span,
              others: Sequence[Span]) -> str:
        if phenotype.start < plant.start:
            return NONE
        between = text[plant.end : phenotype.start]
        if _NEGATION.search(between) or any(
            span.kind == PLANT_KIND and plant.end <= span.start and span.end <= phenotype.start
            and span.entity_id != plant.entity_id for span in others
        ):
            return NONE
        if phenotype.kind == POSITIVE:
            return INCREASE
        return DECREASE if _DECREASE_CUE.search(between) else NONE
