"""EFetch db=pubmed retmode=xml: a PubmedArticleSet of PubmedArticle and PubmedBookArticle records.

Each container is read in one pass over its children, dispatching on the tag: `find()` would walk
the children again for every field, and this loop is the parser's hot path (see
bench/parse_throughput.py). Reference lists, half the bytes of a response, are reduced to their
cited PMIDs before libxml2 sees them (`_condense_reference_lists`). A record is gathered as plain
dicts and lists and validated into its `Article` in one call: pydantic builds the nested models
(authors, ids, sections...) far faster than as one Python-level call per model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from lxml import etree

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.models import Article, BookInfo, MeshHeading, MeshQualifier
from bio_mcp.sources.ncbi.parsers.body import load_xml
from bio_mcp.sources.ncbi.parsers.dates import parts_iso, publication_date
from bio_mcp.sources.ncbi.xml import collapsed, element_text

T = TypeVar("T")

ROOT_TAG = "PubmedArticleSet"
RETRACTED_PUBLICATION_TYPE = "Retracted Publication"
_REFERENCE_LIST_START = b"<ReferenceList>"
_REFERENCE_LIST_END = b"</ReferenceList>"
_CITED_PMID = re.compile(rb"""<ArticleId\s+IdType\s*=\s*["']pubmed["']\s*>\s*(\d+)\s*</ArticleId>""")
_ORCID = re.compile(r"(\d{4})-?(\d{4})-?(\d{4})-?(\d{3}[\dXx])")


class ParseAbandoned(Exception):
    """The parse was stopped because its caller has gone (see `RequestedRecords`' `stop`)."""


@dataclass
class RequestedRecords(Generic[T]):
    """The records of an EFetch answer that were asked for, and the PMIDs of those that were not."""

    records: list[T] = field(default_factory=list)
    unrequested: list[str] = field(default_factory=list)


def parse_efetch(body: bytes | str) -> list[Article]:
    """Every PubmedArticle and PubmedBookArticle of an EFetch response, in document order."""
    return parse_requested(body, None).records


def parse_requested(
    body: bytes | str, wanted: Collection[str] | None, stop: Callable[[], bool] | None = None
) -> RequestedRecords[Article]:
    """The articles whose PMIDs are in `wanted` (None: all), in document order; the others are only
    named, never built. `stop()` is asked before each record: True abandons the parse."""
    root = _load_condensed(body.encode("utf-8") if isinstance(body, str) else body)
    mesh = _MeshValues()
    result: RequestedRecords[Article] = RequestedRecords()
    # Other children (DeleteCitation in update files) are not articles and are passed over.
    for record in _records(root, wanted, result.unrequested, stop):
        if record.tag == "PubmedArticle":
            result.records.append(_journal_article(record, mesh))
        else:
            result.records.append(_book_article(record))
    return result


def split_articles(body: bytes | str) -> list[tuple[str, bytes]]:
    """(pmid, the record's own XML as UTF-8 bytes) for each record, for the full_xml detail level."""
    return split_requested(body, None).records


def split_requested(
    body: bytes | str, wanted: Collection[str] | None, stop: Callable[[], bool] | None = None
) -> RequestedRecords[tuple[str, bytes]]:
    """`split_articles` for the records whose PMIDs are in `wanted`; the others are only named."""
    root = load_xml(body, ROOT_TAG)
    result: RequestedRecords[tuple[str, bytes]] = RequestedRecords()
    for record in _records(root, wanted, result.unrequested, stop):
        result.records.append((_record_pmid(record), etree.tostring(record, encoding="utf-8", with_tail=False)))
    return result


def _record_pmid(record: etree._Element) -> str:
    return _pmid(record.find("MedlineCitation" if record.tag == "PubmedArticle" else "BookDocument"))


def _records(
    root: etree._Element, wanted: Collection[str] | None, unrequested: list[str], stop: Callable[[], bool] | None
) -> Iterator[etree._Element]:
    """The article records of `root` whose PMID is wanted; the PMIDs of the rest go to `unrequested`."""
    for record in root:
        if record.tag not in ("PubmedArticle", "PubmedBookArticle"):
            continue
        if stop is not None and stop():
            raise ParseAbandoned()
        if wanted is not None:
            pmid = _record_pmid(record)
            if pmid not in wanted:
                unrequested.append(pmid)
                continue
        yield record


def _pmid(container: etree._Element | None) -> str:
    pmid = (container.findtext("PMID") or "").strip() if container is not None else ""
    if not pmid:
        raise BioMcpError(ErrorCode.ENTREZ, "NCBI returned a PubMed record without a PMID", None)
    return pmid


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _condense_reference_lists(body: bytes) -> bytes:
    """`body` with each <ReferenceList>...</ReferenceList> replaced by <ReferenceList pmids="..."/>.

    Reference lists are about half the bytes of an EFetch response and the cited PMIDs are all we
    keep of them, so finding those with a byte search spares libxml2 building half the tree. A
    list nested in another leaves an unmatched end tag behind: the result is then not well-formed
    and the caller parses the original instead, so it is never silently wrong.
    """
    start = body.find(_REFERENCE_LIST_START)
    if start < 0:
        return body
    pieces = []
    position = 0
    while start >= 0:
        end = body.find(_REFERENCE_LIST_END, start)
        if end < 0:
            return body
        end += len(_REFERENCE_LIST_END)
        pieces += [
            body[position:start],
            b'<ReferenceList pmids="',
            b" ".join(_CITED_PMID.findall(body, start, end)),
            b'"/>',
        ]
        position = end
        start = body.find(_REFERENCE_LIST_START, position)
    pieces.append(body[position:])
    return b"".join(pieces)


def _load_condensed(body: bytes) -> etree._Element:
    condensed = _condense_reference_lists(body)
    if condensed is not body:
        try:
            return load_xml(condensed, ROOT_TAG)
        except BioMcpError:
            pass  # the original decides: it parses, or its own error is the one to report
    return load_xml(body, ROOT_TAG)


def _reference_pmids(reference_list: etree._Element) -> list[str]:
    condensed: str | None = reference_list.get("pmids")
    if condensed is not None:
        return condensed.split()
    # iter() also reaches the ReferenceLists the DTD allows inside a ReferenceList.
    return [
        text
        for element in reference_list.iter("ArticleId")
        if element.get("IdType") == "pubmed" and (text := (element.text or "").strip()).isdigit()
    ]


def _orcid(identifier: etree._Element) -> str | None:
    if identifier.get("Source") != "ORCID" or not identifier.text:
        return None
    match = _ORCID.search(identifier.text)
    return f"{match[1]}-{match[2]}-{match[3]}-{match[4].upper()}" if match else identifier.text.strip()


def _author(element: etree._Element) -> dict[str, Any]:
    # Only the parts present are given: pydantic fills absent ones from defaults faster.
    fields: dict[str, Any] = {}
    affiliations: list[str] = []
    for child in element:
        tag = child.tag
        if tag == "LastName":
            fields["last_name"] = collapsed(child.text) or None
        elif tag == "ForeName":
            fields["first_name"] = collapsed(child.text) or None
        elif tag == "Initials":
            fields["initials"] = collapsed(child.text) or None
        elif tag == "AffiliationInfo":
            for part in child:
                if part.tag == "Affiliation":
                    text = element_text(part)
                    if text:
                        affiliations.append(text)
        elif tag == "Identifier":
            fields["orcid"] = fields.get("orcid") or _orcid(child)
        elif tag == "CollectiveName":
            fields["collective_name"] = element_text(child) or None
        elif tag == "Suffix":
            fields["suffix"] = element_text(child) or None
    if affiliations:
        fields["affiliation"] = affiliations[0]
        fields["affiliations"] = affiliations
    return fields


def _authors(author_list: etree._Element) -> list[dict[str, Any]]:
    # ValidYN="N" marks a name NLM later found wrong (e.g. corrected by an erratum); PubMed hides it.
    return [
        _author(element)
        for element in author_list
        if element.tag == "Author" and element.get("ValidYN") != "N"
    ]


def _texts(container: etree._Element, tag: str) -> list[str]:
    return [text for child in container if child.tag == tag and (text := element_text(child))]


def _leaf_texts(container: etree._Element, tag: str) -> list[str]:
    return [text for child in container if child.tag == tag and (text := collapsed(child.text))]


def _abstract_sections(abstract: etree._Element) -> list[dict[str, Any]]:
    sections = []
    for element in abstract:
        if element.tag == "AbstractText":
            text = element_text(element)
            if text:
                sections.append(
                    {
                        "label": element.get("Label") or None,
                        "nlm_category": element.get("NlmCategory") or None,
                        "text": text,
                    }
                )
    return sections


def _abstract_text(sections: list[dict[str, Any]]) -> str | None:
    joined = "\n".join(
        f"{section['label']}: {section['text']}" if section["label"] else section["text"]
        for section in sections
    )
    return joined or None


# A MeSH heading as it stands in the tree, flat: the text, UI, MajorTopicYN and Type of its
# DescriptorName, then the text, UI and MajorTopicYN of each QualifierName. One flat tuple per
# distinct heading is also the fewest objects for the garbage collector to track while parsing.
_HeadingKey = tuple[str | None, ...]


class _MeshValues:
    """The MeSH headings of one response, one instance per distinct heading.

    Headings repeat across records (Humans, Male, Animals...) and are deeply immutable, so the
    records of a response share them: fewer objects to build, keep and garbage-collect. A heading
    is looked up by its names' texts and attributes exactly as read, so a repeat costs neither
    whitespace collapsing nor validation.
    """

    def __init__(self) -> None:
        self._headings: dict[_HeadingKey, MeshHeading] = {}
        self._qualifiers: dict[_HeadingKey, MeshQualifier] = {}

    def heading(self, key: _HeadingKey) -> MeshHeading:
        heading = self._headings.get(key)
        if heading is None:
            name, ui, major_topic, descriptor_type = key[:4]
            heading = self._headings[key] = MeshHeading(
                descriptor_name=collapsed(name),
                descriptor_ui=ui,
                is_major_topic=major_topic == "Y",
                descriptor_type=descriptor_type,
                qualifiers=tuple(self._qualifier(key[start : start + 3]) for start in range(4, len(key), 3)),
            )
        return heading

    def _qualifier(self, key: _HeadingKey) -> MeshQualifier:
        qualifier = self._qualifiers.get(key)
        if qualifier is None:
            name, ui, major_topic = key
            qualifier = self._qualifiers[key] = MeshQualifier(
                name=collapsed(name), ui=ui, is_major_topic=major_topic == "Y"
            )
        return qualifier


def _mesh_headings(mesh_list: etree._Element, mesh: _MeshValues) -> list[MeshHeading]:
    # One flat pass over the names: the DTD puts each DescriptorName before its QualifierNames.
    keys: list[list[str | None]] = []
    for element in mesh_list.iter("DescriptorName", "QualifierName"):
        if element.tag == "DescriptorName":
            keys.append([element.text, element.get("UI"), element.get("MajorTopicYN"), element.get("Type")])
        elif keys:  # a qualifier before any descriptor has no heading to belong to
            keys[-1] += (element.text, element.get("UI"), element.get("MajorTopicYN"))
    return [mesh.heading(tuple(key)) for key in keys]


_GRANT_FIELDS = {"GrantID": "grant_id", "Agency": "agency", "Country": "country", "Acronym": "acronym"}


def _grants(grant_list: etree._Element) -> list[dict[str, Any]]:
    return [
        {
            _GRANT_FIELDS[child.tag]: collapsed(child.text) or None
            for child in grant
            if child.tag in _GRANT_FIELDS
        }
        for grant in grant_list
        if grant.tag == "Grant"
    ]


def _article_ids(id_list: etree._Element, into: dict[tuple[str, str], None]) -> None:
    """(IdType, value) of each id into `into`, an insertion-ordered set."""
    for element in id_list:
        value = (element.text or "").strip()
        if value:
            into[(element.get("IdType") or "unknown", value)] = None


def _first_id(ids: dict[tuple[str, str], None], wanted: str) -> str | None:
    for id_type, value in ids:
        if id_type == wanted:
            return value
    return None


def _elocation_doi(element: etree._Element) -> str | None:
    text: str = element.text or ""
    return text.strip() or None if element.get("EIdType") == "doi" else None


def _history(history: etree._Element, into: dict[str, str]) -> None:
    for element in history:
        status = element.get("PubStatus")
        # A status may repeat (several "revised" dates); one date per status keeps the first listed.
        if status and status not in into:
            date = parts_iso(element)
            if date:
                into[status] = date


def _pages(pagination: etree._Element) -> str | None:
    parts = {child.tag: collapsed(child.text) for child in pagination}
    if parts.get("MedlinePgn"):
        return parts["MedlinePgn"]
    start, end = parts.get("StartPage"), parts.get("EndPage")
    return f"{start}-{end}" if start and end else start or None


def _journal(journal: etree._Element, fields: dict[str, Any]) -> None:
    for child in journal:
        tag = child.tag
        if tag == "JournalIssue":
            for part in child:
                if part.tag == "PubDate":
                    fields["publication_date"] = publication_date(part)
                elif part.tag == "Volume":
                    fields["volume"] = collapsed(part.text) or None
                elif part.tag == "Issue":
                    fields["issue"] = collapsed(part.text) or None
        elif tag == "Title":
            fields["title"] = collapsed(child.text) or None
        elif tag == "ISOAbbreviation":
            fields["iso_abbreviation"] = collapsed(child.text) or None
        elif tag == "ISSN":
            fields["issn"] = collapsed(child.text) or None
            fields["issn_type"] = child.get("IssnType")


_MEDLINE_JOURNAL_FIELDS = {
    "ISSNLinking": "issn_linking",
    "NlmUniqueID": "nlm_unique_id",
    "MedlineTA": "medline_ta",
    "Country": "country",
}


def _comments_corrections(comments_list: etree._Element) -> list[dict[str, Any]]:
    comments = []
    for element in comments_list:
        parts = {child.tag: collapsed(child.text) or None for child in element}
        comments.append(
            {
                "ref_type": element.get("RefType") or "unknown",
                "ref_source": parts.get("RefSource"),
                "pmid": parts.get("PMID"),
            }
        )
    return comments


def _data_banks(data_bank_list: etree._Element) -> list[dict[str, Any]]:
    banks = []
    for bank in data_bank_list:
        name = ""
        accession_numbers: list[str] = []
        for child in bank:
            if child.tag == "DataBankName":
                name = element_text(child)
            elif child.tag == "AccessionNumberList":
                accession_numbers = _leaf_texts(child, "AccessionNumber")
        banks.append({"name": name, "accession_numbers": accession_numbers})
    return banks


def _chemicals(chemical_list: etree._Element) -> list[dict[str, Any]]:
    chemicals = []
    for chemical in chemical_list:
        fields: dict[str, Any] = {}
        for child in chemical:
            if child.tag == "NameOfSubstance":
                fields["name"] = element_text(child)
                fields["ui"] = child.get("UI") or None
            elif child.tag == "RegistryNumber":
                number = collapsed(child.text)
                # NLM writes "0" where a substance has no registry number.
                fields["registry_number"] = number if number and number != "0" else None
        if fields.get("name"):
            chemicals.append(fields)
    return chemicals


def _read_article(article: etree._Element, fields: dict[str, Any], journal: dict[str, Any]) -> None:
    """The children of <Article> into the Article's `fields` and the JournalInfo's `journal`."""
    for child in article:
        tag = child.tag
        if tag == "AuthorList":
            fields["authors"] = _authors(child)
        elif tag == "Abstract":
            fields["abstract_sections"] = _abstract_sections(child)
        elif tag == "ArticleTitle":
            fields["title"] = element_text(child)
        elif tag == "Journal":
            _journal(child, journal)
        elif tag == "Pagination":
            journal["pages"] = _pages(child)
        elif tag == "PublicationTypeList":
            fields["publication_types"] = _leaf_texts(child, "PublicationType")
        elif tag == "Language":
            fields.setdefault("languages", []).append(collapsed(child.text))
        elif tag == "ELocationID":
            fields["elocation_doi"] = fields.get("elocation_doi") or _elocation_doi(child)
        elif tag == "GrantList":
            fields["grant_list"] = _grants(child)
        elif tag == "ArticleDate":
            fields["article_date"] = fields.get("article_date") or parts_iso(child)
        elif tag == "DataBankList":
            fields["data_banks"] = _data_banks(child)
        elif tag == "VernacularTitle":
            fields["vernacular_title"] = element_text(child) or None
        elif tag == "Affiliation":
            fields["legacy_affiliation"] = element_text(child) or None


def _read_citation(
    citation: etree._Element, fields: dict[str, Any], journal: dict[str, Any], mesh: _MeshValues
) -> None:
    """The children of <MedlineCitation>."""
    for child in citation:
        tag = child.tag
        if tag == "Article":
            _read_article(child, fields, journal)
        elif tag == "MeshHeadingList":
            fields["mesh_headings"] = _mesh_headings(child, mesh)
        elif tag == "PMID":
            fields["pmid"] = (child.text or "").strip()
        elif tag == "DateCompleted":
            fields["date_completed"] = parts_iso(child)
        elif tag == "DateRevised":
            fields["date_revised"] = parts_iso(child)
        elif tag == "MedlineJournalInfo":
            for part in child:
                if part.tag in _MEDLINE_JOURNAL_FIELDS:
                    journal[_MEDLINE_JOURNAL_FIELDS[part.tag]] = collapsed(part.text) or None
        elif tag == "KeywordList":
            fields.setdefault("keywords", []).extend(_texts(child, "Keyword"))
        elif tag == "CitationSubset":
            fields.setdefault("citation_subsets", []).append(collapsed(child.text))
        elif tag == "CommentsCorrectionsList":
            fields["comments_corrections"] = _comments_corrections(child)
        elif tag == "ChemicalList":
            fields["chemicals"] = _chemicals(child)
        elif tag == "GeneSymbolList":
            fields["gene_symbols"] = _unique(_leaf_texts(child, "GeneSymbol"))


def _read_pubmed_data(data: etree._Element, fields: dict[str, Any], ids: dict[tuple[str, str], None]) -> None:
    """The children of <PubmedData> or <PubmedBookData>."""
    history: dict[str, str] = {}
    for child in data:
        tag = child.tag
        if tag == "History":
            _history(child, history)
        elif tag == "ArticleIdList":
            _article_ids(child, ids)
        elif tag == "PublicationStatus":
            fields["publication_status"] = collapsed(child.text) or None
        elif tag == "ReferenceList":
            fields.setdefault("reference_pmids", []).extend(_reference_pmids(child))
    fields["history"] = history


def _finish(fields: dict[str, Any], ids: dict[tuple[str, str], None]) -> Article:
    """The Article, with the fields derived from others: abstract text, ids, lists without repeats,
    retraction."""
    elocation_doi = fields.pop("elocation_doi", None)
    fields["article_ids"] = [{"id_type": id_type, "value": value} for id_type, value in ids]
    fields["doi"] = _first_id(ids, "doi") or elocation_doi
    fields["pmcid"] = _first_id(ids, "pmc")
    fields["abstract_text"] = _abstract_text(fields.get("abstract_sections", []))
    if "keywords" in fields:
        fields["keywords"] = _unique(fields["keywords"])
    if "reference_pmids" in fields:
        fields["reference_pmids"] = _unique(fields["reference_pmids"])
    fields["retracted"] = RETRACTED_PUBLICATION_TYPE in fields.get("publication_types", ()) or any(
        comment["ref_type"] == "RetractionIn" for comment in fields.get("comments_corrections", ())
    )
    return Article.model_validate(fields)


def _journal_article(record: etree._Element, mesh: _MeshValues) -> Article:
    fields: dict[str, Any] = {"record_type": "journal_article"}
    journal: dict[str, Any] = {}
    ids: dict[tuple[str, str], None] = {}
    citation_found = False
    for child in record:
        if child.tag == "MedlineCitation":
            citation_found = True
            fields["medline_status"] = child.get("Status")
            _read_citation(child, fields, journal, mesh)
        elif child.tag == "PubmedData":
            _read_pubmed_data(child, fields, ids)
    if not citation_found or not fields.get("pmid"):
        raise BioMcpError(ErrorCode.ENTREZ, "NCBI returned a PubMed record without a PMID", None)
    legacy_affiliation = fields.pop("legacy_affiliation", None)
    authors = fields.get("authors")
    if legacy_affiliation and authors and "affiliations" not in authors[0]:
        # Before 2014 MEDLINE kept one article-level affiliation: that of the first author.
        authors[0]["affiliation"] = legacy_affiliation
        authors[0]["affiliations"] = [legacy_affiliation]
    fields["journal_info"] = journal
    return _finish(fields, ids)


_BOOK_TEXT_FIELDS = {
    "Medium": "medium",
    "Edition": "edition",
    "Volume": "volume",
    "CollectionTitle": "collection_title",
}


def _read_book(book: etree._Element, fields: dict[str, Any]) -> None:
    """The children of <Book> into the BookInfo's `fields`."""
    for child in book:
        tag = child.tag
        if tag == "BookTitle":
            fields["book_title"] = element_text(child)
        elif tag == "AuthorList":
            key = "editors" if child.get("Type") == "editors" else "authors"
            fields.setdefault(key, []).extend(_authors(child))
        elif tag == "Publisher":
            for part in child:
                if part.tag == "PublisherName":
                    fields["publisher_name"] = element_text(part) or None
                elif part.tag == "PublisherLocation":
                    fields["publisher_location"] = collapsed(part.text) or None
        elif tag == "PubDate":
            fields["publication_date"] = publication_date(child)
        elif tag == "BeginningDate":
            fields["beginning_date"] = parts_iso(child)
        elif tag == "EndingDate":
            fields["ending_date"] = parts_iso(child)
        elif tag == "Isbn":
            fields.setdefault("isbns", []).append(collapsed(child.text))
        elif tag == "ELocationID":
            fields["elocation_doi"] = fields.get("elocation_doi") or _elocation_doi(child)
        elif tag in _BOOK_TEXT_FIELDS:
            fields[_BOOK_TEXT_FIELDS[tag]] = element_text(child) or None


def _read_book_document(
    document: etree._Element,
    fields: dict[str, Any],
    book: dict[str, Any],
    ids: dict[tuple[str, str], None],
) -> None:
    """The children of <BookDocument>."""
    for child in document:
        tag = child.tag
        if tag == "Book":
            _read_book(child, book)
        elif tag == "PMID":
            fields["pmid"] = (child.text or "").strip()
        elif tag == "ArticleTitle":
            book["chapter_title"] = element_text(child) or None
        elif tag == "AuthorList":
            if child.get("Type") != "editors":
                fields.setdefault("authors", []).extend(_authors(child))
        elif tag == "Abstract":
            fields["abstract_sections"] = _abstract_sections(child)
        elif tag == "ArticleIdList":
            _article_ids(child, ids)
        elif tag == "PublicationType":
            fields.setdefault("publication_types", []).append(collapsed(child.text))
        elif tag == "Language":
            fields.setdefault("languages", []).append(collapsed(child.text))
        elif tag == "KeywordList":
            fields.setdefault("keywords", []).extend(_texts(child, "Keyword"))
        elif tag == "GrantList":
            fields["grant_list"] = _grants(child)
        elif tag == "DataBankList":
            fields["data_banks"] = _data_banks(child)
        elif tag == "VernacularTitle":
            fields["vernacular_title"] = element_text(child) or None
        elif tag == "ContributionDate":
            book["contribution_date"] = parts_iso(child)
        elif tag == "DateRevised":
            fields["date_revised"] = parts_iso(child)
        elif tag == "ReferenceList":
            fields.setdefault("reference_pmids", []).extend(_reference_pmids(child))


def _book_article(record: etree._Element) -> Article:
    fields: dict[str, Any] = {"record_type": "book_article"}
    book: dict[str, Any] = {}
    ids: dict[tuple[str, str], None] = {}
    for child in record:
        if child.tag == "BookDocument":
            _read_book_document(child, fields, book, ids)
        elif child.tag == "PubmedBookData":
            _read_pubmed_data(child, fields, ids)
    if not fields.get("pmid"):
        raise BioMcpError(ErrorCode.ENTREZ, "NCBI returned a PubMed book record without a PMID", None)
    if "book_title" not in book:
        raise BioMcpError(
            ErrorCode.ENTREZ, "NCBI returned a PubMed book record without a Book", {"pmid": fields["pmid"]}
        )
    fields["elocation_doi"] = book.pop("elocation_doi", None)
    info = BookInfo(**book)
    # A chapter has its own authors; a whole book's record carries them on the Book.
    fields.setdefault("authors", info.authors)
    fields["title"] = info.chapter_title or info.book_title
    fields["book"] = info
    return _finish(fields, ids)
