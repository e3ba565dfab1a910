"""EPost (ePostResult): the history-server keys of the uploaded ids."""

from __future__ import annotations

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.models import PostResult
from bio_mcp.sources.ncbi.parsers.body import load_xml
from bio_mcp.sources.ncbi.xml import element_text


def parse_epost(body: bytes | str) -> PostResult:
    root = load_xml(body, "ePostResult")
    web_env = element_text(root.find("WebEnv"))
    query_key = element_text(root.find("QueryKey"))
    if not web_env or not query_key:
        raise BioMcpError(ErrorCode.ENTREZ, "NCBI returned an EPost result without WebEnv and QueryKey", None)
    return PostResult(web_env=web_env, query_key=query_key)
