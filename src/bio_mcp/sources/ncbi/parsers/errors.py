"""NCBI's error bodies, recognised and turned into typed `BioMcpError`s.

NCBI reports failure in-band: `<ERROR>` elements (often with HTTP 200), JSON `{"error": ...}` or
`{"esearchresult": {"ERROR": ...}}`, and for throttling a JSON body such as
`{"error":"API rate limit exceeded","api-key":"...","count":"5","limit":"3"}` with HTTP 429.
NCBI's own words go in `details["ncbiMessages"]`. Search notes such as PhraseNotFound are not errors:
the ESearch parser keeps them as warnings.
"""

from __future__ import annotations

import json
from typing import Any

from lxml import etree

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.xml import parse_xml

RATE_LIMIT_MESSAGE = "API rate limit exceeded"
_UTILITY_BY_ROOT = {
    "eSearchResult": "esearch",
    "eSummaryResult": "esummary",
    "eLinkResult": "elink",
    "eInfoResult": "einfo",
    "ePostResult": "epost",
    "eFetchResult": "efetch",
    "PubmedArticleSet": "efetch",
    "eSpellResult": "espell",
}
_RESULT_KEYS = ("esearchresult", "einforesult", "esummaryresult", "elinkresult", "epostresult", "result")


def entrez_error(messages: list[str], utility: str | None = None) -> BioMcpError:
    details: dict[str, Any] = {"ncbiMessages": messages}
    if utility:
        details["utility"] = utility
    return BioMcpError(ErrorCode.ENTREZ, f"NCBI E-utilities error: {'; '.join(messages)}", details)


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def rate_limit_error(payload: dict[str, Any]) -> BioMcpError:
    # NCBI echoes the caller's API key (or IP) in "api-key": it must never reach a client.
    details = {
        "ncbiMessages": [str(payload.get("error"))],
        "count": _int_or_none(payload.get("count")),
        "limit": _int_or_none(payload.get("limit")),
    }
    return BioMcpError(ErrorCode.RATE_LIMIT, "NCBI E-utilities rate limit exceeded", details)


def _messages(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list):
        return [message for item in value for message in _messages(item)]
    if value:
        return [json.dumps(value, sort_keys=True)]
    return []


def error_in_json(payload: Any) -> BioMcpError | None:
    """The error an E-utilities JSON body reports, or None."""
    if not isinstance(payload, dict):
        return None
    header = payload.get("header")
    utility = header.get("type") if isinstance(header, dict) else None
    if "error" in payload:
        if str(payload["error"]).strip().lower() == RATE_LIMIT_MESSAGE.lower():
            return rate_limit_error(payload)
        messages = _messages(payload["error"])
        if messages:
            return entrez_error(messages, utility)
    for key in _RESULT_KEYS:
        result = payload.get(key)
        if isinstance(result, dict):
            messages = _messages(result.get("ERROR")) + _messages(result.get("error"))
        elif key == "esummaryresult" and isinstance(result, list):
            # ESummary JSON reports a bad request as a bare list of messages.
            messages = _messages(result)
        else:
            continue
        if messages:
            return entrez_error(messages, utility)
    return None


def error_in_xml(root: etree._Element) -> BioMcpError | None:
    """The error of an E-utilities XML document: non-empty <ERROR> children of the root, or None."""
    messages = [
        " ".join(error.text.split()) for error in root.iterfind("ERROR") if error.text and error.text.strip()
    ]
    return entrez_error(messages, _UTILITY_BY_ROOT.get(str(root.tag), str(root.tag))) if messages else None


def error_from_body(body: bytes | str, status: int | None = None) -> BioMcpError | None:
    """The NCBI error a response body reports (JSON, XML or the 429 body), or None.

    For a transport to classify a failed response: a body that is neither recognisable JSON nor
    well-formed XML is not an NCBI error body and gives None. With HTTP 429 any JSON `error` is
    NCBI's throttling, whatever its wording.
    """
    data = body.encode("utf-8") if isinstance(body, str) else body
    stripped = data.lstrip()
    if stripped[:1] in (b"{", b"["):
        try:
            payload = json.loads(stripped)
        except ValueError:
            return None
        if status == 429 and isinstance(payload, dict) and "error" in payload:
            return rate_limit_error(payload)
        return error_in_json(payload)
    if stripped[:1] == b"<":
        try:
            return error_in_xml(parse_xml(stripped))
        except BioMcpError:
            return None
    return None
