"""A stdio server process with its own OpenTelemetry SDK: each finished span is appended as one
JSON line to the file named by $SPANS_FILE (name, trace and span ids, parent, attributes)."""

import json
import os
from collections.abc import Sequence

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

from mcp.server import MCPServer


class _JsonLines(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with open(os.environ["SPANS_FILE"], "a", encoding="utf-8") as out:
            for span in spans:
                context = span.get_span_context()
                assert context is not None
                out.write(json.dumps({
                    "name": span.name, "trace_id": context.trace_id, "span_id": context.span_id,
                    "parent": span.parent.span_id if span.parent else None, "kind": span.kind.name,
                    "attributes": dict(span.attributes or {}),
                }) + "\n")
        return SpanExportResult.SUCCESS


provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(_JsonLines()))
trace.set_tracer_provider(provider)

mcp = MCPServer("Bookshop")


@mcp.tool()
def search_books(query: str) -> str:
    """Search the catalog by title or author."""
    return f"Found 3 books matching {query!r}."


if __name__ == "__main__":
    mcp.run()
