"""The `bio-mcp` command: the server, the offline fakes, tokens, and the features from a terminal."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Annotated

import anyio
import typer
from rich.console import Console
from rich.markup import escape

from bio_mcp import __version__
from bio_mcp.config import Settings, load_settings
from bio_mcp.errors import BioMcpError
from bio_mcp.logs import configure_logging

app = typer.Typer(
    name="bio-mcp",
    help="Bio-MCP: an MCP server for evidence-grade access to PubMed and ClinicalTrials.gov.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Every subcommand's context inherits this: `-h` works like `--help` everywhere.
    context_settings={"help_option_names": ["-h", "--help"]},
)
err = Console(stderr=True)
_SETTING_NAMES = {
    name for info in Settings.model_fields.values()
    for name in ([info.validation_alias] if isinstance(info.validation_alias, str)
                 else [c for c in getattr(info.validation_alias, "choices", ()) if isinstance(c, str)])
}


def settings_or_exit(**overrides: object) -> Settings:
    """Settings with `overrides` named by their environment variables: Settings ignores any other
    key, so a field's own name (`duke_dir=`) would silently do nothing."""
    unknown = sorted(set(overrides) - _SETTING_NAMES)
    if unknown:
        raise TypeError(f"not settings' environment variables: {', '.join(unknown)}")
    try:
        return load_settings(**{k: v for k, v in overrides.items() if v is not None})
    except BioMcpError as exc:
        err.print(f"[red]error:[/red] {escape(exc.message)}")
        raise typer.Exit(2) from None


def fail(exc: BioMcpError) -> None:
    # escape: messages hold brackets that are not markup (pip install 'bio-mcp[postgres]', [tiab]).
    err.print(f"[red]{exc.code.value}:[/red] {escape(exc.message)}")
    if exc.details:
        err.print(json.dumps(exc.details, indent=2, default=str))
    raise typer.Exit(1)


@app.command()
def serve(
    transport: Annotated[str | None, typer.Option(help="stdio or http (default MCP_TRANSPORT_TYPE, else stdio)")] = None,
    toolsets: Annotated[str | None, typer.Option(help="Comma-separated toolsets (default BIO_MCP_TOOLSETS: all)")] = None,
    host: Annotated[str | None, typer.Option(help="HTTP host (MCP_HTTP_HOST)")] = None,
    port: Annotated[int | None, typer.Option(help="HTTP port (MCP_HTTP_PORT)")] = None,
    grpc_port: Annotated[
        int | None, typer.Option(help="Also serve seed 003's gRPC read surface on this port (BIO_MCP_GRPC_PORT)")
    ] = None,
) -> None:
    """Run the MCP server over stdio or Streamable HTTP (/mcp, alias /_mcp), and gRPC with --grpc-port."""
    settings = settings_or_exit(
        MCP_TRANSPORT_TYPE=transport, BIO_MCP_TOOLSETS=toolsets, MCP_HTTP_HOST=host, MCP_HTTP_PORT=port,
        BIO_MCP_GRPC_PORT=grpc_port,
    )
    configure_logging(settings.log_level, settings.logs_dir)
    from bio_mcp.server.process import run_server

    try:
        run_server(settings)
    except BioMcpError as exc:
        fail(exc)


