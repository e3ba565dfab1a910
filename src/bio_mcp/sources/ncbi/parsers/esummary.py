"""ESummary: version 2.0 XML (DocumentSummarySet), the older v1 XML (DocSum/Item) and the JSON form.

All three become the same `DocumentSummary`. A uid NCBI has no summary for comes back with
`error` set rather than failing the whole batch, as NCBI itself reports it per uid.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.models import ArticleId, DocumentSummary, SummaryAuthor
from bio_mcp.sources.ncbi.parsers.body import is_json, load_json, load_xml
from bio_mcp.sources.ncbi.parsers.dates import free_text_iso
from bio_mcp.sources.ncbi.parsers.errors import entrez_error
from bio_mcp.sources.ncbi.xml import element_text

_PMCID = re.compile(r"PMC\d+")
# Simple text fields: ESummary v2.0 element (v1 Item Name) -> DocumentSummary field.
_TEXT_FIELDS = {
    "Title": "title",
    "LastAuthor": "last_author",
    "SortFirstAuthor": "sort_first_author",
    "Source": "source",
    "FullJournalName": "full_journal_name",
    "PubDate": "pub_date",
    "EPubDate": "epub_date",
    "SortPubDate": "sort_pub_date",
    "SortDate": "sort_pub_date",
    "Volume": "volume",
    "Issue": "issue",
    "Pages": "pages",
    "ELocationID": "elocation_id",
    "ISSN": "issn",
    "ESSN": "essn",
    "NlmUniqueID": "nlm_unique_id",
    "RecordStatus": "record_status",
    "PubStatus": "pub_status",
    "DocType": "doc_type",
    "BookTitle": "book_title",
    "PmcRefCount": "pmc_ref_count",
    "HasAbstract": "has_abstract",
}
# NCBI writes an absent value as an empty element; the model says None.
_OPTIONAL_TEXT_FIELDS = set(_TEXT_FIELDS.values()) - {"pmc_ref_count", "has_abstract", "sort_pub_date"}


def parse_esummary(body: bytes | str) -> list[DocumentSummary]:
    """The summaries of an ESummary response, in NCBI's order."""
    if is_json(body):
        return _from_json(load_json(body))
    root = load_xml(body, "eSummaryResult")
    summary_set = root.find("DocumentSummarySet")
    if summary_set is not None:
        documents = [_from_v2(element) for element in summary_set if element.tag == "DocumentSummary"]
        errors = [element_text(error) for error in summary_set.iterfind("ERROR") if element_text(error)]
        if errors and not documents:
            raise entrez_error(errors, "esummary")
        return documents
    return [_from_v1(element) for element in root if element.tag == "DocSum"]


def _int(text: Any) -> int | None:
    try:
        return int(str(text).strip())
    except (TypeError, ValueError):
        return None


def _finish(fields: dict[str, Any]) -> DocumentSummary:
    """Derived fields: ISO dates, the author string, DOI and PMCID from the ids."""
    authors: list[SummaryAuthor] = fields.get("authors", [])
    fields["authors_text"] = ", ".join(author.name for author in authors)
    fields["pub_date_iso"] = free_text_iso(fields.get("pub_date"))
    fields["epub_date_iso"] = free_text_iso(fields.get("epub_date"))
    fields["sort_pub_date"] = free_text_iso(fields.get("sort_pub_date"))
    fields["pmc_ref_count"] = _int(fields.get("pmc_ref_count"))
    if "has_abstract" in fields:
        fields["has_abstract"] = _int(fields["has_abstract"]) == 1
    elif "attributes" in fields:
        fields["has_abstract"] = "Has Abstract" in fields["attributes"]
    for key in _OPTIONAL_TEXT_FIELDS.intersection(fields):
        fields[key] = fields[key] or None
    ids: list[ArticleId] = fields.get("article_ids", [])
    by_type: dict[str, str] = {}
    for article_id in ids:
        by_type.setdefault(article_id.id_type.lower(), article_id.value)
    fields["doi"] = by_type.get("doi")
    # ESummary gives 'pmc' as "PMC3245039" and 'pmcid' as "pmc-id: PMC3245039;" (or bare, for db=pmc).
    pmc = _PMCID.search(by_type.get("pmc") or by_type.get("pmcid") or "")
    fields["pmcid"] = pmc[0] if pmc else None
    return DocumentSummary(**fields)


