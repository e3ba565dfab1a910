"""The official MCP Inspector CLI (npm `@modelcontextprotocol/inspector`, on Node 22) against the real
`bio-mcp serve`, over stdio and over Streamable HTTP: it lists the tools with `--strict` schema
portability checks, calls every tool with good and bad arguments, and reads every resource.

The Inspector is the client many users meet first, and its TypeScript SDK checks what Python's does
not (a result's structured content against the tool's output schema, tool-name and schema
portability). `.ci/run` installs it (`.ci/install-inspector`); outside CI a missing Node 22 or
Inspector skips these tests, under BIO_MCP_STRICT=1 it fails them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from test_transports import BIO_MCP, SECRET, server_env, serving_http

from bio_mcp.server.auth import mint_token
from bio_mcp.server.scratch_pages import NOTE_PREFIX

INSPECTOR_HOME = Path(os.environ.get("BIO_MCP_INSPECTOR_HOME", Path.home() / ".cache" / "bio-mcp" / "inspector"))
LAUNCHER = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
MIN_NODE = (22, 19)
SEMAGLUTIDE = "29915538"
PORTABLE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# The Inspector's exit codes: 0 success, 5 the tool answered isError, 6 --strict found schema problems.
TOOL_IS_ERROR = 5


@pytest.fixture(scope="module")
def inspector(require_part: Callable[[str], None]) -> list[str]:
    """The command that runs the Inspector CLI: Node 22 and the Inspector's launcher."""
    node = INSPECTOR_HOME / "node_modules" / ".bin" / "node"
    launcher = INSPECTOR_HOME / LAUNCHER
    if not (node.exists() and launcher.is_file()):
        require_part(f"the MCP Inspector and Node 22 are not installed under {INSPECTOR_HOME} (run .ci/install-inspector)")
    version = subprocess.run([str(node), "--version"], check=False, capture_output=True, text=True, timeout=60).stdout.strip()
    found = tuple(int(part) for part in version.lstrip("v").split(".")[:2])
    if found < MIN_NODE:
        require_part(f"the Inspector needs Node >= {'.'.join(map(str, MIN_NODE))}, found {version}")
    return [str(node), str(launcher), "--cli"]


def inspector_env(home: Path) -> dict[str, str]:
    # Node 22 first on PATH for anything the launcher starts; the Inspector's own state in the test's folder.
    return {**os.environ, "PATH": f"{INSPECTOR_HOME / 'node_modules' / '.bin'}:{os.environ['PATH']}",
            "HOME": str(home), "MCP_CLIENT_CONFIG_PATH": str(home / "client.json")}


class Run:
    def __init__(self, args: list[str], completed: subprocess.CompletedProcess[str]) -> None:
        self.args = args
        self.code = completed.returncode
        self.stderr = completed.stderr
        output = json.loads(completed.stdout) if completed.stdout.strip() else {}
        self.result: dict[str, Any] = output.get("result", output) if isinstance(output, dict) else {}

    def __repr__(self) -> str:
        return f"inspector {' '.join(self.args[-6:])} -> exit {self.code}: {self.stderr[-1500:]}"


class Inspector:
    """One server entry of an Inspector config file (stdio command or HTTP URL, with generous timeouts:
    the first corpus call opens the store and indexes, which takes a while on a loaded machine)."""

    def __init__(self, command: list[str], server: dict[str, Any], home: Path) -> None:
        self.command, self.env = command, inspector_env(home)
        self.config = home / f"inspector-{len(list(home.glob('inspector-*.json')))}.json"
        entry = {**server, "connectionTimeout": 180_000, "requestTimeout": 300_000}
        self.config.write_text(json.dumps({"mcpServers": {"bio": entry}}))

    def run(self, method: str, *options: str) -> Run:
        args = [*self.command, "--format", "json", "-q", "--config", str(self.config), "--server", "bio",
                "--method", method, *options]
        completed = subprocess.run(args, check=False, env=self.env, capture_output=True, text=True, timeout=600)
        return Run(args, completed)

    def call(self, tool: str, arguments: dict[str, Any]) -> Run:
        return self.run("tools/call", "--tool-name", tool, "--tool-args-json", json.dumps(arguments))

    def read(self, uri: str) -> Run:
        return self.run("resources/read", "--uri", uri)


