"""`tool.eval.run` (seed 003) and `bio-mcp eval run`: retrieval and answer evaluation with a stored report.

    evaluator = Evaluator(corpus_service, kb_retrieval)          # answers: an AnswerEngine, when wired
    result = await evaluator.run(EvalRunRequest(set="smoke"))
    result.metrics        # [R@10, MRR, nDCG@10, factuality (value null: no answer engine)]
    await evaluator.report_markdown(report_id)                   # bio-mcp://eval/{report_id}

Retrieval runs every query of the set (`eval_sets`) through `tool.hybrid_search` itself (paper hits
only): the smoke set against the server's corpus (or, the corpus empty, against a scratch corpus of
MeSH descriptors: `eval_sets.mesh_smoke_set`), curated and custom sets against a scratch corpus
per dataset built through the corpus's write path (`fill_scratch_corpus`, linked into its own graph
so the entity boost is exercised). Metrics per query come from `eval.metrics` (R@k: recall of the judged
documents in the first k; MRR: reciprocal rank of the first relevant document within k; nDCG@k:
graded, linear gain), averaged over all queries; each dataset's figures are in `datasets`.

Answers: `factuality` is the share of answer sentences whose citation checks out, over the answers
not withheld, with the answer figures (withheld share, citations per answer, mean answer_conf). They
come from an `AnswerEngine` (tool.rag_answer satisfies it); without one they are reported with a
null value and the reason, never estimated.

Every run stores its report (Markdown and JSON) in `eval_reports`; the id is a hash of the request
and the figures, so the same run over the same corpus gives the same id and report.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

import sqlalchemy as sa
from pydantic import Field, StringConstraints, ValidationError

from bio_mcp.canonical import canonical_sha256
from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode, validation_error_details
from bio_mcp.eval.corpus_fill import beir_documents, fill_scratch_corpus
from bio_mcp.eval.metrics import mrr_at, ndcg_at, recall_at
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.service import CorpusService, index_folder
from bio_mcp.features.evidence.eval_sets import QuerySet, beir_set, curated_sets, smoke_set
from bio_mcp.features.evidence.hybrid_search import (
    MAX_TOP_K,
    HybridSearchRequest,
    SearchFilters,
    hybrid_search,
)
from bio_mcp.features.evidence.models import AuditedOutput
from bio_mcp.features.kb.providers import ProviderRegistry
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.features.kb.search import KbContext
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.mesh_files import mesh_path_of
from bio_mcp.models import ToolInput, ToolOutput
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.store import open_metadata_store
from bio_mcp.store.schema import eval_reports

REPORT_URI = "bio-mcp://eval/{report_id}"
REPORT_JSON_URI = "bio-mcp://eval/{report_id}/json"
_METRIC = re.compile(r"^(R|nDCG|MRR)(?:@(k|[0-9]+))?$|^(factuality|withheld|citations|answer_conf)$")
ANSWER_METRICS = ("factuality", "withheld", "citations", "answer_conf")
DEFAULT_METRICS = ["R@k", "MRR", "nDCG@k", "factuality"]


# ---- the answer engine tool.rag_answer provides ---------------------------------------------------


class AnswerSentence(Protocol):
    text: str
    verified: bool  # its citation was checked against the cited passage and holds


class AnswerOutcome(Protocol):
    sentences: Sequence[AnswerSentence]
    withheld: bool  # the policy withheld the answer (citations < 3 or answer_conf < τ)
    citations: int
    answer_conf: float | None


class AnswerEngine(Protocol):
    async def answer(self, question: str, lang: str, top_k: int) -> AnswerOutcome: ...


# ---- contract -------------------------------------------------------------------------------------


class EvalParams(ToolInput):
    k: int = Field(default=10, ge=1, le=MAX_TOP_K, strict=True, description="The k of R@k, MRR@k and nDCG@k (1-20)")
    max_queries: int = Field(default=50, ge=1, le=5000, strict=True, description="Queries per dataset, at most")
    max_docs: int | None = Field(
        default=None, ge=1, strict=True, description="Documents per scratch corpus: the judged ones plus the first others"
    )
    datasets: list[Literal["beir", "pubmedqa", "bc5cdr", "ppr"]] | None = Field(
        default=None, min_length=1, description="curated: which folders to run (default all present)"
    )
    path: Annotated[str, StringConstraints(min_length=1)] | None = Field(
        default=None, description="custom: a BEIR folder (corpus.jsonl, queries*.jsonl, qrels/{split}.tsv)"
    )
    split: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]+$")] | None = Field(
        default=None, description="custom and BEIR: the qrels split (default test, else dev, else train)"
    )
    mode: Literal["hybrid", "bm25"] = Field(
        default="hybrid", description="Scratch corpora: hybrid embeds the documents; bm25 skips embedding (faster)"
    )
    answer_questions: int = Field(default=10, ge=0, le=500, strict=True, description="Questions put to the answer engine")


class EvalRunRequest(ToolInput):
    set: Literal["smoke", "curated", "custom"] = Field(
        description="smoke (the local corpus, seconds), curated (BIO_MCP_EVAL_DATA folders), custom (params.path)"
    )
    metrics: list[Annotated[str, StringConstraints(min_length=1)]] = Field(
        default_factory=lambda: list(DEFAULT_METRICS), min_length=1,
        description="R@k, MRR, nDCG@k (k from params.k, or R@5 ...), factuality, withheld, citations, answer_conf",
    )
    params: dict[str, Any] | None = Field(
        default=None, description="Optional: k, max_queries, max_docs, datasets, path, split, mode, answer_questions"
    )


class MetricValue(ToolOutput):
    name: str
    value: float | None = Field(description="null when the metric is not available (see note)")
    note: str | None = Field(default=None, description="Additive: why a value is missing")


class DatasetSummary(ToolOutput):
    name: str
    description: str
    queries: int
    documents: int | None = Field(description="Documents searched; null for the server's own corpus")
    metrics: list[MetricValue]


class EvalRunResponse(AuditedOutput):
    metrics: list[MetricValue]
    report_uri: str
    report_id: str = Field(description="Additive: the report's id")
    datasets: list[DatasetSummary] = Field(description="Additive: the retrieval figures per dataset")


@dataclass(frozen=True)
class MetricSpec:
    name: str
    kind: str
    k: int


def parse_metrics(names: Sequence[str], k: int) -> list[MetricSpec]:
    specs: list[MetricSpec] = []
    for position, raw in enumerate(names):
        match = _METRIC.match(raw.strip())
        if match is None:
            raise BioMcpError(
                ErrorCode.VALIDATION, f"unknown metric {raw!r}",
                {"field": f"metrics.{position}", "allowed": "R@k, R@n, MRR, nDCG@k, nDCG@n, " + ", ".join(ANSWER_METRICS)},
            )
        if match.group(3):
            specs.append(MetricSpec(match.group(3), "answer", 0))
            continue
        kind, at = match.group(1), match.group(2)
        depth = k if at in (None, "k") else int(at)
        if not 1 <= depth <= MAX_TOP_K:
            raise BioMcpError(ErrorCode.VALIDATION, f"{raw}: k must be 1-{MAX_TOP_K}", {"field": f"metrics.{position}"})
        name = "MRR" if kind == "MRR" and at is None else f"{kind}@{depth}"
        specs.append(MetricSpec(name, kind, depth))
    return list({spec.name: spec for spec in specs}.values())


def _params(raw: dict[str, Any] | None) -> EvalParams:
    try:
        return EvalParams.model_validate(raw or {})
    except ValidationError as exc:
        details = validation_error_details(exc)
        raise BioMcpError(ErrorCode.VALIDATION, "invalid params for tool.eval.run", {"params": details}) from None


def _score(spec: MetricSpec, ranked: list[str], judged: dict[str, int]) -> float:
    if spec.kind == "R":
        return recall_at(ranked, judged, spec.k)
    if spec.kind == "MRR":
        return mrr_at(ranked, judged, spec.k)
    return ndcg_at(ranked, judged, spec.k)


# ---- retrieval ------------------------------------------------------------------------------------


def _ranked(context: KbContext, catalog: MeshCatalog | None, text: str, depth: int) -> list[str]:
    request = HybridSearchRequest(query=text, top_k=depth, filters=SearchFilters(types=["paper"]))
    return [hit.pmid for hit in hybrid_search(request, context, catalog).hits if hit.pmid]


def _score_set(
    query_set: QuerySet, context: KbContext, catalog: MeshCatalog | None, specs: list[MetricSpec],
    ids: dict[str, str] | None,
) -> list[dict[str, Any]]:
    depth = max(spec.k for spec in specs)
    rows = []
    for query_id, text in query_set.queries.items():
        pmids = _ranked(context, catalog, text, depth)
        ranked = [ids.get(pmid, pmid) for pmid in pmids] if ids is not None else pmids
        judged = query_set.qrels[query_id]
        rows.append({
            "dataset": query_set.name, "id": query_id, "query": text, "ranked": ranked[:depth],
            "relevant": sorted(doc for doc, grade in judged.items() if grade > 0),
            "metrics": {spec.name: round(_score(spec, ranked, judged), 6) for spec in specs},
        })
    return rows


def _scratch_rows(
    query_set: QuerySet, corpus: CorpusService, catalog: MeshCatalog | None, specs: list[MetricSpec], mode: str
) -> tuple[list[dict[str, Any]], int]:
    """The set's corpus in a scratch store and index (a temporary BIO_MCP_HOME), searched by the tool."""
    assert query_set.corpus is not None
    documents, ids = beir_documents(query_set.corpus)
    settings = corpus.settings
    with tempfile.TemporaryDirectory(prefix="bio-mcp-eval-") as scratch:
        scratch_settings = settings.model_copy(update={"home": Path(scratch), "database_url": None})
        store = open_metadata_store(scratch_settings)
        providers = ProviderRegistry(scratch_settings)
        try:
            index = CorpusIndex(store, index_folder(scratch_settings), corpus.index.embeddings)
            fill_scratch_corpus(
                index, documents, settings.embeddings_batch_size, embed=mode != "bm25", graph=corpus.graph
            )
            linker = corpus.graph.linker if corpus.graph is not None else None
            context = KbContext(scratch_settings, store, index, providers, linker)
            return _score_set(query_set, context, catalog, specs, ids), len(documents)
        finally:
            providers.close()
            store.close()


