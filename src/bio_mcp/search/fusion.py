"""Hybrid fusion of BM25 and vector candidates, roll-up to documents, and the quality rerank.

Pure functions over candidate lists; `HybridIndex` feeds them.

1. **Candidates.** Each retriever returns its top chunks; `merge_candidates` joins them by UUID,
   keeping `bm25` and `sim` (None when that retriever did not return the chunk).
2. **Roll-up.** Each list is rolled up to documents before fusing: a document's cosine is its best
   chunk's, and its BM25 that of the whole document when the caller has it (`HybridIndex` does for
   documents of up to 16 chunks), else its best chunk's. So a document whose BM25 evidence is in
   one chunk and whose semantic match is in another still gets both. The representative chunk of
   a document is its best chunk by fused chunk score.
3. **Fusion**, one of:
   - ``"rrf"``: reciprocal-rank fusion, ``w_bm25 / (k + rank_bm25) + w_vec / (k + rank_vec)``
     with 1-based ranks among documents; a missing rank adds nothing.
   - ``"score"``: normalised-score fusion,
     ``w_bm25 * bm25 / max(bm25) + w_vec * (sim - min(sim)) / max(max(sim) - min(sim), sim_min_span)``
     over the candidate documents, a missing score counting as 0. BM25 is ratio-scaled from 0
     (no term matched), so dividing by the best keeps "how much of the best match" and a matching
     document never scores 0; candidate cosines sit in a band whose floor is not "no match", so
     they are stretched from the lowest candidate, but over at least `sim_min_span` (0.3 in
     cosine): when every candidate is a poor match the cosines are bunched (the query
     `semaglutide` on a corpus without it: 0.05 to 0.23), and plain min-max would make the best of
     them (an unrelated paper at 0.23) worth as much as the only BM25 match, which it then
     outranked. With the floor that paper gets 0.6 of the vector weight, not all of it. On
     SciFact the candidates of almost every query span more than 0.3 (README, `bench/fusion_floor.py`).
   Relevance is the fused score over the best possible one (`FusionConfig.best_possible`), not over
   this query's best, so a poor best match does not read as 1.0. A document fused to 0 (no query
   word, and a cosine no better than the lowest candidate's) matched nothing and is left out: in a
   corpus of two papers, the one a query does not touch is the vector search's floor, and listing
   it at 0.000 would present it as a result. Every RRF candidate scores above 0.
4. **Quality rerank** (`quality_bias`):
   ``score = relevance * (1 + quality_weight * q / 8) / (1 + quality_weight)`` with ``q`` the
   quality total (0 to 8, unknown counts as 0). So the score stays in [0, 1] and says what it is:
   1 is the best match both retrievers can express in a record of the best quality; a record of
   unknown or lowest quality keeps 1 / (1 + quality_weight) of its relevance (0.91 at the default
   0.1). Dividing every score by the same constant leaves the order as it was when the factor was
   ``1 + quality_weight * q / 8``, which could lift a score to 1.1. Relevance is positive, so the
   factor is non-decreasing in quality: a higher quality never lowers a result's score, and at
   the default weight 0.1 a document must already be within about 9% of another's relevance to
   pass it on quality alone (so quality breaks near-ties, it does not override relevance).
   Without `quality_bias`, ``score = relevance``.

The defaults (`DEFAULT_FUSION`) come from a grid on SciFact's *training* split
(``bench/scifact_tune.py``, 809 queries, 5,183 abstracts, all-MiniLM-L6-v2): score fusion at
0.5 / 0.5 over 100 candidates per retriever scored nDCG@10 0.740 (local model) and 0.741 (onnx),
within 0.0005 of the best weight for either; RRF scored 0.723 at k = 60 and 0.730 at k = 10;
50 or 200 candidates changed nothing that matters. With a *random* quality total per document,
`quality_bias` costs 0.002 nDCG@10 at weight 0.05, 0.006 at 0.1 and 0.013 at 0.2: 0.1 is the
most a signal that carries no relevance information may cost. Ties are broken by pmid and UUID
so rankings are reproducible.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from bio_mcp.search.quality import QUALITY_MAX

FusionMethod = Literal["rrf", "score"]


@dataclass(frozen=True, slots=True)
class FusionConfig:
    method: FusionMethod = "score"
    bm25_weight: float = 0.5
    vector_weight: float = 0.5
    rrf_k: int = 60
    quality_weight: float = 0.1
    # Chunks fetched from each retriever per search (at least; see `candidate_depth`).
    candidates: int = 100
    # Cosine normalisation: (sim - lowest candidate) / max(span of the candidates, sim_min_span).
    # The floor keeps a query whose candidates are all poor matches (a narrow band of low cosines)
    # from having its best stretched to 1.0 (see the module docstring).
    sim_min_span: float = 0.3

    def __post_init__(self) -> None:
        if self.bm25_weight < 0 or self.vector_weight < 0 or self.bm25_weight + self.vector_weight <= 0:
            raise ValueError("fusion weights must be non-negative and not both zero")
        if self.rrf_k < 1:
            raise ValueError("rrf_k must be at least 1")
        if self.quality_weight < 0:
            raise ValueError("quality_weight must be non-negative")
        if self.candidates < 1:
            raise ValueError("candidates must be at least 1")
        if not 0.0 <= self.sim_min_span <= 2.0:
            raise ValueError("sim_min_span must be in [0, 2] (cosines lie in [-1, 1])")

    def best_possible(self) -> float:
        """The fused score of a document first in (or with the best normalised score of) both lists."""
        total = self.bm25_weight + self.vector_weight
        return total / (self.rrf_k + 1) if self.method == "rrf" else total

    def candidate_depth(self, top_k: int) -> int:
        """Enough chunks per retriever that `top_k` documents survive the roll-up."""
        return max(self.candidates, 5 * top_k)


DEFAULT_FUSION = FusionConfig()


@dataclass(frozen=True, slots=True)
class Candidate:
    uuid: str
    pmid: str
    bm25: float | None = None
    sim: float | None = None


@dataclass(frozen=True, slots=True)
class FusedDoc:
    """A document: its representative chunk, that chunk's retriever scores, its relevance."""

    pmid: str
    uuid: str
    bm25: float | None
    sim: float | None
    relevance: float


