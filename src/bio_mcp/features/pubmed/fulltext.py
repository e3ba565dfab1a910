"""fetchFullText: a PubMed Central article's full text, in sections (EFetch db=pmc, JATS).

Given a PMCID the article is fetched at once; given a PMID, ELink (pubmed_pmc) finds its PMC
article first. Only articles deposited in PubMed Central have full text there: any other PMID
is NOT_FOUND, with the advice to read its abstract with fetchArticleDetails instead.
"""

from __future__ import annotations

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.pubmed.models import FullTextRequest, FullTextResponse, FullTextSection
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.parsers.elink import parse_elink
from bio_mcp.sources.ncbi.parsers.jats import JatsSection, parse_pmc_articles

PUBMED_TO_PMC = "pubmed_pmc"


async def _pmcid_of(pmid: str, eutils: EutilsClient) -> tuple[str, str]:
    response = await eutils.elink(pmid, linkname=PUBMED_TO_PMC, db="pmc")
    links = [link.id for link_set in parse_elink(response.body).link_sets for link in link_set.links(PUBMED_TO_PMC)]
    if not links:
        raise BioMcpError(
            ErrorCode.NOT_FOUND,
            f"PMID {pmid} has no full text in PubMed Central (ELink pubmed_pmc found no PMC article); "
            "fetchArticleDetails gives its abstract",
            {"pmid": pmid},
        )
    return f"PMC{links[0]}", response.url


def _wanted(section: JatsSection, words: list[str]) -> bool:
    heading = " / ".join(section.path).casefold()
    return any(word.casefold() in heading for word in words)


async def fetch_full_text(request: FullTextRequest, eutils: EutilsClient) -> FullTextResponse:
    elink_url = None
    if request.pmcid is not None:
        pmcid = "PMC" + request.pmcid.upper().removeprefix("PMC")
    else:
        # The request validator guarantees a pmid when there is no pmcid.
        pmcid, elink_url = await _pmcid_of(request.pmid or "", eutils)
    response = await eutils.efetch_pmc([pmcid])
    articles = [a for a in parse_pmc_articles(response.body) if a.pmcid == pmcid]
    if not articles:
        raise BioMcpError(ErrorCode.NOT_FOUND, f"{pmcid} was not found in PubMed Central", {"pmcid": pmcid})
    article = articles[0]
    words = [word.strip() for word in request.section_titles or [] if word.strip()]
    sections = [s for s in article.sections if not words or _wanted(s, words)]
    return FullTextResponse(
        pmcid=article.pmcid, pmid=article.pmid or request.pmid, doi=article.doi, title=article.title,
        journal=article.journal, article_type=article.article_type, license=article.license,
        abstract=article.abstract,
        sections=[
            FullTextSection(title=s.title, level=s.level, path=list(s.path), text=s.text, captions=list(s.captions))
            for s in sections
        ],
        section_count=len(article.sections), reference_count=article.reference_count,
        efetch_url=response.url, elink_url=elink_url,
    )


def summarize(response: FullTextResponse) -> str:
    lines = [
        f"# {response.title}",
        f"{response.pmcid} · PMID {response.pmid or '?'} · {response.journal or '?'}"
        + (f" · doi:{response.doi}" if response.doi else ""),
        f"{len(response.sections)} of {response.section_count} sections; {response.reference_count} references.",
    ]
    if response.abstract:
        lines += ["", "## Abstract", response.abstract]
    for section in response.sections:
        lines += ["", "#" * min(section.level + 1, 6) + " " + section.title]
        if section.text:
            lines.append(section.text)
        lines += [f"> {caption}" for caption in section.captions]
    return "\n".join(lines)
