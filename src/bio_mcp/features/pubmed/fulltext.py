"""fetchFullText: an article's full text in sections, by the best route that has it.

A PMID is mapped to its PMC article with ELink (pubmed_pmc), a DOI with NCBI's PMC ID Converter.
The text is asked of PubMed Central (EFetch db=pmc), then of Europe PMC (`fullTextXML`, which also
holds open-access articles PMC's EFetch does not serve). When neither has it, Unpaywall is asked
for the DOI's open-access copy elsewhere. No text is never an empty success: the NOT_FOUND error
says why in `details.reason` (no_pmc_record, not_open_access, open_access_elsewhere with the
location, not_found), and when a route failed for an outage the error is that outage, not "none".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.pubmed.models import FullTextRequest, FullTextResponse, FullTextSection
from bio_mcp.sources.europepmc.client import EuropePmcClient
from bio_mcp.sources.europepmc.parse import parse_search
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.idconv import IdConverterClient, parse_idconv
from bio_mcp.sources.ncbi.parsers.elink import parse_elink
from bio_mcp.sources.ncbi.parsers.jats import JatsArticle, JatsSection, parse_pmc_articles
from bio_mcp.sources.unpaywall.client import UnpaywallClient, parse_unpaywall

PUBMED_TO_PMC = "pubmed_pmc"
OUTAGES = (ErrorCode.UPSTREAM, ErrorCode.RATE_LIMIT, ErrorCode.ENTREZ)


@dataclass(frozen=True)
class FullTextRoutes:
    """The routes past PubMed Central; any left out is not tried."""

    europepmc: EuropePmcClient | None = None
    idconv: IdConverterClient | None = None
    unpaywall: UnpaywallClient | None = None


@dataclass
class _Trail:
    pmcid: str | None = None
    pmid: str | None = None
    doi: str | None = None
    elink_url: str | None = None
    tried: list[str] = field(default_factory=list)
    outage: BioMcpError | None = None
    # Europe PMC said the PMC article is not open access.
    closed: bool = False

    def failed(self, route: str, exc: BioMcpError, *, could_hold_text: bool = True) -> None:
        """Note a route that failed; an outage of one that could have held the text (or named the
        article) is kept, so that "no text" is never said when the text may exist."""
        self.tried.append(f"{route}: {exc.code.value} {exc.message}")
        if could_hold_text and exc.code in OUTAGES and self.outage is None:
            self.outage = exc


def _normal_doi(doi: str) -> str:
    lowered = doi.strip()
    for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"):
        if lowered.lower().startswith(prefix):
            return lowered[len(prefix):]
    return lowered


async def _pmcid_of(pmid: str, eutils: EutilsClient, trail: _Trail) -> None:
    try:
        response = await eutils.elink(pmid, linkname=PUBMED_TO_PMC, db="pmc")
    except BioMcpError as exc:
        trail.failed("ELink pubmed_pmc", exc)
        return
    trail.elink_url = response.url
    links = [link.id for link_set in parse_elink(response.body).link_sets for link in link_set.links(PUBMED_TO_PMC)]
    if links:
        trail.pmcid = f"PMC{links[0]}"
    else:
        trail.tried.append(f"ELink pubmed_pmc: PMID {pmid} has no PubMed Central article")


async def _ids_of_doi(trail: _Trail, idconv: IdConverterClient | None) -> None:
    if idconv is None or trail.doi is None:
        return
    try:
        records = parse_idconv((await idconv.convert([trail.doi])).body)
    except BioMcpError as exc:
        trail.failed("PMC ID Converter", exc)
        return
    found = [r for r in records if r.error is None and (r.pmcid or r.pmid)]
    if not found:
        reason = next((r.error for r in records if r.error), "no record")
        trail.tried.append(f"PMC ID Converter: doi {trail.doi} has no PMC record ({reason})")
        return
    trail.pmcid, trail.pmid = found[0].pmcid, found[0].pmid


async def _doi_of_pmid(trail: _Trail, europepmc: EuropePmcClient | None) -> None:
    """A PMID outside PMC: its DOI from Europe PMC's record, for Unpaywall."""
    if europepmc is None or trail.pmid is None or trail.doi is not None:
        return
    try:
        page = parse_search((await europepmc.search(f"EXT_ID:{trail.pmid} AND SRC:MED", page_size=1)).body)
    except BioMcpError as exc:
        # Only a DOI for Unpaywall was sought: the text is known to be in neither PMC nor Europe PMC.
        trail.failed("Europe PMC record", exc, could_hold_text=False)
        return
    if page.records and page.records[0].doi:
        trail.doi = page.records[0].doi
    else:
        trail.tried.append(f"Europe PMC record: PMID {trail.pmid} has no DOI there")


async def _from_pmc(pmcid: str, trail: _Trail, eutils: EutilsClient) -> tuple[JatsArticle, str] | None:
    try:
        response = await eutils.efetch_pmc([pmcid])
    except BioMcpError as exc:
        trail.failed("PubMed Central", exc)
        return None
    articles = [a for a in parse_pmc_articles(response.body) if a.pmcid == pmcid]
    if articles:
        return articles[0], response.url
    trail.tried.append(f"PubMed Central: EFetch has no text for {pmcid}")
    return None