def assert_ok(run: Run) -> dict[str, Any]:
    assert run.code == 0, run
    result = run.result
    assert result.get("isError") is not True and result["structuredContent"], run
    assert result["content"][0]["type"] == "text" and len(result["content"][0]["text"]) <= 65_536
    assert result["_meta"]["audit"]["status"] == "ok"
    return result


def assert_error(run: Run, code: str) -> dict[str, Any]:
    assert run.code == TOOL_IS_ERROR, run
    result = run.result
    assert result["isError"] is True and "structuredContent" not in result, run
    envelope = json.loads(result["content"][0]["text"])
    assert envelope["error"]["code"] == code == result["_meta"]["error"]["code"], envelope
    return envelope["error"]


def assert_text_resource(run: Run) -> dict[str, Any]:
    assert run.code == 0, run
    [content] = run.result["contents"]
    assert "text" in content and "blob" not in content, content
    return content


def assert_resource_missing(run: Run, message: str) -> None:
    """A protocol error from resources/read (the Inspector prints its message), not a read of an error body."""
    assert run.code != 0 and not run.result and message in run.stderr, run


def server_vars(fakes, home: Path) -> dict[str, str]:
    # No entity linker: loading its MeSH dictionary can take longer than the Inspector's fixed 60 s
    # request timeout on a loaded 2-core machine, and linking is not what this test is about.
    env = {"NCBI_EUTILS_BASE_URL": fakes.eutils_base_url, "CTGOV_BASE_URL": fakes.ctgov_base_url,
           "PUBTATOR3_BASE_URL": fakes.pubtator3_base_url,
           "EUROPEPMC_BASE_URL": fakes.europepmc_base_url, "NCBI_IDCONV_BASE_URL": fakes.idconv_base_url,
           "UNPAYWALL_BASE_URL": fakes.unpaywall_base_url,
           "BIO_MCP_HOME": str(home), "BIO_MCP_EMBEDDINGS_PROVIDER": "hash", "BIO_MCP_GRAPH_LINKING": "false",
           # The recorded records are years old: a first sync looks back far enough to find them.
           "BIO_MCP_SYNC_LOOKBACK_DAYS": "36500", "BIO_MCP_INGEST_ROOTS": str(home / "inbox")}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def check_listing(client: Inspector) -> list[str]:
    listed = client.run("tools/list", "--strict")
    assert listed.code == 0, listed  # 6 would mean schema portability errors
    names = [tool["name"] for tool in listed.result["tools"]]
    assert names and all(PORTABLE.match(name) for name in names), names
    return names


def test_inspector_over_stdio(inspector, fakes, bio_home, tmp_path) -> None:
    server = {"type": "stdio", "command": BIO_MCP, "args": ["serve"], "env": server_vars(fakes, bio_home)}
    client = Inspector(inspector, server, tmp_path)
    runs = {
        "list": lambda: check_listing(client),
        "prompts": lambda: client.run("prompts/list"),
        "search": lambda: client.call("searchPubMedArticles", {"queryTerm": "asthma", "fetchBriefSummaries": 2}),
        "bad": lambda: client.call("fetchArticleDetails", {"pmids": ["12a"]}),
        "local": lambda: client.call("corpus_checkpoint_get", {"query_key": "stdio"}),
        "info": lambda: client.read("pubmed-connect://info"),
    }
    with ThreadPoolExecutor(max_workers=3) as pool:
        done = {name: pool.submit(job) for name, job in runs.items()}
        out = {name: future.result() for name, future in done.items()}
    assert "rag_search" in out["list"] and "analyst_ask" in out["list"]
    assert {p["name"] for p in out["prompts"].result["prompts"]} == {"literature_review_plan", "trial_landscape"}
    search = assert_ok(out["search"])
    assert search["structuredContent"]["totalFound"] > 0
    assert_error(out["bad"], "VALIDATION")
    assert assert_ok(out["local"])["structuredContent"] == {"query_key": "stdio", "last_edat": None}
    info = json.loads(assert_text_resource(out["info"])["text"])
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", info["mcpSpecVersion"])


