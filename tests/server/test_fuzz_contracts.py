"""Every tool, fuzzed from its own published input schema through the wrapper the server uses.

Valid and broken arguments (see `tests.support.contract_fuzz`): schema-invalid arguments get the
VALIDATION envelope; everything else ends ok (output matching the output schema) or in a typed
error, never UNKNOWN, never a crash. Upstream tools run against the fake E-utilities and the fake
ClinicalTrials.gov, the corpus on a SQLite file with hash embeddings. `BIO_MCP_FUZZ_EXAMPLES`
sets the cases per tool (default 150; bench/fuzz_tools.py runs 10,000).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from bio_mcp.config import TOOLSETS, load_settings
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.runtime import Runtime
from bio_mcp.server.toolset import ToolSpec, call_tool
from tests.support.contract_fuzz import FuzzCase, check, fuzz_cases, outcome

EXAMPLES = int(os.environ.get("BIO_MCP_FUZZ_EXAMPLES", "150"))


def tool_names() -> list[str]:
    with tempfile.TemporaryDirectory() as home:
        runtime = Runtime(load_settings(BIO_MCP_HOME=home))
        return sorted(spec.name for toolset in build_toolsets(runtime, list(TOOLSETS)) for spec in toolset.tools)


@pytest.fixture
def served(fakes, bio_home) -> Iterator[tuple[asyncio.Runner, dict[str, ToolSpec[Any, Any]]]]:
    configured = load_settings(
        NCBI_EUTILS_BASE_URL=fakes.eutils_base_url, CTGOV_BASE_URL=fakes.ctgov_base_url,
        PUBTATOR3_BASE_URL=fakes.pubtator3_base_url,
        EUROPEPMC_BASE_URL=fakes.europepmc_base_url, NCBI_IDCONV_BASE_URL=fakes.idconv_base_url,
        UNPAYWALL_BASE_URL=fakes.unpaywall_base_url, EUROPEPMC_RPS=10, EUROPEPMC_MAX_RETRIES=0,
        # The fakes take any rate: at NCBI's 10 per second the cases would wait on the limiter.
        NCBI_API_KEY="fuzz-key", NCBI_API_KEY_RPS=100, CTGOV_RPS=50, NCBI_MAX_RETRIES=0, NCBI_TIMEOUT_S=30,
        BIO_MCP_EMBEDDINGS_PROVIDER="hash", BIO_MCP_HOME=str(bio_home),
    )
    with asyncio.Runner() as runner:
        runtime = Runtime(configured)
        specs = {spec.name: spec for toolset in build_toolsets(runtime, list(TOOLSETS)) for spec in toolset.tools}
        try:
            yield runner, specs
        finally:
            runner.run(runtime.aclose())


@pytest.mark.parametrize("tool", tool_names())
def test_every_answer_is_ok_or_typed_and_invalid_input_is_validation(served, tool: str) -> None:
    runner, specs = served
    spec = specs[tool]
    output_schema = spec.output_schema()
    seen: dict[str, int] = {}
    kinds = {True: 0, False: 0}

    @settings(
        max_examples=EXAMPLES, deadline=None, database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(case=fuzz_cases(spec.input_schema()))
    def run(case: FuzzCase) -> None:
        result = runner.run(call_tool(spec, case.arguments))
        code = outcome(result)
        seen[code] = seen.get(code, 0) + 1
        kinds[case.schema_valid] += 1
        problem = check(case, result, output_schema)
        assert problem is None, f"{tool}({case.arguments!r}): {problem}: {result.structured_content}"

    run()
    # Both kinds of case were exercised: arguments the schema accepts, and arguments it rejects.
    assert kinds[True] > 0 and kinds[False] > 0, (kinds, seen)


def test_huge_overlap_after_a_watermark_and_a_huge_window_are_validation(served) -> None:
    runner, specs = served
    set_checkpoint = runner.run(call_tool(
        specs["corpus.checkpoint.set"], {"query_key": "k", "last_edat": "2024-06-01T00:00:00Z"}
    ))
    assert outcome(set_checkpoint) == "ok"
    too_long = runner.run(call_tool(specs["pubmed.sync_delta"], {"query_key": "k", "term": "x", "overlap_days": 10**12}))
    assert outcome(too_long) == "VALIDATION"
    longest = runner.run(call_tool(specs["pubmed.sync_delta"], {"query_key": "k", "term": "zzqx", "overlap_days": 36_500}))
    assert outcome(longest) in {"ok", "ENTREZ", "UPSTREAM"}, longest.structured_content
    asked = runner.run(call_tool(
        specs["analyst.ask"], {"question": "papers on semaglutide and obesity in the last 100000000000 days"}
    ))
    assert outcome(asked) == "VALIDATION" and "time window" in asked.meta["error"]["message"]


@pytest.mark.parametrize(
    ("value", "expected"), [(None, "VALIDATION"), ({}, "VALIDATION"), ("5", "VALIDATION"), ("", "ok"), ("  ", "ok")]
)
def test_null_and_empty_objects_are_refused_where_the_schema_says_integer(served, value, expected) -> None:
    runner, specs = served
    result = runner.run(call_tool(specs["searchPubMedArticles"], {"queryTerm": "asthma", "maxResults": value}))
    assert outcome(result) == expected, result.structured_content
    if expected == "VALIDATION":
        assert [d["loc"] for d in result.meta["error"]["details"]] == ["maxResults"]
