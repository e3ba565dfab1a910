"""Scratch texts: content-addressed, readable until they expire, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

from bio_mcp.store import MetadataStore
from bio_mcp.store.scratch import SCRATCH_URI_PREFIX


def test_put_then_get_returns_the_text_under_a_stable_id(store: MetadataStore) -> None:
    text = "ก" * 70_000 + " full XML of PMID 12345"
    with store.transaction() as tx:
        first = tx.scratch.put(text, "application/xml")
        again = tx.scratch.put(text, "application/xml")
    assert first.id == again.id and first.uri == SCRATCH_URI_PREFIX + first.id
    with store.read() as tx:
        entry = tx.scratch.get(first.id)
    assert entry is not None and entry.text == text and entry.mime_type == "application/xml"


def test_expired_entries_are_gone_and_purged(store: MetadataStore) -> None:
    with store.transaction() as tx:
        entry = tx.scratch.put("short-lived", ttl=timedelta(seconds=-1))
        kept = tx.scratch.put("kept")
    with store.read() as tx:
        assert tx.scratch.get(entry.id) is None
        assert tx.scratch.get("0" * 64) is None
    with store.transaction() as tx:
        assert tx.scratch.purge_expired() == 1
        assert tx.scratch.get(kept.id) is not None
