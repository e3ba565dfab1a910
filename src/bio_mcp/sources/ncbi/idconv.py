"""NCBI's PMC ID Converter: PMIDs, PMCIDs and DOIs mapped to one another (JSON answers).

A separate service from the E-utilities at its own address, under the same NCBI request ceiling.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import unquote

import httpx2

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ratelimit import build_rate_limiter
from bio_mcp.sources.response_cache import ResponseCache, request_key
from bio_mcp.sources.upstream import UpstreamClient, UpstreamResponse

SOURCE = "ncbi-idconv"
MAX_IDS = 200


@dataclass(frozen=True)
class IdRecord:
    requested: str
    pmid: str | None = None
    pmcid: str | None = None
    doi: str | None = None
    error: str | None = None


def _message(body: bytes) -> str | None:
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    message = document.get("message") if isinstance(document, dict) else None
    # The service percent-encodes its own error messages ('ID%20type%20%27doi%27%20mismatch').
    return unquote(message) if isinstance(message, str) else None


def _translate_error(status: int, body: bytes) -> BioMcpError | None:
    message = _message(body)
    if message is not None and status < 500:
        return BioMcpError(ErrorCode.VALIDATION, f"the PMC ID Converter refused the ids: {message}")
    return None


def parse_idconv(body: bytes | str) -> list[IdRecord]:
    """The records of an ID Converter answer; one that names an error gives UPSTREAM."""
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise BioMcpError(ErrorCode.UPSTREAM, "the PMC ID Converter returned a body that is not JSON") from None
    if not isinstance(document, dict) or document.get("status") == "error":
        message = _message(body if isinstance(body, bytes) else body.encode())
        raise BioMcpError(ErrorCode.UPSTREAM, f"the PMC ID Converter answered an error: {message}")
    records = []
    for item in document.get("records") or []:
        requested = str(item.get("requested-id") or item.get("doi") or item.get("pmcid") or item.get("pmid") or "")
        records.append(IdRecord(
            requested=requested,
            pmid=str(item["pmid"]) if item.get("pmid") else None,
            pmcid=item.get("pmcid") or None,
            doi=item.get("doi") or None,
            error=item.get("errmsg") if item.get("status") == "error" else None,
        ))
    return records


class IdConverterClient:
    def __init__(self, settings: Settings, transport: httpx2.AsyncBaseTransport | None = None) -> None:
        fixed = {"tool": settings.ncbi_tool, "format": "json"}
        if settings.ncbi_email:
            fixed["email"] = settings.ncbi_email
        self.limiter = build_rate_limiter(
            SOURCE, settings.ncbi_requests_per_second, settings.redis_url, None, settings.ncbi_rate_margin_ms / 1000
        )
        self.cache: ResponseCache[UpstreamResponse] = ResponseCache(settings.literature_cache_ttl_s)
        self.http = UpstreamClient(
            SOURCE,
            settings.idconv_base_url,
            self.limiter,
            max_retries=settings.ncbi_max_retries,
            timeout_s=settings.ncbi_timeout_s,
            attempt_timeout_s=settings.ncbi_attempt_timeout_s,
            max_body_bytes=1024 * 1024,
            fixed_params=fixed,
            user_agent=settings.ncbi_tool,
            translate_error=_translate_error,
            transport=transport,
        )

    async def convert(self, ids: list[str]) -> UpstreamResponse:
        """The records for up to 200 ids of one kind (all PMIDs, all PMCIDs or all DOIs)."""
        if not 1 <= len(ids) <= MAX_IDS:
            raise BioMcpError(ErrorCode.VALIDATION, f"give 1..{MAX_IDS} ids to convert")
        params = {"ids": ",".join(ids)}
        return await self.cache.get(request_key("", params), lambda: self.http.request("", params))

    async def aclose(self) -> None:
        await self.http.aclose()
