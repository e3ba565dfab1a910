"""fetchArticleDetails: EFetch in one of four detail levels, within the result budget."""

from __future__ import annotations

import json
import re
from typing import Any

from bio_mcp.features.overflow import Overflow, json_size, spill, text_and_json_size
from bio_mcp.features.pubmed.citation_formats import VANCOUVER_MAX_AUTHORS
from bio_mcp.features.pubmed.models import (
    DetailsRequest,
    DetailsResponse,
    EFetchDetails,
    RawRecord,
    ResultOverflow,
)
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.models import Article
from bio_mcp.sources.ncbi.parsers.efetch import parse_requested, split_requested
from bio_mcp.sources.ncbi.parsers.off_loop import parse_off_loop

_MEDLINE_PMID = re.compile(r"^PMID- (\d+)", re.MULTILINE)
_CITATION_FIELDS = {"pmid", "title", "authors", "journalInfo", "publicationTypes", "doi", "pmcid", "book"}
# A citation names its authors; their affiliations are for abstract_plus.
_CITATION_AUTHOR_FIELDS = {"lastName", "firstName", "initials", "suffix", "collectiveName", "orcid"}
_MIME_TYPES = {"full_xml": "application/xml", "medline_text": "text/plain"}


def article_json(article: Article, request: DetailsRequest) -> dict[str, Any]:
    # Each thing is sent once: abstractText already holds the labelled sections' text, and meshTerms
    # (the seed's field) the headings' descriptors and qualifiers.
    data = article.model_dump(mode="json", by_alias=True, exclude_none=True,
                              exclude={"abstract_sections", "mesh_headings"})
    if request.detail_level == "citation_data":
        data = {k: v for k, v in data.items() if k in _CITATION_FIELDS | ({"meshTerms"} if request.include_mesh_terms else set())}
        data["authors"] = [{k: v for k, v in a.items() if k in _CITATION_AUTHOR_FIELDS} for a in data.get("authors", [])]
    else:
        if not request.include_mesh_terms:
            data.pop("meshTerms", None)
        if not request.include_grant_info:
            data.pop("grantList", None)
    return data


def split_medline(text: str) -> list[RawRecord]:
    records = [chunk.strip("\n") for chunk in re.split(r"\n\s*\n(?=PMID- )", text.strip()) if chunk.strip()]
    out = []
    for record in records:
        match = _MEDLINE_PMID.search(record)
        if match:
            out.append(RawRecord(pmid=match.group(1), content=record + "\n"))
    return out


def unrequested_warning(unrequested: list[str]) -> str:
    shown = ", ".join(unrequested[:20]) + (", ..." if len(unrequested) > 20 else "")
    return f"NCBI returned {len(unrequested)} records that were not requested; they were dropped: {shown}"


def _overflow_text(detail_level: str, records: list[dict[str, Any]]) -> str:
    if detail_level == "full_xml":
        return "<PubmedArticleSet>\n" + "\n".join(r["content"] for r in records) + "\n</PubmedArticleSet>\n"
    if detail_level == "medline_text":
        return "\n".join(r["content"] for r in records)
    return json.dumps(records, ensure_ascii=False, indent=1)


async def fetch_article_details(
    request: DetailsRequest, eutils: EutilsClient, overflow: Overflow | None = None
) -> DetailsResponse:
    requested = list(dict.fromkeys(request.pmids))
    wanted = set(requested)
    response = await eutils.efetch(requested, medline=request.detail_level == "medline_text")
    if request.detail_level == "medline_text":
        records = split_medline(response.body.decode("utf-8", "replace"))
        unrequested = [r.pmid for r in records if r.pmid not in wanted]
        records = [r for r in records if r.pmid in wanted]
        articles = [r.to_json() for r in records]
        found = {r.pmid for r in records}
    elif request.detail_level == "full_xml":
        raw = await parse_off_loop(split_requested, response.body, wanted)
        articles = [RawRecord(pmid=pmid, content=xml.decode()).to_json() for pmid, xml in raw.records]
        found = {pmid for pmid, _ in raw.records}
        unrequested = raw.unrequested
    else:
        parsed = await parse_off_loop(parse_requested, response.body, wanted)
        articles = [article_json(a, request) for a in parsed.records]
        found = {a.pmid for a in parsed.records}
        unrequested = parsed.unrequested
    text_size = text_and_json_size(lambda article: len(_article_text(article, request.detail_level)))
    spilled = await spill(overflow, articles, text_size, lambda rest: _overflow_text(request.detail_level, rest),
                          _MIME_TYPES.get(request.detail_level, "application/json"),
                          # requestedPmids, and overflow.pmids at worst
                          reserved=2 * json_size(requested))
    return DetailsResponse(
        requested_pmids=requested,
        detail_level=request.detail_level,
        articles=spilled.kept,
        not_found_pmids=[p for p in requested if p not in found],
        efetch_details=EFetchDetails(urls=[response.url], request_method=response.method),
        overflow=ResultOverflow(
            uri=spilled.uri, pmids=[r["pmid"] for r in spilled.rest],
            mime_type=_MIME_TYPES.get(request.detail_level, "application/json"), chars=spilled.chars,
        ) if spilled.uri else None,
        warnings=[unrequested_warning(unrequested)] if unrequested else None,
    )


