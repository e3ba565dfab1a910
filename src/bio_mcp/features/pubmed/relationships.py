"""getArticleRelationships: ELink neighbours (similar, cited-in, references) or server-made citations."""

from __future__ import annotations

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.pubmed.citation_formats import FORMATTERS, citation_block
from bio_mcp.features.pubmed.models import RelatedArticle, RelationshipsRequest, RelationshipsResponse
from bio_mcp.features.pubmed.search import step_failure
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.parsers.efetch import parse_requested
from bio_mcp.sources.ncbi.parsers.elink import parse_elink
from bio_mcp.sources.ncbi.parsers.esummary import parse_esummary
from bio_mcp.sources.ncbi.parsers.off_loop import parse_off_loop

LINK_NAMES = {
    "pubmed_similar_articles": "pubmed_pubmed",
    "pubmed_citedin": "pubmed_pubmed_citedin",
    "pubmed_references": "pubmed_pubmed_refs",
}


def pubmed_url(pmid: str) -> str:
    return f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"


def not_found(pmid: str) -> BioMcpError:
    """The one answer every relationship type gives for a PMID PubMed does not have."""
    return BioMcpError(ErrorCode.NOT_FOUND, f"PMID {pmid} was not found in PubMed", {"sourcePmid": pmid})


async def _require_exists(pmid: str, eutils: EutilsClient) -> None:
    """ELink answers an unknown PMID with an empty link set, the same as a PMID without links, so an
    empty answer is checked with ESummary, which reports unknown ids one by one."""
    summaries = parse_esummary((await eutils.esummary(ids=[pmid])).body)
    if not any(doc.uid == pmid and not doc.error for doc in summaries):
        raise not_found(pmid)


async def _citations(request: RelationshipsRequest, eutils: EutilsClient) -> RelationshipsResponse:
    response = await eutils.efetch([request.source_pmid])
    # Only the record asked for is built, however many others the answer carries.
    parsed = await parse_off_loop(parse_requested, response.body, {request.source_pmid})
    article = next(iter(parsed.records), None)
    if article is None:
        raise not_found(request.source_pmid)
    citations = {style: FORMATTERS[style](article) for style in dict.fromkeys(request.citation_styles)}
    return RelationshipsResponse(
        source_pmid=request.source_pmid, relationship_type=request.relationship_type,
        citations=citations, retrieved_count=len(citations), efetch_url=response.url,
    )


async def get_article_relationships(request: RelationshipsRequest, eutils: EutilsClient) -> RelationshipsResponse:
    if request.relationship_type == "citation_formats":
        return await _citations(request, eutils)
    link_name = LINK_NAMES[request.relationship_type]
    cmd = "neighbor_score" if request.relationship_type == "pubmed_similar_articles" else "neighbor"
    response = await eutils.elink(request.source_pmid, linkname=link_name, cmd=cmd)
    result = parse_elink(response.body)
    links = [link for link_set in result.link_sets for link in link_set.links(link_name)]
    seen: set[str] = set()
    unique = [link for link in links if link.id != request.source_pmid and not (link.id in seen or seen.add(link.id))]
    if not unique:
        await _require_exists(request.source_pmid, eutils)
    if request.relationship_type == "pubmed_similar_articles":
        unique.sort(key=lambda link: (-(link.score or 0), link.id))
    top = unique[: request.max_related_results]
    titles: dict[str, tuple[str | None, str | None]] = {}
    warnings: list[str] = []
    if top:
        try:
            summaries = parse_esummary((await eutils.esummary(ids=[link.id for link in top])).body)
            titles = {doc.uid: (doc.title, doc.authors_text or None) for doc in summaries if not doc.error}
        except BioMcpError as exc:
            warnings.append(step_failure("ESummary", "titles and authors are missing", exc))
    best = max((link.score for link in top if link.score), default=None)
    related = [
        RelatedArticle(
            pmid=link.id,
            title=titles.get(link.id, (None, None))[0],
            authors=titles.get(link.id, (None, None))[1],
            # NCBI's neighbour scores are unbounded integers; scaled to the best hit they read as 0..1.
            score=round(link.score / best, 4) if link.score and best else None,
            link_url=pubmed_url(link.id),
        )
        for link in top
    ]
    return RelationshipsResponse(
        source_pmid=request.source_pmid, relationship_type=request.relationship_type,
        related_articles=related, retrieved_count=len(related), total_available=len(unique),
        elink_url=response.url, warnings=warnings,
    )


def summarize(response: RelationshipsResponse) -> str:
    if response.relationship_type == "citation_formats":
        lines = [f"**Citations of PMID {response.source_pmid}**"]
        for style, text in response.citations.items():
            lines += ["", f"#### {style}", *citation_block(style, text)]
        return "\n".join(lines)
    lines = [(f"**{response.retrieved_count} of {response.total_available} {response.relationship_type}** for "
             f"PMID {response.source_pmid}.")]
    if response.related_articles:
        lines += ["", "| PMID | title | authors | score |", "|---|---|---|---|"]
        lines += [f"| {a.pmid} | {(a.title or '(no title)').replace('|', '/')} | {(a.authors or '').replace('|', '/')} | "
                  f"{'' if a.score is None else a.score} |" for a in response.related_articles]
    if response.warnings:
        lines.append("Warnings: " + "; ".join(response.warnings))
    return "\n".join(lines)
