"""ESearch and ESummary on real responses, in XML and in JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bio_mcp.sources.ncbi.models import ArticleId, SearchResult, SummaryAuthor, Translation, TranslationTerm
from bio_mcp.sources.ncbi.parsers import parse_einfo, parse_esearch, parse_esummary

NCBI = Path("ncbi")


def _body(data_dir: Path, path: str) -> bytes:
    return (data_dir / NCBI / path).read_bytes()


def test_esearch_with_history_keys_and_translation_stack(data_dir: Path) -> None:
    result = parse_esearch(_body(data_dir, "biocommons_eutils/extracted_bodies/test_esearch_0.xml"))
    assert result == SearchResult(
        count=5,
        retmax=5,
        retstart=0,
        ids=["1054894", "336867", "336322", "168056", "18145"],
        web_env="MCID_66198254cf40a865a76b5e71",
        query_key="1",
        translation_stack=[
            TranslationTerm(term="OCRL[All Fields]", field="All Fields", count=5, explode=False),
            "GROUP",
        ],
        query_translation="OCRL[All Fields]",
    )


def test_esearch_translation_stack_in_postfix_order(data_dir: Path) -> None:
    result = parse_esearch(_body(data_dir, "biopython/entrez_current/esearch5.xml"))
    assert (result.count, result.retmax, result.retstart) == (5, 5, 0)
    assert result.ids == ["6540636", "5830998", "4460425", "4466840", "3443459"]
    assert result.translation_set == [
        Translation(
            **{
                "from": "stem cells",
                "to": '"stem cells"[MeSH Terms] OR ("stem"[All Fields] AND "cells"[All Fields]) OR "stem cells"[All Fields]',
            }
        )
    ]
    assert result.translation_stack == [
        TranslationTerm(term='"stem cells"[MeSH Terms]', field="MeSH Terms", count=109831, explode=True),
        TranslationTerm(term='"stem"[All Fields]', field="All Fields", count=1528859, explode=False),
        TranslationTerm(term='"cells"[All Fields]', field="All Fields", count=5033502, explode=False),
        "AND",
        "GROUP",
        "OR",
        TranslationTerm(term='"stem cells"[All Fields]', field="All Fields", count=715386, explode=False),
        "OR",
        "GROUP",
        TranslationTerm(term="hasabstract[All Fields]", field="All Fields", count=83, explode=False),
        "AND",
    ]
    assert result.query_translation == (
        '("stem cells"[MeSH Terms] OR ("stem"[All Fields] AND "cells"[All Fields]) OR "stem cells"[All Fields]) '
        "AND hasabstract[All Fields]"
    )
    assert result.warnings == []
    assert result.model_dump(by_alias=True)["translationSet"] == [
        {"from": "stem cells", "to": result.translation_set[0].to}
    ]


def test_esearch_count_only(data_dir: Path) -> None:
    result = parse_esearch(
        _body(data_dir, "hawc/extracted_bodies/apps.lit.test_imports.TestPubmed.test_search__0.xml")
    )
    assert result == SearchResult(count=259)


def test_esearch_json_with_warnings(data_dir: Path) -> None:
    body = _body(data_dir, "biomcp/esearch_json_and_429/esearch_count40362_retmax100.json")
    result = parse_esearch(body)
    raw = json.loads(body)["esearchresult"]
    assert (result.count, result.retmax, result.retstart) == (40362, 100, 0)
    assert result.ids == raw["idlist"] and len(result.ids) == 100
    assert result.ids[:2] == ["42555032", "42553597"]
    assert result.translation_set == [
        Translation(
            **{"from": "APC", "to": '"Ann Pancreat Cancer"[Journal:__jid101724278] OR "apc"[All Fields]'}
        )
    ]
    assert (
        result.query_translation
        == '("ann pancreat cancer"[Journal] OR "apc"[All Fields]) NOT "retracted publication"[Publication Type]'
    )
    assert [(w.kind, w.text) for w in result.warnings] == [("PhraseNotFound", "p.E1317Q")]


@pytest.mark.parametrize(
    ("name", "parse"),
    [
        ("esearch.pubmed", parse_esearch),
        ("esearch.error", parse_esearch),
        ("esummary.pubmed", parse_esummary),
        ("esummary.pmc", parse_esummary),
        ("esummary.pmcerror", parse_esummary),
        ("esummary.books", parse_esummary),
        ("esummary.mesh", parse_esummary),
        ("einfo.pubmed", parse_einfo),
        ("einfo", parse_einfo),
    ],
)
def test_xml_and_json_forms_of_one_answer_agree(data_dir: Path, name: str, parse) -> None:
    from_xml = parse(_body(data_dir, f"klortho/{name}.xml"))
    assert from_xml == parse(_body(data_dir, f"klortho/{name}.json"))
    assert from_xml


def test_esummary_v2_pubmed(data_dir: Path) -> None:
    first, second = parse_esummary(_body(data_dir, "klortho/esummary.pubmed.xml"))
    assert first.uid == "5683731"
    assert first.title == "An assistive device for smoking."
    assert first.authors == [
        SummaryAuthor(name="Goldberg MJ", auth_type="Author", cluster_id="2484865"),
        SummaryAuthor(name="Davis LJ", auth_type="Author", cluster_id="1638084"),
    ]
    assert first.authors_text == "Goldberg MJ, Davis LJ"
    assert (first.last_author, first.sort_first_author) == ("Davis LJ", "Goldberg MJ")
    assert (first.source, first.full_journal_name) == ("Paraplegia", "Paraplegia")
    assert (first.pub_date, first.pub_date_iso, first.epub_date, first.epub_date_iso) == (
        "1968 Aug",
        "1968-08",
        None,
        None,
    )
    assert first.sort_pub_date == "1968-08-01"
    assert (first.volume, first.issue, first.pages) == ("6", "2", "103-5")
    assert (first.issn, first.essn, first.nlm_unique_id) == ("0031-1758", None, "2985038R")
    assert (first.languages, first.pub_types) == (["eng"], ["Journal Article"])
    assert (first.record_status, first.pub_status, first.doc_type) == (
        "PubMed - indexed for MEDLINE",
        "4",
        "citation",
    )
    assert first.article_ids == [
        ArticleId(id_type="pubmed", value="5683731"),
        ArticleId(id_type="doi", value="10.1038/sc.1968.18"),
        ArticleId(id_type="eid", value="5683731"),
        ArticleId(id_type="rid", value="5683731"),
    ]
    assert (first.doi, first.pmcid) == ("10.1038/sc.1968.18", None)
    assert first.history == {"pubmed": "1968-08-01", "medline": "1968-08-01", "entrez": "1968-08-01"}
    assert (first.attributes, first.has_abstract, first.pmc_ref_count, first.error) == ([], False, 0, None)

    assert second.uid == "22144687"
    assert second.authors_text == "Benson DA, Karsch-Mizrachi I, Clark K, Lipman DJ, Ostell J, Sayers EW"
    assert (second.pub_date_iso, second.epub_date, second.epub_date_iso) == (
        "2012-01",
        "2011 Dec 5",
        "2011-12-05",
    )
    # <IdType>pmc</IdType> holds "PMC3245039"; <IdType>pmcid</IdType> holds "pmc-id: PMC3245039;".
    assert (second.doi, second.pmcid) == ("10.1093/nar/gkr1202", "PMC3245039")
    assert second.history == {
        "aheadofprint": "2011-12-05",
        "entrez": "2011-12-07",
        "pubmed": "2011-12-07",
        "medline": "2012-07-06",
    }
    assert (second.attributes, second.has_abstract, second.pmc_ref_count) == (["Has Abstract"], True, 10)


def test_esummary_v1_docsum(data_dir: Path) -> None:
    first, second = parse_esummary(_body(data_dir, "biopython/entrez_current/esummary1.xml"))
    assert first.uid == "11850928"
    assert first.title == "Zirconium granuloma following treatment of rhus dermatitis."
    assert first.authors_text == "LoPresti PJ, Hambrick GW Jr"
    assert (first.pub_date, first.pub_date_iso, first.source, first.full_journal_name) == (
        "1965 Aug",
        "1965-08",
        "Arch Dermatol",
        "Archives of dermatology",
    )
    assert (first.languages, first.pub_types, first.pub_status) == (
        ["English"],
        ["Journal Article"],
        "ppublish",
    )
    assert first.history == {"pubmed": "1965-08-01", "medline": "2002-03-09", "entrez": "1965-08-01"}
    assert (first.has_abstract, first.pmc_ref_count) == (True, 0)
    assert second.pub_types == ["Journal Article", "Review"]


def test_esummary_of_other_databases_keeps_the_uid_and_title(data_dir: Path) -> None:
    [book] = parse_esummary(_body(data_dir, "klortho/esummary.books.xml"))
    assert (book.uid, book.title, book.pub_date, book.pub_date_iso) == (
        "2825746",
        "Dictionary of Cancer Terms",
        "2002/01/01 00:00",
        "2002-01-01",
    )
    [medgen] = parse_esummary(_body(data_dir, "biocommons_eutils/extracted_bodies/test_esummary_0.xml"))
    assert (medgen.uid, medgen.title) == ("336867", "Dent disease type 2")
    pmc = parse_esummary(_body(data_dir, "klortho/esummary.pmc.xml"))
    assert [(s.uid, s.pmcid, s.sort_pub_date) for s in pmc] == [
        ("254085", "PMC254085", "1987-04-01"),
        ("14900", "PMC14900", "2000-06-01"),
    ]
