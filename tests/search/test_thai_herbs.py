"""The Thai herb names shipped with the package are the table examples/kg/ documents and imports."""

from __future__ import annotations

from pathlib import Path

from bio_mcp.search.thai_herbs import HERB_NAMES, known_herbs

REPO = Path(__file__).resolve().parents[2]


def test_the_shipped_herb_table_is_the_examples_table() -> None:
    assert HERB_NAMES.read_bytes() == (REPO / "examples" / "kg" / "thai_herb_names.tsv").read_bytes()
    assert len(known_herbs()) == 32
    assert known_herbs()["มะระขี้นก"] == ("Momordica charantia", "Bitter melon")
