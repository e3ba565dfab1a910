"""Chunks: replacement per document version, embedding and index state, rebuild and reconciliation."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store import ChunkRecord, ChunkSet, DocumentRecord, MetadataStore

MODEL = "test-model-a"
OTHER_MODEL = "test-model-b"


def unit_vectors(count: int, dim: int = 8, seed: int = 7) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(count, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def store_document(store: MetadataStore, record: DocumentRecord, chunks: list[ChunkRecord]) -> int:
    """Upsert the record and replace its chunks in one transaction; returns the stored version."""
    with store.transaction() as tx:
        result = tx.documents.upsert([record])
        version = result.versions[record.pmid]
        tx.chunks.replace(record.pmid, version, chunks)
    return version


def revised(record: DocumentRecord, **changes: Any) -> DocumentRecord:
    return DocumentRecord.model_validate(record.model_dump() | changes)


def test_replacement_reports_removed_uuids(store: MetadataStore, real_records, make_chunks) -> None:
    record = real_records[1]
    first = make_chunks(record, size=1)
    with store.transaction() as tx:
        tx.documents.upsert([record])
        result = tx.chunks.replace(record.pmid, 1, first)
    assert result.removed_uuids == [] and result.unchanged == 0
    assert sorted(result.to_index_uuids) == sorted(chunk.uuid for chunk in first)

    newer = retracted_version(record)
    second = make_chunks(newer, size=3)
    with store.transaction() as tx:
        version = tx.documents.upsert([newer]).versions[record.pmid]
        result = tx.chunks.replace(record.pmid, version, second)
        stored = tx.chunks.for_document(record.pmid)
    old_uuids = {chunk.uuid for chunk in first}
    new_uuids = {chunk.uuid for chunk in second}
    assert set(result.removed_uuids) == old_uuids - new_uuids != set()
    assert [chunk.uuid for chunk in stored] == [chunk.uuid for chunk in second]
    assert {chunk.doc_version for chunk in stored} == {2}
    assert {tuple(chunk.pub_types) for chunk in stored} == {tuple(newer.pub_types)}


def retracted_version(record: DocumentRecord) -> DocumentRecord:
    return revised(record, retracted=True, pub_types=[*record.pub_types, "Retracted Publication"])


def test_unchanged_chunks_keep_embeddings_and_index_flags(
    store: MetadataStore, real_records, make_chunks
) -> None:
    record = real_records[2]
    chunks = make_chunks(record)
    store_document(store, record, chunks)
    uuids = [chunk.uuid for chunk in chunks]
    with store.transaction() as tx:
        tx.chunks.set_embeddings(dict(zip(uuids, unit_vectors(len(uuids)), strict=True)), MODEL)
        tx.chunks.mark_indexed(uuids, bm25=True, vector=True)

    # A new revision (LR advanced) with the same text: version 2, nothing to re-embed or re-index.
    assert record.lr is not None
    newer = revised(record, lr=f"{int(record.lr[:4]) + 1}{record.lr[4:]}")
    with store.transaction() as tx:
        version = tx.documents.upsert([newer]).versions[record.pmid]
        result = tx.chunks.replace(record.pmid, version, chunks)
        stored = tx.chunks.for_document(record.pmid)
    assert version == 2
    assert result.removed_uuids == [] and result.to_index_uuids == []
    assert all(
        chunk.bm25_indexed and chunk.vector_indexed and chunk.embedding is not None for chunk in stored
    )
    assert {chunk.doc_version for chunk in stored} == {2}

    # The same chunks again at the same version: nothing to write at all.
    with store.transaction() as tx:
        assert tx.chunks.replace(record.pmid, 2, chunks).unchanged == len(chunks)


def test_changed_text_drops_the_vector_and_changed_metadata_only_the_flags(
    store: MetadataStore, real_records, make_chunks
) -> None:
    record = real_records[3]
    chunks = make_chunks(record)
    store_document(store, record, chunks)
    uuids = [chunk.uuid for chunk in chunks]
    with store.transaction() as tx:
        tx.chunks.set_embeddings(dict(zip(uuids, unit_vectors(len(uuids)), strict=True)), MODEL)
        tx.chunks.mark_indexed(uuids, bm25=True, vector=True)

    # Retraction changes pub_types (indexed with every chunk); the title chunk also loses its text.
    newer = retracted_version(record)
    edited = [chunks[0].model_copy(update={"text": f"Retracted: {chunks[0].text}"}), *chunks[1:]]
    with store.transaction() as tx:
        version = tx.documents.upsert([newer]).versions[record.pmid]
        result = tx.chunks.replace(record.pmid, version, edited)
        stored = {chunk.uuid: chunk for chunk in tx.chunks.for_document(record.pmid)}
    assert sorted(result.to_index_uuids) == sorted(uuids)
    title = stored[uuids[0]]
    assert (title.embedding, title.embed_model, title.bm25_indexed, title.vector_indexed) == (
        None,
        None,
        False,
        False,
    )
    for uuid in uuids[1:]:
        assert stored[uuid].embedding is not None and stored[uuid].embed_model == MODEL
        assert not stored[uuid].bm25_indexed and not stored[uuid].vector_indexed


def test_embedding_state_transitions_and_model_switch(
    store: MetadataStore, real_records, make_chunks
) -> None:
    all_uuids: list[str] = []
    for record in real_records[:3]:
        chunks = make_chunks(record)
        store_document(store, record, chunks)
        all_uuids += [chunk.uuid for chunk in chunks]
    total = len(all_uuids)

    with store.transaction() as tx:
        counts = tx.chunks.state_counts(MODEL)
        assert (counts.total, counts.embedded, counts.pending_embedding) == (total, 0, total)
        pending = tx.chunks.pending_embedding(MODEL, limit=5)
        assert len(pending) == 5
        assert {chunk.uuid for chunk in pending} <= set(all_uuids)
        vectors = dict(zip(all_uuids, unit_vectors(total), strict=True))
        written = tx.chunks.set_embeddings(vectors, MODEL)
        assert (written.written, written.missing) == (total, [])
        assert tx.chunks.pending_embedding(MODEL, limit=100) == []
        assert len(tx.chunks.needing_index()) == total

        tx.chunks.mark_indexed(all_uuids, bm25=True)
        needing = tx.chunks.needing_index()
        assert {chunk.uuid for chunk in needing} == set(all_uuids)
        assert all(chunk.bm25_indexed and not chunk.vector_indexed for chunk in needing)
        tx.chunks.mark_indexed(all_uuids[:4], vector=True)
        assert len(tx.chunks.needing_index()) == total - 4
        # Pages by UUID cover the same chunks as one read, each once.
        paged: list[str] = []
        while page := tx.chunks.needing_index(3, after=paged[-1] if paged else None):
            paged += [chunk.uuid for chunk in page]
        assert paged == sorted(set(all_uuids) - set(all_uuids[:4]))
        # Without vectors: the same rows, their embedding left unread.
        light = tx.chunks.needing_index(vectors=False)
        assert [chunk.uuid for chunk in light] == paged
        assert all(chunk.embedding is None and chunk.embed_model == MODEL for chunk in light)
        counts = tx.chunks.state_counts(MODEL)
        assert (counts.embedded, counts.bm25_indexed, counts.vector_indexed) == (total, total, 4)

        stored = tx.chunks.get_many([all_uuids[0]])[all_uuids[0]]
        assert stored.embedding is not None
        np.testing.assert_array_equal(stored.embedding, vectors[all_uuids[0]])

        # Switching models: every vector of the old model goes, and its chunks leave the vector index.
        assert tx.chunks.reset_embeddings_for_model_switch(OTHER_MODEL) == total
        counts = tx.chunks.state_counts(OTHER_MODEL)
        assert (counts.embedded, counts.pending_embedding, counts.vector_indexed) == (0, total, 0)
        assert counts.bm25_indexed == total
        assert len(tx.chunks.pending_embedding(OTHER_MODEL, limit=1000)) == total
        assert tx.chunks.reset_embeddings_for_model_switch(OTHER_MODEL) == 0


def test_vector_flag_needs_an_embedding(store: MetadataStore, real_records, make_chunks) -> None:
    record = real_records[4]
    chunks = make_chunks(record)
    store_document(store, record, chunks)
    with store.transaction() as tx:
        tx.chunks.mark_indexed([chunks[0].uuid], vector=True)
        assert not tx.chunks.get_many([chunks[0].uuid])[chunks[0].uuid].vector_indexed
        with pytest.raises(BioMcpError) as caught:
            tx.chunks.mark_indexed([chunks[0].uuid])
    assert caught.value.code is ErrorCode.VALIDATION


def test_embeddings_must_be_normalised_and_of_one_dimension(
    store: MetadataStore, real_records, make_chunks
) -> None:
    record = real_records[5]
    chunks = make_chunks(record)
    store_document(store, record, chunks)
    first, second = chunks[0].uuid, chunks[1].uuid
    with store.transaction() as tx:
        with pytest.raises(BioMcpError) as caught:
            tx.chunks.set_embeddings({first: [3.0, 4.0]}, MODEL)
        assert caught.value.code is ErrorCode.INVARIANT_FAILURE
        tx.chunks.set_embeddings({first: unit_vectors(1, dim=8)[0]}, MODEL)
        with pytest.raises(BioMcpError) as caught:
            tx.chunks.set_embeddings({second: unit_vectors(1, dim=4)[0]}, MODEL)
        assert caught.value.code is ErrorCode.INVARIANT_FAILURE
        with pytest.raises(BioMcpError) as caught:
            tx.chunks.set_embeddings({second: [float("nan")] * 8}, MODEL)
        assert caught.value.code is ErrorCode.VALIDATION
        gone = "00000000-0000-5000-8000-000000000000"
        result = tx.chunks.set_embeddings(
            {second: unit_vectors(1, dim=8)[0], gone: unit_vectors(1, dim=8)[0]}, MODEL
        )
    assert (result.written, result.missing) == (1, [gone])


def test_iterate_pages_over_every_chunk_in_uuid_order(
    store: MetadataStore, real_records, make_chunks
) -> None:
    uuids: list[str] = []
    for record in real_records[:6]:
        chunks = make_chunks(record)
        store_document(store, record, chunks)
        uuids += [chunk.uuid for chunk in chunks]
    with store.read() as tx:
        pages = list(tx.chunks.iterate(batch_size=7))
        assert tx.chunks.existing_uuids([*uuids[:3], "00000000-0000-5000-8000-000000000000"]) == set(
            uuids[:3]
        )
    assert all(len(page) <= 7 for page in pages)
    assert [chunk.uuid for page in pages for chunk in page] == sorted(uuids)


def test_chunks_need_their_stored_document_version(store: MetadataStore, real_records, make_chunks) -> None:
    record = real_records[6]
    with store.transaction() as tx, pytest.raises(BioMcpError) as caught:
        tx.chunks.replace(record.pmid, 1, make_chunks(record))
    assert caught.value.code is ErrorCode.NOT_FOUND
    with store.transaction() as tx, pytest.raises(BioMcpError) as caught:
        tx.documents.upsert([record])
        tx.chunks.replace(record.pmid, 2, make_chunks(record))
    assert caught.value.code is ErrorCode.INVARIANT_FAILURE
    with store.transaction() as tx, pytest.raises(BioMcpError) as caught:
        tx.chunks.replace_many([ChunkSet(record.pmid, 1, make_chunks(record)), ChunkSet(record.pmid, 1, [])])
    assert caught.value.code is ErrorCode.VALIDATION


def test_documents_and_chunks_commit_together_or_not_at_all(
    store: MetadataStore, real_records, make_chunks
) -> None:
    good, bad = real_records[7], real_records[8]
    with pytest.raises(BioMcpError), store.transaction() as tx:
        result = tx.documents.upsert([good, bad])
        tx.chunks.replace(good.pmid, result.versions[good.pmid], make_chunks(good))
        tx.chunks.replace(bad.pmid, result.versions[bad.pmid] + 1, make_chunks(bad))
    with store.read() as tx:
        assert tx.documents.get_many([good.pmid, bad.pmid]) == {}
        assert tx.chunks.state_counts().total == 0
