"""Europe PMC JSON (search lite/core, citations, references) to `EpmcSearchPage` / `EpmcLinkPage`,
and its `errorBean` error bodies to a message."""

from __future__ import annotations

import json
import re
from typing import Any

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.europepmc.models import EpmcLinkPage, EpmcRecord, EpmcSearchPage, FullTextLink
from bio_mcp.sources.ncbi.xml import truncated_xml

SOURCE_NAME = "Europe PMC"
_ERR_MSG = re.compile(rb"<errMsg>(.*?)</errMsg>", re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")


def _load(body: bytes | str) -> dict[str, Any]:
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BioMcpError(
            ErrorCode.UPSTREAM, f"{SOURCE_NAME} returned a body that is not JSON", {"error": str(exc)[:200]}
        ) from None
    if not isinstance(document, dict):
        raise BioMcpError(ErrorCode.UPSTREAM, f"{SOURCE_NAME} returned JSON that is not an object")
    return document


def incomplete_body(body: bytes, content_type: str) -> BioMcpError | None:
    """An UPSTREAM error (retried by the client) when a 2xx body is cut short, else None."""
    if "json" in content_type:
        try:
            json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return BioMcpError(ErrorCode.UPSTREAM, f"{SOURCE_NAME} returned JSON cut short", {"bytes": len(body)})
        return None
    cut = truncated_xml(body, content_type)
    if cut is None:
        return None
    return BioMcpError(ErrorCode.UPSTREAM, f"{SOURCE_NAME} returned XML cut short", cut.details)


def error_message(body: bytes) -> str | None:
    """The text of an `errorBean` body (`<errMsg>`), e.g. 'Article with id PMC3040717 is not open access one'."""
    match = _ERR_MSG.search(body[:4096])
    return match.group(1).decode("utf-8", "replace").strip() if match else None


def _flag(value: object) -> bool | None:
    return {"Y": True, "N": False}.get(value) if isinstance(value, str) else None


def _text(value: object) -> str | None:
    if value is None:
        return None
    text = " ".join(_TAGS.sub(" ", str(value)).split())
    return text or None


def _journal(item: dict[str, Any]) -> str | None:
    info = item.get("journalInfo")
    if isinstance(info, dict):
        journal = info.get("journal") or {}
        return _text(journal.get("title") or journal.get("isoabbreviation"))
    book = item.get("bookOrReportDetails")
    if isinstance(book, dict):
        return _text(book.get("publisher"))
    return _text(item.get("journalTitle") or item.get("journalAbbreviation"))


def _pub_types(item: dict[str, Any]) -> tuple[str, ...]:
    listed = (item.get("pubTypeList") or {}).get("pubType")
    if isinstance(listed, list):
        return tuple(str(t).strip().lower() for t in listed if str(t).strip())
    raw = item.get("pubType") or item.get("citationType") or ""
    return tuple(part.strip().lower() for part in str(raw).split(";") if part.strip())


def _links(item: dict[str, Any]) -> tuple[FullTextLink, ...]:
    links = (item.get("fullTextUrlList") or {}).get("fullTextUrl") or []
    return tuple(
        FullTextLink(url=link["url"], availability=link.get("availability"), style=link.get("documentStyle"),
                     site=link.get("site"))
        for link in links if isinstance(link, dict) and link.get("url")
    )


def parse_record(item: dict[str, Any]) -> EpmcRecord:
    cited = item.get("citedByCount")
    year = item.get("pubYear")
    return EpmcRecord(
        id=str(item.get("id") or ""),
        source=str(item.get("source") or ""),
        pmid=_text(item.get("pmid")) or (str(item["id"]) if item.get("source") == "MED" and item.get("id") else None),
        pmcid=_text(item.get("pmcid")),
        doi=_text(item.get("doi")),
        title=_text(item.get("title")),
        authors=_text(item.get("authorString")),
        journal=_journal(item),
        pub_year=str(year) if year is not None else None,
        pub_date=_text(item.get("firstPublicationDate")),
        pub_types=_pub_types(item),
        is_open_access=_flag(item.get("isOpenAccess")),
        in_pmc=_flag(item.get("inPMC")),
        cited_by_count=cited if isinstance(cited, int) else None,
        abstract=_text(item.get("abstractText")),
        full_text_links=_links(item),
    )


def parse_search(body: bytes | str) -> EpmcSearchPage:
    document = _load(body)
    results = (document.get("resultList") or {}).get("result") or []
    request = document.get("request") or {}
    return EpmcSearchPage(
        hit_count=int(document.get("hitCount") or 0),
        records=[parse_record(item) for item in results if isinstance(item, dict)],
        next_cursor=document.get("nextCursorMark") or None,
        query=request.get("queryString"),
    )


def parse_links(body: bytes | str, direction: str) -> EpmcLinkPage:
    """A `{source}/{id}/citations` (direction 'citations') or `/references` page."""
    document = _load(body)
    list_key, item_key = ("citationList", "citation") if direction == "citations" else ("referenceList", "reference")
    items = (document.get(list_key) or {}).get(item_key) or []
    hits = document.get("hitCount")
    return EpmcLinkPage(
        hit_count=int(hits) if hits is not None else None,
        records=[parse_record(item) for item in items if isinstance(item, dict)],
    )
