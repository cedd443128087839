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
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import anyio
import httpx2
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from mcp._engine.peer import RaisedException
from mcp._engine.seam import WireReceiveStream, WireSendStream
from mcp._protocol.codec import ParseError, decode, encode
from mcp._protocol.http import encode_header_value as encode_header_value
from mcp._protocol.sse import SSEParser
from mcp.client._http_library import HTTPErrors, errors_of
from mcp.client.header_params import header_params, invalid_header_declaration
from mcp.shared._request_clock import running
from mcp.shared.inbound import mcp_param_headers
from mcp.shared.message import ResumptionTokenUpdateCallback, SessionMessage
from mcp.types.jsonrpc import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
)
from mcp.types.version import HANDSHAKE_VERSIONS, PROTOCOL_VERSION_META_KEY

if TYPE_CHECKING:
    from mcp.client._http_library import AsyncHTTPClient, HTTPAuth, HTTPResponse, HTTPTimeout

logger = logging.getLogger("mcp.client.streamable_http")

DEFAULT_TIMEOUT = 30.0
DEFAULT_SSE_READ_TIMEOUT = 300.0
DEFAULT_RECONNECTION_DELAY_MS = 1000
"""How long to wait before reconnecting a stream when the server named no `retry`."""
DEFAULT_RETRY_SECONDS = DEFAULT_RECONNECTION_DELAY_MS / 1000
MAX_RECONNECTION_ATTEMPTS = 2
"""Failed reconnections in a row (resuming a response stream, or reopening the GET stream) before
the transport gives up."""
DEFAULT_MAX_SSE_EVENT_SIZE = 1024 * 1024
"""The most bytes one server-sent event may take by default; a larger one fails its stream."""

MCP_SESSION_ID = "mcp-session-id"
LAST_EVENT_ID = "last-event-id"

SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
METHOD_HEADER = "Mcp-Method"
NAME_HEADER = "Mcp-Name"
LAST_EVENT_ID_HEADER = "Last-Event-ID"
_ACCEPT = "application/json, text/event-stream"
_DRAIN_SECONDS = 2.0
_NAME_PARAM = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
               "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}

SessionMessageOrError = SessionMessage | Exception
ReadSend = MemoryObjectSendStream[SessionMessageOrError]
ReadStream = MemoryObjectReceiveStream[SessionMessageOrError]
WriteStream = MemoryObjectSendStream[SessionMessage]
StreamWriter = ReadSend
"""The transport's end of the read stream: where it puts what the server sent."""
StreamReader = MemoryObjectReceiveStream[SessionMessage]
"""The transport's end of the write stream: what the client sends."""


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


class _StreamState:
    """What a response stream has told us so far: enough to resume it."""

    __slots__ = ("answered", "first_page", "last_event_id", "on_event_id", "opened", "received", "remap", "retry")

    def __init__(self, first_page: bool = False, on_event_id: ResumptionTokenUpdateCallback | None = None) -> None:
        self.answered = False
        self.opened = False
        """The server answered the POST (status and headers arrived)."""
        self.first_page = first_page
        """A `tools/list` request without a cursor: an answer without `nextCursor` is the whole listing."""
        self.last_event_id: str | None = None
        self.retry = DEFAULT_RETRY_SECONDS
        self.received = 0
        self.on_event_id = on_event_id
        """`ClientMessageMetadata.on_resumption_token_update`: told each event id the stream brings."""
        self.remap = False
        """A stream resumed by a token: the response it replays answers the request now waiting."""


