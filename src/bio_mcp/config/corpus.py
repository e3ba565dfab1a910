"""Settings of the local corpus: store, syncs, embeddings and vectors."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings

from bio_mcp.config.fields import SETTINGS_CONFIG, OptionalText


class CorpusSettings(BaseSettings):
    """The corpus: its store, syncs, the change log replicas follow, blobs, shared rate limits."""

    model_config = SETTINGS_CONFIG

    # A query key's first sync reaches back this many days (unless told `since`), not to 1800.
    sync_lookback_days: int = Field(
        default=365, ge=1, le=100_000, validation_alias="BIO_MCP_SYNC_LOOKBACK_DAYS",
        description="Days a query key's first sync reaches back, unless told `since`.",
    )
    # Records one sync call stores at most (whole EDAT days, so a single larger day is still taken whole).
    sync_max_records: int = Field(
        default=5000, ge=1, le=100_000, validation_alias="BIO_MCP_SYNC_MAX_RECORDS",
        description='Records one sync call stores at most (whole EDAT days).',
    )
    # A sync of at least this many records starts the annotation worker process (0: never).
    annotation_worker_min_records: int = Field(
        default=1000, ge=0, validation_alias="BIO_MCP_ANNOTATION_WORKER_MIN_RECORDS",
        description='Records from which a sync links entities in a worker process (0: never).',
    )
    # Shared state across replicas; in-process when unset.
    redis_url: OptionalText = Field(
        default=None, validation_alias="REDIS_URL",
        description='Redis URL for rate limits shared across replicas; in-process when unset.',
    )
    database_url: OptionalText = Field(
        default=None, validation_alias="DATABASE_URL",
        description='Store URL (postgresql://...); default SQLite under BIO_MCP_HOME.',
    )
    # Several processes on one corpus: how often each polls the store's change log (0: never), and
    # how much of the log is kept (rows beyond the newest `keep` and older than `min age` are pruned;
    # a process further behind rebuilds its index from the store).
    corpus_follow_interval_s: float = Field(
        default=1.0, ge=0, le=3600, validation_alias="BIO_MCP_CORPUS_FOLLOW_INTERVAL_S",
        description="Seconds between polls of the store's change log by each process (0: never).",
    )
    # On PostgreSQL, also wake at once on the change log's NOTIFY instead of at the next poll.
    corpus_listen: bool = Field(
        default=True, validation_alias="BIO_MCP_CORPUS_LISTEN",
        description="On PostgreSQL, wake on the change log's NOTIFY instead of the next poll.",
    )
    changelog_keep_rows: int = Field(
        default=10_000, ge=1, validation_alias="BIO_MCP_CHANGELOG_KEEP_ROWS",
        description='Newest change-log rows always kept.',
    )
    changelog_min_age_s: float = Field(
        default=86_400.0, ge=0, validation_alias="BIO_MCP_CHANGELOG_MIN_AGE_S",
        description='Seconds a change-log row is kept at least.',
    )
    # Blobs (raw upstream payloads): a folder under BIO_MCP_HOME unless an s3:// URL is given.
    blob_url: OptionalText = Field(
        default=None, validation_alias="BIO_MCP_BLOB_URL",
        description='Where raw upstream payloads go: a folder under BIO_MCP_HOME unless an s3:// URL.',
    )
    s3_endpoint_url: OptionalText = Field(
        default=None, validation_alias="BIO_MCP_S3_ENDPOINT_URL",
        description='S3-compatible endpoint for blobs.',
    )


class EmbeddingSettings(BaseSettings):
    """The embedding model of every vector in the index, and where the vectors live."""

    model_config = SETTINGS_CONFIG

    # Embeddings (seed 000 adapter): the provider and model of every vector in the index.
    # onnx by default: SciFact nDCG@10 within 0.005 of the full model's, about 2.7x faster (README).
    embeddings_provider: Literal["local", "onnx", "hf", "openai", "hash"] = Field(
        default="onnx", validation_alias="BIO_MCP_EMBEDDINGS_PROVIDER",
        description='Embedding provider of every vector in the index (onnx, local, hf, openai, hash).',
    )
    embeddings_model: OptionalText = Field(
        default=None, validation_alias="BIO_MCP_EMBEDDINGS_MODEL",
        description="Embedding model name (default: the provider's).",
    )
    embeddings_base_url: OptionalText = Field(
        default=None, validation_alias="BIO_MCP_EMBEDDINGS_BASE_URL",
        description='Base URL of an OpenAI-compatible embeddings API.',
    )
    embeddings_api_key: OptionalText = Field(
        default=None, validation_alias="BIO_MCP_EMBEDDINGS_API_KEY",
        description='API key of the embeddings API.',
    )
    embeddings_batch_size: int = Field(
        default=64, ge=1, le=4096, validation_alias="BIO_MCP_EMBEDDINGS_BATCH_SIZE",
        description='Texts embedded per batch.',
    )
    # Embedded chunks from which vector search walks an HNSW graph instead of scanning exactly
    # (None: the index's default, a million, where exact search nears its latency budget).
    ann_threshold: int | None = Field(
        default=None, ge=1, validation_alias="BIO_MCP_ANN_THRESHOLD",
        description='Embedded chunks from which vector search walks an HNSW graph (default: a million).',
    )
    # Where chunk vectors live: "auto" keeps them in PostgreSQL (pgvector, shared by every replica)
    # when DATABASE_URL is a PostgreSQL server with the extension, else in BIO_MCP_HOME as "embedded".
    vector_backend: Literal["auto", "embedded", "pgvector"] = Field(
        default="auto", validation_alias="BIO_MCP_VECTOR_BACKEND",
        description='Where chunk vectors live: auto (pgvector when present), embedded or pgvector.',
    )
