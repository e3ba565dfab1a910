"""PubMedQA's json (PQA-L, `pqal_dev.json`): per PMID, a QUESTION (the article's title), the abstract
without its conclusion as CONTEXTS under their LABELS, the conclusion as LONG_ANSWER, and the
expert's final_decision (yes, no or maybe)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class PubMedQaSection:
    label: str
    text: str


@dataclass(frozen=True)
class PubMedQaItem:
    pmid: str
    question: str
    contexts: list[PubMedQaSection]  # the abstract without its conclusion
    long_answer: str  # the abstract's conclusion
    decision: str

    @property
    def sections(self) -> list[PubMedQaSection]:
        """The whole abstract, its conclusion last."""
        return (
            [*self.contexts, PubMedQaSection("CONCLUSIONS", self.long_answer)]
            if self.long_answer
            else self.contexts
        )


def load_pubmedqa(path: Path) -> list[PubMedQaItem]:
    """The items in file order."""
    raw: dict[str, dict[str, Any]] = json.loads(Path(path).read_text(encoding="utf-8"))
    return [
        PubMedQaItem(
            pmid,
            item["QUESTION"],
            [
                PubMedQaSection(label, text)
                for label, text in zip(item["LABELS"], item["CONTEXTS"], strict=True)
            ],
            item.get("LONG_ANSWER") or "",
            item["final_decision"],
        )
        for pmid, item in raw.items()
    ]
