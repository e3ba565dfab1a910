"""OpenTelemetry for the orchestrator: one trace per question, one span per tool call.

Span attributes follow the seed (tool, args_hash, cache_hit, rows, latency_ms, error_code). Off
unless BIO_MCP_OTEL_EXPORTER names an exporter; the SDK and the OTLP exporter that exporting needs
are the `otel` extra (the API, which the MCP SDK requires, is enough while it is off). Tests pass
their own TracerProvider.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import trace
from opentelemetry.trace import Span, Tracer, TracerProvider

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode

TRACER_NAME = "bio_mcp.analyst"
OTEL_EXTRA_HINT = "pip install 'bio-mcp[otel]'"


def build_tracer_provider(settings: Settings) -> TracerProvider | None:
    """The provider BIO_MCP_OTEL_EXPORTER asks for; None when telemetry is off."""
    if settings.otel_exporter == "none":
        return None
    try:
        from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            ConsoleSpanExporter,
            SimpleSpanProcessor,
        )

        if settings.otel_exporter == "otlp":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError as exc:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            f"BIO_MCP_OTEL_EXPORTER={settings.otel_exporter} needs the otel extra: {OTEL_EXTRA_HINT}",
            {"missing": exc.name},
        ) from None
    provider = SdkTracerProvider()
    if settings.otel_exporter == "console":
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
    else:
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return provider


class Telemetry:
    def __init__(self, provider: TracerProvider | None) -> None:
        self._tracer: Tracer = provider.get_tracer(TRACER_NAME) if provider else trace.NoOpTracer()

    @contextmanager
    def question(self, intent: str) -> Iterator[Span]:
        with self._tracer.start_as_current_span("analyst.ask", attributes={"intent": intent}) as span:
            yield span

    @contextmanager
    def tool_call(self, tool: str, args_hash: str) -> Iterator[Span]:
        with self._tracer.start_as_current_span(f"tool {tool}", attributes={"tool": tool, "args_hash": args_hash}) as span:
            yield span


def trace_id_of(span: Span) -> str | None:
    context = span.get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else None
