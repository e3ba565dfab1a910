"""The async PubTator3 client: `publications/export/biocjson` for up to 100 PMIDs a request.

It shares the house HTTP path (rate limit at NCBI's three requests a second, one deadline per
call, retries with jitter, size cap) and keeps each PMID's annotations in memory for a day:
PubTator3 updates weekly, and an agent often asks again about the papers it has just read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import httpx2

from bio_mcp import __version__
from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.pubtator3.models import PublicationAnnotations, PublicationText
from bio_mcp.sources.pubtator3.parse import parse_biocjson_texts, unparsable_json
from bio_mcp.sources.ratelimit import build_rate_limiter
from bio_mcp.sources.response_cache import ResponseCache
from bio_mcp.sources.upstream import UpstreamClient

SOURCE = "pubtator3"
MAX_PMIDS_PER_REQUEST = 100
CACHED_PMIDS = 10_000
PMID = re.compile(r"^\d{1,9}$")


def _translate_error(status: int, body: bytes) -> BioMcpError | None:
    if status in (400, 404):
        text = body[:300].decode("utf-8", "replace").strip()
        return BioMcpError(
            ErrorCode.UPSTREAM,
            f"PubTator3 refused the request (HTTP {status}): {text}",
            {"status": status, "body": text},
        )
    return None


class Pubtator3Client:
    def __init__(self, settings: Settings, transport: httpx2.AsyncBaseTransport | None = None) -> None:
        self.http = UpstreamClient(
            SOURCE,
            settings.pubtator3_base_url,
            build_rate_limiter(SOURCE, settings.pubtator3_rps, settings.redis_url, None),
            max_retries=settings.pubtator3_max_retries,
            timeout_s=settings.pubtator3_timeout_s,
            attempt_timeout_s=settings.pubtator3_attempt_timeout_s,
            max_body_bytes=settings.pubtator3_max_body_bytes,
            check_body=unparsable_json,
            user_agent=f"bio-mcp/{__version__}",
            translate_error=_translate_error,
            transport=transport,
        )
        # Kept by PMID, not by request, so a batch overlapping an earlier one asks only for the rest.
        self.cache: ResponseCache[PublicationText] = ResponseCache(settings.pubtator3_cache_ttl_s, CACHED_PMIDS)
        self.urls: list[str] = []

    async def annotations(self, pmids: Sequence[str]) -> dict[str, PublicationAnnotations]:
        """The annotations of each PMID PubTator3 has, by PMID; a PMID it lacks is absent."""
        return {pmid: text.annotations for pmid, text in (await self.texts(pmids)).items()}

    async def texts(self, pmids: Sequence[str]) -> dict[str, PublicationText]:
        """The annotations of each PMID PubTator3 has with its passage texts, by PMID; a PMID it
        lacks is absent."""
        wanted = list(dict.fromkeys(p.strip() for p in pmids))
        bad = [p for p in wanted if not PMID.match(p)]
        if bad:
            raise BioMcpError(ErrorCode.VALIDATION, "a PMID is 1 to 9 digits", {"pmids": bad})
        found = {p: kept for p in wanted if (kept := self.cache.kept(p)) is not None}
        missing = [p for p in wanted if p not in found]
        for start in range(0, len(missing), MAX_PMIDS_PER_REQUEST):
            batch = missing[start : start + MAX_PMIDS_PER_REQUEST]
            response = await self.http.request("publications/export/biocjson", {"pmids": ",".join(batch)})
            for publication in parse_biocjson_texts(response.body):
                pmid = publication.annotations.pmid
                if pmid in batch:
                    found[pmid] = publication
                    self.cache.keep(pmid, publication)
        return {p: found[p] for p in wanted if p in found}

    async def aclose(self) -> None:
        await self.http.aclose()
