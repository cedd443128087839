"""OpenTelemetry traces and metrics for servers and clients, on by default and free when unused.

This package module is the gate only: it imports nothing but `sys`, so every server and client can
ask `enabled()` per message at the cost of a dict lookup. Spans and instruments live in
`mcp._telemetry.runtime` (which imports `opentelemetry`), loaded the first time `enabled()` is true.

Enabled means: the application has imported OpenTelemetry *and* installed a real tracer provider
or meter provider (an SDK, Logfire, `opentelemetry-instrument`). Until then nothing is traced, no
`traceparent` is sent, and the server keeps its no-middleware fast paths.
"""

from __future__ import annotations

import sys
import weakref
from typing import Any

__all__ = ["enabled", "watch_sessions"]

_session_managers: weakref.WeakSet[Any] = weakref.WeakSet()


def watch_sessions(manager: Any) -> None:
    """Count `manager.session_count` in the `mcp.server.active_sessions` metric while it lives
    (read only when a metric reader collects, so it costs nothing per request)."""
    _session_managers.add(manager)


def open_sessions() -> int:
    return sum(manager.session_count for manager in list(_session_managers))


def _is_placeholder(provider: object) -> bool:
    # The API's own stand-ins: a proxy waiting for a provider to be set, or an explicit no-op one.
    return type(provider).__name__ in ("ProxyTracerProvider", "NoOpTracerProvider", "_ProxyMeterProvider",
                                       "NoOpMeterProvider") and type(provider).__module__.startswith("opentelemetry.")


def enabled() -> bool:
    """Whether a real OpenTelemetry tracer or meter provider is installed in this process."""
    modules = sys.modules  # `in` tests first: no call at all while nothing imported OpenTelemetry
    if "opentelemetry.trace" in modules \
            and not _is_placeholder(modules["opentelemetry.trace"].get_tracer_provider()):
        return True
    return "opentelemetry.metrics" in modules \
        and not _is_placeholder(modules["opentelemetry.metrics"].get_meter_provider())
