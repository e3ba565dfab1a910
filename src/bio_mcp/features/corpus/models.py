"""Seed 000's corpus contracts: `pubmed.sync_delta`, `rag.search`, `rag.get`, `corpus.checkpoint.*`.

Field names, required fields, bounds and defaults are the seed's; every object forbids unknown
keys (the seed's `additionalProperties: false`). Integers and booleans are strict, as JSON Schema's
`integer` and `boolean` are: "5" is not a top_k. Where the seed leaves a string or an integer
open, the bound here is documented in the schema (`maxLength`, `maximum`): a query key fits its
column, a window of overlap stays within the calendar.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import ConfigDict, Field, StringConstraints

from bio_mcp.models import NonBlank, ToolInput, ToolOutput

if TYPE_CHECKING:
    from bio_mcp.features.corpus.pubtator3_annotations import Pubtator3Tally

DOC_ID_PATTERN = r"^pmid:[0-9]+$"
DocId = Annotated[str, StringConstraints(pattern=DOC_ID_PATTERN)]
QueryKey = Annotated[str, StringConstraints(min_length=1, max_length=255)]
# An Entrez query far past this is refused by NCBI anyway (and would not fit a GET).
MAX_TERM_CHARS = 4000
MAX_QUERY_CHARS = 2000
# A century of overlap re-reads everything PubMed has dated; more is a mistake, not a need.
MAX_OVERLAP_DAYS = 36_500
Count = Annotated[int, Field(ge=0)]


class ContractOutput(ToolOutput):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class SyncDeltaRequest(ToolInput):
    query_key: QueryKey = Field(description="Unique identifier for the query")
    # Blank is refused (NonBlank): ESearch answers a blank term with an error of its own, which read
    # as an upstream failure rather than the caller's.
    term: NonBlank = Field(max_length=MAX_TERM_CHARS, description="PubMed search term (not blank)")
    overlap_days: int = Field(
        default=5, ge=0, le=MAX_OVERLAP_DAYS, strict=True,
        description="Days to overlap with previous sync to ensure completeness",
    )
    max_records: int | None = Field(
        default=None, ge=1, le=100_000, strict=True,
        description="At most about this many records in this call (default BIO_MCP_SYNC_MAX_RECORDS); call "
        "again while more_to_sync is true",
    )
    lookback_days: int | None = Field(
        default=None, ge=1, le=100_000, strict=True,
        description="First sync only: days back (default BIO_MCP_SYNC_LOOKBACK_DAYS, 365); when none entered "
        "PubMed then, it reaches back to the oldest records",
    )
    reset_term: bool = Field(
        default=False, strict=True,
        description="Rebind a query_key synced with another term (its watermark is cleared; audited); without "
        "it another term is refused",
    )


class Pubtator3SyncReport(ContractOutput):
    annotated: Count = Field(description="Documents whose PubTator3 mentions were written to the graph by this call")
    filled: Count = Field(description="Of those, documents an earlier outage had left pending")
    absent: Count = Field(
        description="Documents PubTator3 was asked about by this call and holds no annotations of (rechecked ones "
        "included)"
    )
    rechecked: Count = Field(
        default=0, description="Additive: documents PubTator3 held no annotations of when last asked, asked again "
        "now that they have been absent for BIO_MCP_PUBTATOR3_ABSENT_RECHECK_DAYS (each is also counted as annotated "
        "or absent by the new answer)",
    )
    mentions: Count = Field(description="MENTIONS edges (section, entity) written or extended with linker pubtator3")
    mismatched: Count = Field(description="PubTator3 mentions skipped: their span did not line up with the stored text")
    pending: Count = Field(
        description="Documents of the corpus whose PubTator3 annotations are pending (PubTator3 could not be "
        "reached); the next sync fetches them"
    )
    error: str | None = Field(default=None, description="Why PubTator3 could not be reached, when it could not")

    @classmethod
    def of(cls, tally: Pubtator3Tally) -> Pubtator3SyncReport:
        return cls(annotated=tally.annotated, filled=tally.filled, absent=tally.absent, rechecked=tally.rechecked,
                   mentions=tally.mentions,
                   mismatched=tally.counts.mismatched, pending=tally.pending, error=tally.error)


class SyncDeltaResponse(ContractOutput):
    job_id: str = Field(description="Unique identifier for this sync job")
    inserted: Count = Field(description="Number of new records inserted")
    updated: Count = Field(description="Number of existing records updated")
    skipped: Count = Field(description="Number of records skipped (no changes)")
    pmids_processed: Count = Field(description="Total PMIDs processed in this sync")
    max_edat_seen: str | None = Field(default=None, description="Latest EDAT seen (ISO8601 UTC) or null")
    warnings: list[str] = Field(default_factory=list, description="Non-fatal warnings during sync")
    more_to_sync: bool = Field(
        default=False, description="True when the record cap stopped this call early: call again to continue"
    )
    pubtator3: Pubtator3SyncReport | None = Field(
        default=None, description="Additive: PubTator3's annotations of the synced documents "
        "(BIO_MCP_PUBTATOR3_MENTIONS on; null when off)"
    )


class RagSearchRequest(ToolInput):
    query: NonBlank = Field(max_length=MAX_QUERY_CHARS, description="Search query text")
    top_k: int = Field(default=20, ge=1, le=100, strict=True, description="Maximum number of results to return")
    quality_bias: bool = Field(default=True, strict=True, description="Whether to apply quality-based reranking")


class RagSearchResult(ContractOutput):
    doc_id: DocId = Field(description="Stable document identifier for lookup")
    uuid: Annotated[str, StringConstraints(min_length=10)] = Field(description="Unique chunk identifier")
    sim: float | None = Field(
        default=None,
        description="Semantic similarity score: the cosine of the query and the best chunk's embedding, in [-1, 1]; "
        "null when the chunk has no vector yet",
    )
    bm25: float | None = Field(
        default=None,
        description="BM25 relevance score: the retriever's raw BM25 of the document (0 up, unbounded; comparable "
        "only within this query); null when the document holds no query word",
    )
    quality: float | None = Field(
        default=None, description="Document quality score: the evidence-quality total, 0 to 8 (see rag.get)"
    )
    score: float = Field(
        ge=0.0, le=1.0,
        description="Final combined relevance score, in [0, 1]: the fused BM25 and cosine relevance over the best "
        "any document can reach (not over this query's best), times the quality factor with quality_bias "
        "(1 at the best quality, 1/1.1 at unknown or the lowest). 1 is the best match both retrievers can express "
        "in a record of the best quality; then scaled by the share of the query's terms the document names "
        "(0.4 of it when none)",
    )
    title: str | None = Field(default=None, description="The document's title")
    year: int | None = Field(default=None, description="The document's publication year")
    snippet: str | None = Field(default=None, description="The best chunk's text around the query's words")


class RagSearchResponse(ContractOutput):
    results: list[RagSearchResult] = Field(description="Search results ordered by relevance score")
    note: str | None = Field(
        default=None,
        description="Why there are no results: an empty corpus (and how to fill it) or no match; with results, "
        "which query terms no result mentions (unmatched_terms) and which the results do match",
    )
    unmatched_terms: list[str] = Field(
        default_factory=list,
        description="Additive: the query's content words and linked entities (as the query writes them) that no "
        "returned document contains by any synonym (MeSH entry terms); empty when every term is matched or "
        "nothing is returned",
    )


class RagGetRequest(ToolInput):
    doc_id: DocId = Field(description="PubMed ID in format 'pmid:12345'")


class QualityBreakdown(ContractOutput):
    design: int | None = Field(default=None, description="Study design quality score")
    recency: int | None = Field(default=None, description="Publication recency score")
    journal: int | None = Field(default=None, description="Journal impact score")
    human: int | None = Field(default=None, description="Human studies relevance score")
    total: int = Field(description="Combined quality score")


class RagGetResponse(ContractOutput):
    doc_id: str = Field(description="PubMed document identifier")
    title: str | None = Field(description="Article title")
    abstract: str | None = Field(default=None, description="Article abstract text")
    journal: str | None = Field(description="Journal name")
    pub_types: list[str] = Field(description="Publication types (e.g., 'Randomized Controlled Trial')")
    pdat: str | None = Field(default=None, description="Publication date (YYYY-MM-DD)")
    edat: str | None = Field(default=None, description="Entrez date (ISO8601 UTC)")
    lr: str | None = Field(default=None, description="Last revision date (ISO8601 UTC)")
    pmcid: str | None = Field(default=None, description="PubMed Central ID")
    quality: QualityBreakdown = Field(description="Quality scoring breakdown")
    version: int = Field(ge=1, description="Document version number")


class CheckpointGetRequest(ToolInput):
    query_key: QueryKey = Field(description="Unique query identifier")


class CheckpointGetResponse(ContractOutput):
    query_key: str = Field(description="Query identifier")
    last_edat: str | None = Field(default=None, description="Last processed EDAT (ISO8601 UTC) or null if none")


class CheckpointSetRequest(ToolInput):
    query_key: Annotated[str, StringConstraints(max_length=255)] = Field(description="Query identifier")
    last_edat: Annotated[str, StringConstraints(max_length=64)] = Field(
        description="New checkpoint timestamp (ISO8601 UTC)"
    )


class CheckpointSetResponse(ContractOutput):
    ok: bool = Field(description="Success indicator")
