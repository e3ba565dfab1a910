"""kg_names: imported names of entities per language, idempotent writes, exact lookups."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from bio_mcp.graph.names import EntityName, all_names, entities_named, names_of, write_names
from bio_mcp.store.metadata_store import MetadataStore


def _thai_names(data_dir: Path) -> list[EntityName]:
    with (data_dir / "herbs" / "thai_herb_names.tsv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [
        EntityName(f"mesh:{row['mesh_ui']}", "th", row["thai_name"], "common", "thai_herb_names.tsv")
        for row in rows
        if row["mesh_ui"]
    ]


@pytest.fixture
def store(tmp_path: Path) -> MetadataStore:
    store = MetadataStore(f"sqlite:///{tmp_path / 'names.db'}")
    store.create_schema()
    return store


def test_thai_names_are_written_once_and_found_again(store: MetadataStore, data_dir: Path) -> None:
    names = _thai_names(data_dir)
    with store.transaction() as tx:
        first = write_names(tx.connection, names)
    with store.transaction() as tx:
        again = write_names(tx.connection, names)
    assert first == len({(n.entity_id, n.name) for n in names}) and again == 0
    with store.read() as tx:
        connection = tx.connection
        assert entities_named(connection, "ฟ้าทะลายโจร", "th") == ["mesh:D035685"]
        turmeric = names_of(connection, ["mesh:D030024"])["mesh:D030024"]
        assert {n.name for n in turmeric} >= {"ขมิ้นชัน", "ขมิ้นอ้อย"}
        assert [n.name for n in all_names(connection, "th")] == sorted(n.name for n in all_names(connection, "th"))
