"""Every evaluation's measures: true and false positives and negatives with the precision, recall
and F1 they give (the graph's extraction: linking, relations, adverse effects); nDCG, recall and
MRR of a ranking against graded judgments (retrieval); AUROC, a reliability table and the expected
calibration error of scores read as probabilities (answers)."""

from __future__ import annotations

import math
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
        return {
            "precision": round(precision, 4),
            "recall": round(recall, 4),
            "f1": round(f1, 4),
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
        }


def ndcg_at(ranked: list[str], judged: dict[str, int], k: int = 10) -> float:
    dcg = sum(judged.get(doc, 0) / math.log2(rank + 2) for rank, doc in enumerate(ranked[:k]))
    ideal = sorted((grade for grade in judged.values() if grade > 0), reverse=True)[:k]
    best = sum(grade / math.log2(rank + 2) for rank, grade in enumerate(ideal))
    return dcg / best if best > 0 else 0.0


def recall_at(ranked: list[str], judged: dict[str, int], k: int = 100) -> float:
    relevant = {doc for doc, grade in judged.items() if grade > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def mrr_at(ranked: list[str], judged: dict[str, int], k: int = 10) -> float:
    first = next((rank for rank, doc in enumerate(ranked[:k], start=1) if judged.get(doc, 0) > 0), None)
    return 1.0 / first if first else 0.0


def query_metrics(top10: list[str], top100: list[str], judged: dict[str, int]) -> dict[str, float]:
    """nDCG@10 and MRR@10 of a search for 10 documents, Recall@100 of a search for 100."""
    return {
        "ndcg@10": ndcg_at(top10, judged),
        "recall@100": recall_at(top100, judged),
        "mrr@10": mrr_at(top10, judged),
    }


def auroc(positives: list[float], negatives: list[float]) -> float:
    """P(a random positive scores above a random negative), ties counting half."""
    if not positives or not negatives:
        return float("nan")
    wins = 0.0
    for p in positives:
        for n in negatives:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(positives) * len(negatives))


@dataclass(frozen=True)
class ReliabilityBin:
    low: float
    high: float
    count: int
    mean_conf: float
    observed: float


def reliability_table(scores: list[float], events: list[float], bins: int = 10) -> list[ReliabilityBin]:
    """Equal-width bins of [0, 1]: per bin, how many scores, their mean, and how often the event happened."""
    table = []
    for number in range(bins):
        low, high = number / bins, (number + 1) / bins
        inside = [
            (s, e)
            for s, e in zip(scores, events, strict=True)
            if low <= s < high or (number == bins - 1 and s == 1.0)
        ]
        if inside:
            table.append(
                ReliabilityBin(
                    round(low, 2),
                    round(high, 2),
                    len(inside),
                    round(sum(s for s, _ in inside) / len(inside), 4),
                    round(sum(e for _, e in inside) / len(inside), 4),
                )
            )
    return table


def expected_calibration_error(scores: list[float], events: list[float], bins: int = 10) -> float:
    """Sum over bins of (share of scores in the bin) x |mean score - event rate|."""
    return sum(
        row.count / len(scores) * abs(row.mean_conf - row.observed)
        for row in reliability_table(scores, events, bins)
    )
