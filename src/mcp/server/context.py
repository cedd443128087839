"""`ServerRequestContext`: what a low-level handler and middleware know about one request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

if TYPE_CHECKING:
    from mcp.server.session import ServerSession
    from mcp.types import ClientCapabilities

LifespanT = TypeVar("LifespanT", default=Any)


@dataclass(slots=True, eq=False)
class ServerRequestContext(Generic[LifespanT]):
    """One incoming request (or notification, for middleware: then `request_id` is None).

    `params` is the raw params object as received; middleware may replace it before calling
    `call_next`, and the handler then receives it validated into its params type.
    """

    session: ServerSession
    lifespan_context: LifespanT
    protocol_version: str
    method: str
    params: dict[str, Any] | None
    request_id: str | int | None = None
    request: Any = None
    """The transport request this message arrived on (a Starlette `Request` over HTTP)."""
    client_capabilities_raw: dict[str, Any] | None = None
    """2026-07-28: the capabilities this request declared in `_meta` (wire form)."""
    meta: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict[str, Any])
    """Per-request scratch space for middleware and extensions."""
    transport: Any = None
    """The transport's metadata for this message (HTTP: its response channel; None on stdio)."""

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

    async def close_sse_stream(self) -> None:
        """Close this request's SSE stream so the client resumes it later (SSE polling); a no-op
        on transports without one."""
        closer = getattr(self.transport, "close_sse_stream", None)
        if closer is not None:
            await closer()

    async def close_standalone_sse_stream(self) -> None:
        closer = getattr(self.transport, "close_standalone_sse_stream", None)
        if closer is not None:
            await closer()


HandlerResult = Any
"""A result model (or `None` for notifications) produced by a handler or a middleware."""

CallNext = Callable[[ServerRequestContext[Any]], Awaitable[HandlerResult]]
Middleware = Callable[[ServerRequestContext[Any], CallNext], Awaitable[HandlerResult]]
