"""Every setting of Bio-MCP, read from the environment (names from the seeds where they give them).

Each concern has its own model (`sources`, `serving`, `corpus`, `graph`, `evidence`, `data`), every
field with its description; `Settings` is all of them at once, as the server reads them.
`Settings()` validates on construction; `load_settings()` turns a validation failure into a
`BioMcpError(VALIDATION)` whose message names each bad variable (an unknown one: "NAME: not a
setting"), for the CLI to print.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from bio_mcp.config.corpus import CorpusSettings, EmbeddingSettings
from bio_mcp.config.data import DataSettings
from bio_mcp.config.evidence import EvidenceSettings
from bio_mcp.config.fields import SETTINGS_CONFIG
from bio_mcp.config.graph import GraphSettings
from bio_mcp.config.serving import TOOLSETS, HttpSettings, ServerSettings
from bio_mcp.config.sources import (
    CtgovSettings,
    LiteratureSettings,
    ModelApiSettings,
    NcbiSettings,
    Pubtator3Settings,
)
from bio_mcp.errors import BioMcpError, ErrorCode

__all__ = ["CONCERNS", "TOOLSETS", "Settings", "load_settings"]

# In the order `bio-mcp doctor` and the README list them.
CONCERNS = (ServerSettings, HttpSettings, NcbiSettings, CtgovSettings, Pubtator3Settings, LiteratureSettings,
            ModelApiSettings, CorpusSettings, EmbeddingSettings, GraphSettings, EvidenceSettings, DataSettings)


class Settings(ServerSettings, HttpSettings, NcbiSettings, CtgovSettings, Pubtator3Settings, LiteratureSettings,
               ModelApiSettings, CorpusSettings, EmbeddingSettings, GraphSettings, EvidenceSettings, DataSettings):
    """All of the concerns' settings, as one object the server passes down."""

    model_config = SETTINGS_CONFIG

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
