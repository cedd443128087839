"""Helpers for the OpenTelemetry tests. The `otel` fixture: a real OpenTelemetry SDK (tracer and meter providers with in-memory
exporters) installed as the process's global providers for one test, then removed again, so the
rest of the suite keeps running with no SDK (and tracing off)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import opentelemetry.trace as trace_api
import pytest
from opentelemetry.metrics import _internal as metrics_api
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcp.server import MCPServer


@dataclass
class Captured:
    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def span(self, name: str) -> ReadableSpan:
        found = [s for s in self.spans() if s.name == name]
        assert len(found) == 1, (name, [s.name for s in self.spans()])
        return found[0]

    def points(self, metric: str) -> list[tuple[dict[str, Any], Any]]:
        """(attributes, point) of every data point of `metric`: a histogram point has `.count`,
        a sum point `.value`."""
        data = self.reader.get_metrics_data()
        out: list[tuple[dict[str, Any], Any]] = []
        if data is None:
            return out
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for m in scope.metrics:
                    if m.name == metric:
                        out.extend((dict(p.attributes or {}), p) for p in m.data.data_points)
        return out


@pytest.fixture
def otel() -> Iterator[Captured]:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    saved = trace_api._TRACER_PROVIDER, metrics_api._METER_PROVIDER
    # What set_tracer_provider / set_meter_provider do, minus their set-once latch.
    trace_api._TRACER_PROVIDER = tracer_provider
    metrics_api._METER_PROVIDER = meter_provider
    try:
        yield Captured(exporter, reader)
    finally:
        trace_api._TRACER_PROVIDER, metrics_api._METER_PROVIDER = saved
        tracer_provider.shutdown()
        meter_provider.shutdown()


def bookshop() -> MCPServer:
    """The server the OpenTelemetry tests trace: a tool, a tool that crashes, a prompt."""
    mcp = MCPServer("Bookshop")

    @mcp.tool()
    def search_books(query: str) -> str:
        """Search the catalog by title or author."""
        return f"Found 3 books matching {query!r}."

    @mcp.tool()
    def broken(query: str) -> str:
        raise ValueError("the catalog is offline")

    @mcp.prompt()
    def recommend(genre: str) -> str:
        return f"Recommend a {genre} book."

    return mcp
