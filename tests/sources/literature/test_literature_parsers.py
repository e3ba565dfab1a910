"""The Europe PMC, PMC ID Converter and Unpaywall parsers on every recorded body in ../shared/data,
including the empty, not-found and error bodies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.europepmc.parse import error_message, incomplete_body, parse_links, parse_search
from bio_mcp.sources.ncbi.idconv import parse_idconv
from bio_mcp.sources.ncbi.parsers.jats import parse_pmc_articles
from bio_mcp.sources.unpaywall.client import parse_unpaywall

SEARCH_FILES = [
    "search_core_cancer_page1.json", "search_empty_no_results.json", "search_idlist_cancer_page1.json",
    "search_lite_APC_c6965AG.json", "search_lite_ATM_c7390TC.json", "search_lite_BRCA1_M1783I.json",
    "search_lite_MLH1_pGly67Glu.json", "search_lite_MSH2_L341P.json", "search_lite_MSH2_c1022TC.json",
    "search_lite_TITLE_CRISPR_pubyear_openaccess_pagesize5.json", "search_lite_cancer_page1.json",
    "search_lite_cancer_pagesize5.json", "search_lite_cancer_sort_cited_asc.json",
    "search_lite_extid_pmid20516115_pagesize1.json", "search_lite_machine_learning_pagesize5_with_PPR.json",
    "searchPOST_cancer_synonym_true.json",
    *[f"cursor_chain_cancer/page{n:02d}.json" for n in range(1, 11)],
]


@pytest.fixture(scope="module")
def epmc(data_dir: Path) -> Path:
    return data_dir / "europepmc"


def test_every_recorded_file_is_covered(epmc: Path) -> None:
    recorded = {p.relative_to(epmc).as_posix() for p in epmc.rglob("*") if p.is_file() and not p.name.startswith("_")}
    covered = set(SEARCH_FILES) | {
        "article_MED_00000000_not_found.json", "citations_MED_34308300_page1.json",
        "references_MED_34308300_page1.json", "databaseLinks_MED_3164476_empty.json",
        "error_supplementaryFiles_PMC3040717_not_open_access.xml", "fullTextXML_PMC8118396.xml",
        "fullTextXML_PMC8164761.xml", "search_dc_cancer_page1.xml", "search_lite_cancer_page1.xml", "SOURCES.md",
    }
    assert recorded == covered


@pytest.mark.parametrize("name", SEARCH_FILES)
def test_every_recorded_search_page_parses(epmc: Path, name: str) -> None:
    document = json.loads((epmc / name).read_bytes())
    page = parse_search((epmc / name).read_bytes())
    assert page.hit_count == document["hitCount"]
    assert len(page.records) == len(document["resultList"]["result"])
    assert page.next_cursor == document.get("nextCursorMark")
    assert all(record.id and record.source for record in page.records)


def test_lite_records_carry_ids_titles_and_preprint_flags(epmc: Path) -> None:
    page = parse_search((epmc / "search_lite_machine_learning_pagesize5_with_PPR.json").read_bytes())
    assert page.hit_count == 476039 and page.next_cursor == "AoIIQZT7ACg1MzMyODc5MA=="
    preprints = [r for r in page.records if r.is_preprint]
    assert [r.id for r in preprints] == ["PPR1048238", "PPR1029580"]
    assert preprints[0].journal == "Preprints.org" and preprints[0].pmid is None
    med = page.records[1]
    assert (med.pmid, med.doi, med.journal, med.pub_date) == (
        "40412155", "10.1016/j.cis.2025.103546", "Adv Colloid Interface Sci", "2025-05-13")
    assert med.is_open_access is False and "review" in med.pub_types and not med.is_preprint


def test_core_records_carry_abstracts_and_full_text_links(epmc: Path) -> None:
    page = parse_search((epmc / "search_core_cancer_page1.json").read_bytes())
    assert sum(1 for r in page.records if r.abstract) >= 20
    first = page.records[0]
    assert first.full_text_links[0].url == "https://doi.org/10.1016/S0140-6736(24)02600-X"
    assert first.journal and "<" not in (first.abstract or "")


def test_exact_id_lookup_gives_pmcid_and_doi(epmc: Path) -> None:
    [record] = parse_search((epmc / "search_lite_extid_pmid20516115_pagesize1.json").read_bytes()).records
    assert (record.pmid, record.pmcid, record.doi) == ("20516115", "PMC3040717", "10.1158/0008-5472.can-09-4563")
    assert record.in_pmc is True and record.cited_by_count == 133


def test_empty_and_not_found_bodies_are_empty_pages(epmc: Path) -> None:
    empty = parse_search((epmc / "search_empty_no_results.json").read_bytes())
    assert (empty.hit_count, empty.records, empty.next_cursor) == (0, [], None)
    missing = parse_search((epmc / "article_MED_00000000_not_found.json").read_bytes())
    assert (missing.hit_count, missing.records) == (0, [])
    links = parse_links((epmc / "databaseLinks_MED_3164476_empty.json").read_bytes(), "citations")
    assert (links.hit_count, links.records) == (None, [])


def test_citations_and_references_pages(epmc: Path) -> None:
    citations = parse_links((epmc / "citations_MED_34308300_page1.json").read_bytes(), "citations")
    assert citations.hit_count == 1741 and len(citations.records) == 25
    assert citations.records[0].is_preprint and citations.records[0].pub_year == "2025"
    references = parse_links((epmc / "references_MED_34308300_page1.json").read_bytes(), "references")
    assert references.hit_count == 30 and len(references.records) == 25
    first = references.records[0]
    assert (first.pmid, first.journal, first.title) == ("32150622", "JAMA", "Diagnostic Testing for the Novel Coronavirus.")


@pytest.mark.parametrize("name", ["search_dc_cancer_page1.xml", "search_lite_cancer_page1.xml"])
def test_xml_search_answers_are_refused_typed(epmc: Path, name: str) -> None:
    # The client always asks for JSON: an XML answer is the service misbehaving, reported as UPSTREAM.
    with pytest.raises(BioMcpError) as caught:
        parse_search((epmc / name).read_bytes())
    assert caught.value.code is ErrorCode.UPSTREAM


def test_error_bean_message(epmc: Path) -> None:
    body = (epmc / "error_supplementaryFiles_PMC3040717_not_open_access.xml").read_bytes()
    assert error_message(body) == "Article with id PMC3040717 is not open access one"
    assert error_message(b'{"hitCount": 0}') is None


@pytest.mark.parametrize(("name", "pmcid", "sections"), [
    ("fullTextXML_PMC8118396.xml", "PMC8118396", 3), ("fullTextXML_PMC8164761.xml", "PMC8164761", 12),
])
def test_full_text_xml_reads_as_jats(epmc: Path, name: str, pmcid: str, sections: int) -> None:
    [article] = parse_pmc_articles((epmc / name).read_bytes())
    assert article.pmcid == pmcid and len(article.sections) == sections and article.abstract
    assert article.license and "creativecommons.org/licenses/by/4.0" in article.license


def test_cut_bodies_are_found_incomplete(epmc: Path) -> None:
    whole = (epmc / "search_lite_cancer_pagesize5.json").read_bytes()
    assert incomplete_body(whole, "application/json") is None
    assert incomplete_body(whole[: len(whole) // 2], "application/json;charset=UTF-8").code is ErrorCode.UPSTREAM
    xml = (epmc / "fullTextXML_PMC8118396.xml").read_bytes()
    assert incomplete_body(xml, "application/xml") is None
    assert incomplete_body(xml[:5000], "application/xml").code is ErrorCode.UPSTREAM


def test_idconv_success_and_error(data_dir: Path) -> None:
    [record] = parse_idconv((data_dir / "ncbi/idconv/idconv_doi_10.1038_ng.590.json").read_bytes())
    assert (record.pmid, record.pmcid, record.doi, record.error) == ("20495566", "PMC2883744", "10.1038/ng.590", None)
    with pytest.raises(BioMcpError) as caught:
        parse_idconv((data_dir / "ncbi/idconv/idconv_error_404_idtype_mismatch.json").read_bytes())
    assert caught.value.code is ErrorCode.UPSTREAM and "ID type 'doi' mismatch for '28371833'" in caught.value.message


def test_unpaywall_records(data_dir: Path) -> None:
    folder = data_dir / "unpaywall"
    closed = parse_unpaywall((folder / "unpaywall_v2_doi_10.1007_s40278-023-41815-2.json").read_bytes())
    assert (closed.is_oa, closed.oa_status, closed.best_location) == (False, "closed", None)
    gold = parse_unpaywall((folder / "unpaywall_v2_doi_10.1016_j.xgen.2025.100814.json").read_bytes())
    assert gold.is_oa and gold.best_location is not None
    assert (gold.best_location.url, gold.best_location.license) == ("https://doi.org/10.1016/j.xgen.2025.100814", "cc-by")
    for name in ("unpaywall_v2_doi_10.1023_a_1007154515475.json", "unpaywall_v2_doi_10.1073_pnas.1414271111.json"):
        record = parse_unpaywall((folder / name).read_bytes())
        assert record.doi and (record.best_location is not None) == record.is_oa
    for name in ("unpaywall_v2_search_empty.json", "unpaywall_v2_search_title_native_oxide.json"):
        with pytest.raises(BioMcpError):  # a search answer is not a DOI record
            parse_unpaywall((folder / name).read_bytes())
