"""`bio-mcp sync`, `index rebuild`, `index embed`, `eval beir`, `ask --trace` and `-h`, as real processes.

The sync runs against the fake E-utilities over the real recorded records, with hash embeddings
so it takes seconds; the eval runs on a slice of the real SciFact data.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bio_mcp.cli import app
from bio_mcp.config import load_settings
from bio_mcp.features.corpus.service import pending_embeddings
from bio_mcp.graph.related import META_KEY
from bio_mcp.graph.related_refresh import related_is_stale
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.store import open_metadata_store


def _run(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    child_env = {k: v for k, v in os.environ.items() if not k.startswith(("NCBI_", "MCP_", "BIO_MCP_"))}
    # The run's one cache of the compiled MeSH linker (tests/conftest.py).
    child_env["BIO_MCP_CACHE_DIR"] = os.environ["BIO_MCP_CACHE_DIR"]
    # A wide terminal, so progress lines are not cut where the test looks for their counts.
    child_env.update({"BIO_MCP_HOME": str(home), "COLUMNS": "200", **env})
    done = subprocess.run(
        [sys.executable, "-m", "bio_mcp.cli", *args], env=child_env, capture_output=True, text=True, timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_sync_reports_progress_and_the_truth_about_pending_embeddings(fakes, bio_home: Path) -> None:
    env = {"NCBI_EUTILS_BASE_URL": fakes.eutils_base_url, "BIO_MCP_EMBEDDINGS_PROVIDER": "hash", "NCBI_API_KEY": "k"}
    done = _run(bio_home, "sync", "asthma_v1", "asthma", "--since", "1990-01-01", "--no-embed", **env)
    synced = json.loads(done.stdout)
    assert synced["inserted"] > 0
    assert "fetching 'asthma_v1'" in done.stderr and "records/s" in done.stderr
    assert f"{synced['pmids_processed']:,}" in done.stderr
    settings = load_settings(BIO_MCP_HOME=str(bio_home), BIO_MCP_EMBEDDINGS_PROVIDER="hash")
    pending = pending_embeddings(settings)
    assert pending > 0
    assert f"{pending:,} chunks still wait for vectors" in " ".join(done.stderr.split())
    assert "bio-mcp index embed" in done.stderr

    embedded = _run(bio_home, "index", "embed", **env)
    assert json.loads(embedded.stdout) == {"chunks_embedded": pending, "chunks_pending": 0}
    assert "embedding chunks" in embedded.stderr and "chunks/s" in embedded.stderr

    again = _run(bio_home, "sync", "asthma_v1", "asthma", **env)
    assert "every chunk of the corpus has its vector" in " ".join(again.stderr.split())
    # The first sync computed RELATED_TO; this one wrote nothing new.
    assert "RELATED_TO is up to date" in again.stderr

    rebuilt = _run(bio_home, "index", "rebuild", **env)
    count = json.loads(rebuilt.stdout)["chunks_indexed"]
    assert count >= pending
    assert "indexing chunks" in rebuilt.stderr and f"{count}/{count}" in rebuilt.stderr


def _related_to(settings) -> tuple[bool, dict | None]:
    """Whether RELATED_TO is stale, and what kg_meta records of its last computation."""
    store = open_metadata_store(settings)
    try:
        with store.read() as tx:
            return related_is_stale(tx.connection), SqlGraphStore(tx.connection).meta(META_KEY)
    finally:
        store.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_sync_brings_related_to_in_step_unless_told_not_to_or_the_graph_is_too_large(
    fakes, bio_home: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    env = {"NCBI_EUTILS_BASE_URL": fakes.eutils_base_url, "BIO_MCP_EMBEDDINGS_PROVIDER": "hash", "NCBI_API_KEY": "k"}
    if backend == "postgresql":
        env["DATABASE_URL"] = request.getfixturevalue("postgres_schema_url")
    settings = load_settings(BIO_MCP_HOME=str(bio_home), **{k: v for k, v in env.items() if k == "DATABASE_URL"})

    skipped = _run(bio_home, "sync", "asthma_v1", "asthma", "--since", "1990-01-01", "--no-embed", "--no-related", **env)
    assert json.loads(skipped.stdout)["inserted"] > 0
    assert "RELATED_TO" not in skipped.stderr
    assert _related_to(settings) == (True, None)

    too_large = _run(bio_home, "sync", "asthma_v1", "asthma", "--no-embed", BIO_MCP_GRAPH_RELATED_MAX_SECTIONS="1", **env)
    said = " ".join(too_large.stderr.split())
    assert "RELATED_TO was not recomputed: the graph has" in said and "`bio-mcp graph related` does it now" in said
    assert _related_to(settings) == (True, None)

    done = _run(bio_home, "sync", "asthma_v1", "asthma", "--no-embed", **env)
    stale, recorded = _related_to(settings)
    assert not stale and recorded is not None and recorded["edges"] > 0
    assert (f"RELATED_TO recomputed: {recorded['edges']:,} edges over {recorded['sections']:,} sections"
            in " ".join(done.stderr.split()))


def test_a_failing_refresh_after_sync_is_said_not_raised(bio_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bio_mcp.cli import refresh_related_after_write
    from bio_mcp.errors import BioMcpError, ErrorCode
    from bio_mcp.features.kb import rebuild

    def failing(settings, *, if_stale):
        raise BioMcpError(ErrorCode.STORE, "database error while writing: disk full")

    monkeypatch.setattr(rebuild, "refresh_configured_related", failing)
    said = refresh_related_after_write(load_settings(BIO_MCP_HOME=str(bio_home)))
    assert said == "RELATED_TO was not recomputed (database error while writing: disk full): run `bio-mcp graph related`"


@pytest.fixture
def scifact_slice(data_dir: Path, tmp_path: Path) -> Path:
    """The first 300 SciFact abstracts and the training queries judged on them."""
    source = data_dir / "bench" / "scifact"
    target = tmp_path / "scifact-slice"
    (target / "qrels").mkdir(parents=True)
    lines = (source / "corpus.jsonl").read_text().splitlines()[:300]
    (target / "corpus.jsonl").write_text("\n".join(lines) + "\n")
    kept = {json.loads(line)["_id"] for line in lines}
    qrels = (source / "qrels" / "train.tsv").read_text().splitlines()
    judged = [row for row in qrels[1:] if row.split("\t")[1] in kept]
    (target / "qrels" / "train.tsv").write_text("\n".join([qrels[0], *judged]) + "\n")
    queries = {row.split("\t")[0] for row in judged}
    for name in ("queries.train.jsonl", "queries.jsonl"):
        if (source / name).is_file():
            rows = [line for line in (source / name).read_text().splitlines() if json.loads(line)["_id"] in queries]
            (target / name).write_text("\n".join(rows) + "\n")
    return target


def test_eval_beir_in_bm25_mode_embeds_nothing(bio_home: Path, scifact_slice: Path) -> None:
    # The default onnx provider would prepare its model under BIO_MCP_HOME/models on first embed.
    done = _run(bio_home, "eval", "beir", "--data", str(scifact_slice), "--split", "train", "--mode", "bm25")
    result = json.loads(done.stdout)
    assert result["documents"] == 300 and result["queries"] > 0 and result["ndcg@10"] > 0.3
    assert result["model_id"] is None
    assert not (bio_home / "models").exists()
    assert "embedding chunks" not in done.stderr
    assert "loading scifact-slice" in done.stderr and "bm25 queries (train)" in done.stderr
    assert f"{result['queries']}/{result['queries']}" in done.stderr


def test_eval_beir_hybrid_embeds_with_a_progress_line(bio_home: Path, scifact_slice: Path) -> None:
    done = _run(
        bio_home, "eval", "beir", "--data", str(scifact_slice), "--split", "train", "--mode", "hybrid",
        BIO_MCP_EMBEDDINGS_PROVIDER="hash",
    )
    assert json.loads(done.stdout)["model_id"] == "hash:v1:384"
    assert "embedding chunks" in done.stderr and "chunks/s" in done.stderr


def test_ask_trace_prints_one_json_document(bio_home: Path) -> None:
    done = _run(
        bio_home, "ask", "recent publications on asthma in the past 6 months", "--trace",
        "--fetch-policy", "cache_only",
    )
    document = json.loads(done.stdout)
    assert document["answer"].startswith("Found 0 publication")
    assert len(document["checkpoint_id"]) == 64
    assert document["trace"]["frame"]["intent"] == "recent_pubs_by_topic"
    assert isinstance(document["trace"]["steps"], list)


@pytest.mark.parametrize(
    "command", [[], ["serve"], ["sync"], ["index"], ["index", "rebuild"], ["eval", "beir"], ["ask"], ["kg"]]
)
def test_dash_h_is_help_everywhere(command: list[str]) -> None:
    short = CliRunner().invoke(app, [*command, "-h"])
    long = CliRunner().invoke(app, [*command, "--help"])
    assert short.exit_code == 0 and "Usage" in short.output
    assert short.output == long.output


def test_ingest_dry_runs_by_default_and_writes_with_write(bio_home: Path, tmp_path: Path, data_dir: Path) -> None:
    from tests.evidence.ingest.documents import ppr_abstracts

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (_, abstract), = ppr_abstracts(data_dir, 1)
    note = inbox / "abstract.md"
    note.write_text(f"# {abstract.title}\n\n" + "\n\n".join(abstract.paragraphs), encoding="utf-8")
    env = {"BIO_MCP_EMBEDDINGS_PROVIDER": "hash", "BIO_MCP_INGEST_ROOTS": str(inbox)}

    dry = json.loads(_run(bio_home, "ingest", str(note), **env).stdout)
    assert dry["dry_run"] and dry["files"][0]["status"] == "would_write" and dry["counts"]["written"] == 0
    written = _run(bio_home, "ingest", str(note), "--write", **env)
    body = json.loads(written.stdout)
    assert body["status"] == "done" and body["files"][0]["status"] == "written"
    assert body["files"][0]["doc_id"] in written.stderr
    settings = load_settings(BIO_MCP_HOME=str(bio_home), BIO_MCP_EMBEDDINGS_PROVIDER="hash")
    assert pending_embeddings(settings) == 0  # the command embedded what it wrote
    # The file's mentions are in the graph's RELATED_TO statistics before the command returns.
    stale, recorded = _related_to(settings)
    assert not stale and recorded is not None
    assert f"RELATED_TO recomputed: {recorded['edges']:,} edges over {recorded['sections']:,} sections" in written.stderr
    assert "RELATED_TO" not in _run(bio_home, "ingest", str(note), **env).stderr  # a dry run writes nothing


def test_a_postgresql_url_without_the_postgres_extra_names_it(bio_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As in the default install; the message's brackets must reach the terminal (they are not markup).
    monkeypatch.setitem(sys.modules, "psycopg", None)
    done = CliRunner().invoke(app, ["serve"], env={"DATABASE_URL": "postgresql://postgres@127.0.0.1/test"})
    assert done.exit_code == 1
    assert "VALIDATION: PostgreSQL needs the psycopg driver" in " ".join(done.stderr.split())
    assert "pip install 'bio-mcp[postgres]'" in " ".join(done.stderr.split())
