"""A document without a title (an ingested text file that opens with a section heading, its text a
real PPR abstract) through the MCP server and the Python SDK's client, which checks every structured result
against the tool's output schema: kb.retrieve_evidence gave the document no `title` at all (None was
dropped from the output while the schema requires the key) and the client rejected the result."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
from mcp import Client

from bio_mcp.features.evidence.ingest_models import IngestRunRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.graph.elements import HAS_SECTION
from bio_mcp.graph.ids import document_node_id
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.server.app import build_server
from bio_mcp.server.toolsets.kb import build_kb_toolset
from tests.evidence.ingest.conftest import IngestEnv
from tests.evidence.ingest.documents import ppr_abstracts

pytestmark = pytest.mark.anyio


async def test_retrieve_evidence_of_an_untitled_document_validates(ingest_env: IngestEnv, data_dir: Path) -> None:
    _, abstract = ppr_abstracts(data_dir, 1)[0]
    path = ingest_env.root / "untitled.txt"
    path.write_text("\n".join(["Abstract", abstract.title, *abstract.paragraphs]) + "\n", encoding="utf-8")
    service = ingest_env.make()
    response = await service.run(IngestRunRequest.model_validate({"dry_run": False, "batch": [{"uri": path.as_uri()}]}))
    assert response.status == "done", response.error
    key = response.files[0].doc_id
    with service.corpus.store.read() as tx:
        assert tx.documents.get_many([key])[key].title is None
        sections = SqlGraphStore(tx.connection).neighbours(
            [document_node_id(path.resolve().as_uri())], "out", [HAS_SECTION], 10)
    section_ids = [row.other for row in sections]
    assert section_ids

    async with Client(build_server([build_kb_toolset(KbRetrieval(service.corpus), service.corpus.settings)])) as client:
        schema = next(tool.output_schema for tool in (await client.list_tools()).tools if tool.name == "kb_retrieve_evidence")
        # By the name it is listed under, so the SDK checks the result against the schema it was given.
        result = await client.call_tool("kb_retrieve_evidence", {"section_ids": section_ids})
    assert not result.is_error, result.content[0].text
    body = result.structured_content
    jsonschema.validate(body, schema)
    [document] = {section["document"]["doc_id"]: section["document"] for section in body["sections"]}.values()
    assert document["doc_id"] == key and document["title"] is None
    assert abstract.title in result.content[0].text
