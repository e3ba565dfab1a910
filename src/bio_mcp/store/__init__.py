"""Persistence: the SQL metadata store (SQLite by default, PostgreSQL via DATABASE_URL) and blobs."""

from bio_mcp.store.analyst_checkpoints import AnalystCheckpoint, AnalystCheckpointRepository
from bio_mcp.store.blobs import BlobStore, FilesystemBlobStore, S3BlobStore, blob_key, open_blob_store
from bio_mcp.store.checkpoints import CheckpointAuditEntry, CheckpointChange, CheckpointRepository
from bio_mcp.store.chunks import (
    ChunkRecord,
    ChunkRepository,
    ChunkSet,
    ChunkStateCounts,
    EmbeddingWriteResult,
    PendingChunk,
    ReplaceResult,
    StoredChunk,
)
from bio_mcp.store.documents import (
    DocumentRecord,
    DocumentRepository,
    QualityScores,
    StoredDocument,
    UpsertOutcome,
    UpsertResult,
)
from bio_mcp.store.jobs import JobStatus, SyncJob, SyncJobRepository
from bio_mcp.store.metadata_store import MetadataStore, StoreTransaction, open_metadata_store
from bio_mcp.store.schema import SCHEMA_VERSION
from bio_mcp.store.timestamps import normalise_iso_utc, require_iso_utc
from bio_mcp.store.upstream_cache import (
    CachedCtgovSearch,
    CachedSearch,
    CachedStudy,
    CtgovStudy,
    UpstreamCache,
    ctgov_search_key,
    pubmed_search_key,
)

__all__ = [
    "SCHEMA_VERSION",
    "AnalystCheckpoint",
    "AnalystCheckpointRepository",
    "BlobStore",
    "CachedCtgovSearch",
    "CachedSearch",
    "CachedStudy",
    "CheckpointAuditEntry",
    "CheckpointChange",
    "CheckpointRepository",
    "ChunkRecord",
    "ChunkRepository",
    "ChunkSet",
    "ChunkStateCounts",
    "CtgovStudy",
    "DocumentRecord",
    "DocumentRepository",
    "EmbeddingWriteResult",
    "FilesystemBlobStore",
    "JobStatus",
    "MetadataStore",
    "PendingChunk",
    "QualityScores",
    "ReplaceResult",
    "S3BlobStore",
    "StoreTransaction",
    "StoredChunk",
    "StoredDocument",
    "SyncJob",
    "SyncJobRepository",
    "UpsertOutcome",
    "UpsertResult",
    "UpstreamCache",
    "blob_key",
    "ctgov_search_key",
    "normalise_iso_utc",
    "open_blob_store",
    "open_metadata_store",
    "pubmed_search_key",
    "require_iso_utc",
]