def _mean(rows: list[dict[str, Any]], name: str) -> float | None:
    return round(sum(row["metrics"][name] for row in rows) / len(rows), 6) if rows else None


# ---- answers --------------------------------------------------------------------------------------


async def _answer_figures(
    engine: AnswerEngine | None, questions: list[str], top_k: int
) -> tuple[dict[str, float | None], str | None, list[dict[str, Any]]]:
    if engine is None:
        return {}, "no answer engine is wired into this server (tool.rag_answer)", []
    if not questions:
        return {}, "the set has no questions to answer (params.answer_questions is 0)", []
    outcomes = []
    for question in questions:
        outcome = await engine.answer(question, "auto", top_k)
        outcomes.append({
            "question": question, "withheld": outcome.withheld, "citations": outcome.citations,
            "answer_conf": outcome.answer_conf,
            "sentences": [{"text": s.text, "verified": s.verified} for s in outcome.sentences],
        })
    answered = [o for o in outcomes if not o["withheld"]]
    sentences = [s for o in answered for s in o["sentences"]]
    confs = [o["answer_conf"] for o in outcomes if o["answer_conf"] is not None]
    figures: dict[str, float | None] = {
        "factuality": round(sum(s["verified"] for s in sentences) / len(sentences), 6) if sentences else None,
        "withheld": round(sum(o["withheld"] for o in outcomes) / len(outcomes), 6),
        "citations": round(sum(o["citations"] for o in outcomes) / len(outcomes), 6),
        "answer_conf": round(sum(confs) / len(confs), 6) if confs else None,
    }
    return figures, None, outcomes


