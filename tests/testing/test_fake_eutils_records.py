"""EFetch (XML and MEDLINE), ESummary and the record-editing API of the fake E-utilities."""

from __future__ import annotations

import io
import re
from datetime import date, datetime

import pytest
from Bio import Medline
from lxml import etree

pytestmark = pytest.mark.anyio


def canonical(element: etree._Element) -> bytes:
    return etree.tostring(element, method="c14n")


async def test_efetch_xml_serves_the_recorded_records_verbatim(eutils, recorded_pubmed, data_dir) -> None:
    wanted = ["22663011", "1234567", "20301382"]
    response = await eutils.get(
        "/efetch.fcgi", params={"db": "pubmed", "id": ",".join(wanted), "retmode": "xml"}
    )
    assert response.headers["content-type"].startswith("text/xml")
    head = (data_dir / "ncbi/metapub/pmid_xml/38170905.xml").read_bytes().split(b"<PubmedArticleSet>")[0]
    assert response.content.startswith(head)
    records = etree.fromstring(response.content)
    assert [record.findtext(".//PMID") for record in records] == wanted
    assert records[2].tag == "PubmedBookArticle"
    for record in records:
        assert canonical(record) == canonical(recorded_pubmed.elements[record.findtext(".//PMID")])


async def test_efetch_leaves_out_unknown_pmids_and_answers_none_with_the_recorded_empty_set(
    eutils, data_dir
) -> None:
    some = await eutils.get("/efetch.fcgi", params={"db": "pubmed", "id": "22663011,2,99999999"})
    assert [record.findtext(".//PMID") for record in etree.fromstring(some.content)] == ["22663011"]
    none = await eutils.get("/efetch.fcgi", params={"db": "pubmed", "id": "2,3"})
    assert none.content == (data_dir / "ncbi/metapub/pmid_xml/37909814.xml").read_bytes()
    nothing = await eutils.get("/efetch.fcgi", params={"db": "pubmed"})
    assert etree.fromstring(nothing.content).findtext("ERROR") == "Empty id list - nothing todo"


async def test_efetch_accepts_repeated_ids_in_a_post_body(eutils) -> None:
    response = await eutils.post(
        "/efetch.fcgi", data={"db": "pubmed", "id": ["22663011", "1234567"], "retmode": "xml"}
    )
    assert [record.findtext(".//PMID") for record in etree.fromstring(response.content)] == [
        "22663011",
        "1234567",
    ]


async def test_medline_text_has_the_recorded_layout(eutils, recorded_pubmed) -> None:
    response = await eutils.get(
        "/efetch.fcgi",
        params={"db": "pubmed", "id": "22663011,29768149,20301382", "rettype": "medline", "retmode": "text"},
    )
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    for line in text.splitlines():
        assert len(line) <= 80
        assert line == "" or re.match(r"^[A-Z]{2,4} {0,2}- \S|^ {6}\S", line), line
    records = list(Medline.parse(io.StringIO(text)))
    assert [record["PMID"] for record in records] == ["22663011", "29768149", "20301382"]
    melanoma = records[0]
    assert melanoma["TI"] == recorded_pubmed.texts("22663011", ".//ArticleTitle")[0]
    assert melanoma["AU"][:2] == ["Flaherty KT", "Robert C"]
    assert "Melanoma/*drug therapy/genetics/mortality" in melanoma["MH"]
    assert melanoma["SI"] == ["ClinicalTrials.gov/NCT01245062"]
    assert melanoma["EDAT"] == "2012/06/06 06:00"
    assert melanoma["DP"] == "2012 Jul 12"
    assert (
        melanoma["SO"]
        == "N Engl J Med. 2012 Jul 12;367(2):107-14. doi: 10.1056/NEJMoa1203421. Epub 2012 Jun 4."
    )
    assert melanoma["AB"].startswith("BACKGROUND: Activating mutations")
    for tag in (
        "OWN",
        "STAT",
        "DCOM",
        "LR",
        "IS",
        "VI",
        "IP",
        "PG",
        "LA",
        "PT",
        "DEP",
        "PL",
        "TA",
        "JT",
        "MHDA",
        "PHST",
        "AID",
        "PST",
    ):
        assert tag in melanoma, tag


async def test_esummary_v2_has_the_recorded_document_summary_shape(eutils, data_dir) -> None:
    response = await eutils.get(
        "/esummary.fcgi", params={"db": "pubmed", "id": "22663011,2", "version": "2.0"}
    )
    root = etree.fromstring(response.content)
    recorded = etree.parse(str(data_dir / "ncbi/klortho/esummary.pubmed.xml")).getroot()
    recorded_tags = [child.tag for child in recorded.find(".//DocumentSummary") if child.tag != "ViewCount"]
    summary, missing = root.iterfind(".//DocumentSummary")
    assert [child.tag for child in summary] == recorded_tags
    assert summary.get("uid") == "22663011"
    assert summary.findtext("Title") == "Improved survival with MEK inhibition in BRAF-mutated melanoma."
    assert summary.findtext("Source") == "N Engl J Med"
    assert summary.findtext("PubDate") == "2012 Jul 12" and summary.findtext("EPubDate") == "2012 Jun 4"
    assert [name.text for name in summary.iterfind("Authors/Author/Name")][:2] == ["Flaherty KT", "Robert C"]
    assert summary.findtext("LastAuthor") == "Schadendorf D"
    assert summary.findtext("FullJournalName") == "The New England journal of medicine"
    ids = {
        node.findtext("IdType"): node.findtext("Value") for node in summary.iterfind("ArticleIds/ArticleId")
    }
    assert ids["pubmed"] == "22663011" and ids["doi"] == "10.1056/NEJMoa1203421"
    assert summary.findtext("SortPubDate") == "2012/07/12 00:00"
    first_history = summary.find("History/PubMedPubDate")
    assert (first_history.findtext("PubStatus"), first_history.findtext("Date")) == (
        "entrez",
        "2012/06/06 06:00",
    )
    assert missing.get("uid") == "2" and missing.findtext("error") == "cannot get document summary"


