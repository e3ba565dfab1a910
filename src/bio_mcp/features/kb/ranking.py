"""The entity boost of kb.search: documents whose sections mention the query's entities rank higher.

    boosted(d) = score(d) * (1 + weight * matched(d) / n) / (1 + weight)

with `n` the distinct entities the query links to and `matched(d)` how many of them a section of
d mentions (by any synonym: the linker maps every synonym to one id). The factor lies in
[1 / (1 + weight), 1], so a score in [0, 1] stays there and 1 still means the best a document can
score: the best relevance, in a record of the best quality, mentioning every entity of the query.
Scores stay positive and the factor only grows with matches, so a document without the query's
entities never overtakes one with them on equal retrieval scores, and with `weight` 0 (or no
linked entity) the scores and order are the hybrid's. Ties break by key, so the order is
deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=str)


def entity_boost(
    scored: Sequence[tuple[K, float]], matched: Mapping[K, int], entity_count: int, weight: float
) -> list[tuple[K, float]]:
    """`scored` (key, score) re-scored and sorted best first (score, then key)."""
    if entity_count <= 0 or weight <= 0:
        boosted = list(scored)
    else:
        boosted = [
            (key, score * (1.0 + weight * min(matched.get(key, 0), entity_count) / entity_count) / (1.0 + weight))
            for key, score in scored
        ]
    return sorted(boosted, key=lambda item: (-item[1], item[0]))