@app.command()
def fakes(
    data: Annotated[Path, typer.Option(help="The shared data folder (real recorded records)")] = Path("../shared/data"),
    host: Annotated[str, typer.Option(help="Listen address")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Listen port")] = 8765,
) -> None:
    """Serve the offline fake E-utilities, ClinicalTrials.gov and PubTator3 APIs on one port."""
    from bio_mcp.testing.fakes_app import serve_fakes

    err.print(
        f"fake E-utilities at http://{host}:{port}/entrez/eutils, fake ClinicalTrials.gov at http://{host}:{port}/api/v2, "
        f"fake PubTator3 at http://{host}:{port}/research/pubtator3-api"
    )
    serve_fakes(data, host, port)


@app.command()
def token(
    subject: Annotated[str, typer.Option(help="The token's subject")] = "developer",
    ttl: Annotated[int, typer.Option(help="Lifetime in seconds (at most MCP_AUTH_MAX_TOKEN_LIFETIME_S)")] = 3600,
) -> None:
    """Mint an HS256 bearer token signed with MCP_AUTH_SECRET_KEY (for development)."""
    settings = settings_or_exit()
    if not settings.auth_secret_key:
        err.print("[red]error:[/red] set MCP_AUTH_SECRET_KEY (at least 32 characters) first")
        raise typer.Exit(2)
    from bio_mcp.server.auth import mint_token

    try:
        token = mint_token(settings.auth_secret_key, subject, ttl, settings.auth_audience, settings.auth_issuer,
                           max_lifetime_s=settings.auth_max_token_lifetime_s)
    except BioMcpError as exc:
        fail(exc)
    sys.stdout.write(token + "\n")


@app.command()
def version() -> None:
    """Print the version."""
    sys.stdout.write(f"bio-mcp {__version__}\n")


@app.command()
def doctor(as_json: Annotated[bool, typer.Option("--json", help="One JSON object per check")] = False) -> None:
    """Check what the server will use: data files, NCBI settings, the store, Redis, OCR, WordNet, disk.

    Exits 1 when a part the server needs is broken, saying how to fix it.
    """
    from rich.table import Table

    from bio_mcp.doctor import run_checks

    checks = run_checks(settings_or_exit())
    if as_json:
        for check in checks:
            sys.stdout.write(json.dumps(dataclasses.asdict(check), ensure_ascii=False) + "\n")
    else:
        colours = {"ok": "green", "warn": "yellow", "fail": "red"}
        table = Table("part", "status", "what was found", "how to fix", title="bio-mcp doctor")
        for check in checks:
            table.add_row(check.part, f"[{colours[check.status]}]{check.status}[/]", escape(check.detail),
                          escape(check.fix))
        Console().print(table)
    if any(check.status == "fail" for check in checks):
        raise typer.Exit(1)


@app.command()
def sync(
    query_key: Annotated[str, typer.Argument(help="The query's checkpoint key, e.g. glp1_obesity_v1")],
    term: Annotated[str, typer.Argument(help="The PubMed search term")],
    overlap_days: Annotated[int, typer.Option(min=0, help="Days re-read before the watermark")] = 5,
    since: Annotated[str | None, typer.Option(
        help="First sync only: start date YYYY-MM-DD (default: BIO_MCP_SYNC_LOOKBACK_DAYS, 365, before today)")] = None,
    max_records: Annotated[int | None, typer.Option(
        min=1, help="At most about this many records this run (default BIO_MCP_SYNC_MAX_RECORDS); run again to go on")] = None,
    embed: Annotated[bool, typer.Option(help="Embed every new chunk before returning")] = True,
    related: Annotated[bool | None, typer.Option(
        help="Recompute the graph's RELATED_TO before returning if the sync changed it "
        "(default BIO_MCP_GRAPH_RELATED_AFTER_SYNC, on; skipped above BIO_MCP_GRAPH_RELATED_MAX_SECTIONS)")] = None,
) -> None:
    """Sync one query's new and revised PubMed records into the local corpus and its graph (pubmed.sync_delta)."""
    from datetime import date

    from bio_mcp.cli_progress import ProgressBars
    from bio_mcp.features.corpus.models import SyncDeltaRequest
    from bio_mcp.features.corpus.service import pending_embeddings, sync_once, sync_options_of

    settings = settings_or_exit()
    configure_logging("warning", settings.logs_dir)
    bars = ProgressBars(err, {"records": f"fetching {query_key!r}", "chunks": "embedding chunks"})
    try:
        options = sync_options_of(settings, since=date.fromisoformat(since) if since else None, progress=bars)
        request = SyncDeltaRequest(query_key=query_key, term=term, overlap_days=overlap_days, max_records=max_records)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    with bars:
        bars.stage("records")
        try:
            response = anyio.run(lambda: sync_once(settings, request, options, embed=embed, embed_progress=bars))
            pending = pending_embeddings(settings)
        except BioMcpError as exc:
            fail(exc)
    sys.stdout.write(json.dumps(response.to_json(), indent=2) + "\n")
    err.print(pending_message(pending))
    if settings.graph_related_after_sync if related is None else related:
        err.print(refresh_related_after_write(settings), markup=False, highlight=False)


def refresh_related_after_write(settings: Settings) -> str:
    """RELATED_TO brought in step after a sync or an ingestion, and the line that says what was
    done. A failure is said, not raised: the documents have been committed."""
    from bio_mcp.features.kb.rebuild import refresh_configured_related

    with err.status("recomputing the graph's RELATED_TO"):
        try:
            done = refresh_configured_related(settings, if_stale=True)
        except BioMcpError as exc:
            return f"RELATED_TO was not recomputed ({exc.message}): run `bio-mcp graph related`"
    if done.status == "current":
        return f"RELATED_TO is up to date: {done.edges:,} edges over {done.sections:,} sections"
    if done.status == "too_large":
        return (
            f"RELATED_TO was not recomputed: the graph has {done.sections:,} sections, more than "
            f"BIO_MCP_GRAPH_RELATED_MAX_SECTIONS ({settings.graph_related_max_sections:,}; about 10 s per 100,000). "
            "A `bio-mcp serve` on this corpus recomputes it in the background (when it starts and after its own "
            "syncs); `bio-mcp graph related` does it now"
        )
    return (
        f"RELATED_TO recomputed: {done.edges:,} edges over {done.sections:,} sections "
        f"in {done.read_s + done.write_s:.2f} s"
    )


@app.command()
def ingest(
    files: Annotated[list[Path], typer.Argument(help="Files or folders to ingest (PDF, text, Markdown, HTML) under BIO_MCP_INGEST_ROOTS")],
    write: Annotated[bool, typer.Option(help="Write to the corpus and graph (default: a dry run that writes nothing)")] = False,
    lang: Annotated[str, typer.Option(help="th, en or auto")] = "auto",
    doc_type: Annotated[str, typer.Option(help="pdf, text, markdown, html or auto (from the extension)")] = "auto",
    related: Annotated[bool | None, typer.Option(
        help="With --write: recompute the graph's RELATED_TO before returning if the files changed it "
        "(default BIO_MCP_GRAPH_RELATED_AFTER_SYNC, on; skipped above BIO_MCP_GRAPH_RELATED_MAX_SECTIONS)")] = None,
) -> None:
    """Ingest files into the local corpus and knowledge graph (tool.ingest.run), OCR included."""
    from pydantic import ValidationError

    from bio_mcp.features.evidence.ingest_jobs import ingest_once, summarize
    from bio_mcp.features.evidence.ingest_models import IngestRunRequest

    settings = settings_or_exit()
    configure_logging("warning", settings.logs_dir)
    try:
        request = IngestRunRequest.model_validate({
            "dry_run": not write,
            "batch": [{"uri": path.resolve().as_uri(), "lang": lang, "doc_type": doc_type} for path in files],
        })
    except ValidationError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    with err.status("ingesting"):
        try:
            response = anyio.run(lambda: ingest_once(settings, request))
        except BioMcpError as exc:
            fail(exc)
    sys.stdout.write(json.dumps(response.to_json(), indent=2, ensure_ascii=False) + "\n")
    err.print(summarize(response), markup=False, highlight=False)
    # Even after an error: the files written before it changed the graph.
    if write and (settings.graph_related_after_sync if related is None else related):
        err.print(refresh_related_after_write(settings), markup=False, highlight=False)
    if response.status == "error":
        raise typer.Exit(1)


def pending_message(pending: int) -> str:
    """The end-of-sync line: whether every chunk has its vector, and if not how they get one."""
    if pending == 0:
        return "every chunk of the corpus has its vector: rag.search is fully hybrid"
    return (
        f"{pending:,} chunks still wait for vectors (rag.search finds them by keywords only until then): "
        "`bio-mcp serve` embeds them in the background, or run `bio-mcp index embed` to embed them now"
    )


data_app = typer.Typer(help="Data files the server uses, installed under BIO_MCP_HOME.", no_args_is_help=True)
app.add_typer(data_app, name="data")


@data_app.command("install-mesh")
def data_install_mesh(
    file: Annotated[Path, typer.Argument(help="NLM's descriptor XML (desc2025.xml, gzipped or not) or a "
                                              "mesh_descriptors_*.jsonl (ui, name, terms, tree_numbers)")],
) -> None:
    """Validate MeSH descriptors and install them (atomically) under BIO_MCP_HOME/mesh/, in place of the
    MeSH 2024 the package ships; from NLM's XML the pharmacological actions are installed too."""
    from bio_mcp.mesh_files import install_mesh

    settings = settings_or_exit()
    try:
        target, count = install_mesh(settings, file)
    except BioMcpError as exc:
        fail(exc)
    sys.stdout.write(f"installed {count} MeSH descriptors at {target}\n")


@data_app.command("build-vocabularies")
def data_build_vocabularies(
    data: Annotated[Path, typer.Option(help="The shared data folder (mesh/, herbs/, ontology/, bench/bc5cdr/)")] = Path(
        "../shared/data"),
    relation_model: Annotated[Path | None, typer.Option(
        help="Also learn PPR's training split into this file (for BIO_MCP_RELATIONS_TRAINING; never shipped)")] = None,
) -> None:
    """Rebuild the vocabularies the package ships (src/bio_mcp/vocabularies/) from the shared data folder."""
    from bio_mcp.vocabularies.build import build_relation_model, build_vocabularies

    with err.status("building the vocabularies"):
        built = build_vocabularies(data)
        if relation_model is not None:
            built.append(build_relation_model(data, relation_model))
    for item in built:
        sys.stdout.write(json.dumps(item.__dict__) + "\n")


index_app = typer.Typer(help="The corpus's derived search indexes.", no_args_is_help=True)
app.add_typer(index_app, name="index")


@index_app.command("rebuild")
def index_rebuild() -> None:
    """Rebuild the BM25 and vector indexes from the metadata store."""
    from bio_mcp.cli_progress import ProgressBars
    from bio_mcp.features.corpus.service import rebuild_indexes
    from bio_mcp.sources.ncbi.client import EutilsClient

    settings = settings_or_exit()
    configure_logging("warning", settings.logs_dir)
    bars = ProgressBars(err, {"chunks": "indexing chunks"})

    async def run() -> int:
        eutils = EutilsClient(settings)
        try:
            return await rebuild_indexes(settings, eutils, bars)
        finally:
            await eutils.aclose()

    with bars:
        bars.stage("chunks")
        try:
            count = anyio.run(run)
        except BioMcpError as exc:
            fail(exc)
    sys.stdout.write(json.dumps({"chunks_indexed": count}) + "\n")


@index_app.command("embed")
def index_embed() -> None:
    """Embed every chunk still waiting for a vector (what the server does in the background)."""
    from bio_mcp.cli_progress import ProgressBars
    from bio_mcp.features.corpus.service import embed_pending_once, pending_embeddings

    settings = settings_or_exit()
    configure_logging("warning", settings.logs_dir)
    bars = ProgressBars(err, {"chunks": "embedding chunks"})
    with bars:
        try:
            count = anyio.run(lambda: embed_pending_once(settings, bars))
            pending = pending_embeddings(settings)
        except BioMcpError as exc:
            fail(exc)
    sys.stdout.write(json.dumps({"chunks_embedded": count, "chunks_pending": pending}) + "\n")


eval_app = typer.Typer(help="Retrieval, entity-linking and relation-extraction evaluation.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")


@eval_app.command("beir")
def eval_beir(
    data: Annotated[Path, typer.Option(help="A BEIR folder: corpus.jsonl, queries*.jsonl, qrels/SPLIT.tsv")],
    split: Annotated[str, typer.Option(help="The qrels split, e.g. train or test")] = "test",
    mode: Annotated[str, typer.Option(help="bm25, vector or hybrid")] = "hybrid",
    quality_bias: Annotated[bool, typer.Option("--quality-bias/--no-quality-bias")] = False,
    max_queries: Annotated[int | None, typer.Option(help="Evaluate only the first N queries")] = None,
) -> None:
    """Load a BEIR data set into a scratch corpus through the sync's chunk/embed/index path and score rag.search.

    With --mode bm25 nothing is embedded.
    """
    from bio_mcp.features.corpus.eval_beir import evaluate_beir

    if mode not in ("bm25", "vector", "hybrid"):
        err.print("[red]error:[/red] --mode must be bm25, vector or hybrid")
        raise typer.Exit(2)
    from bio_mcp.cli_progress import ProgressBars

    settings = settings_or_exit()
    configure_logging("warning", settings.logs_dir)
    bars = ProgressBars(
        err, {"documents": f"loading {data.name}", "chunks": "embedding chunks", "queries": f"{mode} queries ({split})"}
    )
    with bars:
        try:
            result = evaluate_beir(
                data, split, mode, quality_bias, settings, max_queries=max_queries, progress=bars
            )
        except BioMcpError as exc:
            fail(exc)
    sys.stdout.write(json.dumps(result) + "\n")


@eval_app.command("run")
def eval_run(
    set_name: Annotated[str, typer.Option("--set", help="smoke, curated (BIO_MCP_EVAL_DATA) or custom (--param path=DIR)")] = "smoke",
    metric: Annotated[list[str] | None, typer.Option(help="R@k, MRR, nDCG@k, factuality, ... (repeatable)")] = None,
    param: Annotated[list[str] | None, typer.Option(help="KEY=VALUE, e.g. k=10, max_queries=20, datasets=ppr,pubmedqa")] = None,
) -> None:
    """tool.eval.run from a terminal: score retrieval on the corpus in BIO_MCP_HOME, store the report, print it (Markdown)."""
    from bio_mcp.features.evidence.evaluation import run_from_terminal

    settings = settings_or_exit()
    configure_logging("warning", settings.logs_dir)
    params: dict[str, object] = {}
    for item in param or []:
        key, sep, value = item.partition("=")
        if not sep:
            err.print(f"[red]error:[/red] --param {item!r} is not KEY=VALUE")
            raise typer.Exit(2)
        params[key] = [v for v in value.split(",") if v] if key == "datasets" else (int(value) if value.isdigit() else value)
    with err.status(f"evaluating ({set_name})"):
        try:
            markdown = anyio.run(run_from_terminal, settings, set_name, metric, params)
        except BioMcpError as exc:
            fail(exc)
    sys.stdout.write(markdown)


@eval_app.command("linking")
def eval_linking(
    data: Annotated[Path, typer.Option(help="A PubTator file (e.g. BC5CDR's); gold mention lines optional")],
    output: Annotated[Path | None, typer.Option(help="Write the linker's mentions here, in PubTator form")] = None,
) -> None:
    """Link every title and abstract of DATA; print precision, recall and F1 per type (document-level concept F1)."""
    from bio_mcp.graph.linking_eval import evaluate_file

    settings = settings_or_exit()
    configure_logging("warning", settings.logs_dir)
    with err.status(f"linking {data}"):
        try:
            report = evaluate_file(data, settings, output)
        except BioMcpError as exc:
            fail(exc)
    if report is None:
        err.print(f"no gold mentions in {data}: linked and written, not scored")
        return
    sys.stdout.write(json.dumps(report) + "\n")


@eval_app.command("relations")
def eval_relations(
    data: Annotated[Path, typer.Option(help="A PPR corpus file (e.g. PPR_dev_corpus.txt)")],
    untrained: Annotated[bool, typer.Option(
        "--untrained", help="Score the cue rules an install without PPR's training split runs")] = False,
) -> None:
    """Extract plant-phenotype relations from every abstract of DATA end to end (own linking); print
    precision, recall and F1 overall and per class, the every-pair baseline's, and `confusion`
    (Increase read as Decrease and the reverse, gold harms stated as treatments); `mode` says
    whether the trained pair model or the untrained cue rules ran."""
    from bio_mcp.graph.relations_eval import evaluate_file

    settings = settings_or_exit()
    configure_logging("warning", settings.logs_dir)
    with err.status(f"extracting relations from {data}"):
        try:
            report = evaluate_file(data, settings, untrained=untrained)
        except BioMcpError as exc:
            fail(exc)
    sys.stdout.write(json.dumps(report) + "\n")


@eval_app.command("adverse")
def eval_adverse(
    data: Annotated[Path, typer.Option(help="A BC5CDR PubTator file with CID relation lines")],
) -> None:
    """Extract adverse effects (CAUSES) from every abstract of DATA; print P/R/F1 of the stated
    document-level chemical-induces-disease pairs, end to end and with gold entities, beside the
    all-pairs baseline, and `harm_as_treatment`: the share of gold pairs stated as TREATS."""
    from bio_mcp.graph.adverse_eval import evaluate_file

    settings = settings_or_exit()
    configure_logging("warning", settings.logs_dir)
    with err.status(f"extracting adverse effects from {data}"):
        try:
            report = evaluate_file(data, settings)
        except BioMcpError as exc:
            fail(exc)
    sys.stdout.write(json.dumps(report) + "\n")


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="A question, e.g. 'active phase 2/3 trials in non-small cell lung cancer'")],
    fetch_policy: Annotated[str, typer.Option(help="cache_only, cache_then_network or network_only")] = "cache_then_network",
    time_budget_ms: Annotated[int, typer.Option(min=100, max=600_000, help="The answer's time budget")] = 5000,
    trace: Annotated[bool, typer.Option(help="Print the whole response as JSON: answer, checkpoint, plan and step timings")] = False,
) -> None:
    """Answer a question across PubMed and ClinicalTrials.gov with cited markdown tables (analyst.ask)."""
    from typing import cast

    from bio_mcp.features.analyst.models import FetchPolicy
    from bio_mcp.features.analyst.service import ask_once

    if fetch_policy not in ("cache_only", "cache_then_network", "network_only"):
        err.print("[red]error:[/red] --fetch-policy must be cache_only, cache_then_network or network_only")
        raise typer.Exit(2)
    settings = settings_or_exit()
    configure_logging("warning", settings.logs_dir)
    with err.status("planning and fetching"):
        try:
            response = anyio.run(lambda: ask_once(settings, question, cast(FetchPolicy, fetch_policy), time_budget_ms))
        except BioMcpError as exc:
            fail(exc)
    if trace:
        # One JSON document (answer, checkpoint_id, trace, ...), so the output parses as a whole.
        sys.stdout.write(json.dumps(response.model_dump(mode="json", by_alias=True), indent=2) + "\n")
        return
    sys.stdout.write(response.answer.rstrip() + f"\n\ncheckpoint_id: {response.checkpoint_id}\n")


