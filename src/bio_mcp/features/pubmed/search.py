"""searchPubMedArticles: ESearch (with the history server when summaries follow), then ESummary v2.0."""

from __future__ import annotations

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.pubmed.models import (
    MAX_RET_START,
    BriefSummary,
    QueryRepair,
    SearchParameters,
    SearchRequest,
    SearchResponse,
)
from bio_mcp.features.pubmed.query import (
    TermRepair,
    date_clause,
    effective_term,
    publication_type_clause,
    repair_term,
)
from bio_mcp.sources.ncbi.client import EutilsClient, HistoryRef
from bio_mcp.sources.ncbi.parsers.esearch import parse_esearch
from bio_mcp.sources.ncbi.parsers.espell import parse_espell
from bio_mcp.sources.ncbi.parsers.esummary import parse_esummary

# ESearch's sort values for the seed's names.
SORT_PARAM = {"relevance": "relevance", "pub_date": "pub_date", "author": "Author", "journal_name": "JournalName"}


def repaired_term(request: SearchRequest) -> TermRepair:
    repair = repair_term(request.query_term)
    if len(repair.term) < 2:
        raise BioMcpError(
            ErrorCode.VALIDATION, "queryTerm has nothing searchable once repaired",
            {"queryTerm": request.query_term, "repairs": list(repair.changes)},
        )
    return repair


def build_term(request: SearchRequest, repair: TermRepair | None = None) -> str:
    term = (repair or repaired_term(request)).term
    dates = request.date_range
    date = date_clause(dates.min_date, dates.max_date, dates.date_type) if dates else None
    types = publication_type_clause(request.filter_by_publication_types or [])
    return effective_term(term, date, types)


def query_repair(request: SearchRequest, repair: TermRepair) -> QueryRepair | None:
    if not repair.changed:
        return None
    return QueryRepair(
        original=request.query_term, repaired=repair.term,
        note="The query did not parse as written and was repaired: " + "; ".join(repair.changes)
        + ". Check that the repaired query is what you meant.",
    )


async def search_articles(request: SearchRequest, eutils: EutilsClient) -> SearchResponse:
    repair = repaired_term(request)
    term = build_term(request, repair)
    wants_summaries = request.fetch_brief_summaries > 0
    search_response = await eutils.esearch(
        term, retmax=request.max_results, retstart=request.ret_start, sort=SORT_PARAM[request.sort_by],
        usehistory=wants_summaries,
    )
    result = parse_esearch(search_response.body)
    suggestion: str | None = None
    espell_url: str | None = None
    failures: list[str] = []
    if result.count == 0:
        # Nothing at all matched: ESpell's correction of the user's own words is the useful next step.
        try:
            spell_response = await eutils.espell(repair.term)
            espell_url = spell_response.url
            suggestion = parse_espell(spell_response.body).suggestion
        except BioMcpError as exc:
            failures.append(step_failure("ESpell", "no spelling suggestion", exc))
    summaries: list[BriefSummary] = []
    summary_url: str | None = None
    if wants_summaries and result.ids:
        top = result.ids[: request.fetch_brief_summaries]
        try:
            if result.web_env and result.query_key:
                summary_response = await eutils.esummary(
                    history=HistoryRef(result.web_env, result.query_key), retmax=len(top), retstart=request.ret_start
                )
            else:
                summary_response = await eutils.esummary(ids=top)
            summary_url = summary_response.url
            by_uid = {doc.uid: doc for doc in parse_esummary(summary_response.body)}
        except BioMcpError as exc:
            # The PMIDs are found and worth returning; the summaries are missing, and the result says why.
            failures.append(step_failure("ESummary", "brief summaries are missing", exc))
            by_uid = {}
            top = []
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
            ret_start=request.ret_start,
        ),
        effective_esearch_term=term,
        total_found=result.count,
        retrieved_pmid_count=len(result.ids),
        pmids=result.ids,
        brief_summaries=summaries,
        warnings=[f"{w.kind}: {w.text}" for w in result.warnings] + failures,
        esearch_url=search_response.url,
        esummary_url=summary_url,
        query_repair=query_repair(request, repair),
        spelling_suggestion=suggestion,
        next_ret_start=_next_ret_start(request, result.count, len(result.ids)),
        espell_url=espell_url,
    )


def step_failure(utility: str, consequence: str, exc: BioMcpError) -> str:
    """A warning naming the NCBI utility that failed, why, and what the result lacks because of it."""
    return f"NCBI {utility} failed ({exc.code.value}: {exc.message}): {consequence}"


def _next_ret_start(request: SearchRequest, total: int, returned: int) -> int | None:
    following = request.ret_start + returned
    if returned == 0 or following >= total or following > MAX_RET_START:
        return None
    return following


def summarize(response: SearchResponse) -> str:
    lines = [(f"**{response.total_found} PubMed records** match `{response.effective_esearch_term}`; "
             f"{response.retrieved_pmid_count} PMIDs returned from position {response.search_parameters.ret_start}.")]
    if response.query_repair:
        lines.append(f"Query repaired: {response.query_repair.original!r} was searched as "
                     f"{response.query_repair.repaired!r}. {response.query_repair.note}")
    if response.spelling_suggestion:
        lines.append(f"Nothing found. Did you mean: {response.spelling_suggestion!r}?")
    if response.next_ret_start is not None:
        lines.append(f"More results: call again with retStart={response.next_ret_start}.")
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
