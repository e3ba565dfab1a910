from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.bm25 import BM25Doc, BM25Index
from bio_mcp.search.chunking import chunk_record
from bio_mcp.search.embeddings import HashEmbeddings
from bio_mcp.search.hybrid import WHOLE_DOCUMENT_MAX_CHUNKS, HybridIndex, IndexedChunk
from bio_mcp.store.document_keys import file_document_key

EMBEDDINGS = HashEmbeddings()
RECORDS = {
    "101": (
        "Metformin and type 2 diabetes",
        "Metformin lowers fasting glucose in adults with type 2 diabetes.",
        2021,
        ("Randomized Controlled Trial",),
        7,
    ),
    "102": (
        "Metformin in type 2 diabetes: cohort",
        "Metformin lowers fasting glucose in adults with type 2 diabetes.",
        2012,
        ("Journal Article",),
        2,
    ),
    "103": (
        "Statins and cardiovascular events",
        "Statins reduce myocardial infarction and stroke.",
        2018,
        ("Meta-Analysis",),
        6,
    ),
    "104": (
        "Aspirin for stroke prevention",
        "Low-dose aspirin and the risk of stroke in older adults.",
        2005,
        ("Letter",),
        1,
    ),
    "105": ("Insulin pumps", "Continuous subcutaneous insulin infusion in type 1 diabetes.", None, (), None),
}


def _chunks(with_vectors: bool = True) -> list[IndexedChunk]:
    out = []
    for pmid, (title, abstract, year, pub_types, quality) in RECORDS.items():
        for chunk in chunk_record(pmid, title, abstract):
            vector = EMBEDDINGS.embed_array([chunk.text])[0] if with_vectors else None
            out.append(IndexedChunk(chunk.uuid, pmid, chunk.text, year, pub_types, quality, vector))
    return out


@pytest.fixture
def index() -> HybridIndex:
    hybrid = HybridIndex(EMBEDDINGS)
    hybrid.upsert(_chunks())
    return hybrid


def test_results_follow_the_rag_search_contract(index: HybridIndex) -> None:
    hits = index.search("metformin glucose diabetes", top_k=3)
    assert 1 <= len(hits) <= 3
    for hit in hits:
        item = hit.as_contract()
        assert set(item) == {"doc_id", "uuid", "sim", "bm25", "quality", "score"}
        assert re.fullmatch(r"pmid:[0-9]+", item["doc_id"])
        assert len(item["uuid"]) >= 10
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert {hits[0].pmid, hits[1].pmid} == {"101", "102"}
    assert len({h.pmid for h in hits}) == len(hits)  # one hit per document


def test_quality_bias_orders_equally_relevant_documents(index: HybridIndex) -> None:
    # 101 and 102 share the abstract; 101 is the recent RCT.
    biased = index.search("metformin fasting glucose adults", top_k=2, quality_bias=True)
    assert [h.pmid for h in biased] == ["101", "102"]
    assert biased[0].quality == 7 and biased[1].quality == 2
    plain = index.search("metformin fasting glucose adults", top_k=2, quality_bias=False)
    assert {h.pmid for h in plain} == {"101", "102"}
    # The biased score is the relevance weighted by quality, (1 + 0.1 q / 8) / 1.1: at most 1.
    relevance = {h.pmid: h.score for h in plain}
    for hit in biased:
        assert hit.score == pytest.approx(relevance[hit.pmid] * (1 + 0.1 * hit.quality / 8) / 1.1) and hit.score <= 1


def test_filters(index: HybridIndex) -> None:
    query = "metformin statins aspirin insulin diabetes stroke"
    assert {h.pmid for h in index.search(query, 10, year_range=(2015, None))} == {"101", "103"}
    assert {h.pmid for h in index.search(query, 10, pub_types=["Letter", "Meta-Analysis"])} == {"103", "104"}
    assert index.search(query, 10, year_range=(1990, 1999)) == []