def _author_line(authors: list[dict[str, Any]]) -> str:
    names = [a.get("collectiveName") or f"{a.get('lastName', '')} {a.get('initials', '')}".strip() for a in authors]
    shown = ", ".join(names[:VANCOUVER_MAX_AUTHORS])
    return shown + (f", et al. ({len(names)} authors)" if len(names) > VANCOUVER_MAX_AUTHORS else "")


def _journal_line(article: dict[str, Any]) -> str | None:
    info = article.get("journalInfo")
    if not info:
        return None
    date = info.get("publicationDate", {})
    when = " ".join(str(p) for p in (date.get("year"), date.get("month"), date.get("day")) if p) or date.get("medlineDate")
    line = f"*{info.get('isoAbbreviation') or info.get('title') or '?'}* {when or ''}".strip()
    if info.get("volume"):
        line += f";{info['volume']}"
    if info.get("issue"):
        line += f"({info['issue']})"
    if info.get("pages"):
        line += f":{info['pages']}"
    return line


def render_article(article: dict[str, Any]) -> list[str]:
    lines = [f"### PMID {article['pmid']}: {article.get('title') or '(no title)'}"]
    facts = [part for part in (
        _author_line(article.get("authors", [])) or None,
        _journal_line(article),
        f"doi:{article['doi']}" if article.get("doi") else None,
        article.get("pmcid"),
        ", ".join(article.get("publicationTypes", [])) or None,
        "**RETRACTED**" if article.get("retracted") else None,
    ) if part]
    lines.append(" · ".join(facts))
    if article.get("abstractText"):
        lines.append("")
        lines.append(article["abstractText"])
    mesh = article.get("meshTerms") or []
    if mesh:
        # PubMed's own spelling: each descriptor/qualifier pair, starred where it is a major topic.
        terms = [m["descriptorName"] + (f"/{m['qualifierName']}" if m.get("qualifierName") else "")
                 + ("*" if m.get("isMajorTopic") else "") for m in mesh]
        lines.append("MeSH (* major): " + "; ".join(dict.fromkeys(terms)))
    if article.get("keywords"):
        lines.append("Keywords: " + "; ".join(article["keywords"]))
    if article.get("grantList"):
        lines.append("Grants: " + "; ".join(
            " ".join(p for p in (g.get("grantId"), g.get("agency"), g.get("country")) if p) for g in article["grantList"]))
    return lines


def overflow_note(overflow: ResultOverflow | None, what: str) -> list[str]:
    if overflow is None:
        return []
    return [(f"**{len(overflow.pmids)} {what} did not fit the result budget** (PMIDs {', '.join(overflow.pmids)}): "
            f"they are in {overflow.uri} ({overflow.chars:,} characters, {overflow.mime_type}); read it as an MCP "
            "resource, or ask again for fewer PMIDs.")]


def _article_text(article: dict[str, Any], detail_level: str) -> str:
    """One record as the text content shows it, with the blank line before it."""
    if "content" in article:
        fence = "xml" if detail_level == "full_xml" else "text"
        return "\n".join(["", f"### PMID {article['pmid']}", f"```{fence}", article["content"].rstrip("\n"), "```"])
    return "\n".join(["", *render_article(article)])


def summarize(response: DetailsResponse) -> str:
    lines = [f"**{len(response.articles)} of {len(response.requested_pmids)} records** ({response.detail_level})."]
    if response.not_found_pmids:
        lines.append("Not found in PubMed: " + ", ".join(response.not_found_pmids))
    lines += [f"Warning: {warning}" for warning in response.warnings or []]
    lines += overflow_note(response.overflow, "records")
    lines += [_article_text(article, response.detail_level) for article in response.articles]
    return "\n".join(lines)
