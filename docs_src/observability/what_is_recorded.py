import asyncio

from opentelemetry import trace
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from traced_server import configure, mcp

from mcp import Client


async def main() -> None:
    spans, metrics = InMemorySpanExporter(), InMemoryMetricReader()
    configure(spans, metrics)
    async with Client(mcp) as client:
        await client.call_tool("get_temperature", {"city": "London"})
    trace.get_tracer_provider().force_flush()  # type: ignore[attr-defined]
    for span in spans.get_finished_spans():
        print(span.kind.name, span.name)
    data = metrics.get_metrics_data()
    names = {m.name for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics}
    print(sorted(names))


if __name__ == "__main__":
    asyncio.run(main())
