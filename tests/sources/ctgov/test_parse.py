"""Every real v2 study record in the shared data parses into a `Study` with the fields it carries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ctgov.parse import parse_study, parse_study_body, parse_study_page


def _study_files(data_dir: Path) -> list[Path]:
    root = data_dir / "ctgov"
    return sorted([*root.glob("aact/NCT*.json"), *root.glob("biomcp/get_*.json"), root / "mcode" / "NCT02513394.json"])


def test_every_real_single_study_parses(data_dir: Path) -> None:
    files = _study_files(data_dir)
    assert len(files) == 16
    for path in files:
        raw = json.loads(path.read_bytes())
        study = parse_study_body(path.read_bytes())
        protocol = raw["protocolSection"]
        assert study.nct_id == protocol["identificationModule"]["nctId"]
        assert study.brief_title == protocol["identificationModule"].get("briefTitle")
        assert study.overall_status == protocol.get("statusModule", {}).get("overallStatus")
        assert study.phases == protocol.get("designModule", {}).get("phases", [])
        assert study.conditions == protocol.get("conditionsModule", {}).get("conditions", [])
        assert study.has_results == raw.get("hasResults", False)
        expected_pmids = [r["pmid"] for r in protocol.get("referencesModule", {}).get("references", []) if r.get("pmid")]
        assert study.reference_pmids == expected_pmids


def test_every_real_search_page_parses(data_dir: Path) -> None:
    pages = sorted((data_dir / "ctgov" / "biomcp").glob("search_*.json"))
    assert len(pages) == 7
    for path in pages:
        raw = json.loads(path.read_bytes())
        page = parse_study_page(path.read_bytes())
        assert [s.nct_id for s in page.studies] == [s["protocolSection"]["identificationModule"]["nctId"] for s in raw["studies"]]
        assert page.total_count == raw.get("totalCount")
        assert page.next_page_token == raw.get("nextPageToken")


def test_full_record_fields(data_dir: Path) -> None:
    study = parse_study_body((data_dir / "ctgov" / "aact" / "NCT02552212.json").read_bytes())
    assert study.phases == ["PHASE3"]
    assert study.overall_status == "COMPLETED"
    assert study.sponsor == "UCB BIOSCIENCES GmbH"
    assert study.start_date == "2015-09"
    assert study.completion_date == "2020-05"
    assert study.enrollment == 317
    assert study.has_results is True
    assert study.last_update is not None and study.last_update[:4].isdigit()
    assert study.reference_pmids[:2] == ["35296532", "35733363"]
    assert any(i.name == "Certolizumab Pegol" and i.type == "BIOLOGICAL" for i in study.interventions)


def test_large_record_with_results(data_dir: Path) -> None:
    study = parse_study_body((data_dir / "ctgov" / "mcode" / "NCT02513394.json").read_bytes())
    assert study.nct_id == "NCT02513394"
    assert study.overall_status == "ACTIVE_NOT_RECRUITING"
    assert study.phases == ["PHASE3"]
    assert study.has_results is True
    assert study.reference_pmids == ["34995105", "34874182", "33460574", "30032196"]


def test_trimmed_fragment_leaves_missing_fields_empty(data_dir: Path) -> None:
    study = parse_study_body((data_dir / "ctgov" / "aact" / "NCT03453554_trimmed_fragment.json").read_bytes())
    assert study.nct_id == "NCT03453554"
    assert study.overall_status is None and study.phases == [] and study.sponsor is None


@pytest.mark.parametrize(
    "body", [b"not json", b"[]", b'{"protocolSection": {}}', b'{"hasResults": true}'],
)
def test_malformed_bodies_are_upstream_errors(body: bytes) -> None:
    with pytest.raises(BioMcpError) as info:
        parse_study_body(body)
    assert info.value.code == ErrorCode.UPSTREAM


def test_page_without_studies_list_is_an_upstream_error() -> None:
    with pytest.raises(BioMcpError):
        parse_study_page(b'{"studies": 3}')
    assert parse_study_page(b'{"studies": []}').studies == []


def test_parse_study_requires_protocol_section() -> None:
    with pytest.raises(BioMcpError):
        parse_study({"derivedSection": {}})