async def test_esummary_json_and_version_one(eutils, data_dir) -> None:
    as_json = (
        await eutils.get(
            "/esummary.fcgi", params={"db": "pubmed", "id": "22663011", "version": "2.0", "retmode": "json"}
        )
    ).json()
    assert as_json["result"]["uids"] == ["22663011"]
    document = as_json["result"]["22663011"]
    assert (
        document["title"].startswith("Improved survival") and document["authors"][0]["name"] == "Flaherty KT"
    )
    assert {"idtype": "doi", "idtypen": 3, "value": "10.1056/NEJMoa1203421"} in document["articleids"]
    version_one = etree.fromstring(
        (await eutils.get("/esummary.fcgi", params={"db": "pubmed", "id": "22663011"})).content
    )
    recorded = etree.parse(str(data_dir / "ncbi/biopython/entrez_current/esummary1.xml")).getroot()
    names = [item.get("Name") for item in version_one.find("DocSum").iterfind("Item")]
    assert names == [item.get("Name") for item in recorded.find("DocSum").iterfind("Item")]
    no_ids = etree.fromstring((await eutils.get("/esummary.fcgi", params={"db": "pubmed"})).content)
    assert no_ids.findtext("ERROR") == "Neither query_key nor id specified"


async def test_revise_changes_title_and_date_revised_everywhere(eutils, fakes) -> None:
    fakes.eutils.revise("22663011", lr=date(2031, 3, 4))
    fetched = etree.fromstring(
        (await eutils.get("/efetch.fcgi", params={"db": "pubmed", "id": "22663011"})).content
    )
    assert fetched.findtext(".//ArticleTitle").endswith("[Revised 2031-03-04]")
    assert [fetched.findtext(f".//DateRevised/{part}") for part in ("Year", "Month", "Day")] == [
        "2031",
        "03",
        "04",
    ]
    medline = (
        await eutils.get(
            "/efetch.fcgi", params={"db": "pubmed", "id": "22663011", "rettype": "medline", "retmode": "text"}
        )
    ).text
    assert "LR  - 20310304" in medline
    fakes.eutils.revise("22663011", new_title="A new title.", lr=date(2031, 3, 5))
    assert (
        summary_title(
            await eutils.get("/esummary.fcgi", params={"db": "pubmed", "id": "22663011", "version": "2.0"})
        )
        == "A new title."
    )


def summary_title(response) -> str:
    return etree.fromstring(response.content).findtext(".//DocumentSummary/Title")


async def test_set_edat_rewrites_the_entrez_date_in_xml_medline_and_summary(eutils, fakes) -> None:
    fakes.eutils.set_edat("22663011", datetime(2030, 2, 3, 4, 5))
    fetched = etree.fromstring(
        (await eutils.get("/efetch.fcgi", params={"db": "pubmed", "id": "22663011"})).content
    )
    entrez = fetched.find(".//PubMedPubDate[@PubStatus='entrez']")
    assert [entrez.findtext(part) for part in ("Year", "Month", "Day", "Hour", "Minute")] == [
        "2030",
        "2",
        "3",
        "4",
        "5",
    ]
    medline = (
        await eutils.get(
            "/efetch.fcgi", params={"db": "pubmed", "id": "22663011", "rettype": "medline", "retmode": "text"}
        )
    ).text
    assert "EDAT- 2030/02/03 04:05" in medline


async def test_spread_edats_spaces_records_evenly_in_pmid_order(fakes) -> None:
    pmids = fakes.eutils.pmids[:10]
    assigned = fakes.eutils.spread_edats(datetime(2030, 1, 1), datetime(2030, 1, 11), pmids)
    assert list(assigned) == pmids
    assert [moment.day for moment in assigned.values()] == list(range(1, 11))
    assert all(fakes.eutils.record(pmid).entrez_date == assigned[pmid] for pmid in pmids)


async def test_replicated_records_are_real_records_under_new_pmids(eutils, fakes, recorded_pubmed) -> None:
    clones = fakes.eutils.replicate(3, 90_000_000)
    assert clones == ["90000000", "90000001", "90000002"]
    template_pmid = sorted(recorded_pubmed.elements, key=int)[1]
    fetched = etree.fromstring(
        (await eutils.get("/efetch.fcgi", params={"db": "pubmed", "id": "90000001"})).content
    )[0]
    assert fetched.findtext("MedlineCitation/PMID") == "90000001"
    assert fetched.findtext(".//ArticleTitle") == recorded_pubmed.elements[template_pmid].findtext(
        ".//ArticleTitle"
    )
    assert len(fakes.eutils) == len(recorded_pubmed.elements) + 3


async def test_add_record_holds_a_real_record_again(eutils, fakes, data_dir) -> None:
    fakes.eutils.remove("28731372")
    assert (
        etree.fromstring(
            (await eutils.get("/efetch.fcgi", params={"db": "pubmed", "id": "28731372"})).content
        ).find("*")
        is None
    )
    added = fakes.eutils.add_record((data_dir / "ncbi/metapub/data/pmid_28731372.xml").read_bytes())
    assert added == ["28731372"]
    response = await eutils.get("/esearch.fcgi", params={"db": "pubmed", "term": "28731372[pmid]"})
    assert etree.fromstring(response.content).findtext("IdList/Id") == "28731372"
