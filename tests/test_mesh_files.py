"""MeSH is found wherever the server starts: BIO_MCP_MESH_PATH, then the copy `bio-mcp data install-mesh`
put under BIO_MCP_HOME (our JSON lines or NLM's descriptor XML), then MeSH 2024 shipped in the package;
missing, it is said loudly."""

from __future__ import annotations

import csv
import gzip
import json
import logging
import lzma
import os
import subprocess
import sys
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from bio_mcp.config import load_settings
from bio_mcp.data_files import MESH_DESCRIPTORS, MESH_PHARM_ACTIONS
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.service import mesh_path_of as analyst_mesh_path_of
from bio_mcp.features.pubmed.resources import server_info
from bio_mcp.graph.vocabulary import read_descriptors
from bio_mcp.mesh_files import (
    MISSING_WARNING,
    PHARM_ACTIONS_NAME,
    install_mesh,
    installed_mesh_path,
    mesh_path_of,
    mesh_status,
    pharm_actions_path,
    read_descriptor_xml,
    read_mesh_descriptors,
    validate_mesh_file,
)
from bio_mcp.sources.ncbi.client import EutilsClient

REPO_ROOT = Path(__file__).resolve().parents[1]
XML_EXCERPT = REPO_ROOT / "tests" / "fixtures" / "mesh" / "desc2019_excerpt.xml"
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


