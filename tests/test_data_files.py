"""One resolver for data files: an explicit setting first, else the copy shipped in the package
(bio_mcp/vocabularies), read compressed; nothing is looked up beside the checkout."""

from __future__ import annotations

import lzma
from pathlib import Path

import pytest

from bio_mcp.config import load_settings
from bio_mcp.data_files import (
    BC5CDR_PRIORS,
    DO_XREFS,
    DUKE,
    DUKE_FARMACY,
    THAI_FORMULATIONS,
    THAI_HERB_NAMES,
    VOCABULARIES,
    data_folder,
    member,
    open_text,
)
from bio_mcp.graph.herb_catalog import duke_activities, duke_dir_of, read_duke_taxa
from bio_mcp.graph.icd10 import do_xrefs_path_of, read_do_xrefs
from bio_mcp.graph.linking import training_path_of
from bio_mcp.vocabularies.build import build_vocabularies


def test_shipped_tables_are_found_and_read_as_the_shared_ones(bio_home, data_dir: Path) -> None:
    settings = load_settings()
    shared = data_dir / "herbs" / "duke"
    assert duke_dir_of(settings) == DUKE.path and member(DUKE.path, "FNFTAX.csv").suffix == ".xz"
    assert read_duke_taxa(DUKE.path) == read_duke_taxa(shared)
    activities = duke_activities(DUKE.path)
    assert activities == duke_activities(shared) and len(activities) > 1000
    farmacy = data_folder(None, DUKE_FARMACY, "duke_plant_constituents.csv")
    with open_text(member(farmacy, "duke_plant_constituents.csv")) as handle:
        assert handle.read() == (data_dir / "herbs" / "duke_farmacy" / "duke_plant_constituents.csv").read_text()
    assert THAI_HERB_NAMES.path.read_bytes() == (data_dir / "herbs" / "thai_herb_names.tsv").read_bytes()
    assert THAI_FORMULATIONS.path.read_bytes() == (data_dir / "herbs" / "thai_formulations.tsv").read_bytes()


def test_the_shipped_disease_ontology_rows_give_every_code_the_full_file_does(bio_home, data_dir: Path) -> None:
    assert do_xrefs_path_of(load_settings()) == DO_XREFS.path
    shipped, full = read_do_xrefs(DO_XREFS.path), read_do_xrefs(data_dir / "ontology" / "do_xrefs.tsv")
    assert {ui: sorted(rows) for ui, rows in shipped._by_mesh.items()} == {
        ui: sorted(rows) for ui, rows in full._by_mesh.items()} and len(shipped) > 1500
    assert shipped.codes("mesh:D006973", "Hypertension")[0].code == "I10"
    # Cut to the rows read: under a tenth of the file.
    assert len(lzma.decompress(DO_XREFS.path.read_bytes())) < (data_dir / "ontology" / "do_xrefs.tsv").stat().st_size / 10


def test_an_explicit_setting_wins_and_one_naming_nothing_is_not_replaced(bio_home, data_dir: Path, tmp_path) -> None:
    shared = data_dir / "herbs" / "duke"
    assert duke_dir_of(load_settings(BIO_MCP_DUKE_DIR=str(shared))) == shared
    assert duke_dir_of(load_settings(BIO_MCP_DUKE_DIR=str(tmp_path))) is None
    xrefs = data_dir / "ontology" / "do_xrefs.tsv"
    assert do_xrefs_path_of(load_settings(BIO_MCP_DO_XREFS_PATH=str(xrefs))) == xrefs
    assert do_xrefs_path_of(load_settings(BIO_MCP_DO_XREFS_PATH=str(tmp_path / "none.tsv"))) is None
    training = data_dir / "bench" / "bc5cdr" / "CDR_TrainingSet.PubTator.txt"
    assert training_path_of(load_settings(BIO_MCP_LINKER_TRAINING=str(training))) == training
    assert training_path_of(load_settings()) == BC5CDR_PRIORS.path


@pytest.mark.package
def test_the_builder_reproduces_the_shipped_files(data_dir: Path, tmp_path) -> None:
    built = build_vocabularies(data_dir, tmp_path)
    assert {item.relative for item in built} == {
        str(path.relative_to(VOCABULARIES)) for path in VOCABULARIES.rglob("*")
        if path.is_file() and path.parent != VOCABULARIES and path.name != "LICENSE_upstream.txt"
    }
    for item in built:
        assert (tmp_path / item.relative).read_bytes() == (VOCABULARIES / item.relative).read_bytes(), item.relative
    assert sum(item.shipped_bytes for item in built) < 4_000_000
