"""A response body opened as JSON or XML, with NCBI's in-band errors raised before any parsing."""

from __future__ import annotations

import json
from typing import Any

from lxml import etree

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.parsers.errors import error_in_json, error_in_xml
from bio_mcp.sources.ncbi.xml import parse_xml


def is_json(body: bytes | str) -> bool:
    data = body.encode("utf-8") if isinstance(body, str) else body
    return data.lstrip()[:1] in (b"{", b"[")


def load_json(body: bytes | str) -> dict[str, Any]:
    """The JSON object of `body`; `BioMcpError` for invalid JSON or an NCBI error body."""
    try:
        payload = json.loads(body)
    except ValueError as exc:
        raise BioMcpError(
            ErrorCode.ENTREZ, "NCBI returned malformed JSON", {"parserMessage": str(exc)}
        ) from None
    error = error_in_json(payload)
    if error is not None:
        raise error
    if not isinstance(payload, dict):
        raise BioMcpError(
            ErrorCode.ENTREZ, "NCBI returned JSON that is not an object", {"type": type(payload).__name__}
        )
    return payload


def load_xml(body: bytes | str, *root_tags: str) -> etree._Element:
    """The root of `body` when it is one of `root_tags`; `BioMcpError(ENTREZ)` otherwise or on <ERROR>."""
    root = parse_xml(body)
    error = error_in_xml(root)
    if error is not None:
        raise error
    if root.tag not in root_tags:
        raise BioMcpError(
            ErrorCode.ENTREZ,
            f"Unexpected XML document <{root.tag}>",
            {"expected": list(root_tags), "found": str(root.tag)},
        )
    return root
