"""Settings of how Bio-MCP is served: transports, authentication, what clients see."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings

from bio_mcp.config.fields import SETTINGS_CONFIG, CsvList, OptionalPath, OptionalText

TOOLSETS = ("pubmed", "corpus", "analyst", "kb", "evidence")


class ServerSettings(BaseSettings):
    """What every transport shares: the home folder, the toolsets, what clients see, logs, telemetry."""

    model_config = SETTINGS_CONFIG

    home: Path = Field(
        default=Path.home() / ".bio-mcp", validation_alias="BIO_MCP_HOME",
        description='Folder of the embedded defaults: SQLite files, blobs, derived indexes, exported models.',
    )
    toolsets: CsvList = Field(
        default_factory=lambda: list(TOOLSETS), validation_alias="BIO_MCP_TOOLSETS",
        description='Comma-separated toolsets to serve (pubmed, corpus, analyst, kb, evidence); empty: all.',
    )
    # As bio-mcp://diagnostics/{date}/{id}.
    diagnostics_resources_enabled: bool = Field(
        default=False, validation_alias="MCP_DIAGNOSTICS_RESOURCES_ENABLED",
        description='Lists diagnostics summaries as resources (they are always stored).',
    )
    diagnostics_ttl_hours: int = Field(
        default=168, ge=1, le=24 * 365, validation_alias="BIO_MCP_DIAGNOSTICS_TTL_HOURS",
        description='Hours diagnostics summaries are kept.',
    )
    # What MCP clients see: tool names (portable: dots become underscores, as Claude Desktop requires;
    # seed: the seeds' dotted names) and the size budget of each result's text, in characters.
    tool_names: Literal["portable", "seed"] = Field(
        default="portable", validation_alias="BIO_MCP_TOOL_NAMES",
        description='Listed tool names: portable (dots become underscores) or seed (dotted).',
    )
    # The seeds' older names of a tool (traverse_relationships, search_documentation) are always
    # callable; listing them too costs every client's context the same tool twice.
    legacy_tool_names: bool = Field(
        default=False, validation_alias="BIO_MCP_LEGACY_TOOL_NAMES",
        description="Also lists the seeds' older tool names (they are always callable).",
    )
    text_budget: int = Field(
        default=65_536, ge=4_096, le=10_000_000, validation_alias="BIO_MCP_TEXT_BUDGET",
        description="Characters of each result's text before the rest overflows to a scratch resource.",
    )
    log_level: Literal["debug", "info", "warning", "error", "critical"] = Field(
        default="info", validation_alias="MCP_LOG_LEVEL",
        description='Log level.',
    )
    logs_dir: OptionalPath = Field(
        default=None, validation_alias="LOGS_DIR",
        description='Folder of log files (default: stderr only).',
    )
    otel_exporter: Literal["none", "console", "otlp"] = Field(
        default="none", validation_alias=AliasChoices("BIO_MCP_OTEL_EXPORTER", "OTEL_TRACES_EXPORTER"),
        description='OpenTelemetry trace exporter: none, console or otlp.',
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

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


class HttpSettings(BaseSettings):
    """The Streamable HTTP transport, its bearer authentication, and the gRPC read surface."""

    model_config = SETTINGS_CONFIG

    transport: Literal["stdio", "http"] = Field(
        default="stdio", validation_alias="MCP_TRANSPORT_TYPE",
        description='MCP transport: stdio or http (Streamable HTTP).',
    )
    http_host: str = Field(
        default="127.0.0.1", validation_alias="MCP_HTTP_HOST",
        description='Address the HTTP transport listens on.',
    )
    http_port: int = Field(
        default=3010, ge=1, le=65535, validation_alias="MCP_HTTP_PORT",
        description='Port the HTTP transport listens on.',
    )
    allowed_origins: CsvList = Field(
        default_factory=list, validation_alias="MCP_ALLOWED_ORIGINS",
        description='Comma-separated browser origins the HTTP transport accepts.',
    )
    allowed_hosts: CsvList = Field(
        default_factory=list, validation_alias="MCP_ALLOWED_HOSTS",
        description='Comma-separated Host headers the HTTP transport accepts.',
    )
    auth_secret_key: OptionalText = Field(
        default=None, validation_alias="MCP_AUTH_SECRET_KEY",
        description='HS256 secret (at least 32 characters) for bearer tokens on the HTTP transport.',
    )
    auth_jwks_url: OptionalText = Field(
        default=None, validation_alias="MCP_AUTH_JWKS_URL",
        description='JWKS URL of an external issuer whose tokens the HTTP transport accepts.',
    )
    auth_audience: OptionalText = Field(
        default=None, validation_alias="MCP_AUTH_AUDIENCE",
        description='Audience a bearer token must name.',
    )
    # An external OAuth issuer: named in the protected-resource metadata (RFC 9728) and checked in tokens.
    auth_issuer: OptionalText = Field(
        default=None, validation_alias="MCP_AUTH_ISSUER",
        description='External OAuth issuer named in the protected-resource metadata and checked in tokens.',
    )
    # Tokens meant to live longer than this (exp - iat, or exp - now) are refused; `bio-mcp token`
    # will not mint them either.
    auth_max_token_lifetime_s: int = Field(
        default=24 * 3600, ge=60, le=366 * 24 * 3600, validation_alias="MCP_AUTH_MAX_TOKEN_LIFETIME_S",
        description='Longest token lifetime accepted (and minted by `bio-mcp token`), in seconds.',
    )
    # The URL clients reach this server at (behind a proxy); default http://MCP_HTTP_HOST:MCP_HTTP_PORT.
    public_url: OptionalText = Field(
        default=None, validation_alias="MCP_PUBLIC_URL",
        description='URL clients reach this server at (behind a proxy); default from host and port.',
    )
    # Loud, explicit, loopback-only opt-out of bearer auth for local development.
    auth_disabled: bool = Field(
        default=False, validation_alias="MCP_AUTH_DISABLED",
        description='Turns bearer authentication off, on loopback only, for local development.',
    )
    # Seed 003's gRPC read surface (server/grpc/evidence.proto) on MCP_HTTP_HOST:this port, beside the MCP
    # transport, under the same bearer tokens; unset: no gRPC server. Needs the grpc extra.
    grpc_port: int | None = Field(
        default=None, ge=1, le=65535, validation_alias="BIO_MCP_GRPC_PORT",
        description='Port of the gRPC read surface (needs the grpc extra); unset: no gRPC server.',
    )
    # Legacy surface (seed 002): search_documentation and plain REST under /mcp/tools.
    http_legacy_rest_enabled: bool = Field(
        default=False, validation_alias="MCP_HTTP_LEGACY_REST_ENABLED",
        description='Serves the legacy REST surface under /mcp/tools and search_documentation.',
    )
    http_json_response: bool = Field(
        default=False, validation_alias="MCP_HTTP_STREAMABLE_JSON_RESPONSE",
        description='Streamable HTTP answers as JSON instead of an event stream.',
    )

    @model_validator(mode="after")
    def _auth_secret_strength(self) -> HttpSettings:
        if self.auth_secret_key is not None and len(self.auth_secret_key) < 32:
            raise ValueError("MCP_AUTH_SECRET_KEY must be at least 32 characters")
        return self