def test_each_retriever_can_run_alone(index: HybridIndex) -> None:
    query = "metformin glucose diabetes"
    bm25_only = index.search(query, 5, mode="bm25")
    assert bm25_only and all(h.sim is None and h.bm25 is not None for h in bm25_only)
    vector_only = index.search(query, 5, mode="vector")
    assert vector_only and all(h.bm25 is None and h.sim is not None for h in vector_only)
    hybrid = index.search(query, 5)
    assert {h.pmid for h in hybrid} <= {h.pmid for h in bm25_only} | {h.pmid for h in vector_only}


@pytest.mark.parametrize("query", ['"', "((**))", "?!", "   ", ":::", "-"])
def test_queries_without_words_find_nothing(index: HybridIndex, query: str) -> None:
    assert index.search(query) == []


@pytest.mark.parametrize(
    "query", ['metformin"', "(diabetes OR", "statins AND NOT", "title:aspirin^3", "β-cell 糖尿病"]
)
def test_nasty_queries_work(index: HybridIndex, query: str) -> None:
    assert isinstance(index.search(query), list)


def test_top_k_must_be_positive(index: HybridIndex) -> None:
    with pytest.raises(BioMcpError) as info:
        index.search("metformin", top_k=0)
    assert info.value.code is ErrorCode.VALIDATION


def test_a_chunk_is_searchable_by_bm25_before_its_vector_arrives() -> None:
    index = HybridIndex(EMBEDDINGS)
    chunks = _chunks(with_vectors=False)
    index.upsert(chunks)
    assert index.pending_uuids() == sorted(c.uuid for c in chunks)
    [hit] = index.search("statins myocardial", top_k=1)
    assert hit.pmid == "103" and hit.sim is None and hit.bm25 is not None
    index.set_vectors([c.uuid for c in chunks], EMBEDDINGS.embed_array([c.text for c in chunks]))
    assert index.pending_uuids() == []
    [hit] = index.search("statins myocardial", top_k=1)
    assert hit.pmid == "103" and hit.sim is not None and hit.sim > 0


def test_vector_candidates_get_their_bm25_and_bm25_candidates_their_cosine(index: HybridIndex) -> None:
    for hit in index.search("metformin diabetes", top_k=5):
        assert hit.sim is not None  # every chunk has a vector
        if hit.pmid in {"101", "102", "105"}:
            assert hit.bm25 is not None


def test_upsert_replaces_and_delete_removes(index: HybridIndex) -> None:
    count = index.count
    [first] = [c for c in _chunks() if c.pmid == "104"]
    changed = IndexedChunk(
        first.uuid,
        "104",
        "Warfarin and bleeding",
        2024,
        ("Editorial",),
        0,
        EMBEDDINGS.embed_array(["Warfarin and bleeding"])[0],
    )
    index.upsert([changed])
    assert index.count == count
    assert index.search("warfarin bleeding", 1)[0].pmid == "104"
    assert all(h.pmid != "104" for h in index.search("aspirin", 5, year_range=(2000, 2010)))
    assert index.delete([first.uuid, "not-a-uuid"]) == 1
    assert index.count == count - 1
    assert all(h.pmid != "104" for h in index.search("warfarin bleeding aspirin", 10))


def test_upsert_can_delete_in_the_same_step(index: HybridIndex) -> None:
    old = [c for c in _chunks() if c.pmid == "104"]
    new = IndexedChunk(
        "00000000-0000-5000-8000-000000000104", "104", "Warfarin and bleeding", 2024, (), 0,
        EMBEDDINGS.embed_array(["Warfarin and bleeding"])[0],
    )
    index.upsert([new], delete=[c.uuid for c in old])
    assert all(c.uuid not in index for c in old) and new.uuid in index
    assert [h.uuid for h in index.search("warfarin aspirin", 5) if h.pmid == "104"] == [new.uuid]


