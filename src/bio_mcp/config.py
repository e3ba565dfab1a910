"""Every setting of Bio-MCP, read from the environment (names from the seeds where they give them).

`Settings()` validates on construction; `load_settings()` turns a validation failure into a
`BioMcpError(VALIDATION)` whose message names each bad variable, for the CLI to print.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from typing_extensions import Annotated

from bio_mcp import __version__
from bio_mcp.errors import BioMcpError, ErrorCode

TOOLSETS = ("pubmed", "corpus", "analyst")


def _split_csv(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Settings(BaseSettings):
    # Overrides use the environment names too (Settings(BIO_MCP_HOME=...)): accepting field names
    # would let unrelated variables such as HOME leak in.
    model_config = SettingsConfigDict(env_file=None, extra="ignore")

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

    # ClinicalTrials.gov API v2 (seed 004).
    ctgov_base_url: str = Field(default="https://clinicaltrials.gov/api/v2", validation_alias="CTGOV_BASE_URL")
    ctgov_rps: float = Field(default=1.0, gt=0, le=50, validation_alias="CTGOV_RPS")
    ctgov_max_retries: int = Field(default=3, ge=0, le=10, validation_alias="CTGOV_MAX_RETRIES")
    ctgov_timeout_s: float = Field(default=15.0, gt=0, le=300, validation_alias="CTGOV_TIMEOUT_S")

    # A query key's first sync reaches back this many days (unless told `since`), not to 1800.
    sync_lookback_days: int = Field(default=365, ge=1, le=100_000, validation_alias="BIO_MCP_SYNC_LOOKBACK_DAYS")
    # Records one sync call stores at most (whole EDAT days, so a single larger day is still taken whole).
    sync_max_records: int = Field(default=5000, ge=1, le=100_000, validation_alias="BIO_MCP_SYNC_MAX_RECORDS")

    # MeSH descriptors (JSON lines) for normalising indications in the analyst's questions.
    mesh_path: Path | None = Field(default=None, validation_alias="BIO_MCP_MESH_PATH")

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
    auth_issuer: str | None = Field(default=None, validation_alias="MCP_AUTH_ISSUER")
    # Loud, explicit, loopback-only opt-out of bearer auth for local development.
    auth_disabled: bool = Field(default=False, validation_alias="MCP_AUTH_DISABLED")

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

    # Blobs (raw upstream payloads): a folder under BIO_MCP_HOME unless an s3:// URL is given.
    blob_url: str | None = Field(default=None, validation_alias="BIO_MCP_BLOB_URL")
    s3_endpoint_url: str | None = Field(default=None, validation_alias="BIO_MCP_S3_ENDPOINT_URL")

    # Logs.
    log_level: Literal["debug", "info", "warning", "error", "critical"] = Field(
        default="info", validation_alias="MCP_LOG_LEVEL"
    )
    logs_dir: Path | None = Field(default=None, validation_alias="LOGS_DIR")

    # Telemetry: off unless an exporter is named.
    otel_exporter: Literal["none", "console", "otlp"] = Field(
        default="none", validation_alias=AliasChoices("BIO_MCP_OTEL_EXPORTER", "OTEL_TRACES_EXPORTER")
    )

    @field_validator("toolsets", "allowed_origins", "allowed_hosts", mode="before")
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
        "embeddings_base_url", "embeddings_api_key", "blob_url", "s3_endpoint_url", "mesh_path", mode="before",
    )
    @classmethod
    def _empty_is_absent(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("toolsets")
    @classmethod
    def _known_toolsets(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - set(TOOLSETS))
        if unknown:
            raise ValueError(f"unknown toolset(s) {unknown}; choose from {list(TOOLSETS)}")
        return value

    @field_validator("ncbi_base_url", "ctgov_base_url")
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
            problems.append(f"{name}: {err['msg']}")
        raise BioMcpError(ErrorCode.VALIDATION, "invalid configuration: " + "; ".join(problems)) from None
