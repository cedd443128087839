"""Spans, trace-context propagation and metrics, once `mcp._telemetry.enabled()` is true.

Imported only then (it imports `opentelemetry`). Traces follow the names the official SDK emits
(server span `tools/call search_books`, client span `MCP send tools/call search_books`, W3C
`traceparent`/`tracestate` carried in `_meta`). Metrics are ours: duration histograms (whose counts
are the request counts), in-flight requests and tool errors, per method and per tool or prompt
name, never per argument value.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, cast

import anyio
from opentelemetry import metrics, trace
from opentelemetry.context import Context
from opentelemetry.propagate import extract, inject
from opentelemetry.trace import Span, SpanKind, StatusCode

from mcp._telemetry import open_sessions
from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import INVALID_PARAMS

SCOPE = "mcp-python-sdk"
"""The instrumentation scope, the official SDK's, so a backend's filters keep working after a switch."""

MAX_NAMES = 256
"""Distinct tool (or prompt) names a metric attribute takes; later ones are counted as `_OTHER`,
so a client calling made-up names cannot grow the number of metric series without bound."""

_DURATION_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
_RESOURCE_METHODS = frozenset({"resources/read", "resources/subscribe", "resources/unsubscribe"})


class _BoundedNames:
    """Passes the first `MAX_NAMES` distinct names through and folds the rest into `_OTHER`."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def __call__(self, name: str) -> str:
        seen = self._seen
        if name in seen:
            return name
        if len(seen) < MAX_NAMES:
            seen.add(name)
            return name
        return "_OTHER"


def _version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcpkit")
    except PackageNotFoundError:
        return None


class Telemetry:
    """The tracer and instruments of one (tracer provider, meter provider) pair."""

    def __init__(self, tracer_provider: trace.TracerProvider, meter_provider: metrics.MeterProvider) -> None:
        self.tracer_provider = tracer_provider
        self.meter_provider = meter_provider
        self.tracer = tracer_provider.get_tracer(SCOPE, _version())
        meter = meter_provider.get_meter(SCOPE, _version())
        buckets = list(_DURATION_BUCKETS)
        self.server_duration = meter.create_histogram(
            "mcp.server.operation.duration", unit="s", explicit_bucket_boundaries_advisory=buckets,
            description="Time to handle one inbound MCP request or notification")
        self.server_active = meter.create_up_down_counter(
            "mcp.server.active_requests", unit="{request}", description="Inbound MCP requests being handled now")
        self.tool_errors = meter.create_counter(
            "mcp.server.tool.errors", unit="{error}",
            description="tools/call requests that failed: a tool error result or a protocol error")
        meter.create_observable_up_down_counter(
            "mcp.server.active_sessions", callbacks=[_observe_sessions], unit="{session}",
            description="Streamable HTTP sessions open now")
        self.client_duration = meter.create_histogram(
            "mcp.client.operation.duration", unit="s", explicit_bucket_boundaries_advisory=buckets,
            description="Time from sending an MCP request to its answer")
        self.tool_names = _BoundedNames()
        self.prompt_names = _BoundedNames()


def _observe_sessions(_options: metrics.CallbackOptions) -> Iterator[metrics.Observation]:
    yield metrics.Observation(open_sessions())


_current: Telemetry | None = None


def current() -> Telemetry:
    """The telemetry of the providers installed now (rebuilt if the application swaps them)."""
    global _current
    tracer_provider = trace.get_tracer_provider()
    meter_provider = metrics.get_meter_provider()
    telemetry = _current
    if telemetry is None or telemetry.tracer_provider is not tracer_provider \
            or telemetry.meter_provider is not meter_provider:
        telemetry = _current = Telemetry(tracer_provider, meter_provider)
    return telemetry


# -- trace context in `_meta` ------------------------------------------------------------------------


def inject_trace_context(meta: dict[str, Any]) -> None:
    """Write the current W3C trace context (`traceparent`, `tracestate`) into a `_meta` dict."""
    inject(meta)


def extract_trace_context(meta: Mapping[str, Any] | None) -> Context | None:
    """The remote parent a `_meta` dict names, or None (absent, malformed or not a valid span), so
    the span then parents to whatever is current instead of being orphaned. Never raises: bad
    trace context from a peer must not fail its request."""
    if not meta or not isinstance(meta, Mapping):
        return None
    try:
        context = extract(meta)
    except Exception:
        return None
    if not trace.get_current_span(context).get_span_context().is_valid:
        return None
    return context


@contextmanager
def otel_span(name: str, *, kind: SpanKind, attributes: dict[str, Any] | None = None,
              context: Context | None = None, record_exception: bool = True,
              set_status_on_exception: bool = True) -> Iterator[Span]:
    """A span of this SDK's tracer, made current for the block."""
    with current().tracer.start_as_current_span(
        name, context=context, kind=kind, attributes=attributes, record_exception=record_exception,
        set_status_on_exception=set_status_on_exception,
    ) as span:
        yield span


# -- server ------------------------------------------------------------------------------------------


def _target(params: Any) -> str | None:
    if type(params) is dict:
        name: Any = cast("dict[str, Any]", params).get("name")
        if isinstance(name, str):
            return name
    return None


def _is_tool_error(result: Any) -> bool:
    if type(result) is dict:
        return cast("dict[str, Any]", result).get("isError") is True
    return getattr(result, "is_error", None) is True