@pytest.mark.parametrize("on_disk", [True, False])
def test_an_hnsw_graph_serves_past_the_threshold_with_the_same_results(tmp_path: Path, on_disk: bool) -> None:
    exact = HybridIndex(EMBEDDINGS)
    exact.upsert(_chunks())
    graph = HybridIndex(EMBEDDINGS, tmp_path if on_disk else None, ann_threshold=1)
    graph.upsert(_chunks())
    assert graph._vectors.uses_ann and not exact._vectors.uses_ann
    for query in ("metformin glucose", "statins stroke", "insulin pumps"):
        found, expected = graph.search(query, 3), exact.search(query, 3)
        assert [h.uuid for h in found] == [h.uuid for h in expected]
        # Cosines of a gathered block and of the whole matrix may differ in the last float bits.
        assert [h.score for h in found] == pytest.approx([h.score for h in expected], abs=1e-5)


def test_invalid_chunks_are_validation_errors() -> None:
    index = HybridIndex(EMBEDDINGS)
    with pytest.raises(BioMcpError) as info:
        index.upsert([IndexedChunk("u", "12", "text", vector=np.ones(384))])
    assert info.value.code is ErrorCode.VALIDATION
    with pytest.raises(BioMcpError):
        index.upsert([IndexedChunk("u", "PMC12", "text")])


def test_persistence_round_trip(tmp_path: Path) -> None:
    with HybridIndex(EMBEDDINGS, tmp_path) as index:
        index.upsert(_chunks())
        expected = [h.as_contract() for h in index.search("diabetes glucose", 5)]
    reopened = HybridIndex(EMBEDDINGS, tmp_path)
    assert reopened.recovered_uuids == []
    assert reopened.uuids() == sorted(c.uuid for c in _chunks())
    assert [h.as_contract() for h in reopened.search("diabetes glucose", 5)] == expected


def test_writes_not_flushed_before_a_crash_are_dropped_from_both_halves(tmp_path: Path) -> None:
    chunks = _chunks()
    first = HybridIndex(EMBEDDINGS, tmp_path)
    first.upsert(chunks[:3])
    first.flush()
    first.upsert(chunks[3:])
    first.delete([chunks[0].uuid])
    # Crash: no flush. BM25 committed the later writes, the vectors were not saved.
    reopened = HybridIndex(EMBEDDINGS, tmp_path)
    assert reopened.recovered_uuids == sorted(c.uuid for c in [chunks[0], *chunks[3:]])
    assert reopened.uuids() == sorted(c.uuid for c in chunks[1:3])
    assert {h.uuid for h in reopened.search("metformin statins aspirin insulin diabetes", 10)} <= set(
        reopened.uuids()
    )
    # The caller reconciles with the SQL store: upsert what is missing.
    missing = [c for c in chunks if c.uuid not in set(reopened.uuids())]
    reopened.upsert(missing)
    reopened.flush()
    assert reopened.uuids() == sorted(c.uuid for c in chunks)


def test_a_half_in_an_unreadable_format_is_started_empty(tmp_path: Path) -> None:
    with HybridIndex(EMBEDDINGS, tmp_path) as index:
        index.upsert(_chunks())
    (tmp_path / "bm25" / "bm25.json").write_text('{"schema": "bm25-v0"}')
    reopened = HybridIndex(EMBEDDINGS, tmp_path)
    assert reopened.discarded
    assert reopened.bm25_uuids() == []
    assert not HybridIndex(EMBEDDINGS, tmp_path / "fresh").discarded


def test_a_provider_switch_drops_vectors_and_keeps_bm25(tmp_path: Path) -> None:
    with HybridIndex(EMBEDDINGS, tmp_path) as index:
        index.upsert(_chunks())
    other = HashEmbeddings(dim=128)
    switched = HybridIndex(other, tmp_path)
    assert switched.replaced_model_id == EMBEDDINGS.model_id
    assert switched.pending_uuids() == sorted(c.uuid for c in _chunks())
    [hit] = switched.search("statins myocardial", 1)
    assert hit.pmid == "103" and hit.sim is None
    pending = switched.pending_uuids()
    texts = {c.uuid: c.text for c in _chunks()}
    switched.set_vectors(pending, other.embed_array([texts[u] for u in pending]))
    switched.flush()
    again = HybridIndex(other, tmp_path)
    assert again.replaced_model_id is None and again.pending_uuids() == []


