"""The evidence-quality rubric of seed 000: four integer components and their total.

Each component is 0, 1 or 2 (so ``total`` is 0 to 8), or null when the record does not carry the
information it needs; a null component adds nothing to the total.

| component | 2 | 1 | 0 | null |
|---|---|---|---|---|
| design (publication types) | Meta-Analysis, Network Meta-Analysis, Systematic Review, Randomized Controlled Trial | anything else, e.g. other trials (Clinical Trial, phases I to IV, Controlled / Pragmatic / Equivalence), Observational / Multicenter / Comparative / Validation Study, Guideline, Practice Guideline, Review, Journal Article | any low-evidence type: Case Reports, Editorial, Letter, Comment, News, Published Erratum, Retraction notices, Expression of Concern, Biography, Historical Article, Interview, Lecture, Personal Narrative, Portrait | no publication types |
| recency (publication year vs `today`) | 0 to 3 years old (or dated ahead) | 4 to 10 years old | older | no year |
| journal (MEDLINE citation subsets) | AIM (Core Clinical Journals) | any other subset (IM, N, D, ...) | no subset: not a MEDLINE journal | subsets unknown (`None`) |
| human (MeSH headings) | Humans | neither Humans nor Animals (e.g. in vitro) | Animals without Humans | no MeSH headings (not indexed yet) |

A record that carries a low-evidence type scores 0 for design even when it also carries a higher
one: a letter reporting a small randomised trial is still a letter.

Retracted publications (publication type "Retracted Publication", or `retracted=True` from a
"RetractionIn" comments-corrections link) are flagged and score 0 on every component, so the
quality rerank never lifts them; they stay searchable, and `retracted` lets a caller label them.

Recency needs today's date: it is passed in, so the function is pure and golden tests are stable.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date

QUALITY_MAX = 8

TOP_DESIGNS = frozenset(
    {"Meta-Analysis", "Network Meta-Analysis", "Systematic Review", "Randomized Controlled Trial"}
)
LOW_DESIGNS = frozenset(
    {
        "Case Reports",
        "Editorial",
        "Letter",
        "Comment",
        "News",
        "Newspaper Article",
        "Published Erratum",
        "Retraction of Publication",
        "Retraction Notice",
        "Expression of Concern",
        "Biography",
        "Historical Article",
        "Interview",
        "Lecture",
        "Address",
        "Personal Narrative",
        "Portrait",
        "Autobiography",
    }
)
RETRACTED_TYPE = "Retracted Publication"
CORE_CLINICAL_SUBSET = "AIM"


@dataclass(frozen=True, slots=True)
class QualityInput:
    """The fields of a record the rubric reads; `None` means the source did not say."""

    pub_types: Collection[str] = ()
    year: int | None = None
    citation_subsets: Collection[str] | None = None
    mesh_headings: Collection[str] | None = None
    retracted: bool = False


@dataclass(frozen=True, slots=True)
class QualityScore:
    design: int | None
    recency: int | None
    journal: int | None
    human: int | None
    total: int
    retracted: bool = False

    def as_contract(self) -> dict[str, int | None]:
        """The `quality` object of seed 000's `rag.get` (no other keys are allowed there)."""
        return {
            "design": self.design,
            "recency": self.recency,
            "journal": self.journal,
            "human": self.human,
            "total": self.total,
        }


def design_score(pub_types: Collection[str]) -> int | None:
    types = {t.strip() for t in pub_types if t.strip()}
    if not types:
        return None
    if types & LOW_DESIGNS:
        return 0
    if types & TOP_DESIGNS:
        return 2
    return 1


def recency_score(year: int | None, today: date) -> int | None:
    if year is None:
        return None
    age = today.year - year
    if age <= 3:
        return 2
    if age <= 10:
        return 1
    return 0


def journal_score(citation_subsets: Collection[str] | None) -> int | None:
    if citation_subsets is None:
        return None
    subsets = {s.strip().upper() for s in citation_subsets if s.strip()}
    if CORE_CLINICAL_SUBSET in subsets:
        return 2
    return 1 if subsets else 0


def human_score(mesh_headings: Collection[str] | None) -> int | None:
    if not mesh_headings:
        return None
    names = {m.strip().lower() for m in mesh_headings}
    if "humans" in names:
        return 2
    if "animals" in names:
        return 0
    return 1


def score_quality(record: QualityInput, today: date) -> QualityScore:
    if record.retracted or RETRACTED_TYPE in {t.strip() for t in record.pub_types}:
        return QualityScore(design=0, recency=0, journal=0, human=0, total=0, retracted=True)
    parts = (
        design_score(record.pub_types),
        recency_score(record.year, today),
        journal_score(record.citation_subsets),
        human_score(record.mesh_headings),
    )
    design, recency, journal, human = parts
    return QualityScore(
        design=design,
        recency=recency,
        journal=journal,
        human=human,
        total=sum(p for p in parts if p is not None),
    )