async def serve(ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
    """Run one inbound message under a SERVER span, and count it."""
    telemetry = current()
    method: str = ctx.method
    params = ctx.params
    target = _target(params)
    attributes: dict[str, Any] = {"mcp.method.name": method}
    version = ctx.protocol_version or (cast("dict[str, Any]", params).get("protocolVersion")
                                       if method == "initialize" and type(params) is dict else None)
    if isinstance(version, str):
        attributes["mcp.protocol.version"] = version
    request_id = ctx.request_id
    if request_id is not None:
        attributes["jsonrpc.request.id"] = str(request_id)
    session_id = getattr(getattr(ctx.transport, "http_session", None), "id", None)
    if isinstance(session_id, str):
        attributes["mcp.session.id"] = session_id
    measured: dict[str, Any] = {"mcp.method.name": method}
    if method == "tools/call":
        attributes["gen_ai.operation.name"] = "execute_tool"
        if target is not None:
            attributes["gen_ai.tool.name"] = target
            measured["gen_ai.tool.name"] = telemetry.tool_names(target)
    elif method == "prompts/get" and target is not None:
        attributes["gen_ai.prompt.name"] = target
        measured["gen_ai.prompt.name"] = telemetry.prompt_names(target)
    elif method in _RESOURCE_METHODS and isinstance(params, dict):
        uri: Any = cast("dict[str, Any]", params).get("uri")
        if isinstance(uri, str):
            attributes["mcp.resource.uri"] = uri  # spans only: a URI may carry template arguments
    error_type: str | None = None
    active = {"mcp.method.name": method}
    if request_id is not None:
        telemetry.server_active.add(1, active)
    started = time.perf_counter()
    try:
        with telemetry.tracer.start_as_current_span(
            f"{method} {target}" if target else method, context=extract_trace_context(ctx.meta),
            kind=SpanKind.SERVER, attributes=attributes, record_exception=False, set_status_on_exception=False,
        ) as span:
            try:
                result = await call_next(ctx)
            except MCPError as exc:
                error_type = code = str(exc.code)
                span.set_attributes({"error.type": code, "rpc.response.status_code": code})
                # Validation messages quote the client's input; the status says what kind of failure.
                span.set_status(StatusCode.ERROR,
                                "Invalid request parameters" if exc.code == INVALID_PARAMS else exc.message)
                raise
            except Exception as exc:
                error_type = type(exc).__qualname__
                span.set_attribute("error.type", error_type)
                span.record_exception(exc)
                span.set_status(StatusCode.ERROR, str(exc))
                raise
            except BaseException as exc:
                # Cancellation is not the server failing: noted, status left unset.
                error_type = "cancelled" if isinstance(exc, anyio.get_cancelled_exc_class()) else type(exc).__qualname__
                span.set_attribute("error.type", error_type)
                raise
            if method == "tools/call" and _is_tool_error(result):
                error_type = "tool_error"
                span.set_attribute("error.type", error_type)
                span.set_status(StatusCode.ERROR)
            return result
    finally:
        if request_id is not None:
            telemetry.server_active.add(-1, active)
        if error_type is not None:
            measured["error.type"] = error_type
            if method == "tools/call":
                telemetry.tool_errors.add(1, measured)
        telemetry.server_duration.record(time.perf_counter() - started, measured)


# -- client ------------------------------------------------------------------------------------------


async def send(send_request: Callable[..., Awaitable[dict[str, Any]]], method: str,
               params: dict[str, Any] | None, request_id: Any, **options: Any) -> dict[str, Any]:
    """Send one request under a CLIENT span, its trace context injected into `_meta`."""
    telemetry = current()
    target = _target(params)
    measured: dict[str, Any] = {"mcp.method.name": method}
    if method == "tools/call" and target is not None:
        measured["gen_ai.tool.name"] = telemetry.tool_names(target)
    elif method == "prompts/get" and target is not None:
        measured["gen_ai.prompt.name"] = telemetry.prompt_names(target)
    error_type: str | None = None
    started = time.perf_counter()
    try:
        with telemetry.tracer.start_as_current_span(
            f"MCP send {method} {target}" if target else f"MCP send {method}", kind=SpanKind.CLIENT,
            attributes={"mcp.method.name": method, "jsonrpc.request.id": str(request_id)},
        ) as span:
            out = dict(params) if params else {}
            given = out.get("_meta")
            if given is None or isinstance(given, dict):  # a caller's odd `_meta` is sent as it is
                meta: dict[str, Any] = dict(cast("dict[str, Any]", given or {}))
                inject_trace_context(meta)
                if meta:
                    out["_meta"] = meta
            try:
                return await send_request(method, out or params, request_id=request_id, **options)
            except MCPError as exc:
                error_type = code = str(exc.code)
                span.set_attributes({"error.type": code, "rpc.response.status_code": code})
                span.set_status(StatusCode.ERROR, exc.message)
                raise
            except Exception as exc:
                error_type = type(exc).__qualname__
                raise
            except BaseException as exc:
                error_type = "cancelled" if isinstance(exc, anyio.get_cancelled_exc_class()) else type(exc).__qualname__
                raise
    finally:
        if error_type is not None:
            measured["error.type"] = error_type
        telemetry.client_duration.record(time.perf_counter() - started, measured)