@dataclass(frozen=True, slots=True)
class RankedDoc:
    pmid: str
    uuid: str
    bm25: float | None
    sim: float | None
    quality: int | None
    relevance: float
    score: float


def merge_candidates(
    bm25_hits: Iterable[tuple[str, str, float]], vector_hits: Iterable[tuple[str, str, float]]
) -> list[Candidate]:
    """Joins (uuid, pmid, score) lists from each retriever into one candidate per chunk."""
    merged: dict[str, Candidate] = {}
    for uuid, pmid, score in bm25_hits:
        merged[uuid] = Candidate(uuid, pmid, bm25=score)
    for uuid, pmid, score in vector_hits:
        found = merged.get(uuid)
        merged[uuid] = Candidate(uuid, pmid, bm25=found.bm25 if found else None, sim=score)
    return list(merged.values())


def _best_per_doc(candidates: Iterable[Candidate], field: Literal["bm25", "sim"]) -> dict[str, float]:
    best: dict[str, float] = {}
    for candidate in candidates:
        value = getattr(candidate, field)
        if value is not None and (candidate.pmid not in best or value > best[candidate.pmid]):
            best[candidate.pmid] = value
    return best


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    ordered = sorted(scores, key=lambda key: (-scores[key], key))
    return {key: rank for rank, key in enumerate(ordered, start=1)}


def _over_best(scores: Mapping[str, float]) -> dict[str, float]:
    best = max(scores.values(), default=0.0)
    return {key: value / best if best > 0 else 0.0 for key, value in scores.items()}


def _min_max(scores: Mapping[str, float], min_span: float = 0.0) -> dict[str, float]:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    span = max(high - low, min_span)
    # One candidate, or all equal (and no floor): each is as good as the best.
    return {key: (value - low) / span if span > 0 else 1.0 for key, value in scores.items()}