@pytest.fixture
def http_inspector(inspector, fakes, bio_home, tmp_path):
    env = server_env(fakes, bio_home, MCP_AUTH_SECRET_KEY=SECRET, **server_vars(fakes, bio_home))
    env.pop("BIO_MCP_TOOLSETS")  # every toolset
    with serving_http(env) as base:
        server = {"type": "http", "url": f"{base}/mcp", "headers": {"Authorization": f"Bearer {mint_token(SECRET)}"}}
        yield Inspector(inspector, server, tmp_path)


def in_parallel(jobs: dict[str, Any]) -> dict[str, Run]:
    with ThreadPoolExecutor(max_workers=3) as pool:
        done = {name: pool.submit(job) for name, job in jobs.items()}
        return {name: future.result() for name, future in done.items()}


def test_inspector_over_http_calls_every_tool_and_reads_every_resource(http_inspector, fakes, bio_home) -> None:
    client = http_inspector
    ingested = bio_home / "inbox" / "note.md"
    ingested.parent.mkdir(exist_ok=True)
    ingested.write_text("# Semaglutide\n\nSemaglutide lowers body weight in adults with obesity.\n", encoding="utf-8")
    names = set(check_listing(client))
    pmids = fakes.eutils.pmids[:80]

    # The corpus first: the later calls read what this sync stored.
    sync = assert_ok(client.call("pubmed_sync_delta", {"query_key": "inspector", "term": "semaglutide"}))
    assert sync["structuredContent"]["inserted"] > 0

    good = {
        "searchPubMedArticles": {"queryTerm": "asthma", "maxResults": 5, "fetchBriefSummaries": 3},
        "fetchArticleDetails": {"pmids": pmids},
        "getArticleRelationships": {"sourcePmid": SEMAGLUTIDE, "relationshipType": "citation_formats",
                                    "citationStyles": ["vancouver", "apa_string", "ris"]},
        "formatCitations": {"pmids": pmids[:20], "styles": ["vancouver", "bibtex"]},
        "rag_search": {"query": "semaglutide", "top_k": 3},
        "corpus_checkpoint_get": {"query_key": "inspector"},
        "corpus_checkpoint_set": {"query_key": "inspector-backfill", "last_edat": "2020-01-01T00:00:00Z"},
        "analyst_ask": {"question": "active phase 2/3 trials in non-small cell lung cancer"},
        "trials_search": {"condition": "melanoma", "page_size": 3},
        "trials_get": {"nct_id": "NCT02552212"},
        "pubtator_annotations": {"pmids": ["22663011"]},
        "fetchFullText": {"pmcid": "PMC3040717"},
        "europepmc_search": {"query": "machine learning", "pageSize": 5, "preprintsOnly": True},
        "europepmc_citations": {"id": "34308300", "direction": "references"},
        "lookupMeshTerms": {"query": "tylenol", "limit": 3},
        "kb_search": {"query": "semaglutide", "top_k": 3},
        "graph_entities": {"query": "semaglutide"},
        "graph_traverse": {"seed_ids": [f"pmid:{SEMAGLUTIDE}"], "max_depth": 1},
        "tool_query_kg": {"start": {"type": "indication", "id": "mesh:D003924"}},
        "tool_find_contraindications": {"herb_ids": ["mesh:D005737"], "formulation_ids": []},
        "tool_ingest_run": {"batch": [{"uri": ingested.as_uri()}]},
        "tool_hybrid_search": {"query": "semaglutide", "top_k": 3},
        "tool_rag_answer": {"question": "Does semaglutide reduce body weight?", "retrieval": {"top_k": 3}},
        "tool_eval_run": {"set": "smoke", "metrics": ["R@k", "MRR"], "params": {"max_queries": 3}},
    }
    bad = {
        "searchPubMedArticles": ({"queryTerm": "ab"}, "VALIDATION"),
        "fetchArticleDetails": ({"pmids": ["12a"]}, "VALIDATION"),
        "getArticleRelationships": ({"sourcePmid": "99999999", "relationshipType": "citation_formats"}, "NOT_FOUND"),
        "formatCitations": ({"pmids": [], "styles": ["vancouver"]}, "VALIDATION"),
        "pubmed_sync_delta": ({"query_key": "", "term": "asthma"}, "VALIDATION"),
        "rag_search": ({"query": "asthma", "top_k": 500}, "VALIDATION"),
        "rag_get": ({"doc_id": "pmid:999999999"}, "NOT_FOUND"),
        "corpus_checkpoint_get": ({}, "VALIDATION"),
        "corpus_checkpoint_set": ({"query_key": "inspector", "last_edat": "yesterday"}, "VALIDATION"),
        "analyst_ask": ({"question": "Is it?"}, "VALIDATION"),
        "trials_search": ({"page_size": 0}, "VALIDATION"),
        "trials_get": ({"nct_id": "NCT00000000"}, "NOT_FOUND"),
        "pubtator_annotations": ({"pmids": []}, "VALIDATION"),
        "fetchFullText": ({"pmcid": "not-a-pmc-id"}, "VALIDATION"),
        "europepmc_search": ({"query": "cancer", "resultType": "full"}, "VALIDATION"),
        "europepmc_citations": ({"id": "34308300", "page": 0}, "VALIDATION"),
        "lookupMeshTerms": ({"query": ""}, "VALIDATION"),
        "kb_search": ({"query": "semaglutide", "top_k": 500}, "VALIDATION"),
        "kb_retrieve_evidence": ({"section_ids": []}, "VALIDATION"),
        "graph_entities": ({"query": "x", "limit": 0}, "VALIDATION"),
        "graph_traverse": ({"seed_ids": []}, "VALIDATION"),
        "tool_query_kg": ({"start": {"type": "herb", "id": "mesh:D030024"}, "max_depth": 9}, "VALIDATION"),
        "tool_find_contraindications": ({"herb_ids": ["no such herb"]}, "VALIDATION"),
        "tool_ingest_run": ({"batch": []}, "VALIDATION"),
        "tool_hybrid_search": ({"query": "semaglutide", "top_k": 0}, "VALIDATION"),
        "tool_rag_answer": ({"question": "semaglutide", "retrieval": {"top_k": 50}}, "VALIDATION"),
        "tool_eval_run": ({"set": "weekly"}, "VALIDATION"),
    }
    out = in_parallel({f"good:{tool}": (lambda t=tool, a=args: client.call(t, a)) for tool, args in good.items()}
                      | {f"bad:{tool}": (lambda t=tool, a=args: client.call(t, a[0])) for tool, args in bad.items()})
    results = {tool: assert_ok(out[f"good:{tool}"]) for tool in good}
    for tool, (_, code) in bad.items():
        assert_error(out[f"bad:{tool}"], code)
    assert set(bad) == names, names ^ set(bad)  # every listed tool was called with bad arguments too

    doc_id = results["rag_search"]["structuredContent"]["results"][0]["doc_id"]
    got = assert_ok(client.call("rag_get", {"doc_id": doc_id}))
    section_id = results["kb_search"]["structuredContent"]["evidence"][0]["section_id"]
    assert_ok(client.call("kb_retrieve_evidence", {"section_ids": [section_id]}))
    called = set(good) | {"pubmed_sync_delta", "rag_get", "kb_retrieve_evidence"}
    assert called == names, names ^ called  # every listed tool was called with good arguments

    details = results["fetchArticleDetails"]["structuredContent"]
    checkpoint_id = results["analyst_ask"]["structuredContent"]["checkpoint_id"]
    job_id = results["tool_ingest_run"]["structuredContent"]["job_id"]
    reads = {
        "job": f"bio-mcp://jobs/{job_id}",
        "job_log": f"bio-mcp://jobs/{job_id}/log",
        "info": "pubmed-connect://info",
        "stats": "pubmed-connect://stats/pubmed",
        "paper": f"resource://pubmed/paper/{doc_id.removeprefix('pmid:')}",
        "seed_paper": f"paper://pmid/{doc_id.removeprefix('pmid:')}",
        "eval_report": results["tool_eval_run"]["structuredContent"]["report_uri"],
        "checkpoint": f"analyst://checkpoint/{checkpoint_id}",
        "sync": "bio-mcp://sync/inspector",
    }
    if "overflow" in details:
        reads["scratch"] = details["overflow"]["uri"]
    missing_uris = {"resource://pubmed/paper/999999999": "not in the local corpus",
                    "analyst://checkpoint/" + "0" * 64: "no such checkpoint",
                    "bio-mcp://scratch/" + "0" * 64: "never existed or has expired",
                    "kg://herb/mesh:D003474": "is neither a herb of the knowledge graph"}
    out = in_parallel({name: (lambda u=uri: client.read(u)) for name, uri in reads.items()}
                      | {uri: (lambda u=uri: client.read(u)) for uri in missing_uris}
                      | {"resources": lambda: client.run("resources/list"),
                         "templates": lambda: client.run("resources/templates/list")})
    contents = {name: assert_text_resource(out[name]) for name in reads}
    assert json.loads(contents["paper"]["text"]) == got["structuredContent"]
    assert json.loads(contents["seed_paper"]["text"])["title"] == got["structuredContent"]["title"]
    assert contents["eval_report"]["text"].startswith("# Evaluation report")
    assert json.loads(contents["checkpoint"]["text"])["blob_uris"]
    assert json.loads(contents["stats"]["text"])["databaseName"] == "pubmed"
    assert json.loads(contents["job"]["text"])["job_id"] == job_id
    assert json.loads(contents["sync"]["text"])["jobs"][0]["job_id"] == sync["structuredContent"]["job_id"]
    assert "note.md" in contents["job_log"]["text"]
    if "scratch" in contents:
        # A long scratch text comes in pages, each naming the next (server/scratch_pages.py).
        pages = [contents["scratch"]["text"]]
        while following := re.search(r"the next page is (\S+);", pages[-1][pages[-1].rfind(NOTE_PREFIX):]):
            pages.append(assert_text_resource(client.read(following.group(1)))["text"])
        rest = json.loads("".join(page[:page.rfind(NOTE_PREFIX)] if NOTE_PREFIX in page else page for page in pages))
        assert [a["pmid"] for a in details["articles"] + rest] == pmids
    for uri, message in missing_uris.items():
        assert_resource_missing(out[uri], message)
    listed = {r["uri"] for r in out["resources"].result["resources"]}
    templates = {t["uriTemplate"] for t in out["templates"].result["resourceTemplates"]}
    assert listed == {"pubmed-connect://info", "pubmed-connect://stats/pubmed"}
    assert templates == {"resource://pubmed/paper/{pmid}", "analyst://checkpoint/{checkpoint_id}",
                         "bio-mcp://scratch/{scratch_id}", "bio-mcp://scratch/{scratch_id}/{page}",
                         "bio-mcp://tools/{name}/schema", "kg://herb/{id}", "bio-mcp://jobs/{job_id}",
                         "bio-mcp://jobs/{job_id}/log", "paper://pmid/{pmid}", "bio-mcp://eval/{report_id}",
                         "bio-mcp://eval/{report_id}/json", "bio-mcp://sync/{query_key}"}


def test_inspector_over_http_with_an_external_issuer(inspector, fakes, bio_home, tmp_path) -> None:
    issuer = "https://login.example.org/realms/bio"
    env = server_env(fakes, bio_home, MCP_AUTH_SECRET_KEY=SECRET, MCP_AUTH_ISSUER=issuer,
                     **server_vars(fakes, bio_home))
    with serving_http(env) as base:
        token = mint_token(SECRET, issuer=issuer)
        with_token = Inspector(inspector, {"type": "http", "url": f"{base}/mcp",
                                           "headers": {"Authorization": f"Bearer {token}"}}, tmp_path)
        assert "searchPubMedArticles" in check_listing(with_token)
        # Without a token the Inspector follows the 401's resource_metadata to the issuer, and stops there
        # (the issuer is not reachable from a test): auth is required, not a broken metadata endpoint.
        without = Inspector(inspector, {"type": "http", "url": f"{base}/mcp"}, tmp_path).run(
            "tools/list", "--stored-auth-only")
        assert without.code != 0 and "auth" in (without.stderr + json.dumps(without.result)).lower(), without
