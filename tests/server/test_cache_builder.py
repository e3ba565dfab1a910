"""A server's first start on a fresh cache: the MeSH vocabulary, the entity linker and the Thai ->
English words are built by a child process, and the server only reads the pickles back, so the
heap their build grows is never the server's. What the child cannot build the server meets as
before, typed."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from bio_mcp.config import load_settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.indications import load_mesh_index
from bio_mcp.graph import linking, vocabulary
from bio_mcp.mesh_files import mesh_path_of
from bio_mcp.pickle_cache import build_elsewhere
from bio_mcp.search import thai_english
from bio_mcp.server.cache_builder import ChildCacheBuilder
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.runtime import Runtime

pytestmark = pytest.mark.anyio

BIO_MCP = str(Path(sys.executable).parent / "bio-mcp")
BUILT = "compiled caches built by a child process"
CHILD_EXITS_WITHIN_S = 60


@pytest.fixture
def builds_apart():
    """Installs a server's builder as `serve` does, and takes it away after the test."""
    def install(settings) -> None:
        build_elsewhere(ChildCacheBuilder(settings))

    yield install
    build_elsewhere(None)


def _never_here(what: str):
    def parse(*_args: object, **_kwargs: object) -> object:
        raise AssertionError(f"{what} ran in the server's process")

    return parse


async def test_a_first_start_reads_back_what_a_child_process_built(
    bio_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, builds_apart
) -> None:
    settings = load_settings(BIO_MCP_CACHE_DIR=str(tmp_path / "fresh-cache"), BIO_MCP_EMBEDDINGS_PROVIDER="hash")
    # The server's process must never parse MeSH, compile the linker or build the Thai words: the
    # child imports its own modules, untouched by these.
    monkeypatch.setattr(vocabulary, "read_descriptors", _never_here("parsing MeSH"))
    monkeypatch.setattr(linking, "build_linker", _never_here("compiling the linker"))
    monkeypatch.setattr(thai_english, "build_thai_english", _never_here("building the Thai words"))
    monkeypatch.setattr(thai_english, "_LOADED", {})  # as a fresh process finds it
    builds_apart(settings)

    async with Runtime(settings) as runtime:
        await runtime.warm_up(build_toolsets(runtime, ["pubmed", "corpus", "kb", "evidence", "analyst"]))
        graph = runtime.corpus.graph
        assert graph is not None and graph.linker is not None, "the corpus did not open"
        assert graph.catalog.vocabulary is not None
        assert graph.catalog.vocabulary.search("tylenol")[0].concept.id == "mesh:D000082"
        assert "mesh:D001241" in {mention.entity_id for mention in graph.linker.link("Aspirin relieves pain.")}
        assert runtime.analyst.mesh().lookup("non-small cell lung cancer") == "Carcinoma, Non-Small-Cell Lung"
    assert "diabetes" in thai_english.thai_english_words(cache_dir=settings.caches)["เบาหวาน"]
    for name in ("mesh-vocabulary-*.pickle", "entity-linker-*.pickle", "thai-english-*.pickle"):
        assert list(settings.caches.glob(name)), name


def test_what_the_child_could_not_build_fails_here_typed_as_before(
    bio_home: Path, tmp_path: Path, builds_apart, caplog: pytest.LogCaptureFixture
) -> None:
    mesh = tmp_path / "mesh" / "mesh_descriptors_2024.jsonl"
    mesh.parent.mkdir()
    mesh.write_text('{"ui": "D000082", "name": "Acetaminophen", "terms": [\n')  # cut off mid-record
    settings = load_settings(BIO_MCP_CACHE_DIR=str(tmp_path / "fresh-cache"), BIO_MCP_MESH_PATH=str(mesh),
                             BIO_MCP_TOOLSETS="analyst")
    builds_apart(settings)
    load_mesh_index.cache_clear()
    with caplog.at_level(logging.INFO, logger="bio_mcp"), pytest.raises(BioMcpError) as raised:
        load_mesh_index(mesh, settings.caches)
    # The one MeSH reader's error for a file that is not MeSH descriptors, as in a process without a child.
    assert raised.value.code is ErrorCode.VALIDATION and str(mesh) in raised.value.message
    assert "the child process building the compiled caches failed" in caplog.text
    assert not list(settings.caches.glob("mesh-vocabulary-*.pickle"))


async def test_bio_mcp_serve_has_a_child_build_what_its_fresh_cache_lacks(bio_home: Path, tmp_path: Path) -> None:
    cache, log = tmp_path / "fresh-cache", tmp_path / "server.log"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("BIO_MCP_", "MCP_"))},
           "BIO_MCP_HOME": str(bio_home), "BIO_MCP_CACHE_DIR": str(cache), "BIO_MCP_TOOLSETS": "pubmed"}
    with log.open("w") as errlog:
        async with Client(stdio_client(StdioServerParameters(command=BIO_MCP, args=["serve"], env=env),
                                       errlog=errlog)) as client:
            result = await client.call_tool("lookupMeshTerms", {"query": "heart attack", "limit": 1})
            # The answer comes once the pickle is written; the child's end is logged when it exits.
            with anyio.move_on_after(CHILD_EXITS_WITHIN_S):
                while BUILT not in log.read_text():
                    await anyio.sleep(0.2)
    assert not result.is_error
    assert result.structured_content["descriptors"][0]["name"] == "Myocardial Infarction"
    records = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    built = [r for r in records if r["msg"] == BUILT]
    # The pubmed toolset reads the vocabulary alone: neither the linker nor the Thai words are built.
    assert [r["kinds"] for r in built] == [["Vocabulary"]], records
    assert [path.name.split("-")[:2] for path in cache.glob("*.pickle")] == [["mesh", "vocabulary"]]


async def test_on_an_empty_cache_the_child_starts_before_anything_misses(bio_home: Path, tmp_path: Path) -> None:
    """A first start: the child builds while the server imports and opens its store."""
    settings = load_settings(BIO_MCP_CACHE_DIR=str(tmp_path / "fresh-cache"), BIO_MCP_TOOLSETS="pubmed")
    ChildCacheBuilder(settings).start_on_a_fresh_cache()
    with anyio.move_on_after(CHILD_EXITS_WITHIN_S):
        while not list(settings.caches.glob("mesh-vocabulary-*.pickle")):
            await anyio.sleep(0.2)
    assert list(settings.caches.glob("mesh-vocabulary-*.pickle")), "nothing was built"


def test_with_no_child_process_to_be_had_the_server_builds_them_itself(
    bio_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, builds_apart, caplog: pytest.LogCaptureFixture
) -> None:
    settings = load_settings(BIO_MCP_CACHE_DIR=str(tmp_path / "fresh-cache"), BIO_MCP_TOOLSETS="pubmed")
    builds_apart(settings)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python-here"))
    load_mesh_index.cache_clear()
    with caplog.at_level(logging.INFO, logger="bio_mcp"):
        index = load_mesh_index(mesh_path_of(settings), settings.caches)
    assert index.lookup("non-small cell lung cancer") == "Carcinoma, Non-Small-Cell Lung"
    assert "could not start a child process" in caplog.text
    assert list(settings.caches.glob("mesh-vocabulary-*.pickle"))
