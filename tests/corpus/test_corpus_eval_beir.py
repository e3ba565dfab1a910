"""BEIR evaluation through the corpus's own chunk, embed, index and search path, on a SciFact slice."""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.config import load_settings
from bio_mcp.features.corpus.eval_beir import evaluate_beir


@pytest.fixture
def scifact(data_dir: Path) -> Path:
    path = data_dir / "bench" / "scifact"
    if not (path / "corpus.jsonl").is_file():
        pytest.skip(f"SciFact not found at {path}")
    return path


def test_scifact_slice_scores_every_mode(scifact: Path, bio_home: Path) -> None:
    settings = load_settings(BIO_MCP_HOME=str(bio_home), BIO_MCP_EMBEDDINGS_PROVIDER="hash")
    results = {
        mode: evaluate_beir(scifact, "train", mode, False, settings, max_queries=30, max_docs=200)
        for mode in ("bm25", "vector", "hybrid")
    }
    for mode, metrics in results.items():
        assert metrics["queries"] == 30 and metrics["mode"] == mode
        # BM25 embeds nothing, so no model produced its scores.
        assert metrics["model_id"] == (None if mode == "bm25" else "hash:v1:384")
        assert 0.0 < metrics["ndcg@10"] <= 1.0 and 0.0 < metrics["mrr@10"] <= 1.0
        assert 0.0 < metrics["recall@100"] <= 1.0
    # On a small slice BM25 finds most relevant abstracts; hashing vectors alone are weaker.
    assert results["bm25"]["ndcg@10"] > 0.6
    assert results["vector"]["ndcg@10"] < results["bm25"]["ndcg@10"]
    biased = evaluate_beir(scifact, "train", "hybrid", True, settings, max_queries=30, max_docs=200)
    # BEIR documents have no quality signals: the rerank must not change anything.
    assert biased["ndcg@10"] == pytest.approx(results["hybrid"]["ndcg@10"])
