"""The entity boost of kb.search: documents whose sections mention the query's entities rank higher.

    boosted(d) = score(d) * (1 + weight * matched(d) / n)

with `n` the distinct entities the query links to and `matched(d)` how many of them a section of
d mentions (by any synonym: the linker maps every synonym to one id). Scores stay positive and the
factor only grows with matches, so a document without the query's entities never overtakes one
with them on equal retrieval scores, and with `weight` 0 (or no linked entity) the order is the
hybrid's. Ties break by key, so the order is deterministic.
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
        boosted = [(key, score * (1.0 + weight * matched.get(key, 0) / entity_count)) for key, score in scored]
    return sorted(boosted, key=lambda item: (-item[1], item[0]))


def bounded_scores(scored: Sequence[tuple[K, float]], ceiling: float) -> list[tuple[K, float]]:
    """Scores over `ceiling`, the most any document can score, clipped to [0, 1] (order kept).

    Not over this query's best: a query that matches nothing well keeps low scores, as
    `rag.search`'s do, instead of having its best section read as 1.0 to an agent."""
    return [(key, min(1.0, max(0.0, score / ceiling))) for key, score in scored]
