"""`paper://pmid/{id}` (seed 003): a paper's metadata from the local corpus, fetched when absent.

    library = PaperLibrary(corpus_service)
    paper = await library.read("25553378")    # Paper(pmid, title, abstract, authors, journal, year, links)

The corpus keeps each document's title, abstract, journal, year, DOI and PMCID, but no author list,
which lives in `paper_details`. A paper missing from the corpus, or stored without its authors, is
fetched from E-utilities (the same `EutilsClient` the pubmed toolset uses: rate limits, retries,
error translation) when BIO_MCP_PAPER_FETCH allows it (the default): an absent paper is stored
through the corpus's own write path (`CorpusService.add_articles`: chunks, graph, index, as a sync
would), so a later search finds it. With fetching off, an absent paper is NOT_FOUND and a stored one
is served with the authors it has (`complete` says whether they are known).
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import sqlalchemy as sa
from pydantic import Field

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.models import ToolOutput
from bio_mcp.sources.ncbi.models import Article, Author
from bio_mcp.sources.ncbi.parsers.efetch import parse_requested
from bio_mcp.sources.ncbi.parsers.off_loop import parse_off_loop
from bio_mcp.store import StoredDocument
from bio_mcp.store.schema import paper_details

PAPER_URI = "paper://pmid/{pmid}"


class Paper(ToolOutput):
    pmid: str
    title: str
    abstract: str
    authors: list[str]
    journal: str
    year: int | None = Field(description="Publication year; null when PubMed gives none")
    links: list[str] = Field(description="PubMed, DOI and PMC links")
    doi: str | None = Field(default=None, description="Additive")
    pmcid: str | None = Field(default=None, description="Additive")
    source: str = Field(description="Additive: corpus (already stored) or eutils (fetched by this read)")
    complete: bool = Field(description="Additive: false when the authors are not known (fetching is off)")


def author_name(author: Author) -> str:
    """'Doe J' (PubMed's short form), or a group author's name."""
    if author.collective_name:
        return author.collective_name
    return " ".join(part for part in (author.last_name, author.initials or author.first_name) if part)


def links_of(pmid: str, doi: str | None, pmcid: str | None) -> list[str]:
    links = [f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"]
    if doi:
        links.append(f"https://doi.org/{doi}")
    if pmcid:
        links.append(f"https://www.ncbi.nlm.nih.gov/pmc/articles/{pmcid}/")
    return links


def paper_of(document: StoredDocument, authors: list[str] | None, source: str) -> Paper:
    return Paper(
        pmid=document.pmid, title=document.title or "", abstract=document.abstract or "",
        authors=authors or [], journal=document.journal or "", year=document.year,
        links=links_of(document.pmid, document.doi, document.pmcid), doi=document.doi, pmcid=document.pmcid,
        source=source, complete=authors is not None,
    )


def check_pmid(pmid: str) -> str:
    value = pmid.strip()
    if not (value.isascii() and value.isdigit() and len(value) <= 10):
        raise BioMcpError(ErrorCode.VALIDATION, f"{pmid!r} is not a PMID (up to 10 digits)", {"pmid": pmid})
    return value.lstrip("0") or "0"


class PaperLibrary:
    def __init__(self, corpus: CorpusService) -> None:
        self.corpus = corpus
        self.settings = corpus.settings

    def _stored(self, pmid: str) -> tuple[StoredDocument | None, list[str] | None]:
        with self.corpus.store.read() as tx:
            document = tx.documents.get(pmid)
            row = tx.connection.execute(sa.select(paper_details.c.authors).where(paper_details.c.pmid == pmid)).first()
        return document, (list(row.authors) if row is not None else None)

    def _save_authors(self, pmid: str, authors: list[str]) -> None:
        with self.corpus.store.transaction() as tx:
            tx.connection.execute(sa.delete(paper_details).where(paper_details.c.pmid == pmid))
            tx.connection.execute(
                sa.insert(paper_details).values(pmid=pmid, authors=authors, fetched_at=datetime.now(UTC))
            )

    async def _fetch(self, pmid: str) -> Article:
        response = await self.corpus.eutils.efetch([pmid])
        parsed = await parse_off_loop(parse_requested, response.body, {pmid})
        if not parsed.records:
            raise BioMcpError(ErrorCode.NOT_FOUND, f"PubMed has no record of PMID {pmid}", {"pmid": pmid})
        return parsed.records[0]

    async def read(self, pmid: str) -> Paper:
        pmid = check_pmid(pmid)
        await self.corpus.open()
        document, authors = await asyncio.to_thread(self._stored, pmid)
        if document is not None and authors is not None:
            return paper_of(document, authors, "corpus")
        if not self.settings.paper_fetch:
            if document is not None:
                return paper_of(document, None, "corpus")
            raise BioMcpError(
                ErrorCode.NOT_FOUND,
                f"PMID {pmid} is not in the local corpus, and fetching papers is off (BIO_MCP_PAPER_FETCH)",
                {"pmid": pmid},
            )
        article = await self._fetch(pmid)
        if document is None:
            await self.corpus.add_articles([article])
        await asyncio.to_thread(self._save_authors, pmid, [author_name(a) for a in article.authors])
        document, authors = await asyncio.to_thread(self._stored, pmid)
        if document is None:
            raise BioMcpError(ErrorCode.STORE, f"PMID {pmid} was fetched but could not be stored", {"pmid": pmid})
        return paper_of(document, authors, "eutils")

    async def read_json(self, pmid: str) -> str:
        """The resource body: the paper as JSON (seed 003's shape plus the additive fields)."""
        return json.dumps((await self.read(pmid)).to_json(), ensure_ascii=False, sort_keys=True)
