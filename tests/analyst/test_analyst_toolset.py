"""`analyst.ask` and the checkpoint resource through a real MCP client session, over the fakes."""

from __future__ import annotations

import json
from datetime import date

import jsonschema
import pytest
from mcp import Client

from bio_mcp.features.analyst.ask import Analyst
from bio_mcp.server.app import build_server
from bio_mcp.server.toolsets.analyst import build_analyst_toolset

QUESTION = "active phase 2/3 trials in non-small cell lung cancer"


@pytest.mark.anyio
async def test_ask_over_mcp_matches_the_output_schema_and_resolves_its_checkpoint(fakes, analyst: Analyst) -> None:
    toolset = build_analyst_toolset(analyst, today=lambda: date(2026, 8, 11))
    async with Client(build_server([toolset])) as client:
        [tool] = (await client.list_tools()).tools
        assert tool.name == "analyst_ask" and tool.input_schema["required"] == ["question"]
        result = await client.call_tool("analyst.ask", {"question": QUESTION, "time_budget_ms": 5000})
        assert not result.is_error
        jsonschema.validate(result.structured_content, tool.output_schema)
        body = result.structured_content
        assert "| [NCT06382129] |" in body["answer"] and body["trace"]["steps"][0]["cache_hit"] is False
        summary = result.content[0].text
        assert summary.startswith("Found 2 trial(s)") and body["checkpoint_id"] in summary
        assert result.meta["audit"]["status"] == "ok"

        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["analyst://checkpoint/{checkpoint_id}",
                                                       "bio-mcp://tools/{name}/schema"]
        read = await client.read_resource(f"analyst://checkpoint/{body['checkpoint_id']}")
        document = json.loads(read.contents[0].text)
        assert document["registry_version"] == analyst.registry.registry_version and document["blob_uris"]

        bad = await client.call_tool("analyst.ask", {"question": "Is it?"})
        assert bad.is_error and bad.meta["error"]["code"] == "VALIDATION"
        extra = await client.call_tool("analyst.ask", {"question": QUESTION, "fetch_policy": "sometimes"})
        assert extra.is_error and extra.meta["error"]["code"] == "VALIDATION"