# ---- the report -----------------------------------------------------------------------------------


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def render_report(body: dict[str, Any]) -> str:
    lines = [f"# Evaluation report {body['report_id']}", "",
             f"Set **{body['set']}**; params `{json.dumps(body['params'], sort_keys=True)}`", "", "## Metrics", "",
             "| metric | value | note |", "|---|---|---|"]
    lines += [f"| {m['name']} | {_fmt(m['value'])} | {m.get('note') or ''} |" for m in body["metrics"]]
    retrieval = [m["name"] for m in body["metrics"] if m["name"] not in ANSWER_METRICS]
    if body["datasets"]:
        lines += ["", "## Datasets", "", "| dataset | queries | documents | " + " | ".join(retrieval) + " |",
                  "|---|---|---|" + "---|" * len(retrieval)]
        for dataset in body["datasets"]:
            values = {m["name"]: m["value"] for m in dataset["metrics"]}
            documents = dataset["documents"] if dataset["documents"] is not None else "local corpus"
            lines.append(f"| {dataset['name']} | {dataset['queries']} | {documents} | "
                         + " | ".join(_fmt(values.get(name)) for name in retrieval) + " |")
        lines += [""] + [f"- **{d['name']}**: {d['description']}" for d in body["datasets"]]
    missed = [row for row in body["queries"] if row["relevant"] and not set(row["relevant"]) & set(row["ranked"])]
    if missed:
        lines += ["", f"## Queries whose relevant documents were all missed ({len(missed)}; first 10)", ""]
        lines += [f"- {row['dataset']} `{row['id']}`: {row['query'][:120]} (relevant: {', '.join(row['relevant'][:5])})"
                  for row in missed[:10]]
    lines += ["", f"Full JSON (every query, its ranking and figures): {REPORT_JSON_URI.format(report_id=body['report_id'])}"]
    return "\n".join(lines) + "\n"


