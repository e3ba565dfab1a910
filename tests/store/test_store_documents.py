"""Documents: the seed-000 versioning invariants, batch efficiency and concurrent upserts."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import sqlalchemy as sa
from pydantic import ValidationError

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store import DocumentRecord, MetadataStore, UpsertResult


def revised(record: DocumentRecord, **changes: Any) -> DocumentRecord:
    return DocumentRecord.model_validate(record.model_dump() | changes)


def retracted(record: DocumentRecord) -> DocumentRecord:
    """The record as PubMed shows it after a retraction: a content change."""
    return revised(record, retracted=True, pub_types=[*record.pub_types, "Retracted Publication"])


def later_lr(record: DocumentRecord) -> str:
    assert record.lr is not None
    return f"{int(record.lr[:4]) + 1}{record.lr[4:]}"


def earlier_lr(record: DocumentRecord) -> str:
    assert record.lr is not None
    return f"{int(record.lr[:4]) - 1}{record.lr[4:]}"


def upsert(store: MetadataStore, records: list[DocumentRecord]) -> UpsertResult:
    with store.transaction() as tx:
        return tx.documents.upsert(records)


def test_new_document_is_inserted_at_version_1_and_reads_back(store: MetadataStore, real_records) -> None:
    record = real_records[0]
    result = upsert(store, [record])
    assert result.outcomes == {record.pmid: "inserted"}
    assert (result.inserted, result.updated, result.skipped, result.pmids_processed) == (1, 0, 0, 1)
    assert result.versions == {record.pmid: 1}
    with store.read() as tx:
        stored = tx.documents.get(record.pmid)
    assert stored is not None
    assert stored.version == 1
    assert stored.model_dump(include=set(DocumentRecord.model_fields)) == record.model_dump()
    assert stored.content_hash == record.content_hash
    assert stored.created_at == stored.updated_at


def test_identical_record_is_skipped(store: MetadataStore, real_records) -> None:
    record = real_records[0]
    upsert(store, [record])
    result = upsert(store, [record])
    assert result.outcomes == {record.pmid: "skipped"}
    assert result.versions == {record.pmid: 1}
    assert result.stale == []


def test_content_change_bumps_version(store: MetadataStore, real_records) -> None:
    record = real_records[1]
    upsert(store, [record])
    changed = retracted(record)
    assert changed.content_hash != record.content_hash and changed.lr == record.lr
    result = upsert(store, [changed])
    assert result.outcomes == {record.pmid: "updated"}
    with store.read() as tx:
        stored = tx.documents.get(record.pmid)
    assert stored is not None
    assert (stored.version, stored.retracted) == (2, True)
    assert "Retracted Publication" in stored.pub_types
    assert stored.updated_at > stored.created_at


def test_lr_advance_bumps_version_with_the_same_content(store: MetadataStore, real_records) -> None:
    record = real_records[2]
    upsert(store, [record])
    advanced = revised(record, lr=later_lr(record))
    assert advanced.content_hash == record.content_hash
    result = upsert(store, [advanced])
    assert result.outcomes == {record.pmid: "updated"}
    assert result.versions == {record.pmid: 2}
    with store.read() as tx:
        stored = tx.documents.get(record.pmid)
    assert stored is not None and stored.lr == advanced.lr


def test_quality_alone_is_not_a_content_change(store: MetadataStore, real_records) -> None:
    record = real_records[3]
    upsert(store, [record])
    rescored = revised(record, quality={"design": 2, "recency": 1, "journal": None, "human": 2, "total": 5})
    assert upsert(store, [rescored]).outcomes == {record.pmid: "skipped"}


@pytest.mark.parametrize("content_changed", [False, True])
def test_lr_going_backwards_is_skipped_and_reported_stale(
    store: MetadataStore, real_records, content_changed: bool
) -> None:
    record = real_records[4]
    upsert(store, [record])
    older = revised(retracted(record) if content_changed else record, lr=earlier_lr(record))
    result = upsert(store, [older])
    assert result.outcomes == {record.pmid: "skipped"}
    assert result.stale == [record.pmid]
    with store.read() as tx:
        stored = tx.documents.get(record.pmid)
    assert stored is not None
    assert (stored.version, stored.lr, stored.retracted) == (1, record.lr, False)


def test_mixed_batch_counts_and_max_edat(store: MetadataStore, real_records) -> None:
    known = real_records[10:13]
    upsert(store, known)
    new = real_records[13:15]
    batch = [*new, retracted(known[0]), revised(known[1], lr=later_lr(known[1])), known[2]]
    result = upsert(store, batch)
    assert (result.inserted, result.updated, result.skipped, result.pmids_processed) == (2, 2, 1, 5)
    assert result.outcomes[known[2].pmid] == "skipped"
    assert result.changed_pmids() == sorted([new[0].pmid, new[1].pmid, known[0].pmid, known[1].pmid])
    assert result.max_edat_seen == max(record.edat for record in batch if record.edat)


def test_duplicates_in_one_batch_count_once_and_the_newest_wins(store: MetadataStore, real_records) -> None:
    record = real_records[5]
    newer = revised(record, lr=later_lr(record))
    result = upsert(store, [newer, record, newer])
    assert result.outcomes == {record.pmid: "inserted"}
    with store.read() as tx:
        stored = tx.documents.get(record.pmid)
    assert stored is not None and (stored.lr, stored.version) == (newer.lr, 1)


def test_empty_batch(store: MetadataStore) -> None:
    result = upsert(store, [])
    assert (result.pmids_processed, result.max_edat_seen) == (0, None)


def test_get_many_returns_known_pmids_only(store: MetadataStore, real_records) -> None:
    upsert(store, real_records[:20])
    wanted = [record.pmid for record in real_records[:5]] + ["1"]
    with store.read() as tx:
        found = tx.documents.get_many(wanted)
        assert tx.documents.get("1") is None
        assert tx.documents.count() == 20
    assert sorted(found) == sorted(wanted[:5])


def test_a_batch_of_500_takes_a_few_statements(store: MetadataStore, real_records) -> None:
    # The recorded set has fewer than 500 articles: repeat them under new PMIDs, as the data README suggests.
    batch = [
        revised(real_records[index % len(real_records)], pmid=str(990_000_000 + index))
        for index in range(500)
    ]
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    for expected in ("inserted", "updated"):
        with store.transaction() as tx:
            sa.event.listen(tx.connection, "before_cursor_execute", count)
            records = batch if expected == "inserted" else [revised(r, lr=later_lr(r)) for r in batch]
            statements.clear()
            result = tx.documents.upsert(records)
        assert set(result.outcomes.values()) == {expected}
        assert len(statements) <= 6, statements


def test_concurrent_upserts_of_the_same_pmids_keep_one_row_and_one_version(
    store: MetadataStore, real_records
) -> None:
    records = real_records[:60]
    advanced = [revised(record, lr=later_lr(record)) for record in records]
    results: list[UpsertResult] = []
    errors: list[BaseException] = []

    def run(batch: list[DocumentRecord], barrier: threading.Barrier) -> None:
        try:
            barrier.wait()
            results.append(upsert(store, batch))
        except BaseException as exc:  # noqa: BLE001 - reported to the main thread below
            errors.append(exc)

    for batch in (records, advanced):
        results.clear()
        barrier = threading.Barrier(2)
        threads = [threading.Thread(target=run, args=(batch, barrier)) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        outcomes = [outcome for result in results for outcome in result.outcomes.values()]
        first = "inserted" if batch is records else "updated"
        assert outcomes.count(first) == len(batch) and outcomes.count("skipped") == len(batch)

    with store.read() as tx:
        assert tx.documents.count() == len(records)
        stored = tx.documents.get_many(record.pmid for record in records)
    assert {document.version for document in stored.values()} == {2}


def test_invalid_records_and_pmids_are_refused(store: MetadataStore, real_records) -> None:
    with pytest.raises(ValidationError):
        revised(real_records[0], pmid="pmid:123")
    with pytest.raises(ValidationError):
        revised(real_records[0], edat="24 April 2010")
    with pytest.raises(ValidationError):
        revised(real_records[0], year=1999)
    with store.read() as tx, pytest.raises(BioMcpError) as caught:
        tx.documents.get("pmid:20412080")
    assert caught.value.code is ErrorCode.VALIDATION
