"""How strong the evidence for one relation is: low, moderate or high.

Two things decide it: the design of the supporting documents, read from the corpus quality score
(`search.quality`: its `design` and `human` components, from the publication types and MeSH
headings), and how many independent documents agree (distinct PMIDs; an imported fact that cites
no PMID counts as one document per distinct source).

Each supporting document gets a grade:
- `top`: design 2: a meta-analysis, systematic review or randomised controlled trial;
- `human`: design 1 in humans (human 2) and not in animals: another clinical trial, cohort or
  observational study;
- `weak`: everything else: case reports, letters and editorials (design 0), animal and in-vitro
  studies (human 0 or 1), and documents the corpus does not hold (their design is unknown). A
  document NLM indexed with both Humans and Animals is mostly human cells or tissue beside animal
  experiments ("Curcumin suppresses phthalate-induced metastasis ... in hepatocellular carcinoma":
  human cell lines and BALB/c mice; "DEHP accelerates atherosclerosis in apolipoprotein
  E-deficient mice"), so it is weak too, and its kind says both.
Retracted documents are left out.

Then:
- high: two or more `top` documents, or one `top` document and three or more documents in all;
- moderate: one `top` document, or two or more `human` documents, or three or more documents;
- low: anything less (one animal study, one case report, one unknown source).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

StrengthLevel = Literal["low", "moderate", "high"]
Grade = Literal["top", "human", "weak"]
STRENGTH_ORDER: dict[str, int] = {"low": 0, "moderate": 1, "high": 2}


@dataclass(frozen=True, slots=True)
class SupportingDocument:
    """One independent document behind a relation: `key` is `pmid:N` or the cited source; the quality
    components are None when the corpus does not hold the document."""

    key: str
    design: int | None = None
    human: int | None = None
    retracted: bool = False
    # Indexed with the MeSH heading Animals (`indexes_animals`).
    animals: bool = False

    @property
    def grade(self) -> Grade:
        if self.design == 2:
            return "top"
        if self.design == 1 and self.human == 2 and not self.animals:
            return "human"
        return "weak"


def indexes_animals(mesh_headings: Iterable[str]) -> bool:
    return any(heading.strip().lower() == "animals" for heading in mesh_headings)


# What kind of study a document is, best first (its design, then who was studied): what a reader
# weighs a quote by (a clinical study over a case report over an animal or in-vitro study).
STUDY_KINDS: tuple[str, ...] = (
    "trial or meta-analysis", "clinical study", "case report or opinion", "human material and animal study",
    "study (population not indexed)",
    "in vitro or other non-human study", "animal study", "unknown design",
)


def study_kind(document: SupportingDocument) -> str:
    """One of STUDY_KINDS, from the corpus quality components (`search.quality`)."""
    if document.design is None:
        return "unknown design"
    if document.design == 2:
        return "trial or meta-analysis"
    if document.design == 0:
        return "case report or opinion"
    if document.human == 2 and document.animals:
        return "human material and animal study"
    return {2: "clinical study", 1: "in vitro or other non-human study", 0: "animal study"}.get(
        document.human, "study (population not indexed)")  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Strength:
    level: StrengthLevel
    documents: int
    top: int
    human: int
    weak: int

    @property
    def reason(self) -> str:
        return f"{self.documents} document(s): {self.top} trial/meta-analysis, {self.human} other human, {self.weak} weak or unknown"


def evidence_strength(documents: Iterable[SupportingDocument]) -> Strength:
    """The strength of a relation supported by `documents` (duplicates by key count once; see the module docstring)."""
    unique: dict[str, SupportingDocument] = {}
    for document in documents:
        if not document.retracted:
            unique.setdefault(document.key, document)
    grades = [document.grade for document in unique.values()]
    top, human, total = grades.count("top"), grades.count("human"), len(grades)
    if top >= 2 or (top >= 1 and total >= 3):
        level: StrengthLevel = "high"
    elif top >= 1 or human >= 2 or total >= 3:
        level = "moderate"
    else:
        level = "low"
    return Strength(level=level, documents=total, top=top, human=human, weak=total - top - human)
