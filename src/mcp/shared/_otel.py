"""The official SDK's OpenTelemetry helper names, over our implementation in `mcp._telemetry`.

Importing this module imports `opentelemetry`; the SDK itself never does until an OpenTelemetry
SDK is installed (see `mcp._telemetry`).
"""

from mcp._telemetry.runtime import extract_trace_context, inject_trace_context, otel_span

__all__ = ["extract_trace_context", "inject_trace_context", "otel_span"]
