"""The built wheel, installed into a fresh venv and started from an empty folder with no data path
set, works at full strength: the vocabularies it ships are found (MeSH, BC5CDR's linker priors,
Dr. Duke's tables, the Disease Ontology's codes), nothing beside a checkout is read.

Slow (a wheel build and a venv install: a minute or two with pip's cache warm): `-m package`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from bio_mcp.config import load_settings
from bio_mcp.data_files import (
    BC5CDR_PRIORS,
    DO_XREFS,
    DUKE,
    MESH_DESCRIPTORS,
    MESH_PHARM_ACTIONS,
    VOCABULARIES,
)
from bio_mcp.graph.linking_eval import evaluate_file

pytestmark = [pytest.mark.package, pytest.mark.anyio]

REPO_ROOT = Path(__file__).resolve().parents[2]
# The installed wheel's shipped data, at most (about 2.6 MB today): kept small on purpose.
MAX_SHIPPED_BYTES = 4_000_000


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The venv's bin folder, with the wheel built from this checkout installed."""
    scratch = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(scratch / "dist"),
                    str(REPO_ROOT)], check=True, capture_output=True, timeout=600)
    (wheel,) = (scratch / "dist").glob("bio_mcp-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = {info.filename: info.file_size for info in archive.infolist()
                   if info.filename.startswith("bio_mcp/vocabularies/")}
    for item in (MESH_DESCRIPTORS, MESH_PHARM_ACTIONS, DO_XREFS, BC5CDR_PRIORS):
        assert f"bio_mcp/vocabularies/{item.relative}" in shipped, item.relative
    assert f"bio_mcp/vocabularies/{DUKE.relative}/FNFTAX.csv.xz" in shipped
    assert sum(shipped.values()) < MAX_SHIPPED_BYTES
    venv = scratch / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], check=True, capture_output=True,
                   timeout=1200)
    return venv / "bin"


def clean_env(tmp: Path) -> dict[str, str]:
    """A user's environment: a home, BIO_MCP_HOME, and no data path, PYTHONPATH or checkout in sight."""
    (tmp / "home").mkdir(exist_ok=True)
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp / "home"),
            "BIO_MCP_HOME": str(tmp / "home" / "bio-mcp"), "LANG": "C.UTF-8"}


def test_the_wheel_ships_what_the_checkout_holds() -> None:
    # The files the wheel test looks for are the ones `bio-mcp data build-vocabularies` writes here.
    assert all(path.is_file() for path in (MESH_DESCRIPTORS.path, MESH_PHARM_ACTIONS.path, DO_XREFS.path,
                                           BC5CDR_PRIORS.path, VOCABULARIES / "README.md"))


@pytest.fixture
def empty(tmp_path: Path) -> Path:
    """An empty working folder: nothing imported, no data path; the server imports the Thai herb
    names the package ships itself."""
    folder = tmp_path / "empty"
    folder.mkdir()
    return folder


async def test_an_installed_server_started_from_an_empty_folder_runs_at_full_strength(
    installed: Path, empty: Path, tmp_path: Path
) -> None:
    params = StdioServerParameters(command=str(installed / "bio-mcp"), args=["serve"], env=clean_env(tmp_path),
                                   cwd=str(empty))
    async with Client(params, read_timeout_seconds=300) as client:
        info = json.loads((await client.read_resource("pubmed-connect://info")).contents[0].text)
        assert info["mesh"]["source"] == "package" and info["mesh"]["warning"] is None
        assert "/site-packages/bio_mcp/vocabularies/" in info["mesh"]["path"]

        tylenol = await client.call_tool("graph.entities", {"query": "tylenol"})
        assert not tylenol.is_error, tylenol.content
        assert tylenol.structured_content["entities"][0]["id"] == "mesh:D000082"
        assert tylenol.structured_content["entities"][0]["name"] == "Acetaminophen"

        heart = await client.call_tool("lookupMeshTerms", {"query": "heart attack"})
        assert not heart.is_error, heart.content
        assert heart.structured_content["descriptors"][0]["name"] == "Myocardial Infarction"

        # A name the linker knows from BC5CDR's training pairs only, not from MeSH's terms.
        linked = await client.call_tool("graph.entities", {"query": "hepatotoxicity"})
        assert any(entity["match"] == "linked" for entity in linked.structured_content["entities"])

        garlic = json.loads((await client.read_resource("kg://herb/garlic")).contents[0].text)
        assert garlic["id"] == "mesh:D005737" and garlic["names"]["en"] == "Garlic"
        assert garlic["names"]["th"] == "กระเทียม"
        # Dr. Duke's constituents from the shipped table, written on this first read: no `kg herbs` run.
        allicin = next(c for c in garlic["constituents"] if c["name"] == "Allicin")
        assert allicin["sources"] == ["duke:FARMACY_NEW"]

        # A drug spelt in Thai (paracetamol), read through MeSH's names; a herb by its Thai name.
        thai = await client.call_tool("graph.entities", {"query": "พาราเซตามอล"})
        assert not thai.is_error, thai.content
        first = thai.structured_content["entities"][0]
        assert (first["id"], first["match"]) == ("mesh:D000082", "thai")
        herb = await client.call_tool("graph.entities", {"query": "ฟ้าทะลายโจร"})
        assert herb.structured_content["entities"][0]["id"] == "mesh:D035685"  # Andrographis

    # Nothing was written beside the empty working folder.
    assert list(empty.iterdir()) == []


def test_the_installed_linker_scores_as_the_checkout_does(installed: Path, tmp_path: Path, data_dir: Path) -> None:
    # The shipped BC5CDR priors were learnt without the development split: the installed wheel's
    # score on it is the checkout's (same counts), with no training file anywhere in sight.
    empty = tmp_path / "empty"
    empty.mkdir()
    done = subprocess.run([str(installed / "bio-mcp"), "eval", "linking", "--data",
                           str(data_dir / "bench" / "bc5cdr" / "CDR_DevelopmentSet.PubTator.txt")],
                          env=clean_env(tmp_path), cwd=empty, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["linker"]["learnt_from_scored_documents"] == 0
    assert "/site-packages/bio_mcp/vocabularies/trained/" in report["linker"]["training"]
    # The checkout, learning from the shared BC5CDR training file itself (development split held out).
    bc5cdr = data_dir / "bench" / "bc5cdr"
    checkout = evaluate_file(bc5cdr / "CDR_DevelopmentSet.PubTator.txt", load_settings(
        BIO_MCP_HOME=str(tmp_path / "checkout"), BIO_MCP_MESH_PATH=str(data_dir / "mesh" / "mesh_descriptors_2024.jsonl"),
        BIO_MCP_LINKER_TRAINING=str(bc5cdr / "CDR_TrainingSet.PubTator.txt")))
    assert report["concept"] == checkout["concept"] and report["mention"] == checkout["mention"]
    assert report["concept"]["all"]["f1"] >= 0.85
