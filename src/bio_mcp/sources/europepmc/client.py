"""The async Europe PMC REST client: search (cursorMark paging), a paper's citations and references,
and an open-access article's full text (JATS, `fullTextXML`).

It shares the house HTTP path (rate limit, one deadline per call, retries with jitter, size cap)
and keeps successful answers for LITERATURE_CACHE_TTL_S.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlencode

import httpx2

from bio_mcp import __version__
from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.europepmc.parse import error_message, incomplete_body
from bio_mcp.sources.ratelimit import build_rate_limiter
from bio_mcp.sources.response_cache import ResponseCache, request_key
from bio_mcp.sources.upstream import POST_THRESHOLD_CHARS, Params, UpstreamClient, UpstreamResponse

SOURCE = "europepmc"
MAX_PAGE_SIZE = 1000
MAX_LINK_PAGE_SIZE = 1000
# Europe PMC's source codes (MED: PubMed, PMC, PPR: preprints, AGR, CBA, CTX, ETH, HIR, PAT, NBK).
SOURCES = frozenset({"MED", "PMC", "PPR", "AGR", "CBA", "CTX", "ETH", "HIR", "PAT", "NBK"})
PMCID = re.compile(r"^PMC\d+$")
Direction = Literal["citations", "references"]


def _translate_error(status: int, body: bytes) -> BioMcpError | None:
    message = error_message(body)
    if status == 404:
        return BioMcpError(ErrorCode.NOT_FOUND, f"Europe PMC: {message or 'not found'}", {"reason": message})
    if status == 400:
        return BioMcpError(ErrorCode.VALIDATION, f"Europe PMC rejected the request: {message or 'HTTP 400'}")
    return None


class EuropePmcClient:
    def __init__(self, settings: Settings, transport: httpx2.AsyncBaseTransport | None = None) -> None:
        self.settings = settings
        self.limiter = build_rate_limiter(SOURCE, settings.europepmc_rps, settings.redis_url, None)
        self.cache: ResponseCache[UpstreamResponse] = ResponseCache(settings.literature_cache_ttl_s)
        self.http = UpstreamClient(
            SOURCE,
            settings.europepmc_base_url,
            self.limiter,
            max_retries=settings.europepmc_max_retries,
            timeout_s=settings.europepmc_timeout_s,
            attempt_timeout_s=settings.europepmc_attempt_timeout_s,
            max_body_bytes=settings.europepmc_max_body_bytes,
            check_body=incomplete_body,
            user_agent=f"bio-mcp/{__version__}",
            translate_error=_translate_error,
            transport=transport,
        )

    async def _get(self, path: str, params: Params) -> UpstreamResponse:
        return await self.cache.get(request_key(path, params), lambda: self.http.request(path, params))

    async def search(
        self, query: str, *, result_type: Literal["lite", "core"] = "lite", page_size: int = 25,
        cursor: str = "*", sort: str | None = None, synonym: bool = False,
    ) -> UpstreamResponse:
        if not 1 <= page_size <= MAX_PAGE_SIZE:
            raise BioMcpError(ErrorCode.VALIDATION, f"pageSize must be 1..{MAX_PAGE_SIZE}", {"pageSize": page_size})
        params: dict[str, str | int] = {
            "query": query, "resultType": result_type, "pageSize": page_size, "cursorMark": cursor or "*",
            "format": "json",
        }
        if sort:
            params["sort"] = sort
        if synonym:
            params["synonym"] = "true"
        try:
            if len(urlencode(params)) > POST_THRESHOLD_CHARS:
                # A long query goes in a form body, which Europe PMC takes at searchPOST only.
                return await self.http.request("searchPOST", params, force_post=True)
            return await self._get("search", params)
        except BioMcpError as error:
            if error.code is not ErrorCode.NOT_FOUND:
                raise
            # A search that matches nothing is a 200 with hitCount 0: a 404 means no search endpoint here.
            raise BioMcpError(
                ErrorCode.UPSTREAM,
                f"Europe PMC has no search endpoint at {self.settings.europepmc_base_url}/search (HTTP 404): "
                "check EUROPEPMC_BASE_URL", error.details,
            ) from None

    async def links(
        self, source: str, article_id: str, direction: Direction, *, page: int = 1, page_size: int = 25
    ) -> UpstreamResponse:
        """One page (1-based) of the works citing (`citations`) or cited by (`references`) a paper."""
        source = source.upper()
        if source not in SOURCES:
            raise BioMcpError(ErrorCode.VALIDATION, f"unknown Europe PMC source {source!r}", {"allowed": sorted(SOURCES)})
        if not 1 <= page_size <= MAX_LINK_PAGE_SIZE:
            raise BioMcpError(ErrorCode.VALIDATION, f"pageSize must be 1..{MAX_LINK_PAGE_SIZE}")
        params = {"page": page, "pageSize": page_size, "format": "json"}
        return await self._get(f"{source}/{article_id}/{direction}", params)

    async def full_text_xml(self, pmcid: str) -> UpstreamResponse:
        """The JATS full text of an open-access article; NOT_FOUND when Europe PMC has none for it."""
        pmcid = pmcid.upper()
        if not PMCID.match(pmcid):
            raise BioMcpError(ErrorCode.VALIDATION, "a PMCID is 'PMC' and digits", {"pmcid": pmcid})
        return await self._get(f"{pmcid}/fullTextXML", {})

    def url(self, path: str, params: Params) -> str:
        return self.http.display_url(path, params)

    def queue_length(self) -> int:
        return self.limiter.queue_length()

    async def aclose(self) -> None:
        await self.http.aclose()
