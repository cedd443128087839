"""The Streamable HTTP client transport, for both protocol eras.

Every outgoing message is its own POST. Requests run concurrently (one task each); notifications
and responses are POSTed in order by the writer. A request's answer is one JSON body or an SSE
stream carrying related notifications / server->client requests and then the response; every
message is pushed to the read stream.

- Handshake era (2024-11-05 .. 2025-11-25): the `Mcp-Session-Id` from the `initialize` response
  and the negotiated `MCP-Protocol-Version` go on every later request; after
  `notifications/initialized` the standalone GET stream is opened (405 is fine). An SSE response
  that ends before its answer is resumed with GET + `Last-Event-ID`. A 404 for a request carrying
  the session id means the session expired: the transport re-initializes once with the stored
  `initialize` params and retries (the spec's MUST; the official client does not), and the caller
  gets "Session terminated" when that fails. `DELETE` ends the session on exit.
- 2026-07-28 (a request whose `params._meta` carries the protocol version): no session; each POST
  carries `MCP-Protocol-Version`, `Mcp-Method` and, where the method names something, `Mcp-Name`;
  a `tools/call` also mirrors the arguments its tool marks with `x-mcp-header` (learnt from the
  `tools/list` results passing through) as `Mcp-Param-*` (`Client.call_tool` re-lists and retries
  once when the server answers HeaderMismatch: `mcp.client.header_mismatch`). Cancelling a request
  closes its stream (no `notifications/cancelled` POST on this wire).

HTTP failures never hang a caller: they become a JSON-RPC error response for the request on the
read stream (code and message taken from a JSON-RPC error body when there is one; a 404 without
one is "Session terminated" within a session, "Not Found" before one, as the official client says).
A request that gets no HTTP response at all (connection refused, DNS failure, ...) fails the
transport instead, as officially: the HTTP library's exception (`httpx2.ConnectError`) leaves the
transport's context inside an `ExceptionGroup`.

This module is the official path of these names and the transport's entry point; its halves live
with their concepts in this package: `wire` (limits, header names, HTTP errors as JSON-RPC errors),
`headers` (the session id / protocol-version header state), `reading` (JSON and SSE answers),
`resumption` (the standalone GET stream, resuming a response stream), `lifecycle` (an expired
session replaced, the session ended) and `posting` (the writer and each request's POST).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import anyio
import httpx2

from mcp._engine.seam import WireReceiveStream, WireSendStream
from mcp._protocol.http import encode_header_value as encode_header_value
from mcp.client._http_library import errors_of
from mcp.client.streamable_http.posting import MessagePosting
from mcp.client.streamable_http.wire import DEFAULT_MAX_SSE_EVENT_SIZE as DEFAULT_MAX_SSE_EVENT_SIZE
from mcp.client.streamable_http.wire import DEFAULT_RECONNECTION_DELAY_MS as DEFAULT_RECONNECTION_DELAY_MS
from mcp.client.streamable_http.wire import DEFAULT_RETRY_SECONDS as DEFAULT_RETRY_SECONDS
from mcp.client.streamable_http.wire import DEFAULT_SSE_READ_TIMEOUT as DEFAULT_SSE_READ_TIMEOUT
from mcp.client.streamable_http.wire import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from mcp.client.streamable_http.wire import LAST_EVENT_ID as LAST_EVENT_ID
from mcp.client.streamable_http.wire import LAST_EVENT_ID_HEADER as LAST_EVENT_ID_HEADER
from mcp.client.streamable_http.wire import LOGGER_NAME
from mcp.client.streamable_http.wire import MAX_RECONNECTION_ATTEMPTS as MAX_RECONNECTION_ATTEMPTS
from mcp.client.streamable_http.wire import MCP_SESSION_ID as MCP_SESSION_ID
from mcp.client.streamable_http.wire import METHOD_HEADER as METHOD_HEADER
from mcp.client.streamable_http.wire import NAME_HEADER as NAME_HEADER
from mcp.client.streamable_http.wire import SESSION_HEADER as SESSION_HEADER
from mcp.client.streamable_http.wire import VERSION_HEADER as VERSION_HEADER
from mcp.client.streamable_http.wire import ReadSend as ReadSend
from mcp.client.streamable_http.wire import ReadStream as ReadStream
from mcp.client.streamable_http.wire import SessionMessageOrError as SessionMessageOrError
from mcp.client.streamable_http.wire import StreamReader as StreamReader
from mcp.client.streamable_http.wire import StreamWriter as StreamWriter
from mcp.client.streamable_http.wire import WriteStream as WriteStream
from mcp.shared.message import SessionMessage

if TYPE_CHECKING:
    from mcp.client._http_library import AsyncHTTPClient, HTTPAuth, HTTPTimeout

logger = logging.getLogger(LOGGER_NAME)


class StreamableHTTPError(Exception):
    """A failure of the Streamable HTTP transport."""


class ResumptionError(StreamableHTTPError):
    """A stream could not be resumed as asked."""


@dataclass
class RequestContext:
    """What the transport knows about one outgoing message while it sends it."""

    client: AsyncHTTPClient
    session_id: str | None
    session_message: SessionMessage
    metadata: Any
    read_stream_writer: StreamWriter


def create_mcp_http_client(headers: dict[str, str] | None = None, timeout: HTTPTimeout | None = None,
                           auth: HTTPAuth | None = None) -> httpx2.AsyncClient:
    """The default client, an `httpx2.AsyncClient` (as the official SDK's): follows redirects;
    30 s timeouts, 300 s to read a stream."""
    return httpx2.AsyncClient(
        follow_redirects=True, headers=headers, auth=cast("httpx2.Auth | None", auth),
        timeout=cast("httpx2.Timeout", timeout) if timeout is not None
        else httpx2.Timeout(DEFAULT_TIMEOUT, read=DEFAULT_SSE_READ_TIMEOUT),
    )


@asynccontextmanager
async def streamable_http_client(
    url: str, *, http_client: AsyncHTTPClient | None = None, terminate_on_close: bool = True,
    max_sse_event_size: int | None = DEFAULT_MAX_SSE_EVENT_SIZE,
) -> AsyncGenerator[tuple[WireReceiveStream, WireSendStream]]:
    """Connect to the MCP endpoint at `url`; yields `(read_stream, write_stream)`.

    `http_client` (headers, auth, timeouts, ...), an `httpx2.AsyncClient` or an `httpx.AsyncClient`,
    is used as given and left open; without one a default `httpx2` client is created and closed on
    exit. With `terminate_on_close` the session (if the
    server assigned one) is ended with `DELETE` on exit. A server-sent event larger than
    `max_sse_event_size` bytes (None: no limit) fails its stream.
    """
    transport = StreamableHTTPTransport(url, max_sse_event_size=max_sse_event_size)
    owns_client = http_client is None
    client: AsyncHTTPClient = http_client if http_client is not None else create_mcp_http_client()
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](64)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](64)
    try:
        async with anyio.create_task_group() as tg:
            transport.client, transport.read_send, transport.tg = client, read_send, tg
            tg.start_soon(transport.write_loop, write_recv)
            try:
                yield WireReceiveStream(read_recv), WireSendStream(write_send)
            finally:
                tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            if terminate_on_close:
                with anyio.move_on_after(5):
                    await transport.terminate_session()
            await write_send.aclose()
            await write_recv.aclose()
            await read_send.aclose()
            await read_recv.aclose()
            if owns_client:
                await client.aclose()


class StreamableHTTPTransport(MessagePosting):
    """One Streamable HTTP connection (see the module docstring). `streamable_http_client` runs
    it; `post_writer` and `handle_get_stream` run its halves on streams and a client of your own.

    Its halves live with their concepts: `HeaderState` (`headers`), `ResponseReader` (`reading`),
    `ResumableStreams` (`resumption`), `SessionLifecycle` (`lifecycle`) and `MessagePosting`
    (`posting`); this class builds the connection's state."""

    def __init__(self, url: str, *, max_sse_event_size: int | None = DEFAULT_MAX_SSE_EVENT_SIZE) -> None:
        if max_sse_event_size is not None and max_sse_event_size <= 0:
            raise ValueError("max_sse_event_size must be positive or None")
        self.url = url
        self.max_sse_event_size = max_sse_event_size
        self._client = cast("AsyncHTTPClient", None)
        self._errors = errors_of(None)
        self.read_send = cast("ReadSend", None)
        self.tg = None
        self.session_id = None
        self.protocol_version = None
        self.modern_version = None
        self.initialize_params = None
        self._in_flight = {}
        self._get_scope = None
        self._reinit_lock = anyio.Lock()
        self._reinitializing = None
        self._reinit_ids = itertools.count(1)
        self._tool_headers = {}
        self._extra_headers = {}
        self._token_callbacks = {}
