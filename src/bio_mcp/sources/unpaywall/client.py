"""The async Unpaywall v2 client: a DOI's open-access status and its best open-access location.

Unpaywall asks for an email on every request (UNPAYWALL_EMAIL, else NCBI_ADMIN_EMAIL).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import quote

import httpx2

from bio_mcp import __version__
from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ratelimit import build_rate_limiter
from bio_mcp.sources.response_cache import ResponseCache, request_key
from bio_mcp.sources.upstream import UpstreamClient, UpstreamResponse

SOURCE = "unpaywall"
# Unpaywall asks for at most 100,000 calls a day; a few a second is far below and polite.
REQUESTS_PER_SECOND = 5.0


@dataclass(frozen=True)
class OaLocation:
    url: str
    url_for_pdf: str | None
    version: str | None
    license: str | None
    host_type: str | None


@dataclass(frozen=True)
class UnpaywallRecord:
    doi: str
    is_oa: bool
    oa_status: str | None
    title: str | None
    best_location: OaLocation | None


def _translate_error(status: int, body: bytes) -> BioMcpError | None:
    if status == 404:
        return BioMcpError(ErrorCode.NOT_FOUND, "Unpaywall has no record of this DOI")
    if status == 422:
        return BioMcpError(ErrorCode.VALIDATION, "Unpaywall refused the request (a DOI and a real email are needed)",
                           {"body": body[:300].decode("utf-8", "replace")})
    return None


def parse_unpaywall(body: bytes | str) -> UnpaywallRecord:
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise BioMcpError(ErrorCode.UPSTREAM, "Unpaywall returned a body that is not JSON") from None
    if not isinstance(document, dict) or not document.get("doi"):
        raise BioMcpError(ErrorCode.UPSTREAM, "Unpaywall returned no DOI record")
    best = document.get("best_oa_location")
    location = None
    if isinstance(best, dict) and (best.get("url") or best.get("url_for_pdf")):
        location = OaLocation(
            url=best.get("url") or best["url_for_pdf"], url_for_pdf=best.get("url_for_pdf"),
            version=best.get("version"), license=best.get("license"), host_type=best.get("host_type"),
        )
    return UnpaywallRecord(
        doi=document["doi"], is_oa=bool(document.get("is_oa")), oa_status=document.get("oa_status"),
        title=document.get("title"), best_location=location,
    )


class UnpaywallClient:
    def __init__(self, settings: Settings, transport: httpx2.AsyncBaseTransport | None = None) -> None:
        self.email = settings.unpaywall_email or settings.ncbi_email
        self.limiter = build_rate_limiter(SOURCE, REQUESTS_PER_SECOND, settings.redis_url, None)
        self.cache: ResponseCache[UpstreamResponse] = ResponseCache(settings.literature_cache_ttl_s)
        self.http = UpstreamClient(
            SOURCE,
            settings.unpaywall_base_url,
            self.limiter,
            max_retries=2,
            timeout_s=15.0,
            attempt_timeout_s=6.0,
            max_body_bytes=4 * 1024 * 1024,
            fixed_params={"email": self.email} if self.email else None,
            user_agent=f"bio-mcp/{__version__}",
            translate_error=_translate_error,
            transport=transport,
        )

    async def lookup(self, doi: str) -> UpstreamResponse:
        if not self.email:
            raise BioMcpError(
                ErrorCode.VALIDATION, "Unpaywall needs an email: set UNPAYWALL_EMAIL or NCBI_ADMIN_EMAIL"
            )
        path = quote(doi.strip(), safe="/:;()")
        return await self.cache.get(request_key(path, {}), lambda: self.http.request(path, {}))

    async def aclose(self) -> None:
        await self.http.aclose()
