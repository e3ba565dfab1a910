from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bio_mcp.search.vectors import VectorIndex, VectorRow

DIM = 16


def _unit(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return vector / np.linalg.norm(vector)


def _rows(count: int) -> list[VectorRow]:
    return [
        VectorRow(
            f"u{i:03d}",
            str(1000 + i // 2),
            year=2000 + i % 10,
            pub_types=("Review",) if i % 3 == 0 else ("Randomized Controlled Trial", "Journal Article"),
            quality=i % 9,
            vector=_unit(i),
        )
        for i in range(count)
    ]


def _brute_force(rows: list[VectorRow], query: np.ndarray, keep: list[bool] | None = None) -> list[str]:
    scored = [
        (float(np.asarray(r.vector) @ query), r.uuid) for i, r in enumerate(rows) if keep is None or keep[i]
    ]
    return [uuid for _, uuid in sorted(scored, key=lambda item: (-item[0], item[1]))]


def test_exact_search_matches_brute_force() -> None:
    rows = _rows(300)
    index = VectorIndex(DIM, "test:model")
    index.upsert(rows)
    query = _unit(9999)
    hits = index.search(query, 10)
    assert [h.uuid for h in hits] == _brute_force(rows, query)[:10]
    assert hits[0].sim == pytest.approx(float(np.asarray(rows[int(hits[0].uuid[1:])].vector) @ query))
    assert hits[0].pmid == str(1000 + int(hits[0].uuid[1:]) // 2)


def test_masks_filter_before_the_top_k() -> None:
    rows = _rows(300)
    index = VectorIndex(DIM, "test:model")
    index.upsert(rows)
    query = _unit(4242)
    mask = index.mask(year_range=(2003, 2004), pub_types=["Review"])
    keep = [r.year in (2003, 2004) and "Review" in r.pub_types for r in rows]
    assert mask is not None and int(mask.sum()) == sum(keep)
    hits = index.search(query, 50, mask)
    # Every matching row comes back, even though most of the unfiltered top 50 are filtered out.
    assert [h.uuid for h in hits] == _brute_force(rows, query, keep)
    assert index.mask() is None
    assert index.mask(pub_types=[]) is None
    only_unknown = index.mask(pub_types=["Letter"])
    assert only_unknown is not None and not only_unknown.any()
    assert index.search(query, 5, only_unknown) == []
    wide = index.mask(year_range=(None, 2001))
    assert wide is not None and int(wide.sum()) == sum(r.year is not None and r.year <= 2001 for r in rows)


def test_rows_without_a_vector_never_match_until_one_arrives() -> None:
    index = VectorIndex(DIM, "test:model")
    index.upsert([VectorRow("a", "1", vector=_unit(1)), VectorRow("b", "2")])
    assert len(index) == 2 and index.vector_count == 1
    assert index.pending_uuids() == ["b"]
    assert [h.uuid for h in index.search(_unit(2), 10)] == ["a"]
    index.set_vectors(["b"], _unit(2)[None, :])
    assert index.search(_unit(2), 1)[0].uuid == "b"
    assert index.pending_uuids() == []


def test_replace_and_delete_by_uuid() -> None:
    index = VectorIndex(DIM, "test:model")
    index.upsert(_rows(20))
    index.upsert([VectorRow("u005", "77", year=2024, quality=8, vector=_unit(500))])
    assert len(index) == 20
    info = index.info("u005")
    assert info is not None and (info.pmid, info.year, info.quality) == ("77", 2024, 8)
    assert index.search(_unit(500), 1)[0].uuid == "u005"
    assert index.delete(["u005", "u006", "missing"]) == 2
    assert len(index) == 18 and "u005" not in index
    assert all(h.uuid not in {"u005", "u006"} for h in index.search(_unit(500), 20))
    # A freed row is reused by the next new chunk.
    index.upsert([VectorRow("new", "5", vector=_unit(777))])
    assert len(index) == 19 and index.search(_unit(777), 1)[0].uuid == "new"
    assert index._size == 20


def test_rejects_bad_vectors() -> None:
    index = VectorIndex(DIM, "test:model")
    with pytest.raises(ValueError, match="shape"):
        index.upsert([VectorRow("a", "1", vector=np.ones(DIM + 1) / np.sqrt(DIM + 1))])
    with pytest.raises(ValueError, match="normalised"):
        index.upsert([VectorRow("a", "1", vector=np.ones(DIM))])
    with pytest.raises(KeyError):
        index.set_vectors(["nope"], _unit(1)[None, :])


def test_persistence_round_trip_is_memory_mapped(tmp_path: Path) -> None:
    rows = _rows(100)
    index = VectorIndex(DIM, "test:model", tmp_path)
    index.upsert(rows)
    index.upsert([VectorRow("pending", "9", year=2001, pub_types=("Letter",))])
    index.delete(["u010"])
    index.save()
    loaded = VectorIndex.open(tmp_path, DIM, "test:model")
    assert isinstance(loaded._matrix, np.memmap)
    assert loaded.uuids() == index.uuids()
    assert loaded.pending_uuids() == ["pending"]
    query = _unit(31337)
    assert loaded.search(query, 15) == index.search(query, 15)
    assert loaded.info("u020") == index.info("u020")
    mask = loaded.mask(year_range=(2001, 2001), pub_types=["Letter"])
    assert mask is not None and int(mask.sum()) == 1
    # Writing after a memory-mapped load works and persists in a new generation.
    loaded.upsert([VectorRow("late", "10", vector=_unit(1))])
    loaded.save()
    assert sorted(p.name for p in tmp_path.glob("gen-*")) == ["gen-000002"]
    assert "late" in VectorIndex.open(tmp_path, DIM, "test:model")


def test_another_model_drops_vectors_but_keeps_rows(tmp_path: Path) -> None:
    index = VectorIndex(DIM, "test:model", tmp_path)
    index.upsert(_rows(10))
    index.save()
    switched = VectorIndex.open(tmp_path, 8, "other:model")
    assert switched.replaced_model_id == "test:model"
    assert len(switched) == 10 and switched.vector_count == 0
    assert switched.pending_uuids() == sorted(r.uuid for r in _rows(10))
    info = switched.info("u003")
    assert info is not None and info.year == 2003


def test_empty_index() -> None:
    index = VectorIndex(DIM, "test:model")
    assert index.search(_unit(1), 10) == []
    assert index.uuids() == []
