"""`VectorIndex` past its ANN threshold: the HNSW graph behind the same interface."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bio_mcp.search import ann
from bio_mcp.search.vectors import VectorIndex, VectorRow

DIM = 48
COUNT = 3000
THRESHOLD = 1000


def _embedding_like(count: int, seed: int) -> np.ndarray:
    """Unit vectors scattered around a few dozen centroids, like sentence embeddings."""
    rng = np.random.default_rng(seed)
    centroids = np.random.default_rng(0).normal(size=(40, DIM))
    picked = centroids[rng.integers(0, 40, size=count)] + 0.35 * rng.normal(size=(count, DIM))
    return (picked / np.linalg.norm(picked, axis=1, keepdims=True)).astype(np.float32)


VECTORS = _embedding_like(COUNT, seed=1)
QUERIES = _embedding_like(60, seed=2)


def _rows(vectors: np.ndarray = VECTORS, prefix: str = "u") -> list[VectorRow]:
    return [
        VectorRow(
            f"{prefix}{i:05d}",
            str(1000 + i),
            year=2000 + i % 20,
            pub_types=("Review",) if i % 3 == 0 else ("Journal Article",),
            quality=i % 9,
            vector=vector,
        )
        for i, vector in enumerate(vectors)
    ]


def _pair(rows: list[VectorRow]) -> tuple[VectorIndex, VectorIndex]:
    """The same rows in an exact index and in one past its ANN threshold."""
    exact = VectorIndex(DIM, "test:model", ann_threshold=10 * COUNT)
    approximate = VectorIndex(DIM, "test:model", ann_threshold=THRESHOLD)
    exact.upsert(rows)
    approximate.upsert(rows)
    assert not exact.uses_ann and approximate.uses_ann
    return exact, approximate


def _recall(exact: VectorIndex, approximate: VectorIndex, k: int, mask: np.ndarray | None = None) -> float:
    found = [
        len({h.uuid for h in exact.search(q, k, mask)} & {h.uuid for h in approximate.search(q, k, mask)})
        for q in QUERIES
    ]
    return sum(found) / (k * len(QUERIES))


def test_recall_against_exact_search_and_scores_are_exact_cosines() -> None:
    exact, approximate = _pair(_rows())
    graph = approximate._ann
    assert graph is not None
    # The graph itself answers (an exact fallback would make the recall below trivially 1).
    assert all(graph.search(query, 100, None).shape == (100,) for query in QUERIES)
    assert _recall(exact, approximate, 10) >= 0.95
    assert _recall(exact, approximate, 100) >= 0.95
    by_uuid = {row.uuid: np.asarray(row.vector) for row in _rows()}
    hits = approximate.search(QUERIES[0], 20)
    assert len(hits) == 20
    assert [h.sim for h in hits] == sorted((h.sim for h in hits), reverse=True)
    for hit in hits:
        assert hit.sim == pytest.approx(float(by_uuid[hit.uuid] @ QUERIES[0]), abs=1e-6)


def test_masks_are_applied_before_the_top_k() -> None:
    exact, approximate = _pair(_rows())
    wide = approximate.mask(year_range=(2000, 2011))  # 60% of the rows: searched in the graph
    assert wide is not None and wide.mean() > 0.25
    assert _recall(exact, approximate, 10, wide) >= 0.95
    reviews = approximate.mask(year_range=(2000, 2005), pub_types=["Review"])  # 10%: exact scan
    assert reviews is not None and reviews.mean() < 0.15
    graph = approximate._ann
    assert graph is not None
    for query in QUERIES[:10]:
        rows = graph.search(query, 30, wide)
        assert rows.shape == (30,) and wide[rows].all()
        hits = approximate.search(query, 30, wide)
        assert len(hits) == 30
        assert all(int(h.uuid[1:]) % 20 <= 11 for h in hits)
        assert approximate.search(query, 30, reviews) == exact.search(query, 30, reviews)


def test_a_walk_that_comes_back_short_falls_back_to_the_exact_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    exact, approximate = _pair(_rows())
    monkeypatch.setattr(ann.AnnGraph, "search", lambda self, query, k, allowed: np.zeros(0, dtype=np.int64))
    wide = approximate.mask(year_range=(2000, 2011))
    for query in QUERIES[:5]:
        assert approximate.search(query, 40, wide) == exact.search(query, 40, wide)


def test_deleted_and_replaced_vectors_are_never_returned() -> None:
    exact, approximate = _pair(_rows())
    deleted = {f"u{i:05d}" for i in range(0, 600, 3)}
    replaced = [f"u{i:05d}" for i in range(1, 600, 3)]
    old = {uuid: VECTORS[int(uuid[1:])] for uuid in replaced}
    # Each replaced chunk points the other way: found by its old vector it would be a stale hit.
    new_rows = [VectorRow(uuid, "9", vector=-old[uuid]) for uuid in replaced]
    for index in (exact, approximate):
        assert index.delete(deleted) == len(deleted)
        index.upsert(new_rows)
    for uuid in replaced[:50]:
        hits = approximate.search(old[uuid], 10)
        assert uuid not in {h.uuid for h in hits}
        assert not deleted & {h.uuid for h in hits}
        assert approximate.search(-old[uuid], 1)[0].uuid == uuid
    assert _recall(exact, approximate, 10) >= 0.95
    # A freed row reused by a new chunk: the deleted chunk's vector is gone from the graph.
    gone = min(deleted)
    approximate.upsert([VectorRow("newcomer", "7", vector=-VECTORS[int(gone[1:])])])
    assert approximate._rows["newcomer"] == int(gone[1:])  # the deleted chunk's row
    hits = approximate.search(VECTORS[int(gone[1:])], 10)
    assert not {gone, "newcomer"} & {h.uuid for h in hits}


def test_the_graph_is_built_afresh_when_tombstones_pile_up() -> None:
    index = VectorIndex(DIM, "test:model", ann_threshold=THRESHOLD)
    index.upsert(_rows())
    graph = index._ann
    assert graph is not None
    index.delete([f"u{i:05d}" for i in range(600)])  # 20% dead: kept
    assert index._ann is graph and graph.dead_fraction == pytest.approx(0.2)
    index.delete([f"u{i:05d}" for i in range(600, 900)])  # 30% dead: rebuilt from the live rows
    assert index._ann is not graph and index._ann is not None
    assert index._ann.dead_fraction == 0 and index._ann.labels == index.vector_count == 2100
    # Re-upserting a chunk with the vector it already has leaves the graph alone.
    rebuilt = index._ann
    index.upsert(_rows()[1000:1100])
    assert index._ann is rebuilt and rebuilt.labels == 2100


def test_switching_above_and_below_the_threshold() -> None:
    rows = _rows()[:THRESHOLD]
    exact = VectorIndex(DIM, "test:model", ann_threshold=10 * COUNT)
    exact.upsert(rows)
    index = VectorIndex(DIM, "test:model", ann_threshold=THRESHOLD)
    index.upsert(rows[:-1] + [VectorRow(rows[-1].uuid, rows[-1].pmid)])  # the last one pending
    assert not index.uses_ann
    index.set_vectors([rows[-1].uuid], np.asarray(rows[-1].vector)[None, :])
    assert index.uses_ann
    assert _recall(exact, index, 10) >= 0.95
    index.delete([rows[0].uuid])
    assert not index.uses_ann
    exact.delete([rows[0].uuid])
    assert all(index.search(q, 10) == exact.search(q, 10) for q in QUERIES)
    index.upsert([rows[0]])
    assert index.uses_ann


def test_pending_rows_join_the_graph_when_their_vector_arrives() -> None:
    index = VectorIndex(DIM, "test:model", ann_threshold=THRESHOLD)
    index.upsert(_rows())
    index.upsert([VectorRow("late", "1", year=2010)])
    query = QUERIES[3]
    assert "late" not in {h.uuid for h in index.search(query, 100)}
    index.set_vectors(["late"], query[None, :])
    assert index.search(query, 1)[0].uuid == "late"
    assert index.search(query, 1)[0].sim == pytest.approx(1.0, abs=1e-5)


def test_results_are_deterministic() -> None:
    rows = _rows()
    first = VectorIndex(DIM, "test:model", ann_threshold=THRESHOLD)
    second = VectorIndex(DIM, "test:model", ann_threshold=THRESHOLD)
    for index in (first, second):
        for start in range(0, COUNT, 700):  # incremental: the graph grows batch by batch
            index.upsert(rows[start : start + 700])
        index.delete([f"u{i:05d}" for i in range(0, COUNT, 7)])
    mask = first.mask(year_range=(2005, None))
    for query in QUERIES:
        assert first.search(query, 25) == second.search(query, 25)
        assert first.search(query, 25, mask) == second.search(query, 25, mask)


def test_the_graph_persists_with_its_generation(tmp_path: Path) -> None:
    index = VectorIndex(DIM, "test:model", tmp_path, ann_threshold=THRESHOLD)
    index.upsert(_rows())
    index.delete([f"u{i:05d}" for i in range(0, 300, 2)])  # compaction renumbers the saved rows
    index.save()
    assert (tmp_path / "gen-000001" / "ann.faiss").is_file()
    loaded = VectorIndex.open(tmp_path, DIM, "test:model", ann_threshold=THRESHOLD)
    assert loaded.uses_ann and loaded._ann is not None
    assert loaded._ann.labels == index._ann.labels  # loaded, tombstones and all, not rebuilt
    mask = index.mask(year_range=(2003, 2016))
    loaded_mask = loaded.mask(year_range=(2003, 2016))
    for query in QUERIES:
        assert loaded.search(query, 20) == index.search(query, 20)
        assert loaded.search(query, 20, loaded_mask) == index.search(query, 20, mask)
    # A save with the graph unchanged links the file instead of writing it again.
    inode = (tmp_path / "gen-000001" / "ann.faiss").stat().st_ino
    loaded.delete(["u00001"])
    loaded.save()
    assert (tmp_path / "gen-000002" / "ann.faiss").stat().st_ino == inode
    reopened = VectorIndex.open(tmp_path, DIM, "test:model", ann_threshold=THRESHOLD)
    assert "u00001" not in {h.uuid for h in reopened.search(VECTORS[1], 10)}


def test_open_builds_a_missing_graph_and_drops_an_unneeded_one(tmp_path: Path) -> None:
    exact = VectorIndex(DIM, "test:model", tmp_path, ann_threshold=10 * COUNT)
    exact.upsert(_rows())
    exact.save()
    assert not list(tmp_path.glob("gen-*/ann.faiss"))
    built = VectorIndex.open(tmp_path, DIM, "test:model", ann_threshold=THRESHOLD)
    assert built.uses_ann
    assert _recall(exact, built, 10) >= 0.95
    built.save()
    unneeded = VectorIndex.open(tmp_path, DIM, "test:model", ann_threshold=10 * COUNT)
    assert not unneeded.uses_ann
    unneeded.save()
    assert not list(tmp_path.glob("gen-*/ann.faiss"))
    other_model = VectorIndex.open(tmp_path, DIM, "other:model", ann_threshold=THRESHOLD)
    assert not other_model.uses_ann and other_model.vector_count == 0


def test_a_crash_while_saving_the_graph_leaves_the_previous_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = VectorIndex(DIM, "test:model", tmp_path, ann_threshold=THRESHOLD)
    index.upsert(_rows())
    index.save()
    before = [index.search(q, 10) for q in QUERIES]
    index.upsert(_rows(_embedding_like(200, seed=3), prefix="extra"))

    def crash(self: ann.AnnGraph, folder: Path, row_remap: np.ndarray) -> None:
        (folder / "ann.faiss").write_bytes(b"half a graph")
        raise OSError("disk full")

    monkeypatch.setattr(ann.AnnGraph, "save", crash)
    with pytest.raises(OSError):
        index.save()
    monkeypatch.undo()
    reopened = VectorIndex.open(tmp_path, DIM, "test:model", ann_threshold=THRESHOLD)
    assert reopened.uses_ann and len(reopened) == COUNT
    assert [reopened.search(q, 10) for q in QUERIES] == before


def test_a_damaged_graph_file_is_rebuilt_on_open(tmp_path: Path) -> None:
    index = VectorIndex(DIM, "test:model", tmp_path, ann_threshold=THRESHOLD)
    index.upsert(_rows())
    index.save()
    (tmp_path / "gen-000001" / "ann.faiss").write_bytes(b"not a graph")
    reopened = VectorIndex.open(tmp_path, DIM, "test:model", ann_threshold=THRESHOLD)
    assert reopened.uses_ann
    exact, _ = _pair(_rows())
    assert _recall(exact, reopened, 10) >= 0.95


def test_without_faiss_search_stays_exact_and_warns_once_naming_the_extra(tmp_path: Path) -> None:
    # A child process in which faiss cannot be imported, as in an install without the `ann` extra.
    script = (
        "import logging, sys; sys.modules['faiss'] = None; logging.basicConfig(level=logging.WARNING)\n"
        "import numpy as np\n"
        "from bio_mcp.search.vectors import VectorIndex, VectorRow\n"
        "rng = np.random.default_rng(0)\n"
        "vectors = rng.normal(size=(300, 8)).astype(np.float32)\n"
        "vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)\n"
        "index = VectorIndex(8, 'test:model', sys.argv[1], ann_threshold=100)\n"
        "index.upsert([VectorRow(f'u{i}', str(i), vector=v) for i, v in enumerate(vectors)])\n"
        "index.upsert([VectorRow('u0', '0', vector=vectors[1])])\n"
        "index.save()\n"
        "reopened = VectorIndex.open(sys.argv[1], 8, 'test:model', ann_threshold=100)\n"
        "hits = reopened.search(vectors[7], 3)\n"
        "expected = np.argsort(-(vectors @ vectors[7]))[:3]\n"
        "print(int(reopened.uses_ann), [h.uuid for h in hits] == [f'u{i}' for i in expected])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}, check=True,
    )
    assert done.stdout.split() == ["0", "True"]
    warnings = [line for line in done.stderr.splitlines() if "faiss is not installed" in line]
    assert len(warnings) == 1 and "bio-mcp[ann]" in warnings[0]