def _from_v2(element: etree._Element) -> DocumentSummary:
    uid = (element.get("uid") or "").strip()
    if not uid:
        raise BioMcpError(ErrorCode.ENTREZ, "NCBI returned a DocumentSummary without a uid", None)
    fields: dict[str, Any] = {"uid": uid}
    for child in element:
        tag = child.tag
        if tag in _TEXT_FIELDS:
            fields[_TEXT_FIELDS[tag]] = element_text(child)
        elif tag == "Authors":
            fields["authors"] = [_v2_author(author) for author in child if author.tag == "Author"]
        elif tag == "ArticleIds":
            fields["article_ids"] = [
                ArticleId(id_type=element_text(item.find("IdType")), value=element_text(item.find("Value")))
                for item in child
                if item.tag == "ArticleId" and element_text(item.find("Value"))
            ]
        elif tag == "History":
            fields["history"] = {
                element_text(item.find("PubStatus")): iso
                for item in child
                if item.tag == "PubMedPubDate" and (iso := free_text_iso(element_text(item.find("Date"))))
            }
        elif tag == "Lang":
            fields["languages"] = [element_text(item) for item in child if element_text(item)]
        elif tag == "PubType":
            fields["pub_types"] = [element_text(item) for item in child if element_text(item)]
        elif tag == "Attributes":
            fields["attributes"] = [element_text(item) for item in child if element_text(item)]
        elif tag == "error":
            fields["error"] = element_text(child) or "NCBI has no summary for this uid"
    return _finish(fields)


def _v2_author(author: etree._Element) -> SummaryAuthor:
    parts = {child.tag: element_text(child) for child in author}
    return SummaryAuthor(
        name=parts.get("Name", ""),
        auth_type=parts.get("AuthType") or None,
        cluster_id=parts.get("ClusterID") or None,
    )


def _from_v1(element: etree._Element) -> DocumentSummary:
    fields: dict[str, Any] = {"uid": element_text(element.find("Id"))}
    if not fields["uid"]:
        raise BioMcpError(ErrorCode.ENTREZ, "NCBI returned a DocSum without an Id", None)
    for item in element.iterfind("Item"):
        name = item.get("Name", "")
        if name in _TEXT_FIELDS:
            fields[_TEXT_FIELDS[name]] = element_text(item)
        elif name == "AuthorList":
            fields["authors"] = [
                SummaryAuthor(name=element_text(a)) for a in item.iterfind("Item") if element_text(a)
            ]
        elif name == "ArticleIds":
            fields["article_ids"] = [
                ArticleId(id_type=sub.get("Name", ""), value=element_text(sub))
                for sub in item.iterfind("Item")
                if element_text(sub)
            ]
        elif name == "History":
            fields["history"] = {
                sub.get("Name", ""): iso
                for sub in item.iterfind("Item")
                if (iso := free_text_iso(element_text(sub)))
            }
        elif name == "LangList":
            fields["languages"] = [element_text(sub) for sub in item.iterfind("Item") if element_text(sub)]
        elif name == "PubTypeList":
            fields["pub_types"] = [element_text(sub) for sub in item.iterfind("Item") if element_text(sub)]
    return _finish(fields)


def _json_text(value: Any) -> str:
    return " ".join(str(value).split()) if value is not None else ""


def _from_json(payload: dict[str, Any]) -> list[DocumentSummary]:
    result = payload.get("result")
    if not isinstance(result, dict):
        raise BioMcpError(
            ErrorCode.ENTREZ, "NCBI returned ESummary JSON without a result", {"keys": sorted(payload)}
        )
    summaries = []
    for uid in result.get("uids") or []:
        record = result.get(str(uid))
        if not isinstance(record, dict):
            summaries.append(DocumentSummary(uid=str(uid), error="NCBI has no summary for this uid"))
            continue
        fields: dict[str, Any] = {"uid": str(uid)}
        for tag, field in _TEXT_FIELDS.items():
            if tag.lower() in record:
                fields[field] = _json_text(record[tag.lower()])
        if "error" in record:
            fields["error"] = _json_text(record["error"]) or "NCBI has no summary for this uid"
        fields["authors"] = [
            SummaryAuthor(
                name=_json_text(author.get("name")),
                auth_type=_json_text(author.get("authtype")) or None,
                cluster_id=_json_text(author.get("clusterid")) or None,
            )
            for author in record.get("authors") or []
            if isinstance(author, dict) and author.get("name")
        ]
        fields["article_ids"] = [
            ArticleId(id_type=_json_text(item.get("idtype")), value=_json_text(item.get("value")))
            for item in record.get("articleids") or []
            if isinstance(item, dict) and item.get("value")
        ]
        fields["history"] = {
            _json_text(item.get("pubstatus")): iso
            for item in record.get("history") or []
            if isinstance(item, dict) and (iso := free_text_iso(_json_text(item.get("date"))))
        }
        fields["languages"] = [_json_text(lang) for lang in record.get("lang") or [] if lang]
        fields["pub_types"] = [_json_text(kind) for kind in record.get("pubtype") or [] if kind]
        if "attributes" in record:
            fields["attributes"] = [_json_text(flag) for flag in record.get("attributes") or [] if flag]
        summaries.append(_finish(fields))
    return summaries
