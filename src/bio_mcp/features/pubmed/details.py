"""fetchArticleDetails: EFetch in one of four detail levels."""

from __future__ import annotations

import re
from typing import Any

from bio_mcp.features.pubmed.models import DetailsRequest, DetailsResponse, EFetchDetails, RawRecord
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.models import Article
from bio_mcp.sources.ncbi.parsers.efetch import parse_requested, split_requested
from bio_mcp.sources.ncbi.parsers.off_loop import parse_off_loop

_MEDLINE_PMID = re.compile(r"^PMID- (\d+)", re.MULTILINE)
_CITATION_FIELDS = {"pmid", "title", "authors", "journalInfo", "publicationTypes", "doi", "pmcid", "book"}


def article_json(article: Article, request: DetailsRequest) -> dict[str, Any]:
    data = article.model_dump(mode="json", by_alias=True, exclude_none=True)
    if request.detail_level == "citation_data":
        data = {k: v for k, v in data.items() if k in _CITATION_FIELDS | ({"meshTerms"} if request.include_mesh_terms else set())}
    else:
        if not request.include_mesh_terms:
            data.pop("meshTerms", None)
            data.pop("meshHeadings", None)
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


async def fetch_article_details(request: DetailsRequest, eutils: EutilsClient) -> DetailsResponse:
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
    return DetailsResponse(
        requested_pmids=requested,
        detail_level=request.detail_level,
        articles=articles,
        not_found_pmids=[p for p in requested if p not in found],
        efetch_details=EFetchDetails(urls=[response.url], request_method=response.method),
        warnings=[unrequested_warning(unrequested)] if unrequested else None,
    )


def summarize(response: DetailsResponse) -> str:
    lines = [f"{len(response.articles)} of {len(response.requested_pmids)} records fetched "
             f"({response.detail_level})."]
    for article in response.articles[:10]:
        title = article.get("title") or (article.get("content", "")[:80] + "…")
        lines.append(f"- PMID {article.get('pmid')}: {title}")
    if response.not_found_pmids:
        lines.append("Not found: " + ", ".join(response.not_found_pmids))
    lines += [f"Warning: {warning}" for warning in response.warnings or []]
    return "\n".join(lines)
