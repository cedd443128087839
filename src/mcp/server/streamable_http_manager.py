"""The official home of `StreamableHTTPSessionManager`, the Streamable HTTP endpoint to mount in
an ASGI app (its one home is `mcp.server._http.request_path`, the request path of the package
that implements the transport)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp._protocol.http import DEFAULT_MAX_REQUEST_BODY_SIZE as DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp._protocol.http import DEFAULT_MAX_SESSIONS as DEFAULT_MAX_SESSIONS
from mcp._protocol.http import DEFAULT_SESSION_IDLE_TIMEOUT as DEFAULT_SESSION_IDLE_TIMEOUT
from mcp.server._http.request_path import StreamableHTTPSessionManager

if TYPE_CHECKING:
    from mcp.server.transport_security import RequestBodyLimitMiddleware as RequestBodyLimitMiddleware

__all__ = ["DEFAULT_MAX_REQUEST_BODY_SIZE", "DEFAULT_MAX_SESSIONS", "DEFAULT_SESSION_IDLE_TIMEOUT",
           "RequestBodyLimitMiddleware", "StreamableHTTPASGIApp", "StreamableHTTPSessionManager"]


def __getattr__(name: str) -> Any:
    # the body-limit middleware lives with the settings model (pydantic): loaded when asked for
    if name == "RequestBodyLimitMiddleware":
        from mcp.server.transport_security import RequestBodyLimitMiddleware

        return RequestBodyLimitMiddleware
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class StreamableHTTPASGIApp:
    """An ASGI app handing every request to a session manager's `handle_request`."""

    def __init__(self, session_manager: StreamableHTTPSessionManager) -> None:
        self.session_manager = session_manager

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.session_manager.handle_request(scope, receive, send)
