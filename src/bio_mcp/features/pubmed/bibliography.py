"""formatCitations: the citations of many PMIDs in one EFetch, in every requested style, within the budget."""

from __future__ import annotations

import json

from bio_mcp.features.overflow import Overflow, json_size, spill
from bio_mcp.features.pubmed.citation_formats import FORMATTERS, citation_block
from bio_mcp.features.pubmed.details import overflow_note
from bio_mcp.features.pubmed.models import (
    FormatCitationsRequest,
    FormatCitationsResponse,
    FormattedCitation,
    ResultOverflow,
)
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.parsers.efetch import parse_efetch


async def format_citations(
    request: FormatCitationsRequest, eutils: EutilsClient, overflow: Overflow | None = None
) -> FormatCitationsResponse:
    requested = list(dict.fromkeys(request.pmids))
    styles = list(dict.fromkeys(request.styles))
    response = await eutils.efetch(requested)
    by_pmid = {article.pmid: article for article in parse_efetch(response.body)}
    entries = [
        FormattedCitation(pmid=pmid, citations={style: FORMATTERS[style](by_pmid[pmid]) for style in styles})
        for pmid in requested if pmid in by_pmid
    ]
    spilled = await spill(
        overflow, entries, lambda entry: json_size(entry.to_json()),
        lambda rest: json.dumps([entry.to_json() for entry in rest], ensure_ascii=False, indent=1), "application/json",
        reserved=2 * json_size(requested),
    )
    return FormatCitationsResponse(
        requested_pmids=requested, styles=styles, citations=spilled.kept,
        not_found_pmids=[pmid for pmid in requested if pmid not in by_pmid], efetch_url=response.url,
        overflow=ResultOverflow(uri=spilled.uri, pmids=[e.pmid for e in spilled.rest], mime_type="application/json",
                                chars=spilled.chars) if spilled.uri else None,
    )


def summarize(response: FormatCitationsResponse) -> str:
    lines = [(f"**Citations of {len(response.citations)} of {len(response.requested_pmids)} PMIDs** "
             f"({', '.join(response.styles)}).")]
    if response.not_found_pmids:
        lines.append("Not found in PubMed: " + ", ".join(response.not_found_pmids))
    lines += overflow_note(response.overflow, "citations")
    for style in response.styles:
        lines += ["", f"#### {style}"]
        for number, entry in enumerate(response.citations, 1):
            block = citation_block(style, entry.citations[style])
            lines += block if style in ("ris", "bibtex") else [f"{number}. {block[0]}"]
    return "\n".join(lines)
