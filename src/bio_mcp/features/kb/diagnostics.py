"""Diagnostics of kb.search and kb.retrieve_evidence: stored per call, shown as Markdown.

A result carries only `diagnostic_id`; the record (providers, stage timings, candidates, graph
budget) is a row of the metadata store (`store.diagnostics`), served as
`bio-mcp://diagnostics/{date}/{diagnostic_id}` when MCP_DIAGNOSTICS_RESOURCES_ENABLED=true and
printed by `bio-mcp diagnostics show --id ID`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store import MetadataStore, open_metadata_store
from bio_mcp.store.diagnostics import DiagnosticEntry

DIAGNOSTICS_URI = "bio-mcp://diagnostics/{date}/{diagnostic_id}"


class StageClock:
    """Wall time per named stage, in milliseconds."""

    def __init__(self) -> None:
        self._seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self._seconds[name] = self._seconds.get(name, 0.0) + time.perf_counter() - started

    def as_ms(self) -> dict[str, float]:
        return {name: round(seconds * 1000, 2) for name, seconds in self._seconds.items()}


def record_diagnostics(store: MetadataStore, tool: str, record: dict[str, Any], ttl_hours: int) -> str:
    diagnostic_id = f"dx-{uuid.uuid4().hex}"
    with store.transaction() as tx:
        tx.diagnostics.put(diagnostic_id, tool, record, timedelta(hours=ttl_hours))
    return diagnostic_id


def load_diagnostics(store: MetadataStore, diagnostic_id: str, date: str | None = None) -> DiagnosticEntry:
    with store.read() as tx:
        entry = tx.diagnostics.get(diagnostic_id)
    if entry is None or (date is not None and entry.day != date):
        raise BioMcpError(
            ErrorCode.NOT_FOUND,
            f"no diagnostics {diagnostic_id}" + (f" on {date}" if date else "") + ": never recorded or expired",
            {"diagnostic_id": diagnostic_id, "date": date},
        )
    return entry


def render_markdown(entry: DiagnosticEntry) -> str:
    """The record as a short Markdown summary: providers, stage timings, candidates, graph budget."""
    record = entry.record
    lines = [f"# Diagnostics {entry.id}", "", f"- tool: `{entry.tool}`", f"- at: {entry.created_at.isoformat()}"]
    for key in ("query", "query_en", "verbosity", "top_k", "section_ids"):
        if key in record:
            lines.append(f"- {key}: {record[key]}")
    providers = record.get("providers")
    if providers:
        lines += ["", "## Providers", ""]
        lines += [f"- {name}: {value}" for name, value in providers.items()]
    stages = record.get("stages_ms") or {}
    lines += ["", "## Stage timings", "", "| stage | ms |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in stages.items()]
    lines += [f"| total | {record.get('lat_ms', '?')} |"]
    if "candidates" in record:
        lines += ["", "## Candidates", "", f"- ranked: {record['candidates']}"]
        if record.get("query_entities"):
            lines.append(f"- query entities: {', '.join(record['query_entities'])}")
        boost = record.get("entity_boost")
        if boost:
            matching = boost["documents_matching"]
            lines.append(f"- entity boost: weight {boost['weight']}"
                         + (f", {matching} documents matching" if matching is not None else " (off)"))
        for rank, item in enumerate(record.get("evidence", []), start=1):
            lines.append(f"  {rank}. {item['doc_uri']} `{item['section_id'][:16]}` score {item['score']}")
    if "found" in record:
        lines += ["", "## Sections", "", f"- found: {record['found']}", f"- missing: {record.get('missing', [])}",
                  f"- sent to scratch: {record.get('scratched', 0)}"]
    graph = record.get("graph")
    if graph:
        lines += ["", "## Graph budget", ""]
        lines += [f"- {name}: {value}" for name, value in graph.items()]
    return "\n".join(lines) + "\n"


def show_diagnostics(settings: Settings, diagnostic_id: str) -> str:
    """`bio-mcp diagnostics show --id ID`: the Markdown summary from the configured store."""
    store = open_metadata_store(settings)
    try:
        return render_markdown(load_diagnostics(store, diagnostic_id))
    finally:
        store.close()
