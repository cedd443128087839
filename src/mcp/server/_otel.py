"""`OpenTelemetryMiddleware`: the server middleware that traces every inbound message.

Every low-level `Server` (so every `MCPServer`) starts with one on `Server.middleware`, as in the
official SDK; removing it (`isinstance(m, OpenTelemetryMiddleware)`) turns tracing off for that
server. It does nothing until the application installs an OpenTelemetry SDK (see
`mcp._telemetry`), and while it is the only middleware and nothing is installed the list counts
as empty, so the server keeps the fast paths of a server without middleware.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp._telemetry import enabled

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext

__all__ = ["OpenTelemetryMiddleware"]


class OpenTelemetryMiddleware:
    """Wraps each inbound request and notification in a SERVER span (`tools/call search_books`),
    parented to the W3C trace context in its `_meta` when there is one, and records its metrics."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if not enabled():
            return await call_next(ctx)
        from mcp._telemetry.runtime import serve

        return await serve(ctx, call_next)


class MiddlewareList(list["ServerMiddleware[Any]"]):
    """`Server.middleware` as built: a plain list, except that while it holds only the default
    `OpenTelemetryMiddleware` and no OpenTelemetry SDK is installed it is falsy, which is what the
    session's no-middleware fast paths (direct dispatch, offloading, wire results) test."""

    __slots__ = ()

    def __bool__(self) -> bool:
        size = len(self)
        if size == 1 and type(self[0]) is OpenTelemetryMiddleware:
            return enabled()
        return size > 0


def default_middleware() -> list[ServerMiddleware[Any]]:
    """A new server's middleware list: tracing first, as in the official SDK."""
    middleware = MiddlewareList()
    middleware.append(OpenTelemetryMiddleware())
    return middleware

