"""Every recorded PubTator3 body parses: each BioC export into its annotations (every mention of the
six entity types with its offsets), the empty search body and error bodies into UPSTREAM errors."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.pubtator3.parse import ENTITY_TYPES, parse_biocjson, unparsable_json


def _exports(data_dir: Path) -> list[Path]:
    return sorted((data_dir / "pubtator3").glob("export_biocjson_*.json"))


def test_every_recorded_export_parses_with_every_mention(data_dir: Path) -> None:
    files = _exports(data_dir)
    assert len(files) == 6
    for path in files:
        raw = json.loads(path.read_bytes())["PubTator3"]
        [publication] = parse_biocjson(path.read_bytes())
        assert publication.pmid == raw[0]["_id"].split("|")[0]
        expected = Counter(
            (a["infons"]["type"], a["text"], loc["offset"], loc["length"])
            for passage in raw[0]["passages"]
            for a in passage["annotations"]
            for loc in a["locations"]
            if a["infons"]["type"] in ENTITY_TYPES
        )
        assert Counter((a.type, a.text, a.offset, a.length) for a in publication.annotations) == expected, (
            path.name
        )
        passages = raw[0]["passages"]
        for a in publication.annotations[:20]:  # offsets point at the text itself
            passage = next(p for p in passages if p["offset"] <= a.offset < p["offset"] + len(p["text"]) + 1)
            assert passage["text"][a.offset - passage["offset"] :][: a.length] == a.text


def test_genes_carry_ncbi_gene_ids_and_variants_rs_ids(data_dir: Path) -> None:
    [brca] = parse_biocjson((data_dir / "pubtator3" / "export_biocjson_pmid20516115.json").read_bytes())
    assert ("BRCA1", "672") in {(a.name, a.identifier) for a in brca.annotations if a.type == "Gene"}
    [braf] = parse_biocjson((data_dir / "pubtator3" / "export_biocjson_pmid22663011.json").read_bytes())
    v600e = [a for a in braf.annotations if a.type == "Variant" and a.text == "V600E"]
    assert v600e and v600e[0].identifier == "rs113488022" and v600e[0].name == "p.V600E"
    [full] = parse_biocjson(
        (data_dir / "pubtator3" / "export_biocjson_pmid22429397_full_true.json").read_bytes()
    )
    assert full.pmcid == "PMC3446384" and {a.type for a in full.annotations} >= {
        "CellLine",
        "Gene",
        "Chemical",
    }
    [herbal] = parse_biocjson((data_dir / "pubtator3" / "export_biocjson_pmid37026113.json").read_bytes())
    assert any(a.identifier is None for a in herbal.annotations)  # '-' : found but not normalised


def test_an_export_of_unknown_pmids_is_empty() -> None:
    assert parse_biocjson(b'{"PubTator3": []}') == []


@pytest.mark.parametrize("name", ["search_empty_no_results.json", "search_text_BRCA1_page1.json"])
def test_bodies_of_other_endpoints_are_not_exports(data_dir: Path, name: str) -> None:
    with pytest.raises(BioMcpError) as caught:
        parse_biocjson((data_dir / "pubtator3" / name).read_bytes())
    assert caught.value.code is ErrorCode.UPSTREAM


@pytest.mark.parametrize(
    "body", [b"", b"<html>Service Unavailable</html>", b'{"PubTator3": [{"passages": []']
)
def test_empty_error_and_cut_bodies_are_upstream_errors(body: bytes) -> None:
    with pytest.raises(BioMcpError) as caught:
        parse_biocjson(body)
    assert caught.value.code is ErrorCode.UPSTREAM
    assert unparsable_json(body, "application/json") is not None
