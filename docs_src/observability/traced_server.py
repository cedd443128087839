from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter

from mcp.server import MCPServer

mcp = MCPServer("Weather")


@mcp.tool()
def get_temperature(city: str) -> int:
    """Current temperature in a city, in whole degrees Celsius."""
    return {"London": 17, "Cairo": 34, "Reykjavik": 4}[city]


def configure(span_exporter: SpanExporter, metric_reader: MetricReader) -> None:
    """Install the OpenTelemetry SDK once, at startup: from then on the server is traced and
    measured, with nothing else to change."""
    resource = Resource.create({"service.name": "weather-mcp"})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(span_exporter))
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(MeterProvider(resource=resource, metric_readers=[metric_reader]))


if __name__ == "__main__":
    # pip install opentelemetry-sdk opentelemetry-exporter-otlp
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

    # The collector's address: OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318).
    configure(OTLPSpanExporter(), PeriodicExportingMetricReader(OTLPMetricExporter()))
    mcp.run()
