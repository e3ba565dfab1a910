"""Settings of the knowledge graph."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings

from bio_mcp.config.fields import SETTINGS_CONFIG


class GraphSettings(BaseSettings):
    """The knowledge graph (entity linking during syncs, traversal limits, RELATED_TO) and kb.search."""

    model_config = SETTINGS_CONFIG

    # How much documents whose sections mention the query's entities are lifted (features.kb.ranking),
    # per retrieval mode (SciFact train nDCG@10, bench/kb_scifact.py). BM25 alone: +0.006 at 0.2 when
    # a document's BM25 was its best chunk's, +0.0005 (halves +0.002 and -0.001) now that it is the
    # whole document's, which already rewards naming more of the query; kept for the synonyms BM25
    # misses. Hybrid: it lowers nDCG@10 at every weight (0.7455 -> 0.7381 at 0.2, 0.7408 -> 0.7362
    # before whole-document BM25; both halves agreeing: bench/results/kb_scifact_train_hybrid.jsonl),
    # so it is off there by default.
    kb_entity_boost: float = Field(
        default=0.2, ge=0.0, le=5.0, validation_alias="BIO_MCP_KB_ENTITY_BOOST",
        description="Lift of documents whose sections mention the query's entities, BM25 mode.",
    )
    kb_entity_boost_hybrid: float = Field(
        default=0.0, ge=0.0, le=5.0, validation_alias="BIO_MCP_KB_ENTITY_BOOST_HYBRID",
        description="Lift of documents whose sections mention the query's entities, hybrid mode.",
    )
    kb_reranker: Literal["none", "jina", "cohere"] = Field(
        default="none", validation_alias="BIO_MCP_KB_RERANKER",
        description='kb.search reranker: none, jina or cohere.',
    )
    # Knowledge graph (seed 002): entity linking during syncs, and the traversal's server-side limits.
    graph_linking: bool = Field(
        default=True, validation_alias="BIO_MCP_GRAPH_LINKING",
        description='Links entities into the knowledge graph during syncs.',
    )
    # One more upstream call per 100 records synced or added.
    pubtator3_mentions: bool = Field(
        default=False, validation_alias="BIO_MCP_PUBTATOR3_MENTIONS",
        description="PubTator3's genes, variants, species, cell lines, chemicals and diseases of each synced or "
        "added record join the graph as MENTIONS of linker pubtator3.",
    )
    # PubTator3 is updated weekly, so most records it lacks are only too new yet: a week's wait asks
    # again once its next update could hold them (bounded per sync with the pending ones).
    pubtator3_absent_recheck_days: float = Field(
        default=7.0, ge=0.0, le=3650.0, validation_alias="BIO_MCP_PUBTATOR3_ABSENT_RECHECK_DAYS",
        description="Days after which a record PubTator3 held no annotations of is asked again by a sync "
        "(BIO_MCP_PUBTATOR3_MENTIONS on; 0: every sync), up to 1,000 records a sync with the pending ones first.",
    )
    graph_max_rows: int = Field(
        default=100_000, ge=1, validation_alias="BIO_MCP_GRAPH_MAX_ROWS",
        description='Rows a graph traversal may read at most.',
    )
    graph_query_timeout_ms: int = Field(
        default=2000, ge=1, le=600_000, validation_alias="BIO_MCP_GRAPH_QUERY_TIMEOUT_MS",
        description='Deadline of a graph query, in milliseconds.',
    )
    graph_connect_timeout_ms: int = Field(
        default=1500, ge=1, le=600_000, validation_alias="BIO_MCP_GRAPH_CONNECT_TIMEOUT_MS",
        description='Deadline of opening the graph store, in milliseconds.',
    )
    # RELATED_TO after writes (graph/related_refresh.py): the server recomputes it in the background
    # this many seconds after a sync, ingestion or paper fetch (later writes in that time share the
    # one computation); `bio-mcp sync` before returning, unless the graph has more sections than the
    # maximum: 8 to 11 s of one core per 100,000 sections (bench/related_refresh.py), so 200,000
    # bounds the CLI's wait near 20 s.
    graph_related_after_sync: bool = Field(
        default=True, validation_alias="BIO_MCP_GRAPH_RELATED_AFTER_SYNC",
        description='Recomputes RELATED_TO in the background after writes.',
    )
    graph_related_delay_s: float = Field(
        default=10.0, ge=0, le=3600, validation_alias="BIO_MCP_GRAPH_RELATED_DELAY_S",
        description='Seconds after a write before RELATED_TO is recomputed (later writes share it).',
    )
    graph_related_max_sections: int = Field(
        default=200_000, ge=0, validation_alias="BIO_MCP_GRAPH_RELATED_MAX_SECTIONS",
        description='Graph sections above which `bio-mcp sync` does not wait for RELATED_TO.',
    )
