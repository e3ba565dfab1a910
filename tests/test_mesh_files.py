"""MeSH is found wherever the server starts: BIO_MCP_MESH_PATH, then the copy `bio-mcp data install-mesh`
put under BIO_MCP_HOME, then (development) the checkout's shared data; missing, it is said loudly."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bio_mcp.config import load_settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.service import mesh_path_of as analyst_mesh_path_of
from bio_mcp.features.pubmed.resources import server_info
from bio_mcp.mesh_files import (
    MISSING_WARNING,
    checkout_mesh_path,
    install_mesh,
    installed_mesh_path,
    mesh_path_of,
    mesh_status,
)
from bio_mcp.sources.ncbi.client import EutilsClient

REPO_ROOT = Path(__file__).resolve().parents[1]
BIO_MCP = str(Path(sys.executable).parent / "bio-mcp")


@pytest.fixture
def mesh_file(data_dir: Path) -> Path:
    return data_dir / "mesh" / "mesh_descriptors_2024.jsonl"


def test_the_analyst_uses_the_one_resolver() -> None:
    assert analyst_mesh_path_of is mesh_path_of


def test_env_path_wins(bio_home, mesh_file, tmp_path) -> None:
    settings = load_settings(BIO_MCP_MESH_PATH=str(mesh_file))
    status = mesh_status(settings)
    assert (status.path, status.source, status.warning) == (mesh_file, "BIO_MCP_MESH_PATH", None)


def test_installed_copy_is_found_from_any_working_directory(bio_home, mesh_file, tmp_path, monkeypatch) -> None:
    settings = load_settings()
    target, count = install_mesh(settings, mesh_file)
    assert target == installed_mesh_path(settings) and count == 30764
    assert target.read_bytes() == mesh_file.read_bytes()
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temporary file left
    monkeypatch.chdir(tmp_path)
    status = mesh_status(settings)
    assert (status.path, status.source) == (target, "BIO_MCP_HOME")
    # A wrong BIO_MCP_MESH_PATH falls back to the installed copy, and says so.
    wrong = load_settings(BIO_MCP_MESH_PATH=str(tmp_path / "nope.jsonl"))
    fallback = mesh_status(wrong)
    assert fallback.path == target and "is not a file" in fallback.warning


def test_the_checkout_copy_is_found_outside_the_repository_folder(bio_home, mesh_file, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    status = mesh_status(load_settings())
    assert checkout_mesh_path() == REPO_ROOT.parent / "shared" / "data" / "mesh" / "mesh_descriptors_2024.jsonl"
    assert status.source == "checkout" and status.path.resolve() == mesh_file.resolve()


def test_missing_mesh_is_warned_in_the_log_and_in_server_info(bio_home, tmp_path, monkeypatch, caplog) -> None:
    monkeypatch.setattr("bio_mcp.mesh_files._CHECKOUT_ROOT", tmp_path)  # as installed: no checkout around
    settings = load_settings()
    with caplog.at_level(logging.WARNING, logger="bio_mcp.mesh"):
        assert mesh_path_of(settings) is None
    assert MISSING_WARNING in caplog.text and "install-mesh" in caplog.text
    info = server_info(settings, EutilsClient(settings), protocol_version=None)
    assert info["mesh"] == {"path": None, "source": None, "warning": MISSING_WARNING}


@pytest.mark.parametrize(
    "content",
    ['{"ui": "D000001", "name": "Calcimycin", "terms": []}\n', "not json\n", '{"name": 3}\n', ""],
    ids=["too-few", "not-json", "not-a-descriptor", "empty"],
)
def test_install_refuses_what_is_not_a_mesh_file_and_keeps_the_old_copy(bio_home, mesh_file, tmp_path, content) -> None:
    settings = load_settings()
    install_mesh(settings, mesh_file)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    with pytest.raises(BioMcpError) as refused:
        install_mesh(settings, bad)
    assert refused.value.code is ErrorCode.VALIDATION
    assert installed_mesh_path(settings).read_bytes() == mesh_file.read_bytes()


def test_cli_install_mesh(bio_home, mesh_file, tmp_path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src"), "BIO_MCP_HOME": str(bio_home)}
    done = subprocess.run(
        [BIO_MCP, "data", "install-mesh", str(mesh_file)],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "installed 30764 MeSH descriptors" in done.stdout
    assert (bio_home / "mesh" / "mesh_descriptors.jsonl").is_file()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"ui": "x"}) + "\n")
    refused = subprocess.run(
        [BIO_MCP, "data", "install-mesh", str(bad)],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert refused.returncode == 1 and "VALIDATION" in refused.stderr