def summarize(response: EvalRunResponse) -> str:
    metrics = "; ".join(f"{m.name} {_fmt(m.value)}" + (f" ({m.note})" if m.note else "") for m in response.metrics)
    lines = [f"**Evaluation** {metrics}"]
    for dataset in response.datasets:
        figures = ", ".join(f"{m.name} {_fmt(m.value)}" for m in dataset.metrics)
        lines.append(f"- {dataset.name} ({dataset.queries} queries): {figures}")
    lines.append(f"Report: {response.report_uri} (JSON: {REPORT_JSON_URI.format(report_id=response.report_id)})")
    return "\n".join(lines)


class Evaluator:
    def __init__(self, corpus: CorpusService, retrieval: KbRetrieval, answers: AnswerEngine | None = None) -> None:
        self.corpus = corpus
        self.retrieval = retrieval
        self.answers = answers

    def _sets(self, request: EvalRunRequest, params: EvalParams) -> list[QuerySet]:
        if request.set == "smoke":
            settings = self.corpus.settings
            return [smoke_set(self.corpus.store, mesh_path_of(settings), params.max_queries, settings.caches)]
        if request.set == "custom":
            if params.path is None:
                raise BioMcpError(ErrorCode.VALIDATION, "set custom needs params.path (a BEIR folder)", {"field": "params.path"})
            folder = Path(params.path).expanduser()
            if not (folder / "corpus.jsonl").is_file():
                raise BioMcpError(ErrorCode.VALIDATION, f"{folder} is not a BEIR folder (no corpus.jsonl)",
                                  {"field": "params.path"})
            return [beir_set(folder, params.split, params.max_queries, params.max_docs, name="custom")]
        root = self.corpus.settings.eval_data
        if root is None:
            raise BioMcpError(
                ErrorCode.VALIDATION, "set curated needs BIO_MCP_EVAL_DATA (a folder of BEIR, pubmedqa, bc5cdr, ppr)",
                {"field": "set"},
            )
        return curated_sets(root, list(params.datasets) if params.datasets else None, params.max_queries, params.max_docs)

    def _retrieval(self, sets: list[QuerySet], specs: list[MetricSpec], params: EvalParams,
                   context: KbContext) -> tuple[list[dict[str, Any]], list[DatasetSummary]]:
        graph = self.corpus.graph
        catalog = graph.catalog if graph is not None else None
        rows: list[dict[str, Any]] = []
        summaries: list[DatasetSummary] = []
        for query_set in sets:
            if query_set.corpus is None:
                set_rows, documents = _score_set(query_set, context, catalog, specs, None), None
            else:
                set_rows, documents = _scratch_rows(query_set, self.corpus, catalog, specs, params.mode)
            rows += set_rows
            summaries.append(DatasetSummary(
                name=query_set.name, description=query_set.description, queries=len(set_rows), documents=documents,
                metrics=[MetricValue(name=spec.name, value=_mean(set_rows, spec.name)) for spec in specs],
            ))
        return rows, summaries

    async def run(self, request: EvalRunRequest) -> EvalRunResponse:
        params = _params(request.params)
        specs = parse_metrics(request.metrics, params.k)
        retrieval_specs = [spec for spec in specs if spec.kind != "answer"]
        answer_specs = [spec for spec in specs if spec.kind == "answer"]
        context = await self.retrieval.context()
        sets = await asyncio.to_thread(self._sets, request, params)
        rows: list[dict[str, Any]] = []
        summaries: list[DatasetSummary] = []
        if retrieval_specs:
            rows, summaries = await asyncio.to_thread(self._retrieval, sets, retrieval_specs, params, context)
        metrics = [MetricValue(name=spec.name, value=_mean(rows, spec.name)) for spec in retrieval_specs]
        answers: list[dict[str, Any]] = []
        if answer_specs:
            questions = [text for query_set in sets for text in query_set.queries.values()][: params.answer_questions]
            figures, reason, answers = await _answer_figures(self.answers, questions, params.k)
            for spec in answer_specs:
                value = figures.get(spec.name)
                note = reason or (None if value is not None else "no answer gave a figure for it")
                metrics.append(MetricValue(name=spec.name, value=value, note=note))
        body: dict[str, Any] = {
            "set": request.set, "params": params.model_dump(mode="json", exclude_none=True),
            "metrics": [m.to_json() for m in metrics], "datasets": [d.to_json() for d in summaries],
            "queries": rows, "answers": answers,
        }
        report_id = canonical_sha256({"request": request.model_dump(mode="json"), "metrics": body["metrics"],
                                "datasets": body["datasets"]})[:24]
        body["report_id"] = report_id
        await asyncio.to_thread(self._save, report_id, request.set, render_report(body), body)
        return EvalRunResponse(
            metrics=metrics, report_uri=REPORT_URI.format(report_id=report_id), report_id=report_id, datasets=summaries,
        )

    def _save(self, report_id: str, eval_set: str, markdown: str, body: dict[str, Any]) -> None:
        with self.corpus.store.transaction() as tx:
            tx.connection.execute(sa.delete(eval_reports).where(eval_reports.c.report_id == report_id))
            tx.connection.execute(sa.insert(eval_reports).values(
                report_id=report_id, eval_set=eval_set, markdown=markdown, body=body, created_at=datetime.now(UTC),
            ))

    def _load(self, report_id: str) -> Any:
        with self.corpus.store.read() as tx:
            row = tx.connection.execute(sa.select(eval_reports).where(eval_reports.c.report_id == report_id)).first()
        if row is None:
            raise BioMcpError(ErrorCode.NOT_FOUND, f"no evaluation report {report_id}", {"report_id": report_id})
        return row

    async def report_markdown(self, report_id: str) -> str:
        await self.corpus.open()
        return (await asyncio.to_thread(self._load, report_id)).markdown

    async def report_json(self, report_id: str) -> str:
        await self.corpus.open()
        row = await asyncio.to_thread(self._load, report_id)
        return json.dumps(row.body, ensure_ascii=False, sort_keys=True)


async def run_from_terminal(settings: Settings, set_name: str, metrics: list[str] | None, params: dict[str, Any]) -> str:
    """`bio-mcp eval run`: one run over the corpus in BIO_MCP_HOME; returns the report's Markdown."""
    try:
        request = EvalRunRequest.model_validate(
            {"set": set_name, "params": params or None} | ({"metrics": metrics} if metrics else {})
        )
    except ValidationError as exc:
        raise BioMcpError(ErrorCode.VALIDATION, "invalid arguments for eval run", validation_error_details(exc)) from None
    eutils = EutilsClient(settings)
    corpus = CorpusService(settings, eutils, embed_in_background=False)
    retrieval = KbRetrieval(corpus)
    try:
        evaluator = Evaluator(corpus, retrieval)
        result = await evaluator.run(request)
        return await evaluator.report_markdown(result.report_id)
    finally:
        retrieval.close()
        await corpus.aclose()
        await eutils.aclose()
