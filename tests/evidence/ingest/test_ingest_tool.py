"""tool.ingest.run through the server's call path: the seed's shape with the audit in the body, typed
VALIDATION errors for unsupported providers, and the job resources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bio_mcp.server.toolset import call_tool
from bio_mcp.server.toolsets.evidence import ingest_tools
from tests.evidence.ingest.conftest import IngestEnv
from tests.evidence.ingest.documents import ppr_abstracts

pytestmark = pytest.mark.anyio


async def test_the_seed_shape_with_audit_and_the_job_resources(ingest_env: IngestEnv, data_dir: Path) -> None:
    (_, abstract), = ppr_abstracts(data_dir, 1)
    path = ingest_env.root / "abstract.txt"
    path.write_text(abstract.text, encoding="utf-8")
    tools, resources = ingest_tools(ingest_env.make())
    (spec,) = tools
    assert spec.name == "tool.ingest.run" and spec.audit_in_body and not spec.read_only

    result = await call_tool(spec, {"batch": [{"uri": path.as_uri(), "lang": "en", "doc_type": "txt"}]})

    assert not result.is_error
    body = result.structured_content
    assert body is not None
    assert {"job_id", "status", "log_uri", "audit"} <= set(body)
    assert body["status"] == "done" and body["dry_run"] is True
    assert set(body["audit"]) >= {"in_hash", "out_hash", "latency_ms", "seed", "status"}
    assert body["files"][0]["status"] == "would_write" and body["files"][0]["doc_type"] == "text"
    text = result.content[0].text  # type: ignore[union-attr]
    assert body["job_id"] in text and "would_write" in text

    by_uri = {resource.uri: resource for resource in resources}
    status = json.loads(await by_uri["bio-mcp://jobs/{job_id}"].read(body["job_id"]))
    assert status["status"] == "done" and status["counts"]["files"] == 1
    assert status["counts"]["characters"] == body["counts"]["characters"]
    assert body["log_uri"] == f"bio-mcp://jobs/{body['job_id']}/log"
    log = await by_uri["bio-mcp://jobs/{job_id}/log"].read(body["job_id"])
    assert "abstract.txt" in log


@pytest.mark.parametrize(
    ("arguments", "supported"),
    [
        ({"ocr": {"provider": "abbyy"}}, "tesseract"),
        ({"ner": {"provider": "spacy"}}, "graph"),
        ({"ocr": {"provider": "tesseract", "params": {"psm": 6}}}, "languages"),
    ],
)
async def test_unsupported_providers_are_validation_errors_naming_what_is_supported(
    ingest_env: IngestEnv, arguments: dict[str, object], supported: str
) -> None:
    (spec,), _ = ingest_tools(ingest_env.make())
    path = ingest_env.root / "x.txt"
    path.write_text("text", encoding="utf-8")
    result = await call_tool(spec, {"batch": [{"uri": path.as_uri()}], **arguments})
    assert result.is_error
    envelope = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert envelope["error"]["code"] == "VALIDATION" and "audit" in envelope
    assert supported in json.dumps(envelope["error"]["details"])


async def test_an_unknown_job_is_not_found(ingest_env: IngestEnv) -> None:
    _, resources = ingest_tools(ingest_env.make())
    from bio_mcp.errors import BioMcpError, ErrorCode

    with pytest.raises(BioMcpError) as caught:
        await resources[0].read("f" * 32)
    assert caught.value.code is ErrorCode.NOT_FOUND
    with pytest.raises(BioMcpError) as invalid:
        await resources[0].read("../etc")
    assert invalid.value.code is ErrorCode.VALIDATION
