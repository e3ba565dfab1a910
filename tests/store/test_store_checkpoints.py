"""Checkpoints: monotonic automatic advance, manual backfill sets, the audit trail, ISO validation."""

from __future__ import annotations

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store import MetadataStore, normalise_iso_utc

KEY = "glp1_obesity_v1"


def test_automatic_advance_is_monotonic_and_audited(store: MetadataStore) -> None:
    with store.transaction() as tx:
        assert tx.checkpoints.get(KEY) is None
        first = tx.checkpoints.advance(KEY, "2025-08-10T12:00:00Z", "sync_1")
        assert (first.previous, first.current, first.changed) == (None, "2025-08-10T12:00:00Z", True)
        second = tx.checkpoints.advance(KEY, "2025-08-17T15:59:02Z", "sync_2")
        assert (second.previous, second.current, second.changed) == (
            "2025-08-10T12:00:00Z",
            "2025-08-17T15:59:02Z",
            True,
        )

        lower = tx.checkpoints.advance(KEY, "2025-08-12T00:00:00Z", "sync_3")
        assert (lower.current, lower.changed, lower.ignored_edat) == (
            "2025-08-17T15:59:02Z",
            False,
            "2025-08-12T00:00:00Z",
        )
        equal = tx.checkpoints.advance(KEY, "2025-08-17T15:59:02+00:00", "sync_4")
        assert (equal.changed, equal.ignored_edat) == (False, None)
        assert tx.checkpoints.get(KEY) == "2025-08-17T15:59:02Z"

        audit = tx.checkpoints.audit(KEY)
    assert [(a.old_edat, a.new_edat, a.kind, a.job_id) for a in audit] == [
        (None, "2025-08-10T12:00:00Z", "auto", "sync_1"),
        ("2025-08-10T12:00:00Z", "2025-08-17T15:59:02Z", "auto", "sync_2"),
    ]


def test_manual_set_may_move_backwards_and_is_audited(store: MetadataStore) -> None:
    with store.transaction() as tx:
        tx.checkpoints.advance(KEY, "2025-08-17T15:59:02Z", "sync_1")
        change = tx.checkpoints.set(KEY, "2025-01-01T00:00:00Z", actor="alice", reason="backfill 2025")
        assert (change.previous, change.current, change.changed) == (
            "2025-08-17T15:59:02Z",
            "2025-01-01T00:00:00Z",
            True,
        )
        assert tx.checkpoints.get(KEY) == "2025-01-01T00:00:00Z"
        tx.checkpoints.set(KEY, "2025-01-01", actor="alice")
        other = tx.checkpoints.set("other_key", "2024-06-02T00:00:00Z", actor="bob")
        assert (other.previous, other.changed) == (None, True)
        audit = tx.checkpoints.audit(KEY)
    assert [(a.old_edat, a.new_edat, a.kind, a.actor, a.reason) for a in audit] == [
        (None, "2025-08-17T15:59:02Z", "auto", None, None),
        ("2025-08-17T15:59:02Z", "2025-01-01T00:00:00Z", "manual", "alice", "backfill 2025"),
        ("2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z", "manual", "alice", None),
    ]
    assert audit[0].at <= audit[1].at <= audit[2].at


def test_an_advance_in_a_failed_transaction_leaves_no_trace(store: MetadataStore) -> None:
    with pytest.raises(BioMcpError), store.transaction() as tx:
        tx.checkpoints.advance(KEY, "2025-08-17T15:59:02Z", "sync_1")
        tx.checkpoints.advance(KEY, "not a date", "sync_1")
    with store.read() as tx:
        assert tx.checkpoints.get(KEY) is None
        assert tx.checkpoints.audit(KEY) == []


@pytest.mark.parametrize(
    "value", ["", "yesterday", "2025-13-01T00:00:00Z", "2025-08-17T15:59:02", "17/08/2025", "2025/08/17"]
)
def test_checkpoint_values_must_be_iso8601_utc(store: MetadataStore, value: str) -> None:
    with store.transaction() as tx:
        with pytest.raises(BioMcpError) as caught:
            tx.checkpoints.set(KEY, value, actor="alice")
        assert caught.value.code is ErrorCode.VALIDATION
        assert "ISO 8601" in caught.value.message and caught.value.details["field"] == "last_edat"
        with pytest.raises(BioMcpError) as caught:
            tx.checkpoints.advance(KEY, value, "sync_1")
        assert caught.value.details["field"] == "edat"
        with pytest.raises(BioMcpError) as caught:
            tx.checkpoints.get("")
        assert caught.value.code is ErrorCode.VALIDATION


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-08-17T15:59:02Z", "2025-08-17T15:59:02Z"),
        ("2025-08-17T15:59:02.750Z", "2025-08-17T15:59:02Z"),
        ("2025-08-17T17:59:02+02:00", "2025-08-17T15:59:02Z"),
        ("2025-08-17T15:59Z", "2025-08-17T15:59:00Z"),
        ("2025-08-17", "2025-08-17T00:00:00Z"),
    ],
)
def test_iso_values_are_normalised_to_utc_seconds(value: str, expected: str) -> None:
    assert normalise_iso_utc(value) == expected
