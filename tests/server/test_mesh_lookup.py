"""`lookupMeshTerms` through a real MCP client session, over the real MeSH 2024 descriptors."""

from __future__ import annotations

import jsonschema
import pytest
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.runtime import Runtime

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(data_dir, bio_home, monkeypatch):
    monkeypatch.setenv("BIO_MCP_MESH_PATH", str(data_dir / "mesh" / "mesh_descriptors_2024.jsonl"))
    async with Runtime(load_settings()) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as session:
            yield session


async def test_a_brand_name_finds_acetaminophen_with_its_tree_and_parents(client) -> None:
    tool = next(t for t in (await client.list_tools()).tools if t.name == "lookupMeshTerms")
    assert "no scope notes" in tool.description
    result = await client.call_tool("lookupMeshTerms", {"query": "tylenol", "limit": 3})
    assert not result.is_error
    jsonschema.validate(result.structured_content, tool.output_schema)
    out = result.structured_content
    first = out["descriptors"][0]
    assert (first["id"], first["ui"], first["name"], first["type"]) == (
        "mesh:D000082", "D000082", "Acetaminophen", "Chemical")
    assert "Paracetamol" in first["synonyms"] and first["matchedBy"] == "synonym"
    assert first["treeNumbers"] == ["D02.065.199.092.040", "D02.092.146.113.092.040"]
    assert first["parents"] == [{"id": "mesh:D000083", "name": "Acetanilides"}]
    assert out["scopeNotesAvailable"] is False
    text = result.content[0].text
    assert "Acetaminophen" in text and "mesh:D000082" in text and "Acetanilides" in text
    assert "no scope notes" in text


async def test_ids_and_misses(client) -> None:
    by_id = await client.call_tool("lookupMeshTerms", {"query": "D006973"})
    assert by_id.structured_content["descriptors"][0]["name"] == "Hypertension"
    missing = await client.call_tool("lookupMeshTerms", {"query": "zzqqxxv"})
    assert not missing.is_error and missing.structured_content["descriptors"] == []
    assert "No MeSH descriptor matches" in missing.content[0].text
    invalid = await client.call_tool("lookupMeshTerms", {"query": "", "limit": 500})
    assert invalid.is_error


async def test_without_mesh_the_tool_says_where_to_point_it(bio_home, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BIO_MCP_MESH_PATH", str(tmp_path / "absent.jsonl"))
    monkeypatch.setattr("bio_mcp.data_files.VOCABULARIES", tmp_path)  # a package with its data stripped
    async with Runtime(load_settings()) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as session:
            result = await session.call_tool("lookupMeshTerms", {"query": "tylenol"})
    assert result.is_error and "BIO_MCP_MESH_PATH" in result.content[0].text