@pytest.mark.parametrize("on_disk", [True, False])
def test_rebuild_replaces_everything(tmp_path: Path, on_disk: bool) -> None:
    index = HybridIndex(EMBEDDINGS, tmp_path if on_disk else None)
    index.upsert(_chunks())
    keep = [c for c in _chunks() if c.pmid in {"101", "103"}]
    index.rebuild(iter(keep))
    assert index.uuids() == sorted(c.uuid for c in keep)
    hits = index.search("metformin statins aspirin insulin", 10)
    assert {h.pmid for h in hits} == {"101", "103"}
    assert all(h.bm25 is not None for h in hits)
    if on_disk:
        assert HybridIndex(EMBEDDINGS, tmp_path).count == len(keep)


# A structured abstract long enough for three chunks: "lactic acidosis" only in its last section,
# "metformin" only in its first.
LONG_ABSTRACT = " ".join(
    [
        (
            "BACKGROUND: Metformin is the first drug prescribed for type 2 diabetes in most guidelines."
            " Its use in patients with reduced kidney function has long been restricted."
        ),
        *(
            f"METHODS: Cohort {n} followed adults with chronic kidney disease stage {n} for five years,"
            " recording admissions, laboratory values, prescriptions and deaths in each registry."
            for n in range(1, 13)
        ),
        "RESULTS: Lactic acidosis was rare and did not rise with declining kidney function.",
    ]
)


def _long_document() -> list[IndexedChunk]:
    chunks = chunk_record("201", "Kidney function and diabetes drugs", LONG_ABSTRACT)
    assert len(chunks) >= 3 and not any("Metformin" in c.text and "Lactic" in c.text for c in chunks)
    return [
        IndexedChunk(c.uuid, "201", c.text, 2020, (), 5, EMBEDDINGS.embed_array([c.text])[0]) for c in chunks
    ]


def test_a_document_s_bm25_is_that_of_the_whole_document(index: HybridIndex) -> None:
    long = _long_document()
    sepsis = chunk_record("202", "Lactic acidosis in sepsis", "Lactic acidosis predicts death in septic shock.")
    index.upsert([*long, *(IndexedChunk(c.uuid, "202", c.text) for c in sepsis)])
    query = "metformin lactic acidosis"
    hits = index.search(query, 10, mode="bm25")
    assert {"201", "202"} <= {h.pmid for h in hits}
    # Each document's BM25 is that of an index holding every document whole (the join of its chunks).
    whole = BM25Index()
    texts = {"201": [c.text for c in sorted(long, key=lambda c: c.uuid)], "202": [c.text for c in sepsis]}
    texts.update((pmid, [c.text for c in _chunks() if c.pmid == pmid]) for pmid in RECORDS)
    whole.add(BM25Doc(pmid, pmid, "\n".join(found)) for pmid, found in texts.items())
    whole.commit()
    expected = whole.scores(query, texts)
    assert {h.pmid: h.bm25 for h in hits} == pytest.approx({h.pmid: expected[h.pmid] for h in hits})


def _whole_documents_with(index: HybridIndex, word: str) -> set[str]:
    """The documents whose whole-document entry contains `word`."""
    return set(index._documents.scores(word, [*RECORDS, "201"]))


def test_whole_documents_follow_every_chunk_write(index: HybridIndex) -> None:
    long = _long_document()
    index.upsert(long)
    assert _whole_documents_with(index, "lactic") == {"201"}
    assert _whole_documents_with(index, "metformin") == {"101", "102", "201"}
    # The section that names lactic acidosis goes; the rest of the document stays.
    last = next(c for c in long if "Lactic" in c.text)
    index.delete([last.uuid])
    assert _whole_documents_with(index, "lactic") == set()
    assert _whole_documents_with(index, "metformin") == {"101", "102", "201"}
    index.upsert([last])
    assert _whole_documents_with(index, "lactic") == {"201"}
    # The whole document goes with its last chunk.
    index.delete([c.uuid for c in long])
    assert _whole_documents_with(index, "kidney") == set()
    assert all(h.pmid != "201" for h in index.search("kidney function cohort", 10))


