"""EFetch features one record at a time: MathML, ORCID, subsets, languages, and the shapes the data lacks.

The recorded data has no MedlineDate, no retraction and no author marked ValidYN="N"; those tests take a
real record and change only the element under test, so the rest of the record stays real.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.sources.ncbi.models import Article, PublicationDate
from bio_mcp.sources.ncbi.parsers import parse_efetch, split_articles

HAWC_SEARCH = "ncbi/hawc/extracted_bodies/apps.lit.test_imports.TestPubmed.test_search__2.xml"


def _article(data_dir: Path, path: str, pmid: str) -> Article:
    [found] = [a for a in parse_efetch((data_dir / path).read_bytes()) if a.pmid == pmid]
    return found


def _record_xml(data_dir: Path, path: str, pmid: str) -> bytes:
    [found] = [
        xml for found_pmid, xml in split_articles((data_dir / path).read_bytes()) if found_pmid == pmid
    ]
    return found


def _parse_edited(record: bytes, old: bytes, new: bytes) -> Article:
    assert record.count(old) == 1
    [edited] = parse_efetch(b"<PubmedArticleSet>" + record.replace(old, new) + b"</PubmedArticleSet>")
    return edited


def test_mathml_in_abstracts_becomes_its_text(data_dir: Path) -> None:
    article = _article(data_dir, HAWC_SEARCH, "38833407")
    methods = next(s for s in article.abstract_sections if s.label == "METHODS")
    assert methods.nlm_category == "UNASSIGNED"
    assert methods.text.startswith(
        "Female mice were exposed to human relevant doses of either Pb (32 ppm) via drinking water or DEHP "
        "(5mg/kg-day) via chow for 2 weeks prior to mating through offspring weaning."
    )
    assert (
        "sexes (n=13 and 8 DMRs with Pb and DEHP exposure, respectively) and exposure types (n=55 and 39 DMRs"
        in (article.abstract_text)
    )


def test_orcid_urls_are_reduced_to_the_bare_id_and_every_affiliation_is_kept(data_dir: Path) -> None:
    article = _article(data_dir, "ncbi/biopython/entrez_current/pubmed7.xml", "29963580")
    guo, capaldi = article.authors[0], article.authors[1]
    assert guo.affiliations == [
        "University of Western Ontario, Robarts Research Institute, London, Ontario, Canada.",
        "University of Western Ontario, Graduate Program in Biomedical Engineering, London, Ontario, Canada.",
        "University of Toronto, Sunnybrook Research Institute, Toronto, Canada.",
    ]
    assert guo.affiliation == guo.affiliations[0]
    assert guo.orcid is None
    # <Identifier Source="ORCID">https://orcid.org/0000-0002-4590-7461</Identifier>
    assert (capaldi.last_name, capaldi.orcid) == ("Capaldi", "0000-0002-4590-7461")


def test_suffix_and_bare_orcid_with_check_letter(data_dir: Path) -> None:
    bailey = next(
        a
        for a in _article(data_dir, "ncbi/metapub/pmid_xml/38799617.xml", "38799617").authors
        if a.last_name == "Bailey"
    )
    assert (bailey.first_name, bailey.initials, bailey.suffix, bailey.orcid) == (
        "John I",
        "JI",
        "3rd",
        "0000-0002-4272-263X",
    )


def test_core_clinical_journal_subset(data_dir: Path) -> None:
    assert _article(data_dir, "ncbi/biopython/entrez_current/pubmed4.xml", "27797938").citation_subsets == [
        "AIM",
        "IM",
    ]


def test_several_languages_and_a_vernacular_title(data_dir: Path) -> None:
    article = _article(data_dir, "ncbi/metapub/pmid_xml/36987902.xml", "36987902")
    assert article.languages == ["eng", "nor"]
    assert (
        article.title
        == "Patients over 75 years admitted to the National Burn Centre, Haukeland University Hospital, 2000-19."
    )
    assert (
        article.vernacular_title
        == "Pasienter over 75 \u00e5r innlagt ved Brannskadeavdelinga, Haukeland universitetssjukehus 2000\u201319."
    )


def test_databank_with_several_accession_numbers(data_dir: Path) -> None:
    [bank] = _article(data_dir, HAWC_SEARCH, "11452036").data_banks
    assert (bank.name, bank.accession_numbers) == ("GENBANK", ["AF144397", "AF144398", "AF144399"])


def test_empty_article_set(data_dir: Path) -> None:
    assert parse_efetch((data_dir / "ncbi/metapub/pmid_xml/37909814.xml").read_bytes()) == []
    assert split_articles((data_dir / "ncbi/metapub/pmid_xml/37909814.xml").read_bytes()) == []


def test_whole_book_with_editors_only(data_dir: Path) -> None:
    article = _article(data_dir, "ncbi/klortho/efetch.pubmedbook.xml", "20301295")
    assert article.record_type == "book_article"
    assert article.title == article.book.book_title == "GeneReviews\u2122"
    assert article.book.chapter_title is None
    assert article.authors == []
    assert [e.last_name for e in article.book.editors] == ["Pagon", "Bird", "Dolan", "Stephens", "Adam"]
    assert article.book.beginning_date == "1993"
    assert article.abstract_text.startswith(
        "GeneReviews are expert-authored, peer-reviewed disease descriptions"
    )
    assert article.history == {"pubmed": "2010-03-20", "medline": "2010-03-20", "entrez": "2010-03-20"}


def test_retraction_in_marks_the_article_retracted(data_dir: Path) -> None:
    record = _record_xml(data_dir, HAWC_SEARCH, "2274965")
    assert parse_efetch(b"<PubmedArticleSet>" + record + b"</PubmedArticleSet>")[0].retracted is False
    retracted = _parse_edited(record, b'RefType="ErratumIn"', b'RefType="RetractionIn"')
    assert retracted.retracted is True
    assert [(c.ref_type, c.ref_source) for c in retracted.comments_corrections] == [
        ("RetractionIn", "Toxicology 1991 Mar 25;67(1):127")
    ]
    # A retraction notice points at what it retracts; the notice itself is not retracted.
    notice = _parse_edited(record, b'RefType="ErratumIn"', b'RefType="RetractionOf"')
    assert notice.retracted is False


def test_retracted_publication_type_marks_the_article_retracted(data_dir: Path) -> None:
    record = _record_xml(data_dir, HAWC_SEARCH, "2274965")
    article = _parse_edited(
        record,
        b'<PublicationType UI="D016428">Journal Article</PublicationType>',
        b'<PublicationType UI="D016428">Journal Article</PublicationType>'
        b'<PublicationType UI="D016441">Retracted Publication</PublicationType>',
    )
    assert article.publication_types == ["Journal Article", "Retracted Publication"]
    assert article.retracted is True


@pytest.mark.parametrize(
    ("medline_date", "expected"),
    [
        ("1998 Dec-1999 Jan", PublicationDate(year=1998, medline_date="1998 Dec-1999 Jan", iso="1998")),
        ("2008 Jan-Feb", PublicationDate(year=2008, medline_date="2008 Jan-Feb", iso="2008")),
        ("1990 Dec", PublicationDate(year=1990, month="Dec", medline_date="1990 Dec", iso="1990-12")),
        ("1990 Winter", PublicationDate(year=1990, medline_date="1990 Winter", iso="1990")),
    ],
)
def test_medline_date_in_a_real_record(data_dir: Path, medline_date: str, expected: PublicationDate) -> None:
    record = _record_xml(data_dir, HAWC_SEARCH, "2274965")
    article = _parse_edited(
        record,
        b"<PubDate><Year>1990</Year><Month>Dec</Month><Day>17</Day></PubDate>",
        b"<PubDate><MedlineDate>" + medline_date.encode() + b"</MedlineDate></PubDate>",
    )
    assert article.journal_info.publication_date == expected


def test_author_names_marked_invalid_are_left_out(data_dir: Path) -> None:
    record = _record_xml(data_dir, HAWC_SEARCH, "2274965")
    article = _parse_edited(
        record,
        b'<Author ValidYN="Y"><LastName>van den Broek</LastName>',
        b'<Author ValidYN="N"><LastName>van den Broek</LastName>',
    )
    assert [a.last_name for a in article.authors] == ["Dirven", "Jongeneelen"]


def test_article_date_and_history_with_times(data_dir: Path) -> None:
    article = _article(
        data_dir,
        "ncbi/hawc/extracted_bodies/services.nih.test_pubmed.TestPubMedFetch.test_title_with_child_text__0.xml",
        "27933116",
    )
    # <PubMedPubDate PubStatus="medline"> carries Hour 6 Minute 1: the date is what is kept.
    assert article.history["medline"] == "2016-12-10"
    assert article.article_date == "2016-11-16"


def test_records_of_one_response_share_their_immutable_headings(data_dir: Path) -> None:
    articles = parse_efetch((data_dir / HAWC_SEARCH).read_bytes())
    humans = [
        h for a in articles for h in a.mesh_headings if h.descriptor_name == "Humans" and not h.qualifiers
    ]
    assert len(humans) == 40
    assert all(heading is humans[0] for heading in humans)
    assert isinstance(humans[0].qualifiers, tuple)
    with pytest.raises(ValueError):
        humans[0].descriptor_name = "Mice"  # type: ignore[misc]
    # Another response builds its own: nothing is kept between calls.
    again = parse_efetch((data_dir / HAWC_SEARCH).read_bytes())
    assert next(h for a in again for h in a.mesh_headings if h == humans[0]) is not humans[0]
