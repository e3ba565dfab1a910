from __future__ import annotations

import itertools

import pytest

from bio_mcp.search.fusion import (
    DEFAULT_FUSION,
    Candidate,
    FusedDoc,
    FusionConfig,
    fuse,
    fuse_scores,
    merge_candidates,
    quality_factor,
    rerank,
)


def test_merge_joins_both_lists_by_uuid() -> None:
    merged = merge_candidates([("a", "1", 5.0), ("b", "2", 3.0)], [("b", "2", 0.8), ("c", "3", 0.7)])
    assert merged == [
        Candidate("a", "1", 5.0, None),
        Candidate("b", "2", 3.0, 0.8),
        Candidate("c", "3", None, 0.7),
    ]


def test_rrf() -> None:
    scores = fuse_scores(
        {"x": 9.0, "y": 5.0},
        {"y": 0.9, "z": 0.5},
        FusionConfig(method="rrf", rrf_k=60, bm25_weight=1.0, vector_weight=1.0),
    )
    assert scores["y"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["x"] == pytest.approx(1 / 61)
    assert scores["z"] == pytest.approx(1 / 62)


def test_normalised_score_fusion() -> None:
    config = FusionConfig(method="score", bm25_weight=0.5, vector_weight=0.5)
    scores = fuse_scores({"x": 10.0, "y": 5.0}, {"x": 0.5, "y": 0.9, "z": 0.7}, config)
    assert scores["x"] == pytest.approx(0.5 * 1.0 + 0.5 * 0.0)
    assert scores["y"] == pytest.approx(0.5 * 0.5 + 0.5 * 1.0)
    assert scores["z"] == pytest.approx(0.5 * 0.0 + 0.5 * 0.5)


def test_documents_roll_up_each_retriever_to_their_best_chunk() -> None:
    # Doc 1's BM25 evidence is in one chunk and its semantic match in another: it gets both.
    candidates = [
        Candidate("1a", "1", bm25=10.0, sim=0.2),
        Candidate("1b", "1", bm25=1.0, sim=0.9),
        Candidate("2a", "2", bm25=9.0, sim=0.8),
        Candidate("3a", "3", bm25=2.0, sim=0.1),
    ]
    docs = fuse(candidates, FusionConfig())
    assert [d.pmid for d in docs] == ["1", "2", "3"]
    assert docs[0].relevance == 1.0
    assert docs[0].uuid in {"1a", "1b"}
    assert len({d.pmid for d in docs}) == len(docs)
    assert fuse([], FusionConfig()) == []


def test_single_retriever_weights_reduce_to_that_retriever() -> None:
    candidates = [Candidate(f"u{i}", str(i), bm25=float(i), sim=1.0 - i / 10) for i in range(1, 6)]
    bm25_only = fuse(candidates, FusionConfig(bm25_weight=1.0, vector_weight=0.0))
    vector_only = fuse(candidates, FusionConfig(bm25_weight=0.0, vector_weight=1.0))
    assert [d.pmid for d in bm25_only] == ["5", "4", "3", "2", "1"]
    # The lowest cosine is the vector search's floor: with no BM25 weight, doc 5 matched nothing.
    assert [d.pmid for d in vector_only] == ["1", "2", "3", "4"]


def test_a_document_that_matched_nothing_is_left_out() -> None:
    # Two papers, one query word in one of them: the other is the vector floor and no query word.
    matched = Candidate("a", "1", bm25=2.5, sim=0.31)
    untouched = Candidate("b", "2", bm25=0.0, sim=0.12)
    assert [d.pmid for d in fuse([matched, untouched], DEFAULT_FUSION)] == ["1"]
    assert [d.pmid for d in fuse([matched, Candidate("b", "2", sim=0.12)], DEFAULT_FUSION)] == ["1"]
    # A word of the query, or a cosine above the floor, is a match.
    assert [d.pmid for d in fuse([matched, Candidate("b", "2", bm25=0.4, sim=0.12)], DEFAULT_FUSION)] == ["1", "2"]
    assert [d.pmid for d in fuse([Candidate("a", "1", sim=0.31), untouched], DEFAULT_FUSION)] == ["1"]
    assert [d.pmid for d in fuse([matched, untouched], FusionConfig(method="rrf"))] == ["1", "2"]


def test_quality_factor_is_monotone_and_keeps_scores_in_0_1() -> None:
    factors = [quality_factor(q, 0.1) for q in range(9)]
    # 1 at the best quality, so a relevance in [0, 1] stays there (1.1 used to lift a score past 1).
    assert factors == sorted(factors) and factors[0] == pytest.approx(1 / 1.1) and factors[-1] == 1.0
    assert quality_factor(None, 0.1) == factors[0]
    assert quality_factor(12, 0.1) == quality_factor(8, 0.1)
    assert quality_factor(3, 0.0) == 1.0


@pytest.mark.parametrize("weight", [0.05, 0.1, 0.5])
def test_rerank_is_monotone_in_quality(weight: float) -> None:
    docs = [
        FusedDoc(str(i), f"u{i}", 1.0, 0.5, relevance=r) for i, r in enumerate([1.0, 0.97, 0.8, 0.5, 0.0])
    ]
    for doc, (low, high) in itertools.product(docs, itertools.combinations([None, *range(9)], 2)):
        before = rerank([doc], {doc.uuid: low}, True, weight)[0].score
        after = rerank([doc], {doc.uuid: high}, True, weight)[0].score
        assert after >= before
    # Raising one document's quality never moves it down the ranking.
    base = {d.uuid: 4 for d in docs}
    for doc in docs:
        position = [r.uuid for r in rerank(docs, base, True, weight)].index(doc.uuid)
        lifted = [r.uuid for r in rerank(docs, {**base, doc.uuid: 8}, True, weight)].index(doc.uuid)
        assert lifted <= position


def test_quality_breaks_near_ties_only() -> None:
    docs = [
        FusedDoc("1", "a", 1.0, 0.5, 1.0),
        FusedDoc("2", "b", 1.0, 0.5, 0.95),
        FusedDoc("3", "c", 1.0, 0.5, 0.6),
    ]
    quality = {"a": 0, "b": 8, "c": 8}
    ranked = rerank(docs, quality, quality_bias=True, weight=0.1)
    assert [r.pmid for r in ranked] == ["2", "1", "3"]
    unbiased = rerank(docs, quality, quality_bias=False, weight=0.1)
    assert [r.pmid for r in unbiased] == ["1", "2", "3"]
    assert [r.score for r in unbiased] == [1.0, 0.95, 0.6]
    assert ranked[0].quality == 8


def test_config_validation() -> None:
    with pytest.raises(ValueError):
        FusionConfig(bm25_weight=0.0, vector_weight=0.0)
    with pytest.raises(ValueError):
        FusionConfig(quality_weight=-1.0)
    assert FusionConfig(candidates=100).candidate_depth(10) == 100
    assert FusionConfig(candidates=100).candidate_depth(100) == 500


def test_a_poor_semantic_best_does_not_outrank_the_only_real_match() -> None:
    # The reported case: `semaglutide` on a corpus without it. The one real match is BM25's only hit
    # but has the lowest cosine of the candidates; an unrelated paper's cosine of 0.23 is the best of
    # a narrow band of poor cosines. Min-max made that paper worth as much as the real match.
    real = Candidate("real", "29915538", bm25=7.4, sim=0.05)
    unrelated = Candidate("unrelated", "1000", sim=0.23)
    others = [Candidate(f"o{i}", str(2000 + i), sim=0.06 + 0.0015 * i) for i in range(98)]
    docs = fuse([real, unrelated, *others], DEFAULT_FUSION)
    assert docs[0].pmid == "29915538"
    poor = next(doc for doc in docs if doc.pmid == "1000")
    assert poor.relevance == pytest.approx(0.5 * 0.18 / 0.3) and poor.relevance < 0.5
    old = fuse([real, unrelated, *others], FusionConfig(sim_min_span=0.0))
    assert old[0].pmid == "1000"  # what plain min-max did: a tie, lost on the PMID tie-breaker
    ranked = rerank(docs, {"unrelated": 8, "real": 0}, quality_bias=True)
    assert ranked[0].pmid == "29915538"


def test_relevance_is_absolute_not_relative_to_the_query_best() -> None:
    weak = fuse([Candidate("a", "1", bm25=None, sim=0.2), Candidate("b", "2", sim=0.1)], DEFAULT_FUSION)
    assert weak[0].relevance < 0.5
    strong = fuse([Candidate("a", "1", bm25=3.0, sim=0.8), Candidate("b", "2", bm25=1.0, sim=0.3)], DEFAULT_FUSION)
    assert strong[0].relevance == pytest.approx(1.0)
    rrf = FusionConfig(method="rrf", rrf_k=60)
    assert fuse([Candidate("a", "1", bm25=1.0, sim=0.5)], rrf)[0].relevance == pytest.approx(1.0)
