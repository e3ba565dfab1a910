"""The settings: one model per concern, every field described, unknown names refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.config import CONCERNS, Settings, load_settings
from bio_mcp.config.sources import NcbiSettings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.idconv import IdConverterClient


def test_every_setting_belongs_to_one_concern_and_is_described() -> None:
    owners: dict[str, list[str]] = {}
    for concern in CONCERNS:
        for name in concern.model_fields:
            owners.setdefault(name, []).append(concern.__name__)
    assert set(owners) == set(Settings.model_fields)
    assert {name: where for name, where in owners.items() if len(where) > 1} == {}
    undescribed = [name for name, info in Settings.model_fields.items() if not (info.description or "").strip()]
    assert undescribed == []


def test_a_concern_reads_its_settings_alone() -> None:
    assert NcbiSettings(NCBI_API_KEY="k").ncbi_requests_per_second == 10.0
    assert NcbiSettings(NCBI_REQUEST_DELAY_MS=1000).ncbi_requests_per_second == 1.0


def test_a_rate_ncbi_granted_a_key_is_used_for_e_utilities_only() -> None:
    granted = load_settings(NCBI_API_KEY="k", NCBI_API_KEY_RPS="25")
    assert EutilsClient(granted).limiter.limit / EutilsClient(granted).limiter.window_s == 25
    # The enhanced key is E-utilities' only: NCBI's other services stay at 10 per second.
    assert IdConverterClient(granted).limiter.limit / IdConverterClient(granted).limiter.window_s == 10
    assert load_settings(NCBI_API_KEY="k", NCBI_API_KEY_RPS="25", NCBI_REQUEST_DELAY_MS="200").eutils_requests_per_second == 5
    assert load_settings(NCBI_API_KEY="k").eutils_requests_per_second == 10
    with pytest.raises(BioMcpError) as caught:
        load_settings(NCBI_API_KEY_RPS="25")
    assert caught.value.code == ErrorCode.VALIDATION and "set NCBI_API_KEY too" in caught.value.message
    with pytest.raises(BioMcpError) as caught:
        load_settings(NCBI_API_KEY="k", NCBI_API_KEY_RPS="8")
    assert caught.value.code == ErrorCode.VALIDATION and "NCBI_API_KEY_RPS" in caught.value.message


def test_an_unknown_setting_is_refused_by_name() -> None:
    with pytest.raises(BioMcpError) as caught:
        load_settings(BIO_MCP_DUKE="/tmp/duke")
    assert caught.value.code == ErrorCode.VALIDATION
    assert "BIO_MCP_DUKE: not a setting" in caught.value.message


def test_values_are_read_as_a_user_writes_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIO_MCP_TOOLSETS", "pubmed, kb")
    monkeypatch.setenv("NCBI_API_KEY", " ")
    monkeypatch.setenv("NCBI_EUTILS_BASE_URL", "http://127.0.0.1:9/entrez/eutils/")
    monkeypatch.setenv("MCP_LOG_LEVEL", "DEBUG")
    settings = load_settings()
    assert settings.toolsets == ["pubmed", "kb"]
    assert settings.ncbi_api_key is None
    assert settings.ncbi_base_url == "http://127.0.0.1:9/entrez/eutils"
    assert settings.log_level == "debug"


@pytest.mark.parametrize(("name", "value", "says"), [
    ("NCBI_EUTILS_BASE_URL", "ftp://example.org", "must be an http(s) URL"),
    ("BIO_MCP_TOOLSETS", "pubmed,nope", "unknown toolset(s) ['nope']"),
    ("MCP_AUTH_SECRET_KEY", "short", "at least 32 characters"),
])
def test_a_bad_value_names_its_variable(name: str, value: str, says: str) -> None:
    with pytest.raises(BioMcpError) as caught:
        load_settings(**{name: value})
    assert says in caught.value.message


def test_the_readme_names_every_setting() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    unnamed = []
    for info in Settings.model_fields.values():
        alias = info.validation_alias
        names = [alias] if isinstance(alias, str) else [c for c in getattr(alias, "choices", ()) if isinstance(c, str)]
        if not any(f"`{name}`" in readme for name in names):
            unnamed.append(names[0])
    assert unnamed == []
