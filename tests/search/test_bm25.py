from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.search.bm25 import BM25Doc, BM25Index

DOCS = [
    BM25Doc(
        "u1",
        "1",
        "Metformin lowers glucose in adults with type 2 diabetes",
        2020,
        ("Randomized Controlled Trial",),
    ),
    BM25Doc(
        "u2", "2", "Statins reduce cardiovascular events: a meta-analysis", 2015, ("Meta-Analysis", "Review")
    ),
    BM25Doc("u3", "3", "Aspirin and stroke prevention (AND/OR) in the elderly", 2005, ("Journal Article",)),
    BM25Doc("u4", "4", "Résumé of β-cell function and insulin resistance", None, ()),
]


@pytest.fixture
def index() -> BM25Index:
    bm25 = BM25Index()
    bm25.add(DOCS)
    bm25.commit()
    return bm25


NASTY = [
    '"diabetes',
    'diabetes"',
    "text:diabetes",
    "uuid:u1",
    "(diabetes",
    "diabetes)) OR (",
    "AND",
    "OR OR OR",
    "NOT diabetes",
    "diabetes AND NOT",
    "+diabetes -statins",
    "diab*",
    "diabetes~2",
    "diabetes^10",
    "[2000 TO 2020]",
    "year:>2000",
    "pub_types: IN [Review]",
    "\\",
    "{}",
    "<script>alert(1)</script>",
    "diabetes\x00insulin",
    "😀 diabetes",
    "糖尿病",
    "x" * 5000,
]


@pytest.mark.parametrize("query", NASTY)
def test_nasty_queries_never_raise(index: BM25Index, query: str) -> None:
    hits = index.search(query, 10)
    assert isinstance(hits, list)


@pytest.mark.parametrize("query", ["", "   ", "?!", "((()))", "***", ":", '"', "—", "... ,,, ;;;"])
def test_queries_without_terms_find_nothing(index: BM25Index, query: str) -> None:
    assert index.search(query, 10) == []


def test_operators_are_plain_words(index: BM25Index) -> None:
    # No field syntax and no boolean logic: every word is an OR-ed term ("and" included).
    hits = index.search("text:diabetes AND (glucose)", 10)
    assert hits[0].uuid == "u1"
    assert {h.uuid for h in hits} == {"u1", "u3", "u4"}
    # "and"/"or" are ordinary terms of doc u3's text.
    assert index.search("AND OR", 10)[0].uuid == "u3"


def test_stemming_and_unicode(index: BM25Index) -> None:
    assert index.search("strokes preventing", 10)[0].uuid == "u3"
    assert index.search("reducing statin", 10)[0].uuid == "u2"
    assert index.search("β-cells résumé", 10)[0].uuid == "u4"


def test_filters_apply_inside_the_search(index: BM25Index) -> None:
    query = "metformin statins aspirin insulin"
    assert {h.uuid for h in index.search(query, 10)} == {"u1", "u2", "u3", "u4"}
    assert {h.uuid for h in index.search(query, 10, year_range=(2010, None))} == {"u1", "u2"}
    assert {h.uuid for h in index.search(query, 10, year_range=(None, 2015))} == {"u2", "u3"}
    assert {h.uuid for h in index.search(query, 1, year_range=(2001, 2010))} == {"u3"}
    assert {h.uuid for h in index.search(query, 10, pub_types=["Review", "Journal Article"])} == {"u2", "u3"}
    assert index.search(query, 10, pub_types=["Letter"]) == []
    assert len(index.search(query, 10, pub_types=[])) == 4
    # Filters do not change the score.
    unfiltered = {h.uuid: h.score for h in index.search(query, 10)}
    for hit in index.search(query, 10, year_range=(2010, 2030), pub_types=["Meta-Analysis"]):
        assert hit.score == pytest.approx(unfiltered[hit.uuid])


def test_writes_are_invisible_until_commit(index: BM25Index) -> None:
    index.add([BM25Doc("u5", "5", "warfarin bleeding risk")])
    assert index.search("warfarin", 10) == []
    index.commit()
    assert [h.uuid for h in index.search("warfarin", 10)] == ["u5"]


def test_replace_and_delete_by_uuid(index: BM25Index) -> None:
    index.replace([BM25Doc("u1", "1", "now about warfarin", 2021)])
    index.commit()
    assert index.search("metformin", 10) == []
    assert [h.uuid for h in index.search("warfarin", 10)] == ["u1"]
    assert index.count == 4
    index.delete(["u1", "u2", "not-there"])
    index.commit()
    assert index.count == 2
    assert index.uuids() == ["u3", "u4"]


def test_scores_for_given_chunks(index: BM25Index) -> None:
    scores = index.scores("aspirin metformin", ["u1", "u2", "u3"])
    assert set(scores) == {"u1", "u3"}
    full = {h.uuid: h.score for h in index.search("aspirin metformin", 10)}
    assert scores == pytest.approx({u: full[u] for u in scores})
    assert index.scores("?!", ["u1"]) == {}


def test_persistence_round_trip(tmp_path: Path) -> None:
    first = BM25Index(tmp_path / "bm25")
    first.add(DOCS)
    first.commit()
    del first
    again = BM25Index(tmp_path / "bm25")
    assert again.count == 4
    assert again.search("diabetes", 5)[0].uuid == "u1"


def test_a_foreign_schema_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "bm25"
    BM25Index(folder).commit()
    (folder / "bm25.json").write_text('{"schema": "bm25-v0"}')
    with pytest.raises(ValueError, match="rebuild"):
        BM25Index(folder)


def test_thai_words_inside_a_run_are_found(data_dir: Path) -> None:
    # Thai is written without spaces: a herb name inside a sentence must still be a term of its own.
    import csv

    with (data_dir / "herbs" / "thai_herb_names.tsv").open(encoding="utf-8") as handle:
        names = [row["thai_name"] for row in csv.DictReader(handle, delimiter="\t")]
    bm25 = BM25Index()
    bm25.add([
        BM25Doc("th1", "file:th1", f"สรรพคุณของ{names[0]}คืออะไร"),
        BM25Doc("th2", "file:th2", f"การใช้{names[3]}ในตำรับยา"),
    ])
    bm25.commit()
    assert [hit.uuid for hit in bm25.search(names[0], 5)] == ["th1"]
    assert bm25.search(f"{names[3]}รักษาอะไร", 5)[0].uuid == "th2"
    assert bm25.analyze("metformin lowers glucose") == ["metformin", "lower", "glucos"]
