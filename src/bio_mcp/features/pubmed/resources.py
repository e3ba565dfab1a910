"""The gateway's resources: pubmed-connect://info (server and NCBI compliance) and pubmed-connect://stats/pubmed."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bio_mcp import __version__
from bio_mcp.config import Settings
from bio_mcp.mesh_files import mesh_status
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.parsers.einfo import parse_einfo

SUPPORTED_EUTILITIES = ["ESearch", "EFetch", "ESummary", "ELink", "EInfo", "ESpell"]


def _iso(timestamp: float | None) -> str | None:
    return datetime.fromtimestamp(timestamp, UTC).isoformat().replace("+00:00", "Z") if timestamp else None


def server_info(settings: Settings, eutils: EutilsClient, protocol_version: str | None) -> dict[str, Any]:
    """`protocol_version`: the MCP protocol version negotiated with the client reading this."""
    stats = eutils.http.stats
    if stats.last_success_at is None and stats.last_failure_at is None:
        status = "Unknown (no NCBI request yet)"
    elif (stats.last_failure_at or 0) > (stats.last_success_at or 0):
        status = f"Degraded (last request failed: {stats.last_error_code})"
    else:
        status = "Nominal"
    rate = settings.eutils_requests_per_second
    limit = eutils.limiter.limit
    return {
        "serverName": "bio-mcp",
        "serverVersion": __version__,
        "description": "MCP Server for intelligent PubMed access via NCBI E-utilities.",
        "contactEmail": settings.ncbi_email,
        "mcpSpecVersion": protocol_version,
        "ncbiCompliance": {
            "apiUsageStatus": "NCBI API Key in use" if settings.ncbi_api_key else "No NCBI API key: limited to 3 requests/sec",
            "toolIdentifier": settings.ncbi_tool,
            "ncbiUsagePolicyUrl": "https://www.ncbi.nlm.nih.gov/books/NBK25497/",
            "currentRateLimitAdherence": (
                f"At most {limit} request starts per {eutils.limiter.window_s:g}s ({rate:g}/s), "
                + ("shared across replicas through Redis" if settings.redis_url else "shared by every call in this process")
            ),
        },
        "supportedEutilities": SUPPORTED_EUTILITIES,
        "operationalStatus": {
            "lastNcbiConnectivityCheck": _iso(max(stats.last_success_at or 0, stats.last_failure_at or 0) or None),
            "ncbiStatus": status,
            "internalQueueLength": eutils.queue_length(),
            "requestsSent": stats.requests,
            "failedCalls": stats.failures,
        },
        # Where the analyst's MeSH synonyms come from, and a loud warning when there are none.
        "mesh": mesh_status(settings).to_json(),
        "documentationUrl": "README.md",
    }


async def pubmed_stats(eutils: EutilsClient) -> dict[str, Any]:
    response = await eutils.einfo("pubmed")
    info = parse_einfo(response.body).db_info
    if info is None:
        return {"databaseName": "pubmed", "eInfoUrl": response.url}
    return {
        "databaseName": info.db_name,
        "menuName": info.menu_name,
        "description": info.description,
        "dbBuild": info.db_build,
        "totalRecordCount": info.count,
        "lastUpdate": info.last_update,
        "availableSearchFields": [
            {"name": f.name, "fullName": f.full_name, "description": f.description, "isDate": f.is_date,
             "isNumerical": f.is_numerical, "termCount": str(f.term_count) if f.term_count is not None else None}
            for f in info.fields
        ],
        "availableLinkNames": [
            {"name": link.name, "menu": link.menu, "description": link.description, "dbTo": link.db_to}
            for link in info.links
        ],
        "eInfoUrl": response.url,
    }
