"""The official home of the Streamable HTTP server transport: its names, re-exported from the
package that implements it (`mcp.server._http`: the request path, the session table, response
channels, resumability and shared sessions, one module each).

`StreamableHTTPSessionManager` is the ASGI endpoint serving both protocol eras (see
`mcp.server._http.request_path`); `StreamableHTTPServerTransport` (one session as a stream pair)
loads on first use; the event store interface is `mcp.server.event_store`'s.
"""

from __future__ import annotations

from typing import Any, Final

from mcp._protocol import http as h
from mcp.server._http.asgi import DEFAULT_MAX_BODY as DEFAULT_MAX_BODY
from mcp.server._http.channel import REQUEST_CANCELLED
from mcp.server._http.channel import HttpRequestMetadata as HttpRequestMetadata
from mcp.server._http.channel import ResponseChannel as ResponseChannel
from mcp.server._http.request_path import StreamableHTTPSessionManager
from mcp.server._http.resumption import GET_STREAM_KEY
from mcp.server._http.resumption import STANDALONE_STREAM_SUFFIX as STANDALONE_STREAM_SUFFIX
from mcp.server._http.sessions import SESSION_ID_PATTERN
from mcp.server.event_store import (
    EventCallback,
    EventId,
    EventMessage,
    EventStore,
    InMemoryEventStore,
    StreamId,
)

__all__ = ["CONTENT_TYPE_JSON", "CONTENT_TYPE_SSE", "GET_STREAM_KEY", "LAST_EVENT_ID_HEADER", "MCP_SESSION_ID_HEADER",
           "REQUEST_CANCELLED", "REQUEST_STREAM_BUFFER_SIZE", "SESSION_ID_PATTERN", "EventCallback", "EventId",
           "EventMessage", "EventStore", "InMemoryEventStore", "StreamId", "StreamableHTTPSessionManager",
           "check_accept_headers"]

MCP_SESSION_ID_HEADER: Final = h.SESSION_HEADER
LAST_EVENT_ID_HEADER: Final = h.LAST_EVENT_ID_HEADER
CONTENT_TYPE_JSON: Final = h.JSON
CONTENT_TYPE_SSE: Final = h.SSE
REQUEST_STREAM_BUFFER_SIZE: Final = 16


def check_accept_headers(request: Any) -> tuple[bool, bool]:
    """(accepts JSON, accepts SSE) for a Starlette `Request`'s Accept header, wildcards
    included (`*/*`, `application/*`, `text/*`); a request without one accepts neither."""
    accept = request.headers.get("accept", "")
    return h.accepts(accept) if accept else (False, False)


def __getattr__(name: str) -> Any:
    """`StreamableHTTPServerTransport` (one session as a stream pair) loads on first use."""
    if name == "StreamableHTTPServerTransport":
        from mcp.server._http.transport import StreamableHTTPServerTransport

        return StreamableHTTPServerTransport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