checkpoint_app = typer.Typer(help="The analyst's answer checkpoints.", no_args_is_help=True)
app.add_typer(checkpoint_app, name="checkpoint")


@checkpoint_app.command("show")
def checkpoint_show(checkpoint_id: Annotated[str, typer.Argument(help="A checkpoint_id from an answer")]) -> None:
    """Resolve a checkpoint_id to the tool versions, inputs, watermarks and blob URIs it referenced."""
    from bio_mcp.features.analyst.service import show_checkpoint

    settings = settings_or_exit()
    try:
        document = show_checkpoint(settings, checkpoint_id)
    except BioMcpError as exc:
        fail(exc)
    sys.stdout.write(json.dumps(document, indent=2, default=str) + "\n")


diagnostics_app = typer.Typer(help="Retrieval diagnostics of kb.search and kb.retrieve_evidence.", no_args_is_help=True)
app.add_typer(diagnostics_app, name="diagnostics")


@diagnostics_app.command("show")
def diagnostics_show(
    diagnostic_id: Annotated[str, typer.Option("--id", help="The diagnostic_id of a kb.search or kb.retrieve_evidence result")],
) -> None:
    """Print a call's diagnostics (providers, stage timings, candidates, graph budget) as Markdown."""
    from bio_mcp.features.kb.diagnostics import show_diagnostics

    settings = settings_or_exit()
    try:
        text = show_diagnostics(settings, diagnostic_id)
    except BioMcpError as exc:
        fail(exc)
    sys.stdout.write(text)


