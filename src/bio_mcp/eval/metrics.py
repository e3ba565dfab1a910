"""True and false positives and negatives, and the precision, recall and F1 they give: what every
evaluation of the graph's extraction (linking, relations, adverse effects) reports."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def scores(self) -> dict[str, float | int]:
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4),
                "tp": self.tp, "fp": self.fp, "fn": self.fn}
