"""Every setting of Bio-MCP, read from the environment (names from the seeds where they give them).

`Settings()` validates on construction; `load_settings()` turns a validation failure into a
`BioMcpError(VALIDATION)` whose message names each bad variable, for the CLI to print.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bio_mcp import __version__
from bio_mcp.errors import BioMcpError, ErrorCode

TOOLSETS = ("pubmed", "corpus", "analyst", "kb", "evidence")


def _split_csv(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Settings(BaseSettings):
    # Overrides use the environment names too (Settings(BIO_MCP_HOME=...)): accepting field names
    # would let unrelated variables such as HOME leak in.
    model_config = SettingsConfigDict(env_file=None, extra="forbid")

    # Embedded data directory: SQLite files, blobs, derived indexes, exported models.
    home: Path = Field(default=Path.home() / ".bio-mcp", validation_alias="BIO_MCP_HOME")
    toolsets: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(TOOLSETS), validation_alias="BIO_MCP_TOOLSETS"
    )

    # NCBI E-utilities (seed 001).
    ncbi_api_key: str | None = Field(default=None, validation_alias="NCBI_API_KEY")
    ncbi_tool: str = Field(default=f"bio-mcp/{__version__}", validation_alias="NCBI_TOOL_IDENTIFIER")
    ncbi_email: str | None = Field(default=None, validation_alias="NCBI_ADMIN_EMAIL")
    ncbi_request_delay_ms: int = Field(default=0, ge=0, le=60_000, validation_alias="NCBI_REQUEST_DELAY_MS")
    ncbi_max_retries: int = Field(default=3, ge=0, le=10, validation_alias="NCBI_MAX_RETRIES")
    ncbi_base_url: str = Field(
        default="https://eutils.ncbi.nlm.nih.gov/entrez/eutils", validation_alias="NCBI_EUTILS_BASE_URL"
    )
    ncbi_timeout_s: float = Field(default=15.0, gt=0, le=300, validation_alias="NCBI_TIMEOUT_S")
    # Requests are counted over one second plus this, so uneven travel to NCBI cannot put one more
    # than the limit in any second of NCBI's count (they leave at least a second apart; see
    # sources/ratelimit.py). Widen it for a long or jittery path to NCBI.
    ncbi_rate_margin_ms: int = Field(default=20, ge=0, le=500, validation_alias="NCBI_RATE_MARGIN_MS")
    # One attempt's share of a call's deadline (NCBI_TIMEOUT_S): a slow answer leaves time to retry.
    ncbi_attempt_timeout_s: float = Field(default=6.0, gt=0, le=300, validation_alias="NCBI_ATTEMPT_TIMEOUT_S")
    # Answers larger than this are refused (UPSTREAM). 32 MiB is several times a 200-record EFetch.
    ncbi_max_body_bytes: int = Field(
        default=32 * 1024 * 1024, ge=1024, le=2**31, validation_alias="NCBI_MAX_BODY_BYTES"
    )

    # ClinicalTrials.gov API v2 (seed 004).
    ctgov_base_url: str = Field(default="https://clinicaltrials.gov/api/v2", validation_alias="CTGOV_BASE_URL")
    ctgov_rps: float = Field(default=1.0, gt=0, le=50, validation_alias="CTGOV_RPS")
    ctgov_max_retries: int = Field(default=3, ge=0, le=10, validation_alias="CTGOV_MAX_RETRIES")
    ctgov_timeout_s: float = Field(default=15.0, gt=0, le=300, validation_alias="CTGOV_TIMEOUT_S")
    ctgov_attempt_timeout_s: float = Field(default=6.0, gt=0, le=300, validation_alias="CTGOV_ATTEMPT_TIMEOUT_S")
    # A 1,000-study page with every field is the largest answer the client asks for.
    ctgov_max_body_bytes: int = Field(
        default=64 * 1024 * 1024, ge=1024, le=2**31, validation_alias="CTGOV_MAX_BODY_BYTES"
    )

    # NCBI PubTator3 (issue 33): NCBI asks for no more than three requests per second.
    pubtator3_base_url: str = Field(
        default="https://www.ncbi.nlm.nih.gov/research/pubtator3-api", validation_alias="PUBTATOR3_BASE_URL"
    )
    pubtator3_rps: float = Field(default=3.0, gt=0, le=3, validation_alias="PUBTATOR3_RPS")
    pubtator3_max_retries: int = Field(default=3, ge=0, le=10, validation_alias="PUBTATOR3_MAX_RETRIES")
    pubtator3_timeout_s: float = Field(default=20.0, gt=0, le=300, validation_alias="PUBTATOR3_TIMEOUT_S")
    pubtator3_attempt_timeout_s: float = Field(default=8.0, gt=0, le=300, validation_alias="PUBTATOR3_ATTEMPT_TIMEOUT_S")
    # A full-text BioC document is about 1 MB; a batch of 100 abstracts a few MB.
    pubtator3_max_body_bytes: int = Field(
        default=32 * 1024 * 1024, ge=1024, le=2**31, validation_alias="PUBTATOR3_MAX_BODY_BYTES"
    )
    # Annotations of a PMID are kept this long in memory (PubTator3 updates weekly).
    pubtator3_cache_ttl_s: int = Field(default=86_400, ge=0, le=7 * 86_400, validation_alias="PUBTATOR3_CACHE_TTL_S")
    # Europe PMC REST API. Its developer forum gives the throttle as 10 requests/second and 500/minute;
    # 8/s keeps both, as every request goes through one limiter.
    europepmc_base_url: str = Field(
        default="https://www.ebi.ac.uk/europepmc/webservices/rest", validation_alias="EUROPEPMC_BASE_URL"
    )
    europepmc_rps: float = Field(default=8.0, gt=0, le=10, validation_alias="EUROPEPMC_RPS")
    europepmc_max_retries: int = Field(default=3, ge=0, le=10, validation_alias="EUROPEPMC_MAX_RETRIES")
    europepmc_timeout_s: float = Field(default=20.0, gt=0, le=300, validation_alias="EUROPEPMC_TIMEOUT_S")
    europepmc_attempt_timeout_s: float = Field(
        default=8.0, gt=0, le=300, validation_alias="EUROPEPMC_ATTEMPT_TIMEOUT_S"
    )
    # A 1,000-record core page is about 25 MB.
    europepmc_max_body_bytes: int = Field(
        default=48 * 1024 * 1024, ge=1024, le=2**31, validation_alias="EUROPEPMC_MAX_BODY_BYTES"
    )
    # Seconds an identical Europe PMC, ID Converter or Unpaywall answer is served from memory (0: never).
    literature_cache_ttl_s: float = Field(default=600.0, ge=0, le=86_400, validation_alias="LITERATURE_CACHE_TTL_S")
    # NCBI's PMC ID Converter (PMID, PMCID and DOI to one another); it shares the E-utilities rate limit.
    idconv_base_url: str = Field(
        default="https://www.ncbi.nlm.nih.gov/pmc/utils/idconv/v1.0", validation_alias="NCBI_IDCONV_BASE_URL"
    )
    # Unpaywall needs an email on every request; without UNPAYWALL_EMAIL, NCBI_ADMIN_EMAIL is used.
    unpaywall_base_url: str = Field(default="https://api.unpaywall.org/v2", validation_alias="UNPAYWALL_BASE_URL")
    unpaywall_email: str | None = Field(default=None, validation_alias="UNPAYWALL_EMAIL")

    # A query key's first sync reaches back this many days (unless told `since`), not to 1800.
    sync_lookback_days: int = Field(default=365, ge=1, le=100_000, validation_alias="BIO_MCP_SYNC_LOOKBACK_DAYS")
    # Records one sync call stores at most (whole EDAT days, so a single larger day is still taken whole).
    sync_max_records: int = Field(default=5000, ge=1, le=100_000, validation_alias="BIO_MCP_SYNC_MAX_RECORDS")
    # A sync of at least this many records starts the annotation worker process (0: never).
    annotation_worker_min_records: int = Field(
        default=1000, ge=0, validation_alias="BIO_MCP_ANNOTATION_WORKER_MIN_RECORDS"
    )

    # MeSH descriptors (JSON lines, plain or compressed): the linker, the graph, the analyst's indications.
    # Default: the copy `bio-mcp data install-mesh` put under BIO_MCP_HOME, else MeSH 2024 shipped in the package.
    mesh_path: Path | None = Field(default=None, validation_alias="BIO_MCP_MESH_PATH")
    # Derived, rebuildable files (the compiled MeSH vocabulary, the entity linker), keyed by the
    # hashes of what they were built from; default BIO_MCP_HOME/cache. Several homes may share one.
    cache_dir: Path | None = Field(default=None, validation_alias="BIO_MCP_CACHE_DIR")
    # BC5CDR-style PubTator file whose mention -> MeSH pairs the entity linker adds to MeSH's own terms
    # (default: what the package ships of BC5CDR's training split, vocabularies/trained/).
    linker_training_path: Path | None = Field(default=None, validation_alias="BIO_MCP_LINKER_TRAINING")
    # Dr. Duke's Phytochemical and Ethnobotanical Databases (CSV folder: FNFTAX, COMMON_NAMES, AGGREGAC):
    # herb taxa and common names, constituent activities. Default: the tables shipped in the package.
    duke_dir: Path | None = Field(default=None, validation_alias="BIO_MCP_DUKE_DIR")
    # Dr. Duke's plant-to-constituent and plant-to-traditional-use tables as processed CSV
    # (duke_plant_constituents.csv, duke_plant_ethnobotany.csv): herbs' constituents for
    # `bio-mcp kg herbs`, their traditional uses in kg://herb. Default: the shared data beside the checkout.
    duke_farmacy_dir: Path | None = Field(default=None, validation_alias="BIO_MCP_DUKE_FARMACY_DIR")
    # The Disease Ontology's cross-references (allXREFinDO.tsv: DOID, label, xref): MeSH -> ICD-10-CM
    # codes of indications. Default: the MESH and ICD10CM rows shipped in the package.
    do_xrefs_path: Path | None = Field(default=None, validation_alias="BIO_MCP_DO_XREFS_PATH")
    # Relation extraction: PPR's training split, which the cue model and the plant and phenotype names
    # are learnt from, or the model `bio-mcp data build-vocabularies --relation-model` built from it
    # (PPR may not be shipped; without it the untrained cue rules of graph/relation_cues.py run).
    # Plant taxa and common names come from duke_dir.
    relations_training_path: Path | None = Field(default=None, validation_alias="BIO_MCP_RELATIONS_TRAINING")

    # Shared state across replicas; in-process when unset.
    redis_url: str | None = Field(default=None, validation_alias="REDIS_URL")
    database_url: str | None = Field(default=None, validation_alias="DATABASE_URL")

    # MCP transport (seed 001).
    transport: Literal["stdio", "http"] = Field(default="stdio", validation_alias="MCP_TRANSPORT_TYPE")
    http_host: str = Field(default="127.0.0.1", validation_alias="MCP_HTTP_HOST")
    http_port: int = Field(default=3010, ge=1, le=65535, validation_alias="MCP_HTTP_PORT")
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias="MCP_ALLOWED_ORIGINS"
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(default_factory=list, validation_alias="MCP_ALLOWED_HOSTS")
    auth_secret_key: str | None = Field(default=None, validation_alias="MCP_AUTH_SECRET_KEY")
    auth_jwks_url: str | None = Field(default=None, validation_alias="MCP_AUTH_JWKS_URL")
    auth_audience: str | None = Field(default=None, validation_alias="MCP_AUTH_AUDIENCE")
    # An external OAuth issuer: named in the protected-resource metadata (RFC 9728) and checked in tokens.
    auth_issuer: str | None = Field(default=None, validation_alias="MCP_AUTH_ISSUER")
    # Tokens meant to live longer than this (exp - iat, or exp - now) are refused; `bio-mcp token`
    # will not mint them either.
    auth_max_token_lifetime_s: int = Field(
        default=24 * 3600, ge=60, le=366 * 24 * 3600, validation_alias="MCP_AUTH_MAX_TOKEN_LIFETIME_S"
    )
    # The URL clients reach this server at (behind a proxy); default http://MCP_HTTP_HOST:MCP_HTTP_PORT.
    public_url: str | None = Field(default=None, validation_alias="MCP_PUBLIC_URL")
    # Loud, explicit, loopback-only opt-out of bearer auth for local development.
    auth_disabled: bool = Field(default=False, validation_alias="MCP_AUTH_DISABLED")
    # Seed 003's gRPC read surface (server/grpc/evidence.proto) on MCP_HTTP_HOST:this port, beside the MCP
    # transport, under the same bearer tokens; unset: no gRPC server. Needs the grpc extra.
    grpc_port: int | None = Field(default=None, ge=1, le=65535, validation_alias="BIO_MCP_GRPC_PORT")

    # Embeddings (seed 000 adapter): the provider and model of every vector in the index.
    # onnx by default: SciFact nDCG@10 within 0.005 of the full model's, about 2.7x faster (README).
    embeddings_provider: Literal["local", "onnx", "hf", "openai", "hash"] = Field(
        default="onnx", validation_alias="BIO_MCP_EMBEDDINGS_PROVIDER"
    )
    embeddings_model: str | None = Field(default=None, validation_alias="BIO_MCP_EMBEDDINGS_MODEL")
    embeddings_base_url: str | None = Field(default=None, validation_alias="BIO_MCP_EMBEDDINGS_BASE_URL")
    embeddings_api_key: str | None = Field(default=None, validation_alias="BIO_MCP_EMBEDDINGS_API_KEY")
    embeddings_batch_size: int = Field(default=64, ge=1, le=4096, validation_alias="BIO_MCP_EMBEDDINGS_BATCH_SIZE")
    # Embedded chunks from which vector search walks an HNSW graph instead of scanning exactly
    # (None: the index's default, a million, where exact search nears its latency budget).
    ann_threshold: int | None = Field(default=None, ge=1, validation_alias="BIO_MCP_ANN_THRESHOLD")
    # Where chunk vectors live: "auto" keeps them in PostgreSQL (pgvector, shared by every replica)
    # when DATABASE_URL is a PostgreSQL server with the extension, else in BIO_MCP_HOME as "embedded".
    vector_backend: Literal["auto", "embedded", "pgvector"] = Field(
        default="auto", validation_alias="BIO_MCP_VECTOR_BACKEND"
    )

    # Several processes on one corpus: how often each polls the store's change log (0: never), and
    # how much of the log is kept (rows beyond the newest `keep` and older than `min age` are pruned;
    # a process further behind rebuilds its index from the store).
    corpus_follow_interval_s: float = Field(
        default=1.0, ge=0, le=3600, validation_alias="BIO_MCP_CORPUS_FOLLOW_INTERVAL_S"
    )
    # On PostgreSQL, also wake at once on the change log's NOTIFY instead of at the next poll.
    corpus_listen: bool = Field(default=True, validation_alias="BIO_MCP_CORPUS_LISTEN")
    changelog_keep_rows: int = Field(default=10_000, ge=1, validation_alias="BIO_MCP_CHANGELOG_KEEP_ROWS")
    changelog_min_age_s: float = Field(default=86_400.0, ge=0, validation_alias="BIO_MCP_CHANGELOG_MIN_AGE_S")

    # kb.search providers (seed 002): Jina embeddings and rerankers, Cohere rerankers, and the defaults.
    jina_api_key: str | None = Field(default=None, validation_alias="JINA_API_KEY")
    jina_base_url: str = Field(default="https://api.jina.ai", validation_alias="JINA_BASE_URL")
    jina_embeddings_model: str = Field(default="jina-embeddings-v3", validation_alias="JINA_EMBEDDINGS_MODEL")
    jina_reranker_model: str = Field(
        default="jina-reranker-v2-base-multilingual", validation_alias="JINA_RERANKER_MODEL"
    )
    cohere_api_key: str | None = Field(default=None, validation_alias="COHERE_API_KEY")
    cohere_base_url: str = Field(default="https://api.cohere.com", validation_alias="COHERE_BASE_URL")
    cohere_rerank_model: str = Field(default="rerank-english-v3.0", validation_alias="COHERE_RERANK_MODEL")
    # How much documents whose sections mention the query's entities are lifted (features.kb.ranking),
    # per retrieval mode (SciFact train nDCG@10, bench/kb_scifact.py). BM25 alone: +0.006 at 0.2 when
    # a document's BM25 was its best chunk's, +0.0005 (halves +0.002 and -0.001) now that it is the
    # whole document's, which already rewards naming more of the query; kept for the synonyms BM25
    # misses. Hybrid: it lowers nDCG@10 at every weight (0.7455 -> 0.7381 at 0.2, 0.7408 -> 0.7362
    # before whole-document BM25; both halves agreeing: bench/results/kb_scifact_train_hybrid.jsonl),
    # so it is off there by default.
    kb_entity_boost: float = Field(default=0.2, ge=0.0, le=5.0, validation_alias="BIO_MCP_KB_ENTITY_BOOST")
    kb_entity_boost_hybrid: float = Field(
        default=0.0, ge=0.0, le=5.0, validation_alias="BIO_MCP_KB_ENTITY_BOOST_HYBRID"
    )
    kb_reranker: Literal["none", "jina", "cohere"] = Field(default="none", validation_alias="BIO_MCP_KB_RERANKER")
    # tool.rag_answer (seed 003): answers whose answer_conf is below this are withheld (the seed's τ).
    answer_conf_tau: float = Field(default=0.6, ge=0.0, le=1.0, validation_alias="ANSWER_CONF_TAU")
    # tool.rag_answer may ask the client's model (MCP sampling) to write the answer from the numbered
    # evidence, when the client supports sampling; every sentence's citations are checked.
    answer_sampling: bool = Field(default=False, validation_alias="BIO_MCP_ANSWER_SAMPLING")
    # Diagnostics summaries as resources (bio-mcp://diagnostics/{date}/{id}); always stored.
    diagnostics_resources_enabled: bool = Field(default=False, validation_alias="MCP_DIAGNOSTICS_RESOURCES_ENABLED")
    diagnostics_ttl_hours: int = Field(default=168, ge=1, le=24 * 365, validation_alias="BIO_MCP_DIAGNOSTICS_TTL_HOURS")
    # Legacy surface (seed 002): search_documentation and plain REST under /mcp/tools.
    http_legacy_rest_enabled: bool = Field(default=False, validation_alias="MCP_HTTP_LEGACY_REST_ENABLED")
    http_json_response: bool = Field(default=False, validation_alias="MCP_HTTP_STREAMABLE_JSON_RESPONSE")

    # Knowledge graph (seed 002): entity linking during syncs, and the traversal's server-side limits.
    graph_linking: bool = Field(default=True, validation_alias="BIO_MCP_GRAPH_LINKING")
    # PubTator3's genes, variants, species, cell lines, chemicals and diseases of each synced or added
    # record join the graph as MENTIONS of linker `pubtator3` (one more upstream call per 100 records).
    pubtator3_mentions: bool = Field(default=False, validation_alias="BIO_MCP_PUBTATOR3_MENTIONS")
    graph_max_rows: int = Field(default=100_000, ge=1, validation_alias="BIO_MCP_GRAPH_MAX_ROWS")
    graph_query_timeout_ms: int = Field(default=2000, ge=1, le=600_000, validation_alias="BIO_MCP_GRAPH_QUERY_TIMEOUT_MS")
    graph_connect_timeout_ms: int = Field(
        default=1500, ge=1, le=600_000, validation_alias="BIO_MCP_GRAPH_CONNECT_TIMEOUT_MS"
    )
    # RELATED_TO after writes (graph/related_refresh.py): the server recomputes it in the background
    # this many seconds after a sync, ingestion or paper fetch (later writes in that time share the
    # one computation); `bio-mcp sync` before returning, unless the graph has more sections than the
    # maximum: 8 to 11 s of one core per 100,000 sections (bench/related_refresh.py), so 200,000
    # bounds the CLI's wait near 20 s.
    graph_related_after_sync: bool = Field(default=True, validation_alias="BIO_MCP_GRAPH_RELATED_AFTER_SYNC")
    graph_related_delay_s: float = Field(default=10.0, ge=0, le=3600, validation_alias="BIO_MCP_GRAPH_RELATED_DELAY_S")
    graph_related_max_sections: int = Field(
        default=200_000, ge=0, validation_alias="BIO_MCP_GRAPH_RELATED_MAX_SECTIONS"
    )

    # Document ingestion (seed 003, tool.ingest.run): files are read and written only under these
    # directories (comma-separated; none: every ingestion is refused), up to this size. OCR runs
    # Debian's `tesseract` (languages joined by +) on pages rasterised by poppler's `pdftoppm`.
    ingest_roots: Annotated[list[Path], NoDecode] = Field(default_factory=list, validation_alias="BIO_MCP_INGEST_ROOTS")
    ingest_max_bytes: int = Field(
        default=50 * 1024 * 1024, ge=1, le=2**34, validation_alias="BIO_MCP_INGEST_MAX_BYTES"
    )
    ingest_max_pages: int = Field(default=2000, ge=1, validation_alias="BIO_MCP_INGEST_MAX_PAGES")
    ingest_ocr_languages: str = Field(
        default="tha+eng", pattern=r"^[a-z_]{3,16}(\+[a-z_]{3,16})*$", validation_alias="BIO_MCP_INGEST_OCR_LANGUAGES"
    )
    ingest_ocr_dpi: int = Field(default=300, ge=72, le=600, validation_alias="BIO_MCP_INGEST_OCR_DPI")
    # Per page, for rasterising and for recognising each.
    ingest_ocr_timeout_s: float = Field(default=120.0, gt=0, le=3600, validation_alias="BIO_MCP_INGEST_OCR_TIMEOUT_S")
    # A page whose text layer has fewer characters than this is treated as an image and OCR'd.
    ingest_ocr_min_chars: int = Field(default=16, ge=0, validation_alias="BIO_MCP_INGEST_OCR_MIN_CHARS")
    # How long tool.ingest.run waits for its job before answering with the job still queued or running.
    ingest_wait_s: float = Field(default=20.0, ge=0, le=600, validation_alias="BIO_MCP_INGEST_WAIT_S")
    # Evidence toolset (seed 003). paper://pmid/{id} fetches a paper absent from the corpus from
    # E-utilities and stores it (the pubmed toolset reaches NCBI anyway, so on by default); off, an
    # absent paper is NOT_FOUND and nothing leaves the machine.
    paper_fetch: bool = Field(default=True, validation_alias="BIO_MCP_PAPER_FETCH")
    # tool.eval.run's curated set: a folder holding BEIR-layout (scifact/), pubmedqa/, bc5cdr/ and ppr/.
    eval_data: Path | None = Field(default=None, validation_alias="BIO_MCP_EVAL_DATA")

    # Blobs (raw upstream payloads): a folder under BIO_MCP_HOME unless an s3:// URL is given.
    blob_url: str | None = Field(default=None, validation_alias="BIO_MCP_BLOB_URL")
    s3_endpoint_url: str | None = Field(default=None, validation_alias="BIO_MCP_S3_ENDPOINT_URL")

    # What MCP clients see: tool names (portable: dots become underscores, as Claude Desktop requires;
    # seed: the seeds' dotted names) and the size budget of each result's text, in characters.
    tool_names: Literal["portable", "seed"] = Field(default="portable", validation_alias="BIO_MCP_TOOL_NAMES")
    # The seeds' older names of a tool (traverse_relationships, search_documentation) are always
    # callable; listing them too costs every client's context the same tool twice.
    legacy_tool_names: bool = Field(default=False, validation_alias="BIO_MCP_LEGACY_TOOL_NAMES")
    text_budget: int = Field(default=65_536, ge=4_096, le=10_000_000, validation_alias="BIO_MCP_TEXT_BUDGET")

    # Logs.
    log_level: Literal["debug", "info", "warning", "error", "critical"] = Field(
        default="info", validation_alias="MCP_LOG_LEVEL"
    )
    logs_dir: Path | None = Field(default=None, validation_alias="LOGS_DIR")

    # Telemetry: off unless an exporter is named.
    otel_exporter: Literal["none", "console", "otlp"] = Field(
        default="none", validation_alias=AliasChoices("BIO_MCP_OTEL_EXPORTER", "OTEL_TRACES_EXPORTER")
    )

    @field_validator("toolsets", "allowed_origins", "allowed_hosts", "ingest_roots", mode="before")
    @classmethod
    def _csv(cls, value: object) -> object:
        return _split_csv(value)

    @field_validator("log_level", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @field_validator(
        "ncbi_api_key", "ncbi_email", "redis_url", "database_url", "auth_secret_key",
        "auth_jwks_url", "auth_audience", "auth_issuer", "logs_dir", "embeddings_model",
        "embeddings_base_url", "embeddings_api_key", "blob_url", "s3_endpoint_url", "mesh_path", "cache_dir", "public_url",
        "duke_dir", "duke_farmacy_dir", "do_xrefs_path",
        "jina_api_key", "cohere_api_key", "unpaywall_email", mode="before",
    )
    @classmethod
    def _empty_is_absent(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("toolsets")
    @classmethod
    def _known_toolsets(cls, value: list[str]) -> list[str]:
        if not value:
            # BIO_MCP_TOOLSETS="" (a client's optional field left blank) serves every toolset, not none.
            return list(TOOLSETS)
        unknown = sorted(set(value) - set(TOOLSETS))
        if unknown:
            raise ValueError(f"unknown toolset(s) {unknown}; choose from {list(TOOLSETS)}")
        return value

    @field_validator(
        "ncbi_base_url", "ctgov_base_url", "pubtator3_base_url", "jina_base_url", "cohere_base_url",
        "europepmc_base_url", "idconv_base_url", "unpaywall_base_url",
    )
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http(s) URL")
        return value.rstrip("/")

    @model_validator(mode="after")
    def _auth_secret_strength(self) -> Settings:
        if self.auth_secret_key is not None and len(self.auth_secret_key) < 32:
            raise ValueError("MCP_AUTH_SECRET_KEY must be at least 32 characters")
        return self

    @property
    def ncbi_requests_per_second(self) -> float:
        """NCBI's ceiling (10/s with a key, 3/s without); the configured delay may only slow it."""
        ceiling = 10.0 if self.ncbi_api_key else 3.0
        if self.ncbi_request_delay_ms > 0:
            return min(ceiling, 1000.0 / self.ncbi_request_delay_ms)
        return ceiling

    @property
    def caches(self) -> Path:
        return self.cache_dir or self.home / "cache"

    @property
    def sqlalchemy_url(self) -> str:
        return self.database_url or f"sqlite:///{self.home / 'bio-mcp.sqlite3'}"


def load_settings(**overrides: object) -> Settings:
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = str(err["loc"][0]) if err["loc"] else "settings"
            info = Settings.model_fields.get(field)
            alias = info.validation_alias if info is not None else None
            name = alias if isinstance(alias, str) else field
            problems.append(f"{name}: not a setting" if err["type"] == "extra_forbidden" else f"{name}: {err['msg']}")
        raise BioMcpError(ErrorCode.VALIDATION, "invalid configuration: " + "; ".join(problems)) from None