def test_the_shipped_copy_is_found_outside_the_repository_folder(bio_home, mesh_file, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    status = mesh_status(load_settings())
    assert (status.path, status.source, status.warning) == (MESH_DESCRIPTORS.path, "package", None)
    # The shipped copy is MeSH 2024 as the shared data has it, compressed; the actions ship beside it.
    assert lzma.decompress(status.path.read_bytes()) == mesh_file.read_bytes()
    assert pharm_actions_path(status.path) == MESH_PHARM_ACTIONS.path
    assert lzma.decompress(MESH_PHARM_ACTIONS.path.read_bytes()) == (mesh_file.parent / PHARM_ACTIONS_NAME).read_bytes()


def test_missing_mesh_is_warned_in_the_log_and_in_server_info(bio_home, tmp_path, monkeypatch, caplog) -> None:
    monkeypatch.setattr("bio_mcp.data_files.VOCABULARIES", tmp_path)  # a package with its data stripped
    settings = load_settings()
    with caplog.at_level(logging.WARNING, logger="bio_mcp.mesh"):
        assert mesh_path_of(settings) is None
    assert MISSING_WARNING in caplog.text and "install-mesh" in caplog.text
    info = server_info(settings, EutilsClient(settings), protocol_version=None)
    assert info["mesh"] == {"path": None, "source": None, "warning": MISSING_WARNING}


def test_the_vocabulary_and_the_install_check_read_the_same_descriptors(mesh_file) -> None:
    descriptors = list(read_mesh_descriptors(mesh_file))
    concepts = read_descriptors(mesh_file)
    assert len(descriptors) == len(concepts) == validate_mesh_file(mesh_file) == 30764
    acetaminophen = next(d for d in descriptors if d.ui == "D000082")
    assert concepts["mesh:D000082"].name == acetaminophen.name == "Acetaminophen"
    assert set(concepts["mesh:D000082"].synonyms) == set(acetaminophen.terms) - {"Acetaminophen"}


@pytest.mark.parametrize("bad", [{"ui": "D000001", "name": "x", "terms": "not a list"},
                                 {"ui": "D000001", "name": "x", "tree_numbers": [7]}, {"name": "no ui"}])
def test_a_bad_descriptor_line_is_refused_by_line_wherever_it_is_read(mesh_file, tmp_path, bad) -> None:
    path = tmp_path / "mesh_descriptors_bad.jsonl"
    head = mesh_file.read_text(encoding="utf-8").splitlines()[:3]
    path.write_text("\n".join([*head, json.dumps(bad)]) + "\n", encoding="utf-8")
    for read in (read_descriptors, validate_mesh_file):
        with pytest.raises(BioMcpError) as info:
            read(path)
        assert info.value.code is ErrorCode.VALIDATION and f"{path}:4 " in info.value.message


def test_nlm_xml_is_read_from_the_right_elements() -> None:
    with XML_EXCERPT.open("rb") as stream:
        [record] = list(read_descriptor_xml(stream))
    assert (record.ui, record.name) == ("D000001", "Calcimycin")
    # Every concept's terms, the preferred one's first; no qualifier, see-related or entry-combination names.
    assert record.terms == ["Calcimycin", "A 23187", "A-23187"]
    assert record.tree_numbers == ["D03.633.100.221.173", "D03.633.100.221.174"]
    assert record.actions == [("D000900", "Anti-Bacterial Agents"), ("D061207", "Calcium Ionophores")]


def _descriptor_xml(records: list[dict], actions: dict[str, list[tuple[str, str]]]) -> bytes:
    """Real MeSH 2024 records written in the shape of NLM's desc20XX.xml (its DTD's elements), all of
    a record's terms under one concept: NLM's XML itself is not in the shared data."""
    parts = [('<?xml version="1.0"?>\n<!DOCTYPE DescriptorRecordSet SYSTEM '
              '"https://www.nlm.nih.gov/databases/dtd/nlmdescriptorrecordset_20240101.dtd">\n'
              '<DescriptorRecordSet LanguageCode="eng">\n')]
    for record in records:
        parts.append(f'<DescriptorRecord DescriptorClass="1"><DescriptorUI>{record["ui"]}</DescriptorUI>'
                     f'<DescriptorName><String>{escape(record["name"])}</String></DescriptorName>')
        if actions.get(record["ui"]):
            parts.append("<PharmacologicalActionList>" + "".join(
                f"<PharmacologicalAction><DescriptorReferredTo><DescriptorUI>{ui}</DescriptorUI><DescriptorName>"
                f"<String>{escape(name)}</String></DescriptorName></DescriptorReferredTo></PharmacologicalAction>"
                for ui, name in actions[record["ui"]]) + "</PharmacologicalActionList>")
        if record["tree_numbers"]:
            parts.append("<TreeNumberList>" + "".join(f"<TreeNumber>{tree}</TreeNumber>"
                                                      for tree in record["tree_numbers"]) + "</TreeNumberList>")
        parts.append('<ConceptList><Concept PreferredConceptYN="Y"><ConceptName><String>'
                     f'{escape(record["name"])}</String></ConceptName><TermList>'
                     + "".join(f"<Term><String>{escape(term)}</String></Term>" for term in record["terms"])
                     + "</TermList></Concept></ConceptList></DescriptorRecord>\n")
    parts.append("</DescriptorRecordSet>\n")
    return "".join(parts).encode("utf-8")


def test_install_reads_nlm_descriptor_xml_gzipped(bio_home, mesh_file, tmp_path) -> None:
    records = [json.loads(line) for line in mesh_file.read_text(encoding="utf-8").splitlines()[:1500]]
    actions: dict[str, list[tuple[str, str]]] = {}
    with (mesh_file.parent / PHARM_ACTIONS_NAME).open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            actions.setdefault(row["DescriptorUI"], []).append((row["PharmActionUI"], row["PharmActionName"]))
    source = tmp_path / "desc2024.xml.gz"
    source.write_bytes(gzip.compress(_descriptor_xml(records, actions)))
    settings = load_settings()
    target, count = install_mesh(settings, source)
    assert count == 1500
    installed = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert installed == [{**record, "terms": list(dict.fromkeys(record["terms"]))} for record in records]
    # The installed actions come from the XML, and are read in place of the shipped ones.
    assert pharm_actions_path(target) == target.with_name(PHARM_ACTIONS_NAME)
    with target.with_name(PHARM_ACTIONS_NAME).open(encoding="utf-8", newline="") as handle:
        written = [(row["DescriptorUI"], row["PharmActionUI"]) for row in csv.DictReader(handle, delimiter="\t")]
    assert written == [(record["ui"], ui) for record in records for ui, _ in actions.get(record["ui"], [])]
    assert len(written) > 100
    assert mesh_status(settings).source == "BIO_MCP_HOME"
    # Installing JSON lines afterwards drops the XML's actions: they were that year's.
    install_mesh(settings, MESH_DESCRIPTORS.path)
    assert pharm_actions_path(target) == MESH_PHARM_ACTIONS.path
    assert target.read_bytes() == mesh_file.read_bytes()


def test_install_refuses_broken_xml_and_keeps_the_old_copy(bio_home, mesh_file, tmp_path) -> None:
    settings = load_settings()
    install_mesh(settings, mesh_file)
    broken = tmp_path / "desc2025.xml"
    broken.write_bytes(XML_EXCERPT.read_bytes()[:3000])
    with pytest.raises(BioMcpError) as refused:
        install_mesh(settings, broken)
    assert refused.value.code is ErrorCode.VALIDATION
    with pytest.raises(BioMcpError) as too_few:
        install_mesh(settings, XML_EXCERPT)
    assert too_few.value.code is ErrorCode.VALIDATION and "fewer than" in str(too_few.value)
    assert installed_mesh_path(settings).read_bytes() == mesh_file.read_bytes()


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
