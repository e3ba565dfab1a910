"""searchPubMedArticles: ESearch (with the history server when summaries follow), then ESummary v2.0."""

from __future__ import annotations

from bio_mcp.features.pubmed.models import BriefSummary, SearchParameters, SearchRequest, SearchResponse
from bio_mcp.features.pubmed.query import date_clause, effective_term, publication_type_clause, sanitize_term
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.client import EutilsClient, HistoryRef
from bio_mcp.sources.ncbi.parsers.esearch import parse_esearch
from bio_mcp.sources.ncbi.parsers.esummary import parse_esummary

# ESearch's sort values for the seed's names.
SORT_PARAM = {"relevance": "relevance", "pub_date": "pub_date", "author": "Author", "journal_name": "JournalName"}


def build_term(request: SearchRequest) -> str:
    term = sanitize_term(request.query_term)
    if len(term) < 2:
        raise BioMcpError(
            ErrorCode.VALIDATION, "queryTerm has nothing searchable once repaired", {"queryTerm": request.query_term}
        )
    dates = request.date_range
    date = date_clause(dates.min_date, dates.max_date, dates.date_type) if dates else None
    types = publication_type_clause(request.filter_by_publication_types or [])
    return effective_term(term, date, types)


async def search_articles(request: SearchRequest, eutils: EutilsClient) -> SearchResponse:
    term = build_term(request)
    wants_summaries = request.fetch_brief_summaries > 0
    search_response = await eutils.esearch(
        term, retmax=request.max_results, sort=SORT_PARAM[request.sort_by], usehistory=wants_summaries
    )
    result = parse_esearch(search_response.body)
    summaries: list[BriefSummary] = []
    summary_url: str | None = None
    if wants_summaries and result.ids:
        top = result.ids[: request.fetch_brief_summaries]
        if result.web_env and result.query_key:
            summary_response = await eutils.esummary(
                history=HistoryRef(result.web_env, result.query_key), retmax=len(top)
            )
        else:
            summary_response = await eutils.esummary(ids=top)
        summary_url = summary_response.url
        by_uid = {doc.uid: doc for doc in parse_esummary(summary_response.body)}
        for pmid in top:
            doc = by_uid.get(pmid)
            if doc is None or doc.error:
                summaries.append(BriefSummary(pmid=pmid))
                continue
            summaries.append(
                BriefSummary(
                    pmid=pmid, title=doc.title, authors=doc.authors_text or None, source=doc.source,
                    pub_date=doc.pub_date_iso or doc.pub_date, epub_date=doc.epub_date_iso or doc.epub_date,
                )
            )
    dates = request.date_range
    return SearchResponse(
        search_parameters=SearchParameters(
            query_term=request.query_term,
            max_results=request.max_results,
            sort_by=request.sort_by,
            fetch_brief_summaries=request.fetch_brief_summaries,
            date_range=dates.model_dump(by_alias=True, exclude_none=True) if dates else None,
            filter_by_publication_types=request.filter_by_publication_types,
        ),
        effective_esearch_term=term,
        total_found=result.count,
        retrieved_pmid_count=len(result.ids),
        pmids=result.ids,
        brief_summaries=summaries,
        warnings=[f"{w.kind}: {w.text}" for w in result.warnings],
        esearch_url=search_response.url,
        esummary_url=summary_url,
    )


def summarize(response: SearchResponse) -> str:
    lines = [f"**{response.total_found} PubMed records** match `{response.effective_esearch_term}`; "
             f"{response.retrieved_pmid_count} PMIDs returned."]
    if response.warnings:
        lines.append("Warnings: " + "; ".join(response.warnings))
    if response.brief_summaries:
        lines += ["", "| PMID | title | authors | source | date |", "|---|---|---|---|---|"]
        lines += ["| " + " | ".join((value or "").replace("|", "/") for value in (
            brief.pmid, brief.title, brief.authors, brief.source, brief.pub_date or brief.epub_date)) + " |"
            for brief in response.brief_summaries]
    if response.pmids:
        lines += ["", "PMIDs: " + ", ".join(response.pmids)]
    return "\n".join(lines)
