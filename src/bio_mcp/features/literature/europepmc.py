"""europepmc_search and europepmc_citations: Europe PMC's literature (PubMed, PMC, preprints, patents,
Agricola) with its own query syntax, cursor paging, and a paper's citing and cited works.

Records are in the compact shape of searchPubMedArticles' brief summaries (title, authors, source,
pubDate) plus Europe PMC's ids and flags; those past the result budget go to a scratch text.
"""

from __future__ import annotations

import json

from bio_mcp.features.literature.models import (
    EpmcArticle,
    EpmcCitationsRequest,
    EpmcCitationsResponse,
    EpmcOverflow,
    EpmcSearchRequest,
    EpmcSearchResponse,
)
from bio_mcp.features.overflow import Overflow, json_size, spill
from bio_mcp.sources.europepmc.client import EuropePmcClient
from bio_mcp.sources.europepmc.models import EpmcRecord
from bio_mcp.sources.europepmc.parse import parse_links, parse_search

PREPRINTS = "SRC:PPR"
OPEN_ACCESS = "OPEN_ACCESS:Y"


def effective_query(request: EpmcSearchRequest) -> str:
    filters = [f for f, wanted in ((PREPRINTS, request.preprints_only), (OPEN_ACCESS, request.open_access_only))
               if wanted]
    query = request.query.strip()
    return " AND ".join([f"({query})", *filters]) if filters else query


def article_of(record: EpmcRecord) -> EpmcArticle:
    return EpmcArticle(
        id=record.id, epmc_source=record.source, pmid=record.pmid, pmcid=record.pmcid, doi=record.doi,
        title=record.title, authors=record.authors, source=record.journal,
        pub_date=record.pub_date or record.pub_year, is_preprint=record.is_preprint,
        is_open_access=record.is_open_access, cited_by_count=record.cited_by_count, abstract=record.abstract,
        full_text_urls=[link.url for link in record.full_text_links] or None,
    )


async def _spill(articles: list[EpmcArticle], overflow: Overflow | None) -> tuple[list[EpmcArticle], EpmcOverflow | None]:
    spilled = await spill(
        overflow, articles, lambda a: json_size(a.to_json()),
        lambda rest: json.dumps([a.to_json() for a in rest], ensure_ascii=False), "application/json",
    )
    if not spilled.uri:
        return spilled.kept, None
    return spilled.kept, EpmcOverflow(
        uri=spilled.uri, pmids=[a.id for a in spilled.rest], mime_type="application/json", chars=spilled.chars
    )


async def search_europepmc(
    request: EpmcSearchRequest, client: EuropePmcClient, overflow: Overflow | None = None
) -> EpmcSearchResponse:
    query = effective_query(request)
    response = await client.search(
        query, result_type=request.result_type, page_size=request.page_size, cursor=request.cursor, sort=request.sort
    )
    page = parse_search(response.body)
    kept, spilled = await _spill([article_of(r) for r in page.records], overflow)
    # Europe PMC ends a result with no nextCursorMark; an empty page or a cursor handed back unchanged
    # ends it too (following either would loop).
    last = not page.records or (page.next_cursor == request.cursor)
    return EpmcSearchResponse(
        query=request.query, effective_query=query, result_type=request.result_type, total_found=page.hit_count,
        retrieved_count=len(page.records), articles=kept, next_cursor=None if last else page.next_cursor,
        search_url=response.url, overflow=spilled,
    )


async def europepmc_citations(
    request: EpmcCitationsRequest, client: EuropePmcClient, overflow: Overflow | None = None
) -> EpmcCitationsResponse:
    response = await client.links(
        request.source, request.id, request.direction, page=request.page, page_size=request.page_size
    )
    page = parse_links(response.body, request.direction)
    kept, spilled = await _spill([article_of(r) for r in page.records], overflow)
    seen = (request.page - 1) * request.page_size + len(page.records)
    more = bool(page.records) and (page.hit_count is None and len(page.records) == request.page_size
                                   or page.hit_count is not None and seen < page.hit_count)
    return EpmcCitationsResponse(
        id=request.id, source=request.source, direction=request.direction, total_found=page.hit_count,
        page=request.page, retrieved_count=len(page.records), articles=kept,
        next_page=request.page + 1 if more else None, url=response.url, overflow=spilled,
    )


def _rows(articles: list[EpmcArticle]) -> list[str]:
    if not articles:
        return []
    lines = ["", "| id | title | authors | source | date | flags |", "|---|---|---|---|---|---|"]
    for a in articles:
        flags = ", ".join(f for f, on in (("preprint", a.is_preprint), ("OA", a.is_open_access),
                                           (f"PMCID {a.pmcid}", bool(a.pmcid)), (f"doi:{a.doi}", bool(a.doi))) if on)
        ident = f"{a.epmc_source}:{a.id}"
        lines.append("| " + " | ".join((v or "").replace("|", "/") for v in (
            ident, a.title, a.authors, a.source, a.pub_date, flags)) + " |")
    abstracts = [a for a in articles if a.abstract]
    for a in abstracts:
        lines += ["", f"### {a.epmc_source}:{a.id}", a.abstract or ""]
    return lines


def _overflow_line(overflow: EpmcOverflow | None) -> list[str]:
    if overflow is None:
        return []
    return [(f"**{len(overflow.pmids)} records did not fit the result budget**: they are in {overflow.uri} "
             f"({overflow.chars:,} characters); read it as an MCP resource, or ask for a smaller pageSize.")]


def summarize_search(response: EpmcSearchResponse) -> str:
    lines = [(f"**{response.total_found} Europe PMC records** match `{response.effective_query}`; "
              f"{response.retrieved_count} returned.")]
    if response.next_cursor:
        lines.append(f"More results: call again with cursor={response.next_cursor!r}.")
    elif response.total_found:
        # No cursor ends the paging, not the matches: a reader must not take the rows as all there is.
        rest = (f" Europe PMC gave no cursor past it though it counts {response.total_found} matches: "
                "narrow the query to read others." if response.total_found > response.retrieved_count else "")
        lines.append("This is the last page." + rest)
    lines += _overflow_line(response.overflow)
    return "\n".join(lines + _rows(response.articles))


def summarize_citations(response: EpmcCitationsResponse) -> str:
    what = "works citing" if response.direction == "citations" else "references of"
    total = "an unstated number of" if response.total_found is None else str(response.total_found)
    lines = [(f"**{total} {what} {response.source}:{response.id}** in Europe PMC; page {response.page} holds "
              f"{response.retrieved_count}.")]
    if response.next_page:
        lines.append(f"More: call again with page={response.next_page}.")
    lines += _overflow_line(response.overflow)
    return "\n".join(lines + _rows(response.articles))
