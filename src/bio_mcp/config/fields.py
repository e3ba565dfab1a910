"""The field types and model configuration every concern's settings share."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator
from pydantic_settings import NoDecode, SettingsConfigDict

# Overrides use the environment names too (Settings(BIO_MCP_HOME=...)): accepting field names
# would let unrelated variables such as HOME leak in. An unknown override fails loudly.
SETTINGS_CONFIG = SettingsConfigDict(env_file=None, extra="forbid")


def _split_csv(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def _empty_is_absent(value: object) -> object:
    # A client's optional field left blank arrives as "": it means unset.
    return None if isinstance(value, str) and not value.strip() else value


def _http_url(value: str) -> str:
    if not value.startswith(("http://", "https://")):
        raise ValueError("must be an http(s) URL")
    return value.rstrip("/")


OptionalText = Annotated[str | None, BeforeValidator(_empty_is_absent)]
OptionalPath = Annotated[Path | None, BeforeValidator(_empty_is_absent)]
HttpUrl = Annotated[str, AfterValidator(_http_url)]
# Comma-separated in the environment (NoDecode: not JSON).
CsvList = Annotated[list[str], NoDecode, BeforeValidator(_split_csv)]
CsvPaths = Annotated[list[Path], NoDecode, BeforeValidator(_split_csv)]