async def _from_europepmc(trail: _Trail, europepmc: EuropePmcClient | None) -> tuple[JatsArticle, str] | None:
    if europepmc is None or trail.pmcid is None:
        return None
    try:
        response = await europepmc.full_text_xml(trail.pmcid)
    except BioMcpError as exc:
        trail.failed("Europe PMC fullTextXML", exc)
        trail.closed = trail.closed or "not open access" in exc.message
        return None
    articles = parse_pmc_articles(response.body)
    if articles:
        return articles[0], response.url
    trail.tried.append(f"Europe PMC fullTextXML: no article in the answer for {trail.pmcid}")
    return None


async def _unpaywall_verdict(trail: _Trail, unpaywall: UnpaywallClient | None) -> tuple[str, dict[str, Any]]:
    """Why there is no text, from Unpaywall's view of the DOI: a reason and what backs it."""
    if trail.closed:
        no_pmc = "not_open_access"
    elif trail.pmcid is None and trail.pmid is None and trail.doi is None:
        no_pmc = "not_found"
    else:
        no_pmc = "no_pmc_record"
    if trail.doi is None or unpaywall is None:
        return no_pmc, {}
    try:
        response = await unpaywall.lookup(trail.doi)
        record = parse_unpaywall(response.body)
    except BioMcpError as exc:
        trail.failed("Unpaywall", exc, could_hold_text=False)
        if exc.code is ErrorCode.NOT_FOUND:
            return ("not_found" if trail.pmcid is None and trail.pmid is None else no_pmc), {}
        return no_pmc, {}
    if record.best_location is not None:
        location = record.best_location
        return "open_access_elsewhere", {"openAccessLocation": {
            "url": location.url, "pdfUrl": location.url_for_pdf, "version": location.version,
            "license": location.license, "hostType": location.host_type, "oaStatus": record.oa_status,
            "unpaywallUrl": response.url,
        }}
    return "not_open_access", {"oaStatus": f"Unpaywall: {record.oa_status}", "unpaywallUrl": response.url}


REASON_TEXT = {
    "open_access_elsewhere": "neither PubMed Central nor Europe PMC has its text, but Unpaywall names an "
                             "open-access copy at {url}",
    "not_open_access": "it is not open access ({oa})",
    "no_pmc_record": "it has no open full text in PubMed Central or Europe PMC",
    "not_found": "no record of it was found",
}


def _no_text(request: FullTextRequest, trail: _Trail, reason: str, extra: dict[str, Any]) -> BioMcpError:
    asked = request.pmcid or (f"PMID {request.pmid}" if request.pmid else f"doi {request.doi}")
    details = {"reason": reason, "pmid": trail.pmid, "pmcid": trail.pmcid, "doi": trail.doi,
               "tried": trail.tried, **extra}
    location = extra.get("openAccessLocation") or {}
    text = REASON_TEXT[reason].format(url=location.get("url"), oa=extra.get("oaStatus") or "Europe PMC")
    advice = "; fetchArticleDetails gives its abstract" if trail.pmid else ""
    return BioMcpError(ErrorCode.NOT_FOUND, f"No full text for {asked}: {text}{advice}",
                       {k: v for k, v in details.items() if v is not None})


async def fetch_full_text(
    request: FullTextRequest, eutils: EutilsClient, routes: FullTextRoutes | None = None
) -> FullTextResponse:
    routes = routes or FullTextRoutes()
    trail = _Trail(pmid=request.pmid, doi=_normal_doi(request.doi) if request.doi else None)
    if request.pmcid is not None:
        trail.pmcid = "PMC" + request.pmcid.upper().removeprefix("PMC")
    elif request.pmid is not None:
        await _pmcid_of(request.pmid, eutils, trail)
    else:
        await _ids_of_doi(trail, routes.idconv)
    found = None
    source = "pmc"
    if trail.pmcid is not None:
        found = await _from_pmc(trail.pmcid, trail, eutils)
        if found is None:
            found, source = await _from_europepmc(trail, routes.europepmc), "europepmc"
    if found is None:
        await _doi_of_pmid(trail, routes.europepmc)
        reason, extra = await _unpaywall_verdict(trail, routes.unpaywall)
        if trail.outage is not None and reason != "open_access_elsewhere":
            # A route that could not answer may have had the text: say so, never "none exists".
            trail.outage.details = {**(trail.outage.details or {}), "tried": trail.tried}
            raise trail.outage
        raise _no_text(request, trail, reason, extra)
    article, url = found
    words = [word.strip() for word in request.section_titles or [] if word.strip()]
    sections = [s for s in article.sections if not words or _wanted(s, words)]
    return FullTextResponse(
        pmcid=article.pmcid or trail.pmcid, pmid=article.pmid or trail.pmid, doi=article.doi or trail.doi,
        title=article.title, journal=article.journal, article_type=article.article_type, license=article.license,
        abstract=article.abstract,
        sections=[
            FullTextSection(title=s.title, level=s.level, path=list(s.path), text=s.text, captions=list(s.captions))
            for s in sections
        ],
        section_count=len(article.sections), reference_count=article.reference_count,
        efetch_url=url, elink_url=trail.elink_url, text_source=source, tried=trail.tried,
    )


def _wanted(section: JatsSection, words: list[str]) -> bool:
    heading = " / ".join(section.path).casefold()
    return any(word.casefold() in heading for word in words)


def summarize(response: FullTextResponse) -> str:
    lines = [
        f"# {response.title}",
        # A part the record does not give is left out: "PMID ?" read as if the paper had one nobody knew.
        " · ".join(part for part in (response.pmcid, response.pmid and f"PMID {response.pmid}", response.journal) if part)
        + (f" · doi:{response.doi}" if response.doi else "")
        + (" · text from Europe PMC" if response.text_source == "europepmc" else ""),
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