class StreamableHTTPTransport:
    """One Streamable HTTP connection (see the module docstring). `streamable_http_client` runs
    it; `post_writer` and `handle_get_stream` run its halves on streams and a client of your own."""

    def __init__(self, url: str, *, max_sse_event_size: int | None = DEFAULT_MAX_SSE_EVENT_SIZE) -> None:
        if max_sse_event_size is not None and max_sse_event_size <= 0:
            raise ValueError("max_sse_event_size must be positive or None")
        self.url = url
        self.max_sse_event_size = max_sse_event_size
        self._client: AsyncHTTPClient = cast("AsyncHTTPClient", None)
        self._errors: HTTPErrors = errors_of(None)
        self.read_send: ReadSend = cast("ReadSend", None)
        self.tg: TaskGroup | None = None
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        """Negotiated by `initialize` (handshake era)."""
        self.modern_version: str | None = None
        """The version stamped on the last 2026-07-28 request (stateless wire)."""
        self.initialize_params: dict[str, Any] | None = None
        self._in_flight: dict[Any, anyio.CancelScope] = {}
        self._get_scope: anyio.CancelScope | None = None
        self._reinit_lock = anyio.Lock()
        self._reinitializing: anyio.Event | None = None
        """Set while an expired session is being replaced: requests wait for the new session id
        instead of going out with none (the server answers those 400 "Missing session ID")."""
        self._reinit_ids = itertools.count(1)
        self._tool_headers: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        """tool name -> (argument path, `Mcp-Param-*` suffix), learnt from `tools/list` results."""
        self._extra_headers: dict[Any, dict[str, str]] = {}
        """request id -> headers its sender asked for (`ClientMessageMetadata.headers`), while in flight."""
        self._token_callbacks: dict[Any, ResumptionTokenUpdateCallback] = {}
        """request id -> its `ClientMessageMetadata.on_resumption_token_update`, while in flight."""

    @property
    def client(self) -> AsyncHTTPClient:
        """Set by whoever runs the transport, before it sends: an `httpx2` or `httpx` client."""
        return self._client

    @client.setter
    def client(self, client: AsyncHTTPClient) -> None:
        self._client = client
        self._errors = errors_of(client)

    # -- headers ------------------------------------------------------------------------------

    def _message_headers(self, message: dict[str, Any]) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": _ACCEPT}
        if self._extra_headers:
            extra = self._extra_headers.get(message.get("id"))
            if extra is not None:
                headers.update(extra)
        method = message.get("method")
        modern = _modern_version(message)
        if modern is not None:
            self.modern_version = modern
            headers[VERSION_HEADER] = modern
            if method is not None:
                headers[METHOD_HEADER] = method
                name_param = _NAME_PARAM.get(method)
                params = _obj(message.get("params"))
                value = params.get(name_param) if name_param is not None and params is not None else None
                if value is not None:
                    headers[NAME_HEADER] = encode_header_value(str(value))
                if method == "tools/call" and params is not None:
                    headers.update(self._param_headers(params))
            return headers
        if method == "initialize":
            return headers
        if self.session_id is not None:
            headers[SESSION_HEADER] = self.session_id
        version = self.protocol_version or self.modern_version
        if version is not None:
            headers[VERSION_HEADER] = version
        return headers

    def _param_headers(self, params: dict[str, Any]) -> dict[str, str]:
        """2026-07-28: the `Mcp-Param-*` headers mirroring the arguments a tool marks with
        `x-mcp-header` (absent and null values send no header; see `mcp_param_headers`)."""
        pairs = self._tool_headers.get(str(params.get("name")))
        if not pairs:
            return {}
        arguments = _obj(params.get("arguments"))
        return mcp_param_headers(dict(pairs), arguments) if arguments is not None else {}

    def _learn_tools(self, result: Any, complete: bool) -> Any:
        """Learn the `x-mcp-header` parameters of the tools in a `tools/list` result (a `complete`
        one, the whole listing in one page, also forgets the tools it no longer has). On the
        2026-07-28 wire a tool whose declarations break the rules is dropped and no longer mirrored
        (SEP-2243: the client MUST drop it, and SHOULD log why); returns the result without such
        tools. Calling a dropped tool by name still sends the call, mirroring nothing."""
        excluded: list[dict[str, Any]] = []
        listed: set[str] = set()
        for tool in _objects(_obj(result), "tools"):
            name = tool.get("name")
            if not isinstance(name, str):
                continue
            reason = invalid_header_declaration(tool.get("inputSchema")) if self._stateless_wire else None
            if reason is not None:
                logger.warning("dropping tool %r: invalid x-mcp-header (%s)", name, reason)
                self._tool_headers.pop(name, None)
                excluded.append(tool)
                continue
            listed.add(name)
            self._tool_headers[name] = header_params(tool.get("inputSchema"))
        if complete and len(self._tool_headers) > len(listed):
            self._tool_headers = {name: pairs for name, pairs in self._tool_headers.items() if name in listed}
        if not excluded:
            return result
        tools = cast("list[Any]", result["tools"])
        return {**result, "tools": [tool for tool in tools if not any(tool is drop for drop in excluded)]}

    def _stream_headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream"}
        if self.session_id is not None:
            headers[SESSION_HEADER] = self.session_id
        version = self.protocol_version or self.modern_version
        if version is not None:
            headers[VERSION_HEADER] = version
        return headers

    @property
    def _stateless_wire(self) -> bool:
        return self.modern_version is not None and self.protocol_version is None

    # -- outgoing -----------------------------------------------------------------------------

    async def post_writer(self, client: AsyncHTTPClient, write_stream_reader: StreamReader,
                          read_stream_writer: StreamWriter, write_stream: WriteStream,
                          start_get_stream: Callable[[], None], tg: TaskGroup) -> None:
        """Run the sending half on streams and a client of the caller's until `write_stream_reader`
        ends (the caller keeps `write_stream`). The standalone GET stream is opened by the
        transport itself once the session is initialized (as `start_get_stream` would)."""
        self.client, self.read_send, self.tg = client, read_stream_writer, tg
        await self.write_loop(write_stream_reader)

    async def handle_get_stream(self, client: AsyncHTTPClient, read_stream_writer: StreamWriter) -> None:
        """Run the standalone GET stream (server-initiated messages) until it ends, reconnecting
        as the server's `retry` says; nothing to do before a session exists."""
        self.client, self.read_send = client, read_stream_writer
        if self.session_id is not None:
            await self._get_stream(anyio.CancelScope())

    async def write_loop(self, write_recv: StreamReader) -> None:
        assert self.tg is not None
        async with write_recv:
            async for item in write_recv:
                message = item.message
                if "method" in message and "id" in message:
                    metadata = item.metadata
                    extra = getattr(metadata, "headers", None)
                    if extra:
                        self._extra_headers[message["id"]] = extra
                    on_token = getattr(metadata, "on_resumption_token_update", None)
                    if on_token is not None:
                        self._token_callbacks[message["id"]] = on_token
                    if message["method"] == "initialize":
                        self.initialize_params = message.get("params")
                        self.modern_version = None
                    self.tg.start_soon(self._run_request, message, getattr(metadata, "resumption_token", None))
                    continue
                try:
                    await self._send_one_way(message)
                except Exception:
                    logger.exception("failed to send %s", message.get("method") or "a response")

    async def _send_one_way(self, message: dict[str, Any]) -> None:
        """POST a notification or a response (202 expected); never fails the connection."""
        await self._session_settled()
        method = message.get("method")
        if method == "notifications/cancelled":
            params = _obj(message.get("params"))
            scope = self._in_flight.get(params.get("requestId")) if params is not None else None
            if self._stateless_wire:
                if scope is not None:
                    scope.cancel()  # on this wire closing the stream is the cancellation
                return
            await self._post_one_way(message)
            if scope is not None:
                scope.cancel()
            return
        if not await self._post_one_way(message):
            return
        if method == "notifications/initialized" and not self._stateless_wire:
            self._open_get_stream()

    async def _post_one_way(self, message: dict[str, Any]) -> bool:
        try:
            response = await self.client.post(self.url, content=encode(message).encode(),
                                              headers=self._message_headers(message))
        except self._errors.http as exc:
            logger.warning("could not send %s: %s", message.get("method") or "a response", exc)
            return False
        if response.status_code >= 300:
            logger.warning("the server refused %s: HTTP %d %s", message.get("method") or "a response",
                           response.status_code, response.text[:200])
            return False
        return True

    async def _run_request(self, message: dict[str, Any], resumption_token: str | None = None) -> None:
        request_id = message["id"]
        with anyio.CancelScope() as scope:
            self._in_flight[request_id] = scope
            try:
                with running(message):  # an OAuth login in this request's auth flow stops its clock
                    if resumption_token:
                        await self._resume_from_token(message, resumption_token)
                    else:
                        await self._request(message)
            except self._errors.http:
                raise  # a request that reached no server fails the transport (see `_post_request`)
            except Exception as exc:
                # Raised while sending (an auth flow's `OAuthFlowError`, say): the caller gets the
                # exception itself, so `except OAuthFlowError:` works as the OAuth page says.
                logger.debug("streamable HTTP request %r failed", request_id, exc_info=True)
                await self._push({"jsonrpc": "2.0", "id": request_id,
                                  "error": {"code": INTERNAL_ERROR, "message": f"Transport error: {exc}"}},
                                 RaisedException(exc))
            finally:
                if self._in_flight.get(request_id) is scope:
                    del self._in_flight[request_id]
                self._extra_headers.pop(request_id, None)
                self._token_callbacks.pop(request_id, None)

    async def _request(self, message: dict[str, Any]) -> None:
        reinitialized = False
        while True:
            await self._session_settled()
            headers = self._message_headers(message)
            used_session = headers.get(SESSION_HEADER)
            retry = await self._post_request(message, headers)
            if retry is None:
                return
            reason, error = retry
            if reason == "expired" and not reinitialized and await self._reinitialize(used_session):
                reinitialized = True
                continue
            await self._push(error)
            return

    async def _post_request(self, message: dict[str, Any],
                            headers: dict[str, str]) -> tuple[str, dict[str, Any]] | None:
        """POST one request and deliver its answer. Returns instead, undelivered, the error response
        worth a retry: ("expired", ...) for a 404 to a request carrying a session id."""
        request_id = message["id"]
        method = message["method"]
        params = _obj(message.get("params"))
        state = _StreamState(first_page=method == "tools/list" and not (params or {}).get("cursor"),
                             on_event_id=self._token_callbacks.get(request_id))
        try:
            async with self.client.stream("POST", self.url, content=encode(message).encode(), headers=headers) as response:
                state.opened = True
                status = response.status_code
                if status >= 300:
                    body = await response.aread()
                    error = _post_error(request_id, response, body, self.session_id is not None)
                    if status == 404 and SESSION_HEADER in headers and method != "initialize":
                        return "expired", error
                    await self._push(error)
                    return None
                if method == "initialize":
                    session_id = response.headers.get(SESSION_HEADER)
                    if session_id:
                        self.session_id = session_id
                kind = _content_type(response)
                if kind == "text/event-stream":
                    await self._read_sse(response, state, request_id, method)
                elif kind == "application/json":
                    body = await response.aread()
                    await self._deliver_body(body, state, request_id, method)
                else:
                    await response.aread()
                    detail = "no response" if status == 202 or not kind else f"unexpected content type {kind!r}"
                    await self._fail(request_id, INTERNAL_ERROR, f"The server answered {method} with {detail} "
                                                                 f"(HTTP {status})")
                    return None
        except self._errors.http as exc:
            if not state.opened:
                raise  # no response at all (connection refused, ...): escapes the transport, as officially
            await self._fail(request_id, CONNECTION_CLOSED, f"Connection error: {_describe(exc)}")
            return None
        if not state.answered:
            await self._resume(state, request_id, method)
        return None

    async def _resume_from_token(self, message: dict[str, Any], token: str) -> None:
        """A request sent with `ClientMessageMetadata.resumption_token`, as officially: not POSTed;
        a GET with `Last-Event-ID: <token>` replays the stream the token comes from (on this or an
        earlier connection), and the response it carries answers this request, its id remapped."""
        request_id = message["id"]
        method: str = message["method"]
        state = _StreamState(on_event_id=self._token_callbacks.get(request_id))
        state.last_event_id = token
        state.remap = True
        headers = self._stream_headers()
        headers[LAST_EVENT_ID_HEADER] = token
        async with self.client.stream("GET", self.url, headers=headers) as response:
            status = response.status_code
            if status >= 300 or _content_type(response) != "text/event-stream":
                body = await response.aread()
                await self._push(_http_error(request_id, response, body))
                return
            await self._read_sse(response, state, request_id, method)
        if not state.answered:  # the replay ended early: go on resuming from where it stopped
            await self._resume(state, request_id, method)

    async def _resume(self, state: _StreamState, request_id: Any, method: str) -> None:
        """The response stream ended before the response: reconnect with `Last-Event-ID` (after
        the server's `retry`) until the response arrives. Failed reconnections (network errors,
        5xx, no SSE) are bounded by `MAX_RECONNECTION_ATTEMPTS` in a row; reconnections that work
        but bring nothing new (a polling server whose handler is still busy) are bounded by the
        client's read timeout, as a silent open stream would be."""
        failures = 0
        silent_limit = self.client.timeout.read
        last_news = anyio.current_time()
        while not state.answered:
            if state.last_event_id is None:
                await self._fail(request_id, CONNECTION_CLOSED,
                                 f"Connection closed: the response stream for {method} ended before its response")
                return
            if failures >= MAX_RECONNECTION_ATTEMPTS:
                await self._fail(request_id, CONNECTION_CLOSED,
                                 f"Connection closed: gave up resuming the response stream for {method} "
                                 f"after {failures} failed attempts")
                return
            if silent_limit is not None and anyio.current_time() - last_news > silent_limit:
                await self._fail(request_id, CONNECTION_CLOSED,
                                 f"Connection closed: the resumed stream for {method} brought nothing new "
                                 f"for {silent_limit:g} s")
                return
            await anyio.sleep(state.retry)
            headers = self._stream_headers()
            headers[LAST_EVENT_ID_HEADER] = state.last_event_id
            before = state.received
            connected = False
            try:
                async with self.client.stream("GET", self.url, headers=headers) as response:
                    status = response.status_code
                    if status >= 300 or _content_type(response) != "text/event-stream":
                        body = await response.aread()
                        if 300 <= status < 500:
                            await self._push(_http_error(request_id, response, body))
                            return
                    else:
                        connected = True
                        await self._read_sse(response, state, request_id, method)
            except self._errors.transport as exc:
                logger.debug("resuming the stream for %r failed: %s", request_id, _describe(exc))
            failures = 0 if connected else failures + 1
            if state.received > before:
                last_news = anyio.current_time()

    # -- incoming -----------------------------------------------------------------------------

    async def _read_sse(self, response: HTTPResponse, state: _StreamState, request_id: Any,
                        method: str | None) -> None:
        """Deliver the messages of an SSE stream until it ends, breaks, or carries the answer."""
        parser = SSEParser()
        chunks = response.aiter_bytes()
        limit = self.max_sse_event_size
        pending = 0
        """Bytes received since the last complete event: what the event in progress takes at most."""
        try:
            async for chunk in chunks:
                events = parser.feed(chunk)
                pending = 0 if events else pending + len(chunk)
                if limit is not None and (pending > limit or any(len(event.data) > limit for event in events)):
                    logger.warning("SSE stream failed: an event exceeds max_sse_event_size (%d bytes)", limit)
                    if request_id is not None and not state.answered:
                        state.answered = True  # failed, not to be resumed
                        await self._fail(request_id, CONNECTION_CLOSED,
                                         f"SSE stream failed: an event exceeds {limit} bytes")
                    await cast("AsyncGenerator[bytes]", chunks).aclose()
                    return
                for event in events:
                    if event.retry is not None:
                        state.retry = event.retry / 1000
                    if event.id is not None:
                        state.last_event_id = event.id
                    if event.event != "message":
                        continue  # keep-alives, unknown event types
                    if not event.data:  # a priming event: only its id (a resumption token) counts
                        if event.id and state.on_event_id is not None:
                            await state.on_event_id(event.id)
                        continue
                    try:
                        message = decode(event.data)
                    except ParseError as exc:
                        await self._unparsable_event(exc, event.data, state, request_id)
                        if state.answered:
                            break
                        continue
                    await self._deliver(message, state, request_id, method)
                    if event.id and state.on_event_id is not None:  # as officially: once the message is delivered
                        await state.on_event_id(event.id)
                    if state.answered:
                        break
                if state.answered:
                    # The response ends the stream: read to its end, so httpx's async generators
                    # finish (abandoning them mid-stream leaves them to the GC, which trio
                    # reports), but never wait long for a server that keeps it open.
                    with anyio.move_on_after(_DRAIN_SECONDS):
                        async for _ in chunks:
                            pass
                    return
        except self._errors.transport as exc:
            logger.debug("SSE stream interrupted: %s", _describe(exc))

    async def _unparsable_event(self, exc: ParseError, data: str, state: _StreamState, request_id: Any) -> None:
        """An SSE event that does not parse. On a request's own stream it fails that request at
        once (as officially: nothing else can come of the stream); on the standalone stream the
        exception goes to the session (`message_handler`, as officially), which fails the request
        it answered if the id can be told (`mcp._protocol.salvage`)."""
        logger.warning("an SSE event did not parse: %s", exc)
        if request_id is not None and not state.answered:
            state.answered = True
            await self._fail(request_id, PARSE_ERROR, f"Failed to parse SSE message: {exc}")
            return
        exc.data = data
        try:
            await self.read_send.send(exc)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.debug("dropping a parse error for a closed client")

    async def _deliver_body(self, body: bytes, state: _StreamState, request_id: Any, method: str) -> None:
        try:
            message = decode(body)
        except ParseError as exc:  # the official code and text
            await self._fail(request_id, PARSE_ERROR, f"Failed to parse JSON response: {exc}")
            state.answered = True
            return
        for item in _items(message):
            await self._deliver(item, state, request_id, method)
        if not state.answered:
            await self._fail(request_id, INTERNAL_ERROR, f"The server's JSON answer to {method} held no response")
            state.answered = True

    async def _deliver(self, value: Any, state: _StreamState, request_id: Any, method: str | None) -> None:
        message = _obj(value)
        if message is None:
            logger.warning("ignoring a non-object JSON-RPC message")
            return
        state.received += 1
        is_response = "method" not in message and ("result" in message or "error" in message)
        if is_response and request_id is not None:
            if state.remap:
                message = {**message, "id": request_id}  # a replayed answer to the request resumed
            elif message.get("id") is None and "error" in message:
                message = {**message, "id": request_id}  # an error the server could not tie to our id
            if message.get("id") == request_id:
                state.answered = True
                result = _obj(message.get("result"))
                if method == "initialize" and result is not None:
                    version = result.get("protocolVersion")
                    if version in HANDSHAKE_VERSIONS:  # any other, the session refuses: never sent back
                        self.protocol_version = version
                elif method == "tools/list" and result is not None:
                    screened = self._learn_tools(result, state.first_page and not result.get("nextCursor"))
                    if screened is not result:
                        message = {**message, "result": screened}
        await self._push(message)

    async def _push(self, message: dict[str, Any], metadata: Any = None) -> None:
        try:
            await self.read_send.send(SessionMessage(message, metadata))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.debug("dropping a message for a closed client")

    async def _fail(self, request_id: Any, code: int, text: str) -> None:
        await self._push({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}})

    # -- standalone GET stream ----------------------------------------------------------------

    def _open_get_stream(self) -> None:
        if self._get_scope is not None:
            self._get_scope.cancel()
        if self.tg is not None:
            self._get_scope = anyio.CancelScope()
            self.tg.start_soon(self._get_stream, self._get_scope)

    async def _get_stream(self, scope: anyio.CancelScope) -> None:
        with scope:
            state = _StreamState()
            attempts = 0
            while attempts < MAX_RECONNECTION_ATTEMPTS:
                connected = False
                headers = self._stream_headers()
                if state.last_event_id is not None:
                    headers[LAST_EVENT_ID_HEADER] = state.last_event_id
                try:
                    async with self.client.stream("GET", self.url, headers=headers) as response:
                        status = response.status_code
                        if status >= 300 or _content_type(response) != "text/event-stream":
                            await response.aread()
                            if status != 405:
                                logger.debug("no standalone SSE stream: HTTP %d", status)
                            if status < 500:
                                return  # 405: the server offers none; 404: the session is gone
                        else:
                            connected = True
                            await self._read_sse(response, state, None, None)
                except self._errors.http as exc:
                    logger.debug("standalone SSE stream failed: %s", _describe(exc))
                attempts = 0 if connected else attempts + 1
                await anyio.sleep(state.retry)

    # -- sessions -----------------------------------------------------------------------------

    async def _session_settled(self) -> None:
        """Wait for a re-initialization in progress, if any (a clock-free attribute test otherwise)."""
        reinitializing = self._reinitializing
        if reinitializing is not None:
            await reinitializing.wait()

    async def _reinitialize(self, stale_session: str | None) -> bool:
        """The session `stale_session` has expired: start a new one with the stored `initialize`
        params (once for all concurrent requests that noticed). True when a session exists."""
        async with self._reinit_lock:
            if self.session_id != stale_session:
                return self.session_id is not None  # another request already re-initialized
            if self.initialize_params is None:
                return False
            self._reinitializing = anyio.Event()
            try:
                return await self._start_new_session()
            finally:
                self._reinitializing.set()
                self._reinitializing = None

    async def _start_new_session(self) -> bool:
        """`initialize` + `notifications/initialized` again; True when the server gave a session."""
        assert self.initialize_params is not None
        self.session_id = None
        if self._get_scope is not None:
            self._get_scope.cancel()
        request_id = f"mcpkit-reinitialize-{next(self._reinit_ids)}"
        message = {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": self.initialize_params}
        result = await self._internal_request(message)
        if result is None or self.session_id is None:
            logger.warning("re-initializing the expired session failed")
            self.session_id = None
            return False
        version = result.get("protocolVersion")
        if version in HANDSHAKE_VERSIONS:
            self.protocol_version = version
        if await self._post_one_way({"jsonrpc": "2.0", "method": "notifications/initialized"}):
            self._open_get_stream()
        logger.info("the session expired; re-initialized as a new session")
        return True

    async def _internal_request(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """POST a request the transport makes itself; other messages on its stream are delivered."""
        request_id = message["id"]
        headers = self._message_headers(message)
        answer: dict[str, Any] | None = None
        try:
            async with self.client.stream("POST", self.url, content=encode(message).encode(),
                                          headers=headers) as response:
                if response.status_code >= 300:
                    await response.aread()
                    return None
                session_id = response.headers.get(SESSION_HEADER)
                if session_id and message["method"] == "initialize":
                    self.session_id = session_id
                kind = _content_type(response)
                if kind == "application/json":
                    messages: list[Any] = _items(decode(await response.aread()))
                else:
                    messages: list[Any] = []
                    parser = SSEParser()
                    async for chunk in response.aiter_bytes():
                        for event in parser.feed(chunk):
                            if event.data and event.event == "message":
                                messages.append(decode(event.data))
                for value in messages:
                    item = _obj(value)
                    if item is not None and item.get("id") == request_id and "method" not in item:
                        answer = item
                    elif item is not None:
                        await self._push(item)
        except (self._errors.http, ParseError) as exc:
            logger.warning("%s failed: %s", message["method"], exc)
            return None
        return _obj(answer.get("result")) if answer is not None else None

    async def terminate_session(self, client: AsyncHTTPClient | None = None) -> None:
        """`DELETE` the session, if any (405: the server does not allow it; fine)."""
        if self.session_id is None:
            return
        client = client or self.client
        try:
            response = await client.delete(self.url, headers=self._stream_headers())
        except errors_of(client).http as exc:
            logger.debug("session termination failed: %s", exc)
            return
        if response.status_code >= 300 and response.status_code != 405:
            logger.debug("session termination refused: HTTP %d", response.status_code)
        self.session_id = None


def _obj(value: Any) -> dict[str, Any] | None:
    """`value` as a JSON object, or None when it is not one."""
    return cast("dict[str, Any]", value) if isinstance(value, dict) else None


def _objects(container: dict[str, Any] | None, key: str) -> list[dict[str, Any]]:
    """The JSON objects in the array `container[key]` (nothing when it is not an array)."""
    value = container.get(key) if container is not None else None
    if not isinstance(value, list):
        return []
    return [item for item in map(_obj, cast("list[Any]", value)) if item is not None]


def _items(value: Any) -> list[Any]:
    """A decoded body as a list of messages (a batch array, or one message)."""
    return cast("list[Any]", value) if isinstance(value, list) else [value]


def _modern_version(message: dict[str, Any]) -> str | None:
    params = _obj(message.get("params"))
    meta = _obj(params.get("_meta")) if params is not None else None
    version = meta.get(PROTOCOL_VERSION_META_KEY) if meta is not None else None
    return version if isinstance(version, str) else None


def _content_type(response: HTTPResponse) -> str:
    return response.headers.get("content-type", "").split(";", 1)[0].strip().lower()


def _jsonrpc_error_in(body: bytes) -> dict[str, Any] | None:
    """The `error` of a JSON-RPC error response in an HTTP error body, if the body is one."""
    try:
        parsed = decode(body) if body else None
    except ParseError:
        return None
    body_object = _obj(parsed)
    error = _obj(body_object.get("error")) if body_object is not None else None
    if error is not None and (not isinstance(error.get("code"), int) or not isinstance(error.get("message"), str)):
        return None
    return error


def _post_error(request_id: Any, response: HTTPResponse, body: bytes, in_session: bool) -> dict[str, Any]:
    """The JSON-RPC error response standing for an HTTP error status answering a request's POST:
    the body's JSON-RPC error when it carries one; else a 404 is, as the official client says it,
    "Session terminated" (INVALID_REQUEST) within a session and "Not Found" (METHOD_NOT_FOUND: no
    such endpoint or method) before one; any other status is named (`HTTP 421 ...`, README)."""
    if response.status_code == 404 and _jsonrpc_error_in(body) is None:
        error = ({"code": INVALID_REQUEST, "message": "Session terminated"} if in_session
                 else {"code": METHOD_NOT_FOUND, "message": "Not Found"})
        return {"jsonrpc": "2.0", "id": request_id, "error": error}
    return _http_error(request_id, response, body)


def _http_error(request_id: Any, response: HTTPResponse, body: bytes) -> dict[str, Any]:
    """The JSON-RPC error response standing for an HTTP error status: the body's JSON-RPC error, else
    one naming the status (INTERNAL_ERROR)."""
    error = _jsonrpc_error_in(body)
    if error is None:
        text = body.decode("utf-8", "replace").strip()[:200]
        reason = response.reason_phrase or ""
        message = f"HTTP {response.status_code} {reason}".rstrip() + (f": {text}" if text else "")
        error = {"code": INTERNAL_ERROR, "message": message}
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _describe(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__
