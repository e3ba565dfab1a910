"""ESpell bodies: the real recorded one (biopython's espell.xml) and the fake's, through the one parser."""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.errors import BioMcpError
from bio_mcp.sources.ncbi.parsers.espell import parse_espell
from bio_mcp.testing.eutils_responses import espell_xml


def test_recorded_espell_gives_its_correction(data_dir: Path) -> None:
    result = parse_espell((data_dir / "ncbi/biopython/entrez_current/espell.xml").read_bytes())
    assert result.query == "biopythooon" and result.suggestion == "biopython"
    assert result.replaced == ("biopython",)


def test_no_correction_means_no_suggestion() -> None:
    assert parse_espell(espell_xml("asthma", [("asthma", False)])).suggestion is None


def test_an_error_body_raises() -> None:
    body = b'<?xml version="1.0"?><eSpellResult><ERROR>Invalid db name</ERROR></eSpellResult>'
    with pytest.raises(BioMcpError):
        parse_espell(body)
