"""The async E-utilities client: one per process, shared by every tool call.

Sends `tool`, `email` and (when set) `api_key` on every request; shares one rate limit per API
key (in-process, or across replicas through Redis); chooses GET or POST by payload size; keeps
the history server (`usehistory=y`, WebEnv/query_key) for multi-step calls; fetches again an XML
answer cut short; refuses answers past NCBI_MAX_BODY_BYTES; and turns NCBI's own error bodies into
typed errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import httpx2

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.xml import truncated_xml
from bio_mcp.sources.ratelimit import build_rate_limiter
from bio_mcp.sources.upstream import Params, UpstreamClient, UpstreamResponse

SOURCE = "ncbi"


def _translate_error(status: int, body: bytes) -> BioMcpError | None:
    from bio_mcp.sources.ncbi.parsers.errors import error_from_body

    found = error_from_body(body, status)
    if found is None and status == 404:
        # The E-utilities answer a missing record with 200 and an error in the body: a 404 says the
        # utility is not at this address, which "not found" would pass off as an absent record.
        return BioMcpError(
            ErrorCode.UPSTREAM, "ncbi: no E-utility at this address (HTTP 404): check NCBI_EUTILS_BASE_URL"
        )
    return found


@dataclass(frozen=True)
class HistoryRef:
    webenv: str
    query_key: str


class EutilsClient:
    def __init__(self, settings: Settings, transport: httpx2.AsyncBaseTransport | None = None) -> None:
        self.settings = settings
        fixed = {"tool": settings.ncbi_tool}
        if settings.ncbi_email:
            fixed["email"] = settings.ncbi_email
        if settings.ncbi_api_key:
            fixed["api_key"] = settings.ncbi_api_key
        self.limiter = build_rate_limiter(
            SOURCE, settings.eutils_requests_per_second, settings.redis_url, settings.ncbi_api_key,
            settings.ncbi_rate_margin_ms / 1000,
        )
        self.http = UpstreamClient(
            SOURCE,
            settings.ncbi_base_url,
            self.limiter,
            max_retries=settings.ncbi_max_retries,
            timeout_s=settings.ncbi_timeout_s,
            attempt_timeout_s=settings.ncbi_attempt_timeout_s,
            max_body_bytes=settings.ncbi_max_body_bytes,
            check_body=truncated_xml,
            fixed_params=fixed,
            secret_params=frozenset({"api_key"}),
            user_agent=settings.ncbi_tool,
            translate_error=_translate_error,
            transport=transport,
        )

    def url(self, utility: str, params: Params) -> str:
        return self.http.display_url(f"{utility}.fcgi", params)

    async def call(self, utility: str, params: Params, *, force_post: bool = False) -> UpstreamResponse:
        return await self.http.request(f"{utility}.fcgi", params, force_post=force_post)

    async def esearch(
        self,
        term: str,
        *,
        retmax: int = 20,
        retstart: int = 0,
        sort: str | None = None,
        usehistory: bool = False,
        datetype: Literal["pdat", "edat", "mdat"] | None = None,
        mindate: str | None = None,
        maxdate: str | None = None,
    ) -> UpstreamResponse:
        params: dict[str, str | int] = {"db": "pubmed", "term": term, "retmax": retmax, "retstart": retstart}
        if sort:
            params["sort"] = sort
        if usehistory:
            params["usehistory"] = "y"
        if datetype and (mindate or maxdate):
            params.update({"datetype": datetype, "mindate": mindate or "1000", "maxdate": maxdate or "3000"})
        return await self.call("esearch", params)

    async def esummary(
        self,
        ids: list[str] | None = None,
        history: HistoryRef | None = None,
        retmax: int | None = None,
        retstart: int = 0,
    ) -> UpstreamResponse:
        params: dict[str, str | int | list[str]] = {"db": "pubmed", "version": "2.0"}
        if history is not None:
            params.update({"WebEnv": history.webenv, "query_key": history.query_key, "retstart": retstart})
            if retmax is not None:
                params["retmax"] = retmax
        else:
            params["id"] = ids or []
        return await self.call("esummary", params)

    async def efetch(
        self,
        ids: list[str] | None = None,
        *,
        history: HistoryRef | None = None,
        retstart: int = 0,
        retmax: int | None = None,
        medline: bool = False,
    ) -> UpstreamResponse:
        params: dict[str, str | int | list[str]] = {"db": "pubmed"}
        params.update({"rettype": "medline", "retmode": "text"} if medline else {"retmode": "xml"})
        if history is not None:
            params.update({"WebEnv": history.webenv, "query_key": history.query_key, "retstart": retstart})
            if retmax is not None:
                params["retmax"] = retmax
        else:
            params["id"] = ids or []
        return await self.call("efetch", params)

    async def elink(
        self, pmid: str, *, linkname: str | None = None, cmd: str = "neighbor", db: str = "pubmed"
    ) -> UpstreamResponse:
        params: dict[str, str] = {"dbfrom": "pubmed", "db": db, "id": pmid, "cmd": cmd}
        if linkname:
            params["linkname"] = linkname
        return await self.call("elink", params)

    async def efetch_pmc(self, pmcids: list[str]) -> UpstreamResponse:
        """PubMed Central full text (JATS XML) for PMCIDs, with or without their "PMC" prefix."""
        ids = [pmcid.upper().removeprefix("PMC") for pmcid in pmcids]
        return await self.call("efetch", {"db": "pmc", "id": ids, "retmode": "xml"})

    async def espell(self, term: str) -> UpstreamResponse:
        return await self.call("espell", {"db": "pubmed", "term": term})

    async def einfo(self, db: str | None = "pubmed") -> UpstreamResponse:
        return await self.call("einfo", {"db": db} if db else {})

    def queue_length(self) -> int:
        return self.limiter.queue_length()

    async def aclose(self) -> None:
        await self.http.aclose()