graph_app = typer.Typer(help="The knowledge graph of the corpus.", no_args_is_help=True)
app.add_typer(graph_app, name="graph")


@graph_app.command("rebuild")
def graph_rebuild() -> None:
    """Rebuild every graph node and edge from the store's documents and chunks (same ids as a sync)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from bio_mcp.features.kb.rebuild import rebuild_configured_graph
    from bio_mcp.graph.indexer import build_graph_indexer

    settings = settings_or_exit()
    configure_logging("warning", settings.logs_dir)
    # Loaded before the bar starts, so its rate counts documents only (a first build takes minutes).
    with err.status("loading the MeSH vocabulary and entity linker"):
        try:
            graph = build_graph_indexer(settings)
        except BioMcpError as exc:
            fail(exc)
    columns = (
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.0f} docs/s"), TimeElapsedColumn(),
    )
    with Progress(*columns, console=err) as progress:
        task = progress.add_task("rebuilding the graph", total=None, rate=0.0)

        def advance(done: int, total: int) -> None:
            elapsed = progress.tasks[task].elapsed or 0.0
            progress.update(task, completed=done, total=total, rate=done / elapsed if elapsed else 0.0)

        try:
            report = rebuild_configured_graph(settings, advance, graph)
        except BioMcpError as exc:
            fail(exc)
    sys.stdout.write(json.dumps(report.__dict__) + "\n")


@graph_app.command("related")
def graph_related() -> None:
    """Recompute RELATED_TO (entity co-occurrence, NPMI over sections) now, whatever its state."""
    from bio_mcp.features.kb.rebuild import refresh_configured_related

    settings = settings_or_exit()
    configure_logging("warning", settings.logs_dir)
    with err.status("computing RELATED_TO"):
        try:
            report = refresh_configured_related(settings)
        except BioMcpError as exc:
            fail(exc)
    sys.stdout.write(json.dumps(report.__dict__) + "\n")


kg_app = typer.Typer(help="Herb knowledge of the graph: imports and the herb catalog.", no_args_is_help=True)
app.add_typer(kg_app, name="kg")


@kg_app.command("import")
def kg_import(
    files: Annotated[list[Path] | None, typer.Argument(
        help="Import tables (.tsv, or .jsonl with a kind per line), in order; none: the Thai herb names and "
             "formulations shipped in the package")] = None,
) -> None:
    """Import herbs, formulations and relations with their sources (format: `bio_mcp.graph.kg_import`).

    Each file is checked line by line first; a file with a bad line writes nothing and every bad line
    is listed as FILE:LINE: what is wrong. Importing a file again adds nothing."""
    from bio_mcp.graph.indexer import load_catalog
    from bio_mcp.graph.kg_import import import_file, shipped_tables
    from bio_mcp.mesh_files import mesh_path_of
    from bio_mcp.store import open_metadata_store

    settings = settings_or_exit()
    configure_logging("warning", settings.logs_dir)
    with err.status("loading the MeSH vocabulary"):
        catalog = load_catalog(mesh_path_of(settings), settings.caches)
    store = open_metadata_store(settings)
    try:
        for file in files or shipped_tables():
            with store.transaction() as tx:
                report = import_file(tx.connection, file, catalog)
            sys.stdout.write(json.dumps(report.to_json(), ensure_ascii=False) + "\n")
    except BioMcpError as exc:
        fail(exc)
    finally:
        store.close()


@kg_app.command("herbs")
def kg_herbs(
    duke: Annotated[Path | None, typer.Option(help="Dr. Duke's CSV folder (default BIO_MCP_DUKE_DIR)")] = None,
    farmacy: Annotated[Path | None, typer.Option(
        help="Dr. Duke's constituent and ethnobotany tables (default BIO_MCP_DUKE_FARMACY_DIR)")] = None,
) -> None:
    """Write the herb nodes: MeSH plants (B01.875) and Dr. Duke's taxa with their common names and
    constituents. Run it after importing curated herb tables, so Duke's taxa join the herbs those
    tables named; running it again adds nothing."""
    from bio_mcp.graph.duke_constituents import CONSTITUENTS
    from bio_mcp.graph.duke_farmacy import duke_farmacy_dir_of
    from bio_mcp.graph.herb_catalog import duke_dir_of, write_herb_catalog
    from bio_mcp.graph.indexer import load_catalog
    from bio_mcp.mesh_files import mesh_path_of
    from bio_mcp.store import open_metadata_store

    # The options override the settings' environment variables (Settings reads fields by alias).
    settings = settings_or_exit(BIO_MCP_DUKE_DIR=duke and str(duke),
                                BIO_MCP_DUKE_FARMACY_DIR=farmacy and str(farmacy))
    duke_dir, farmacy_dir = duke_dir_of(settings), duke_farmacy_dir_of(settings)
    # A folder named on purpose that lacks its table is a mistake, not "no data".
    for given, found, needed in ((settings.duke_dir, duke_dir, "FNFTAX.csv"),
                                 (settings.duke_farmacy_dir, farmacy_dir, CONSTITUENTS)):
        if given is not None and found is None:
            err.print(f"[red]error:[/red] {escape(str(given))} has no {needed}")
            raise typer.Exit(2)
    configure_logging("warning", settings.logs_dir)
    with err.status("loading the MeSH vocabulary"):
        catalog = load_catalog(mesh_path_of(settings), settings.caches)
    if catalog.vocabulary is None:
        err.print("[red]error:[/red] the MeSH descriptors are needed (bio-mcp data install-mesh FILE)")
        raise typer.Exit(2)
    store = open_metadata_store(settings)
    try:
        with store.transaction() as tx:
            report = write_herb_catalog(tx.connection, catalog, duke_dir, farmacy_dir)
    finally:
        store.close()
    sys.stdout.write(json.dumps(report.__dict__) + "\n")


if __name__ == "__main__":
    app()
