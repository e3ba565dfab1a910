"""A fresh install lists a herb's constituents with no command run: the server writes Dr. Duke's
constituents (the table the package ships) of a herb on its first read, through a real MCP client
talking to `bio-mcp serve` on an empty BIO_MCP_HOME with no data path set."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from bio_mcp.config import load_settings
from bio_mcp.graph.duke_farmacy import ALL_CONSTITUENTS_KEY, constituents_pending, duke_farmacy_dir_of
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.store import open_metadata_store

pytestmark = pytest.mark.anyio

BIO_MCP = str(Path(sys.executable).parent / "bio-mcp")


def _server(home: Path) -> StdioServerParameters:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "BIO_MCP_HOME": str(home / "data"),
           "BIO_MCP_TOOLSETS": "evidence", "BIO_MCP_EMBEDDINGS_PROVIDER": "hash",
           "BIO_MCP_CACHE_DIR": os.environ["BIO_MCP_CACHE_DIR"]}
    if os.environ.get("PYTHONPATH"):  # a worktree run with the shared venv's bio-mcp script
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return StdioServerParameters(command=BIO_MCP, args=["serve"], env=env, cwd=str(home))


async def _herb(client: Client, name: str) -> dict[str, Any]:
    return json.loads((await client.read_resource(f"kg://herb/{name}")).contents[0].text)


async def test_a_fresh_server_lists_garlics_duke_constituents_with_their_source(bio_home: Path) -> None:
    async with Client(_server(bio_home), read_timeout_seconds=300) as client:
        garlic = await _herb(client, "garlic")
        assert garlic["id"] == "mesh:D005737"
        by_name = {c["name"]: c for c in garlic["constituents"]}
        assert {"Allicin", "Alliin", "Ajoene"} <= set(by_name)
        assert by_name["Allicin"]["id"] == "chemical:allicin"
        assert by_name["Allicin"]["sources"] == ["duke:FARMACY_NEW"]
        assert "bulb" in by_name["Allicin"]["parts"] and not by_name["Allicin"]["widespread"]
        assert by_name["Water"]["widespread"]  # in most of Duke's plants: says nothing of garlic
        assert "duke:FARMACY_NEW" in garlic["sources"]
        # Garlic's rows only: no other plant's chemical came with them (turmeric's curcumin).
        assert "Curcumin" not in by_name

        # Read again: the same list, nothing written twice.
        again = await _herb(client, "garlic")
        assert [c["id"] for c in again["constituents"]] == [c["id"] for c in garlic["constituents"]]

        # The safety search looks under the constituents too: turmeric's, by its first read here.
        safety = await client.call_tool("tool.find_contraindications", {"herb_ids": ["turmeric"]})
        assert not safety.is_error, safety.content
        searched = safety.structured_content["coverage"]["names_searched"]
        assert "Curcumin" in searched
        # Water is in turmeric too, but a chemical in most plants is not looked under for a herb's
        # harms, so the coverage does not claim it was searched.
        assert "Water" not in searched and "Glucose" not in searched

        # A walk from a herb read first here: ginger (Zingiber officinale) reaches its constituents.
        walk = await client.call_tool("tool.query_kg", {"start": {"type": "herb", "id": "ginger"},
                                                        "pattern": "herb>constituent"})
        assert not walk.is_error, walk.content
        paths = walk.structured_content["paths"]
        assert paths and all(path[0]["id"] == "mesh:D020939" and path[1]["type"] == "constituent" for path in paths)

    settings = load_settings(BIO_MCP_HOME=str(bio_home / "data"))
    store = open_metadata_store(settings)
    try:
        with store.read() as tx:
            farmacy = duke_farmacy_dir_of(settings)
            assert farmacy is not None and "/bio_mcp/vocabularies/" in str(farmacy)
            # Written per herb, not the whole table: the other herbs are still pending.
            assert SqlGraphStore(tx.connection).meta(ALL_CONSTITUENTS_KEY) is None
            assert constituents_pending(tx.connection, ["mesh:D005737", "mesh:D030024", "mesh:D020939", "mesh:D035685"],
                                        farmacy) == ["mesh:D035685"]
    finally:
        store.close()
