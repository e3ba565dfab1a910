"""The async ClinicalTrials.gov API v2 client: `/studies` search with paging and `/studies/{nctId}`.

It shares the house HTTP path (rate limit, one deadline per call, retries with jitter) and adds
what is particular to CT.gov: its parameter names, phases through `filter.advanced` (the API has no
phase filter of its own), and its 400/404 bodies as typed errors.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import httpx2

from bio_mcp import __version__
from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ctgov.models import StudyQuery
from bio_mcp.sources.ctgov.parse import unparsable_json
from bio_mcp.sources.ratelimit import build_rate_limiter
from bio_mcp.sources.upstream import UpstreamClient, UpstreamResponse

SOURCE = "ctgov"
MAX_PAGE_SIZE = 1000
NCT_ID = re.compile(r"^NCT\d{8}$")
STATUSES = frozenset({
    "ACTIVE_NOT_RECRUITING", "COMPLETED", "ENROLLING_BY_INVITATION", "NOT_YET_RECRUITING", "RECRUITING",
    "SUSPENDED", "TERMINATED", "WITHDRAWN", "AVAILABLE", "NO_LONGER_AVAILABLE", "TEMPORARILY_NOT_AVAILABLE",
    "APPROVED_FOR_MARKETING", "WITHHELD", "UNKNOWN",
})
PHASES = frozenset({"NA", "EARLY_PHASE1", "PHASE1", "PHASE2", "PHASE3", "PHASE4"})
DATE = re.compile(r"^\d{4}(-\d{2}){0,2}$")


def _translate_error(status: int, body: bytes) -> BioMcpError | None:
    text = body[:300].decode("utf-8", "replace").strip()
    if status == 404:
        return BioMcpError(ErrorCode.NOT_FOUND, "ClinicalTrials.gov has no such study", {"body": text})
    if status == 400:
        return BioMcpError(ErrorCode.VALIDATION, f"ClinicalTrials.gov rejected the query: {text}", {"body": text})
    return None


def phase_filter(phases: Sequence[str]) -> str:
    """`filter.advanced` Essie expression matching any of `phases` (API enums)."""
    unknown = sorted(set(phases) - PHASES)
    if unknown:
        raise BioMcpError(ErrorCode.VALIDATION, f"unknown phase(s) {unknown}", {"allowed": sorted(PHASES)})
    clauses = [f"AREA[Phase]{phase}" for phase in sorted(set(phases))]
    return clauses[0] if len(clauses) == 1 else "(" + " OR ".join(clauses) + ")"


def date_range(area: str, low: str | None, high: str | None) -> str | None:
    """`AREA[StartDate]RANGE[2020-01, MAX]`: an Essie date range, None when neither end is given."""
    if not low and not high:
        return None
    for value in (low, high):
        if value and not DATE.match(value):
            raise BioMcpError(ErrorCode.VALIDATION, "dates are YYYY, YYYY-MM or YYYY-MM-DD", {"date": value})
    return f"AREA[{area}]RANGE[{low or 'MIN'}, {high or 'MAX'}]"


def any_of(terms: Sequence[str]) -> str:
    """An Essie expression matching any of `terms` as phrases (quotes inside a term are dropped)."""
    phrases = [" ".join(term.replace('"', " ").split()) for term in terms]
    quoted = [f'"{phrase}"' for phrase in dict.fromkeys(phrases) if phrase]
    return " OR ".join(quoted)


def require_nct_id(nct_id: str) -> str:
    value = nct_id.strip().upper()
    if not NCT_ID.match(value):
        raise BioMcpError(ErrorCode.VALIDATION, "an NCT id is 'NCT' and 8 digits", {"nct_id": nct_id})
    return value


class CtgovClient:
    def __init__(self, settings: Settings, transport: httpx2.AsyncBaseTransport | None = None) -> None:
        self.settings = settings
        self.limiter = build_rate_limiter(SOURCE, settings.ctgov_rps, settings.redis_url, None)
        self.http = UpstreamClient(
            SOURCE,
            settings.ctgov_base_url,
            self.limiter,
            max_retries=settings.ctgov_max_retries,
            timeout_s=settings.ctgov_timeout_s,
            attempt_timeout_s=settings.ctgov_attempt_timeout_s,
            max_body_bytes=settings.ctgov_max_body_bytes,
            check_body=unparsable_json,
            user_agent=f"bio-mcp/{__version__}",
            translate_error=_translate_error,
            transport=transport,
        )

    def search_params(self, query: StudyQuery) -> dict[str, str | int]:
        unknown = sorted(set(query.statuses) - STATUSES)
        if unknown:
            raise BioMcpError(ErrorCode.VALIDATION, f"unknown overall status(es) {unknown}", {"allowed": sorted(STATUSES)})
        if not 1 <= query.page_size <= MAX_PAGE_SIZE:
            raise BioMcpError(
                ErrorCode.VALIDATION, f"page_size must be 1..{MAX_PAGE_SIZE}", {"page_size": query.page_size}
            )
        params: dict[str, str | int] = {"format": "json", "pageSize": query.page_size}
        for name, value in (
            ("query.cond", query.condition), ("query.term", query.term),
            ("query.intr", query.intervention), ("query.spons", query.sponsor), ("query.locn", query.location),
        ):
            if value:
                params[name] = value
        if query.statuses:
            params["filter.overallStatus"] = ",".join(sorted(set(query.statuses)))
        advanced = [
            clause for clause in (
                phase_filter(query.phases) if query.phases else None,
                date_range("StartDate", query.start_from, query.start_to),
                date_range("CompletionDate", query.completion_from, query.completion_to),
            ) if clause
        ]
        if advanced:
            params["filter.advanced"] = " AND ".join(advanced)
        if query.page_token:
            params["pageToken"] = query.page_token
        if query.count_total:
            params["countTotal"] = "true"
        if query.fields:
            params["fields"] = ",".join(query.fields)
        return params

    async def search(self, query: StudyQuery, *, timeout_s: float | None = None) -> UpstreamResponse:
        """One `/studies` page; parse it with `parse_study_page`, follow `next_page_token` for more."""
        try:
            return await self.http.request("studies", self.search_params(query), timeout_s=timeout_s)
        except BioMcpError as error:
            if error.code is not ErrorCode.NOT_FOUND:
                raise
            # A search that finds nothing is a 200 with no studies: a 404 says the endpoint is not
            # where the client looked (CTGOV_BASE_URL, or the API moved), never "no such study".
            raise BioMcpError(
                ErrorCode.UPSTREAM,
                f"ClinicalTrials.gov has no search endpoint at {self.settings.ctgov_base_url}/studies (HTTP 404): "
                "check CTGOV_BASE_URL",
                error.details,
            ) from None

    async def get_study(self, nct_id: str, *, timeout_s: float | None = None) -> UpstreamResponse:
        return await self.http.request(f"studies/{require_nct_id(nct_id)}", {"format": "json"}, timeout_s=timeout_s)

    def queue_length(self) -> int:
        return self.limiter.queue_length()

    async def aclose(self) -> None:
        await self.http.aclose()
