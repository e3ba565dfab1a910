"""Result sizes an MCP client receives: structured content and text of the gateway's largest answers.

Starts the fake E-utilities server over the real records and calls the tools through the MCP server
in-process, once with the result budget (BIO_MCP_TEXT_BUDGET, default 64 KiB) and once with the
largest budget allowed, which keeps every record inline (what a client got before the budget).
Prints JSON lines: characters of structured content (as JSON) and of text, per call.

    .venv/bin/python bench/result_sizes.py --data ../shared/data
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import anyio
from figures import emit
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets, server_options
from bio_mcp.server.runtime import Runtime
from bio_mcp.testing import run_fakes

UNBOUNDED = 10_000_000
MANY_AUTHORS = "27454254"  # 1,004 authors



async def measure(base_url: str, home: str, budget: int, pmids: list[str]) -> None:
    settings = load_settings(NCBI_EUTILS_BASE_URL=base_url, BIO_MCP_HOME=home, BIO_MCP_TOOLSETS="pubmed",
                             BIO_MCP_TEXT_BUDGET=str(budget))
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("details_abstract_plus_80", "fetchArticleDetails", {"pmids": pmids[:80]}),
        ("details_full_xml_80", "fetchArticleDetails", {"pmids": pmids[:80], "detailLevel": "full_xml"}),
        ("format_citations_200_all_styles", "formatCitations",
         {"pmids": pmids[:200], "styles": ["vancouver", "apa_string", "mla_string", "bibtex", "ris"]}),
        ("apa_citation_1004_authors", "getArticleRelationships",
         {"sourcePmid": MANY_AUTHORS, "relationshipType": "citation_formats", "citationStyles": ["apa_string"]}),
    ]
    async with Runtime(settings) as runtime:
        async with Client(build_server(build_toolsets(runtime), options=server_options(runtime))) as client:
            for name, tool, arguments in calls:
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, result.content[0].text
                structured = len(json.dumps(result.structured_content, ensure_ascii=False))
                params = {"budget": budget, "tool": tool}
                emit(f"{name}_structured_chars", structured, "chars", **params)
                emit(f"{name}_text_chars", len(result.content[0].text), "chars", **params)
                if tool == "getArticleRelationships":
                    emit(f"{name}_citation_chars", len(result.structured_content["citations"]["apa_string"]),
                         "chars", **params)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    args = parser.parse_args()
    with run_fakes(args.data) as fakes:
        for budget in (65_536, UNBOUNDED):
            with tempfile.TemporaryDirectory() as home:
                anyio.run(measure, fakes.eutils_base_url, home, budget, fakes.eutils.pmids)


if __name__ == "__main__":
    main()
