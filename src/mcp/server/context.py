"""`ServerRequestContext`: what a low-level handler and middleware know about one request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol

from typing_extensions import TypeVar

from mcp.shared.context import BaseContext

if TYPE_CHECKING:
    from typing import TypeAlias

    from pydantic import BaseModel

    from mcp.server.session import ServerSession
    from mcp.types import ClientCapabilities

LifespanT = TypeVar("LifespanT", default=Any)
LifespanContextT = LifespanT
"""The official SDK's name for the lifespan type parameter."""
CloseSSEStreamCallback = Callable[[], Awaitable[None]]
"""Closes an SSE stream (`ServerRequestContext.close_sse_stream`)."""
RequestT = TypeVar("RequestT", default=Any)
"""The type of the transport request a message arrived on (`ServerRequestContext.request`)."""


@dataclass(slots=True, eq=False)
class ServerRequestContext(Generic[LifespanT, RequestT]):
    """One incoming request (or notification, for middleware: then `request_id` is None).

    Parametrised like the official SDK's: `ServerRequestContext[Lifespan, Request]`; both default
    (`ServerRequestContext[Lifespan]` and the bare name are fine).

    `params` is the raw params object as received; middleware may replace it before calling
    `call_next`, and the handler then receives it validated into its params type.
    """

    session: ServerSession
    lifespan_context: LifespanT
    protocol_version: str
    method: str
    params: dict[str, Any] | None = None
    request_id: str | int | None = None
    request: RequestT | None = None
    """The transport request this message arrived on (a Starlette `Request` over HTTP)."""
    client_capabilities_raw: dict[str, Any] | None = None
    """2026-07-28: the capabilities this request declared in `_meta` (wire form)."""
    meta: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict[str, Any])
    """Per-request scratch space for middleware and extensions."""
    transport: Any = None
    """The transport's metadata for this message (HTTP: its response channel; None on stdio)."""
    close_sse_stream: CloseSSEStreamCallback | None = None
    """Ends this request's SSE stream so the client resumes it later (SSE polling); None on
    transports without one (stdio). Taken from `transport` when not given."""
    close_standalone_sse_stream: CloseSSEStreamCallback | None = None
    """Ends the session's standalone (GET) SSE stream; None on transports without one."""

    def __post_init__(self) -> None:
        transport = self.transport
        if transport is not None:
            if self.close_sse_stream is None:
                self.close_sse_stream = getattr(transport, "close_sse_stream", None)
            if self.close_standalone_sse_stream is None:
                self.close_standalone_sse_stream = getattr(transport, "close_standalone_sse_stream", None)

    @property
    def client_capabilities(self) -> ClientCapabilities | None:
        """The client's capabilities: this request's own on 2026-07-28, the handshake's otherwise."""
        raw = self.client_capabilities_raw
        if raw is not None:
            from mcp.types import ClientCapabilities

            return ClientCapabilities.model_validate(raw)
        return self.session.client_capabilities

    @property
    def headers(self) -> Any:
        request = self.request
        return None if request is None else getattr(request, "headers", None)

LifespanT_co = TypeVar("LifespanT_co", default=Any, covariant=True)


class Context(BaseContext[Any], Generic[LifespanT_co]):
    """The official SDK's low-level per-request context: a `BaseContext` over a dispatch context
    (`dctx`: the transport metadata and the request's back-channel), plus the lifespan output and
    the connection.

    The server hands its handlers a `ServerRequestContext`; this class serves code written against
    the official `mcp.server.context.Context`."""

    def __init__(self, dctx: Any, *, lifespan: LifespanT_co, connection: Any, meta: dict[str, Any] | None = None) -> None:
        super().__init__(dctx, meta)
        self._lifespan = lifespan
        self._connection = connection

    @property
    def lifespan(self) -> LifespanT_co:
        """What the server's lifespan yielded."""
        return self._lifespan

    @property
    def connection(self) -> Any:
        """The connection this request arrived on."""
        return self._connection

    @property
    def session_id(self) -> str | None:
        """The transport's session id (None on stdio and stateless HTTP)."""
        return getattr(self._connection, "session_id", None)

    @property
    def headers(self) -> Any:
        """The request headers, when the transport has them (None on stdio)."""
        return getattr(self.transport, "headers", None)

    async def log(self, level: str, data: Any, logger: str | None = None, *, meta: dict[str, Any] | None = None) -> None:
        """Deprecated protocol logging (`notifications/message`) on this request's back-channel; on
        2026-07-28 only at or above the level the request opted into in its `_meta`."""
        from mcp.server.connection import allowed_log_levels
        from mcp.shared.exceptions import warn_deprecated

        warn_deprecated("logging")
        if level not in allowed_log_levels(getattr(self._connection, "protocol_version", ""), self._meta):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        if meta:
            params["_meta"] = meta
        await self.notify("notifications/message", params)


if TYPE_CHECKING:
    HandlerResult: TypeAlias = BaseModel | dict[str, Any] | None
    """What a handler, a middleware or an extension interceptor returns for a request: a result
    model, a result already in wire form (a dict with the spec's field names), or None (an empty
    result). For notifications the return value is ignored."""
else:

    def __getattr__(name: str) -> Any:
        # `HandlerResult` names pydantic's BaseModel; built on first use so that importing this
        # module (every server does) does not import pydantic.
        if name != "HandlerResult":
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from pydantic import BaseModel

        value = globals()["HandlerResult"] = BaseModel | dict[str, Any] | None
        return value


CallNext = Callable[["ServerRequestContext[Any, Any]"], Awaitable["HandlerResult"]]
"""The rest of the chain; call it with `ctx` (or a `dataclasses.replace`d copy of it)."""

_MiddlewareLifespanT = TypeVar("_MiddlewareLifespanT")


class ServerMiddleware(Protocol[_MiddlewareLifespanT]):
    """A middleware of the low-level `Server`: `async def mw(ctx, call_next) -> result`.

    Listed outermost first on `Server.middleware`; it sees every inbound request and
    notification (`ctx.request_id is None`) before params validation, as raw `ctx.method` and
    `ctx.params`, and may answer itself, refuse (raise `MCPError`) or pass on a rewritten context.
    A middleware meant for any server is typed `ServerMiddleware[Any]`.
    """

    async def __call__(self, ctx: ServerRequestContext[_MiddlewareLifespanT, Any], call_next: CallNext) -> HandlerResult: ...


Middleware = ServerMiddleware[Any]
"""Earlier name of `ServerMiddleware[Any]`."""
