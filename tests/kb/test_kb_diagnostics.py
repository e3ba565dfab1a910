"""Diagnostics of kb.search / kb.retrieve_evidence: stored per call (SQLite and PostgreSQL), served
as bio-mcp://diagnostics/{date}/{id} only with MCP_DIAGNOSTICS_RESOURCES_ENABLED, and printed by
`bio-mcp diagnostics show --id`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client

from bio_mcp.features.kb.models import KbSearchRequest, RetrieveEvidenceRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.server.app import build_server
from bio_mcp.server.toolsets.kb import build_kb_toolset
from tests.graph.graph_sync_fixtures import synced

pytestmark = pytest.mark.anyio

BIO_MCP = str(Path(sys.executable).parent / "bio-mcp")


async def test_each_call_is_recorded_and_shown_as_markdown(make_graph_service, database_url) -> None:
    service = await synced(make_graph_service, database_url)
    retrieval = KbRetrieval(service)
    found = await retrieval.search(KbSearchRequest(query="acetaminophen liver toxicity", verbosity="graph", top_k=3))
    evidence = await retrieval.retrieve_evidence(RetrieveEvidenceRequest(section_ids=[found.evidence[0].section_id]))
    assert found.diagnostic_id != evidence.diagnostic_id
    with service.store.read() as tx:
        entry = tx.diagnostics.get(found.diagnostic_id)
    assert entry is not None and entry.tool == "kb.search"
    assert entry.record["candidates"] == found.diagnostics.retrieval.candidates
    assert {"retrieve", "fetch", "graph"} <= set(entry.record["stages_ms"])

    settings = service.settings.model_copy(update={"diagnostics_resources_enabled": True})
    async with Client(build_server([build_kb_toolset(retrieval, settings)])) as client:
        templates = {str(t.uri_template) for t in (await client.list_resource_templates()).resource_templates}
        assert "bio-mcp://diagnostics/{date}/{diagnostic_id}" in templates
        read = await client.read_resource(f"bio-mcp://diagnostics/{entry.day}/{found.diagnostic_id}")
        markdown = read.contents[0].text
        assert markdown.startswith(f"# Diagnostics {found.diagnostic_id}")
        for expected in ("## Providers", "embedding: hash", "reranker: none", "| retrieve |", "## Candidates",
                         f"ranked: {found.diagnostics.retrieval.candidates}", "## Graph budget",
                         f"expanded: {found.graph.budget.expanded}", f"reason: {found.diagnostics.graph.reason}",
                         found.evidence[0].metadata.doc_uri):
            assert expected in markdown
        shown = await client.read_resource(f"bio-mcp://diagnostics/{entry.day}/{evidence.diagnostic_id}")
        assert "kb.retrieve_evidence" in shown.contents[0].text and "found: 1" in shown.contents[0].text
        wrong_day = await client.read_resource(f"bio-mcp://diagnostics/1999-01-01/{found.diagnostic_id}")
        assert "**NOT_FOUND**" in wrong_day.contents[0].text

    async with Client(build_server([build_kb_toolset(retrieval, service.settings)])) as client:
        templates = {str(t.uri_template) for t in (await client.list_resource_templates()).resource_templates}
        assert not any("diagnostics" in template for template in templates)

    env = {k: v for k, v in os.environ.items() if not k.startswith(("BIO_MCP_", "DATABASE_URL"))}
    # The run's one cache of the compiled MeSH linker (tests/conftest.py).
    env["BIO_MCP_CACHE_DIR"] = os.environ["BIO_MCP_CACHE_DIR"]
    env["BIO_MCP_HOME"] = str(service.settings.home)
    if service.settings.database_url:
        env["DATABASE_URL"] = service.settings.database_url
    shown = subprocess.run([BIO_MCP, "diagnostics", "show", "--id", found.diagnostic_id], env=env,
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == markdown
    unknown = subprocess.run([BIO_MCP, "diagnostics", "show", "--id", "dx-nope"], env=env,
                             capture_output=True, text=True, timeout=120)
    assert unknown.returncode == 1 and "NOT_FOUND" in unknown.stderr
