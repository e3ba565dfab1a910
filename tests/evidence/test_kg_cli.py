"""`bio-mcp kg import` and `bio-mcp kg herbs` as real processes: the example tables load, a broken
file exits 1 naming each bad line, and the herb catalog joins Dr. Duke's taxa."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.evidence.herb_fixtures import EXAMPLES


def _run(home: Path, data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NCBI_", "MCP_", "BIO_MCP_"))}
    env.update({
        "BIO_MCP_CACHE_DIR": os.environ["BIO_MCP_CACHE_DIR"], "BIO_MCP_HOME": str(home), "COLUMNS": "200",
        "BIO_MCP_MESH_PATH": str(data_dir / "mesh" / "mesh_descriptors_2024.jsonl"),
        "BIO_MCP_DUKE_DIR": str(data_dir / "herbs" / "duke"),
        "BIO_MCP_DUKE_FARMACY_DIR": str(data_dir / "herbs" / "duke_farmacy"),
    })
    return subprocess.run([sys.executable, "-m", "bio_mcp.cli", *args], env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def test_kg_import_and_herbs_from_a_terminal(bio_home: Path, data_dir: Path, tmp_path: Path) -> None:
    done = _run(bio_home, data_dir, "kg", "import", str(EXAMPLES / "thai_herb_names.tsv"), str(EXAMPLES / "thai_formulations.tsv"))
    assert done.returncode == 0, done.stderr[-2000:]
    herbs, formulations = (json.loads(line) for line in done.stdout.splitlines())
    assert herbs["lines"] == {"herb": 32} and herbs["names_added"] == 96
    assert formulations["lines"] == {"formulation": 1} and formulations["edges_added"] == 2

    done = _run(bio_home, data_dir, "kg", "herbs")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["mesh_plants"] == 1222 and report["duke_taxa"] > 2000 and report["duke_on_imported"] > 0

    broken = tmp_path / "broken.tsv"
    broken.write_text("subject\trelation\tobject\tevidence\tsource\n"
                      "Allium sativum\tindication\tHypertension\tx\t\n"
                      "Allium sativum\tinteraction\tHypertension\tx\tpmid:1\n", encoding="utf-8")
    done = _run(bio_home, data_dir, "kg", "import", str(broken))
    assert done.returncode == 1 and done.stdout == ""
    assert f"{broken}:2: source is empty" in done.stderr.replace("\n", "")
    assert f"{broken}:3: object 'Hypertension'" in done.stderr.replace("\n", "")
    assert "Traceback" not in done.stderr


def test_kg_import_without_files_imports_the_shipped_thai_tables(bio_home: Path, data_dir: Path) -> None:
    # An install has no examples/ folder: the Thai tables ship in the package.
    done = _run(bio_home, data_dir, "kg", "import")
    assert done.returncode == 0, done.stderr[-2000:]
    herbs, formulations = (json.loads(line) for line in done.stdout.splitlines())
    assert herbs["lines"] == {"herb": 32} and herbs["names_added"] == 96
    assert formulations["lines"] == {"formulation": 1} and formulations["edges_added"] == 2


def test_kg_herbs_reads_the_duke_folder_it_is_given(bio_home: Path, data_dir: Path, tmp_path: Path) -> None:
    """`--duke DIR` wins over BIO_MCP_DUKE_DIR (set to the full data by _run): a folder holding Duke's
    first ten taxa gives ten; a folder without FNFTAX.csv is an error, not an empty catalog."""
    duke = tmp_path / "duke"
    duke.mkdir()
    taxa = (data_dir / "herbs" / "duke" / "FNFTAX.csv").read_text(encoding="latin-1").splitlines(keepends=True)
    (duke / "FNFTAX.csv").write_text("".join(taxa[:11]), encoding="latin-1")
    (duke / "COMMON_NAMES.csv").write_bytes((data_dir / "herbs" / "duke" / "COMMON_NAMES.csv").read_bytes())
    done = _run(bio_home, data_dir, "kg", "herbs", "--duke", str(duke))
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["duke_taxa"] == 10
    done = _run(bio_home, data_dir, "kg", "herbs", "--duke", str(duke), "--farmacy", str(tmp_path / "no-farmacy"))
    assert done.returncode == 2 and "no-farmacy has no duke_plant_constituents.csv" in done.stderr.replace("\n", "")
    done = _run(bio_home, data_dir, "kg", "herbs", "--duke", str(tmp_path))
    assert done.returncode == 2 and "has no FNFTAX.csv" in done.stderr and "Traceback" not in done.stderr