def fuse_scores(
    bm25: Mapping[str, float], sim: Mapping[str, float], config: FusionConfig
) -> dict[str, float]:
    """Fused score per key (a document or a chunk) from each retriever's scores."""
    keys = set(bm25) | set(sim)
    if config.method == "rrf":
        bm25_rank, sim_rank = _ranks(bm25), _ranks(sim)
        return {
            key: (config.bm25_weight / (config.rrf_k + bm25_rank[key]) if key in bm25_rank else 0.0)
            + (config.vector_weight / (config.rrf_k + sim_rank[key]) if key in sim_rank else 0.0)
            for key in keys
        }
    bm25_norm, sim_norm = _over_best(bm25), _min_max(sim, config.sim_min_span)
    return {
        key: config.bm25_weight * bm25_norm.get(key, 0.0) + config.vector_weight * sim_norm.get(key, 0.0)
        for key in keys
    }


def fuse(
    candidates: Iterable[Candidate],
    config: FusionConfig = DEFAULT_FUSION,
    document_bm25: Mapping[str, float] | None = None,
) -> list[FusedDoc]:
    """Documents ranked by fused relevance: the fused score over the best any document could get, so
    1.0 means the best match both retrievers can express, not merely the best of this query.

    `document_bm25` (pmid -> the BM25 of the whole document) stands in for a candidate document's
    best chunk BM25 where it has one, and is then the `bm25` its FusedDoc reports."""
    items = list(candidates)
    if not items:
        return []
    bm25 = _best_per_doc(items, "bm25")
    if document_bm25 is not None:
        bm25.update((c.pmid, document_bm25[c.pmid]) for c in items if c.pmid in document_bm25)
    doc_scores = fuse_scores(bm25, _best_per_doc(items, "sim"), config)
    chunk_scores = fuse_scores(
        {c.uuid: c.bm25 for c in items if c.bm25 is not None},
        {c.uuid: c.sim for c in items if c.sim is not None},
        config,
    )
    representative: dict[str, Candidate] = {}
    for candidate in items:
        current = representative.get(candidate.pmid)
        key = (chunk_scores.get(candidate.uuid, 0.0), candidate.uuid)
        if current is None or key > (chunk_scores.get(current.uuid, 0.0), current.uuid):
            representative[candidate.pmid] = candidate
    ceiling = config.best_possible()
    docs = [
        FusedDoc(
            pmid=pmid,
            uuid=representative[pmid].uuid,
            bm25=representative[pmid].bm25 if document_bm25 is None else bm25.get(pmid),
            sim=representative[pmid].sim,
            relevance=score / ceiling,
        )
        for pmid, score in doc_scores.items()
        if score > 0
    ]
    docs.sort(key=lambda doc: (-doc.relevance, doc.pmid))
    return docs


def quality_factor(quality: int | None, weight: float) -> float:
    """Non-decreasing in quality, in [1 / (1 + weight), 1]: 1 at the best quality, 1 / (1 + weight)
    when quality is unknown or zero, so a relevance in [0, 1] stays there."""
    level = min(max(quality or 0, 0), QUALITY_MAX)
    return (1.0 + weight * level / QUALITY_MAX) / (1.0 + weight)


def rerank(
    docs: Iterable[FusedDoc],
    quality: Mapping[str, int | None],
    quality_bias: bool,
    weight: float = DEFAULT_FUSION.quality_weight,
) -> list[RankedDoc]:
    """Final scores (see the module docstring); `quality` maps a chunk UUID to its total."""
    ranked = [
        RankedDoc(
            pmid=doc.pmid,
            uuid=doc.uuid,
            bm25=doc.bm25,
            sim=doc.sim,
            quality=quality.get(doc.uuid),
            relevance=doc.relevance,
            score=doc.relevance * quality_factor(quality.get(doc.uuid), weight)
            if quality_bias
            else doc.relevance,
        )
        for doc in docs
    ]
    ranked.sort(key=lambda doc: (-doc.score, doc.pmid, doc.uuid))
    return ranked
