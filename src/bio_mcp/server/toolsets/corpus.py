"""The `corpus` toolset (seed 000): the local corpus kept fresh by EDAT-window syncs, hybrid search, documents, checkpoints."""

from __future__ import annotations

from bio_mcp.features.corpus import documents, search
from bio_mcp.features.corpus.documents import PAPER_RESOURCE_URI
from bio_mcp.features.corpus.models import (
    CheckpointGetRequest,
    CheckpointGetResponse,
    CheckpointSetRequest,
    CheckpointSetResponse,
    RagGetRequest,
    RagGetResponse,
    RagSearchRequest,
    RagSearchResponse,
    SyncDeltaRequest,
    SyncDeltaResponse,
)
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.corpus.sync_progress import SYNC_PROGRESS_URI
from bio_mcp.server.runtime import Runtime
from bio_mcp.server.toolset import ResourceSpec, Toolset, ToolSpec


def _sync_summary(response: SyncDeltaResponse) -> str:
    lines = [
        (f"**Sync {response.job_id}**: {response.pmids_processed} PMIDs processed: {response.inserted} inserted, "
        f"{response.updated} updated, {response.skipped} skipped; latest EDAT seen {response.max_edat_seen}.")
    ]
    lines += [f"- warning: {warning}" for warning in response.warnings]
    return "\n".join(lines)


def build_corpus_toolset(service: CorpusService) -> Toolset:
    async def read_paper(pmid: str) -> str:
        return await service.read_paper(pmid)

    async def read_sync_progress(query_key: str) -> str:
        return await service.sync_progress(query_key)

    return Toolset(
        name="corpus",
        tools=[
            ToolSpec(
                name="pubmed.sync_delta",
                title="Sync PubMed records into the local corpus",
                description="Syncs the PubMed records of a search term into the local corpus, from the query key's "
                "watermark (a first sync: lookback_days back), indexed for search at once. A query key stays bound to "
                "its first term. At most max_records per call: call again while more_to_sync is true.",
                input_model=SyncDeltaRequest, output_model=SyncDeltaResponse,
                run=service.sync_delta, summarize=_sync_summary, read_only=False,
            ),
            ToolSpec(
                name="rag.search",
                title="Search the local corpus",
                description="Hybrid BM25 + semantic search over the local corpus chunks, one result per document "
                "(its best chunk, with title, year and a snippet), optionally reranked by evidence quality. "
                "The corpus holds only what pubmed.sync_delta has synced.",
                input_model=RagSearchRequest, output_model=RagSearchResponse,
                run=service.search, summarize=search.summarize, open_world=False,
            ),
            ToolSpec(
                name="rag.get",
                title="Get a corpus document",
                description="The normalised metadata, quality breakdown and version of a corpus document (pmid:N).",
                input_model=RagGetRequest, output_model=RagGetResponse,
                run=service.get, summarize=documents.summarize, open_world=False,
            ),
            ToolSpec(
                name="corpus.checkpoint.get",
                title="Get a sync watermark",
                description="The last processed EDAT of a sync query key, or null before its first sync.",
                input_model=CheckpointGetRequest, output_model=CheckpointGetResponse,
                run=service.checkpoint_get, open_world=False,
                summarize=lambda out: f"Watermark of `{out.query_key}`: {out.last_edat or 'none (never synced)'}",
            ),
            ToolSpec(
                name="corpus.checkpoint.set",
                title="Set a sync watermark",
                description="Sets a query key's watermark by hand (it may move backwards, for backfills, but not "
                "into the future); audited.",
                input_model=CheckpointSetRequest, output_model=CheckpointSetResponse,
                run=service.checkpoint_set, read_only=False, open_world=False,
                summarize=lambda out: "Watermark set." if out.ok else "Watermark not set.",
            ),
        ],
        resources=[
            ResourceSpec(
                PAPER_RESOURCE_URI, "pubmedPaper",
                "A corpus document's metadata and quality scores (the rag.get body)", "application/json", read_paper,
            ),
            ResourceSpec(
                SYNC_PROGRESS_URI, "syncProgress",
                "A sync query key's watermark and latest sync jobs, a running one with its records planned, fetched "
                "and stored so far (JSON; the key percent-encoded)", "application/json", read_sync_progress,
            ),
        ],
    )


def corpus_toolset(runtime: Runtime) -> Toolset:
    return build_corpus_toolset(runtime.corpus)