def test_whole_documents_agree_with_the_chunks_left_after_a_crash(tmp_path: Path) -> None:
    chunks, long = _chunks(), _long_document()
    first = HybridIndex(EMBEDDINGS, tmp_path)
    first.upsert([*chunks, *long[:-1]])
    first.flush()
    first.upsert(long[-1:])
    first.delete([long[0].uuid])
    assert _whole_documents_with(first, "lactic") == {"201"}
    assert _whole_documents_with(first, "metformin") == {"101", "102"}
    # Crash before a flush: the journal rolls the last two writes back in both halves, and the
    # whole document is what its chunks left in the index make of it.
    reopened = HybridIndex(EMBEDDINGS, tmp_path)
    assert reopened.recovered_uuids == sorted([long[0].uuid, long[-1].uuid])
    assert _whole_documents_with(reopened, "lactic") == set()
    assert _whole_documents_with(reopened, "metformin") == {"101", "102"}
    assert _whole_documents_with(reopened, "kidney") == {"201"}
    # The caller re-adds what the store holds; the document is whole again.
    reopened.upsert([long[0], long[-1]])
    reopened.flush()
    assert _whole_documents_with(reopened, "lactic") == {"201"}
    assert _whole_documents_with(reopened, "metformin") == {"101", "102", "201"}


def test_an_unreadable_whole_document_half_is_rederived_from_the_chunks(tmp_path: Path) -> None:
    with HybridIndex(EMBEDDINGS, tmp_path) as index:
        index.upsert([*_chunks(), *_long_document()])
        expected = [h.as_contract() for h in index.search("metformin lactic acidosis", 5)]
    (tmp_path / "documents" / "bm25.json").write_text('{"schema": "bm25-v0"}')
    reopened = HybridIndex(EMBEDDINGS, tmp_path)
    assert not reopened.discarded
    assert [h.as_contract() for h in reopened.search("metformin lactic acidosis", 5)] == expected
    del reopened
    shutil.rmtree(tmp_path / "documents")
    again = HybridIndex(EMBEDDINGS, tmp_path)
    assert _whole_documents_with(again, "lactic") == {"201"}
    assert [h.as_contract() for h in again.search("metformin lactic acidosis", 5)] == expected


def test_a_long_document_keeps_its_best_chunk_s_bm25(index: HybridIndex) -> None:
    body = " ".join(
        f"Chapter {n}: the registry of cohort {n} recorded admissions, laboratory values and prescriptions"
        f" of adults with kidney disease in region {n}, year after year, with every death reviewed."
        for n in range(1, 120)
    )
    report = file_document_key("file:///reports/kidney-registry.pdf")
    long = [
        IndexedChunk(c.uuid, report, c.text)
        for c in chunk_record(report, "A regional kidney registry", body + " Metformin was never stopped.")
    ]
    assert len(long) > WHOLE_DOCUMENT_MAX_CHUNKS
    index.upsert(long)
    assert index._documents.scores("kidney", [report]) == {}
    query = "metformin stopped"
    [hit] = [h for h in index.search(query, 10, mode="bm25") if h.pmid == report]
    assert hit.bm25 == pytest.approx(max(index._bm25.scores(query, [c.uuid for c in long]).values()))


def test_a_rebuild_cut_short_leaves_whole_documents_that_agree_with_the_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with HybridIndex(EMBEDDINGS, tmp_path) as index:
        index.upsert([*_chunks(), *_long_document()])
    interrupted = HybridIndex(EMBEDDINGS, tmp_path)

    def killed(keys: object) -> None:
        raise RuntimeError("killed after the chunks were committed")

    # The rebuild leaves the long document out and dies once the new chunks are committed.
    monkeypatch.setattr(interrupted, "_derive_documents", killed)
    with pytest.raises(RuntimeError):
        interrupted.rebuild(iter(_chunks()))
    del interrupted
    reopened = HybridIndex(EMBEDDINGS, tmp_path)
    assert reopened.bm25_uuids() == sorted(c.uuid for c in _chunks())
    assert _whole_documents_with(reopened, "lactic") == set()
    assert _whole_documents_with(reopened, "metformin") == {"101", "102"}
