"""The analyst's tracer provider: off by default, console or OTLP when asked, and a clear error
naming the `otel` extra when the SDK it needs is not installed (as in the default install)."""

from __future__ import annotations

import sys

import pytest
from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider

from bio_mcp.config import load_settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.telemetry import build_tracer_provider


def test_telemetry_is_off_by_default(bio_home) -> None:
    assert build_tracer_provider(load_settings()) is None


@pytest.mark.parametrize("exporter", ["console", "otlp"])
def test_an_exporter_gets_an_sdk_provider(bio_home, exporter: str) -> None:
    provider = build_tracer_provider(load_settings(BIO_MCP_OTEL_EXPORTER=exporter))
    try:
        assert isinstance(provider, SdkTracerProvider)
        with provider.get_tracer("test").start_as_current_span("span") as span:
            assert span.get_span_context().is_valid
    finally:
        provider.shutdown()


@pytest.mark.parametrize(
    ("exporter", "blocked"),
    [("console", "opentelemetry.sdk.trace"), ("otlp", "opentelemetry.exporter.otlp.proto.http.trace_exporter")],
)
def test_an_exporter_without_the_otel_extra_names_it(
    bio_home, monkeypatch: pytest.MonkeyPatch, exporter: str, blocked: str
) -> None:
    monkeypatch.setitem(sys.modules, blocked, None)
    with pytest.raises(BioMcpError) as caught:
        build_tracer_provider(load_settings(BIO_MCP_OTEL_EXPORTER=exporter))
    assert caught.value.code is ErrorCode.VALIDATION
    assert "pip install 'bio-mcp[otel]'" in caught.value.message
    assert caught.value.details == {"missing": blocked}
