"""The Streamable HTTP client's POST path: every outgoing message is its own POST. Requests run
concurrently (one task each) and their answers (a JSON body or an SSE stream) are read by
`ResponseReader`; notifications and responses are POSTed in order by the writer. An HTTP failure
becomes a JSON-RPC error response for its request; a request that reaches no server fails the
transport.

`MessagePosting` is that half of `StreamableHTTPTransport` (its state is set up by the
transport's `__init__`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup

from mcp._engine.peer import RaisedException
from mcp._protocol.codec import encode
from mcp.client.streamable_http.lifecycle import SessionLifecycle
from mcp.client.streamable_http.reading import StreamState
from mcp.client.streamable_http.wire import (
    LOGGER_NAME,
    SESSION_HEADER,
    StreamReader,
    StreamWriter,
    WriteStream,
    content_type,
    describe,
    json_object,
    post_error,
)
from mcp.shared._request_clock import running
from mcp.types.jsonrpc import CONNECTION_CLOSED, INTERNAL_ERROR

if TYPE_CHECKING:
    from mcp.client._http_library import AsyncHTTPClient

logger = logging.getLogger(LOGGER_NAME)


class MessagePosting(SessionLifecycle):
    """The sending half of `StreamableHTTPTransport`: the writer and each request's POST."""

    _in_flight: dict[Any, anyio.CancelScope]
    """request id -> the scope its task runs in (cancelling it closes the request's stream)."""

    async def post_writer(self, client: AsyncHTTPClient, write_stream_reader: StreamReader,
                          read_stream_writer: StreamWriter, write_stream: WriteStream,
                          start_get_stream: Callable[[], None], tg: TaskGroup) -> None:
        """Run the sending half on streams and a client of the caller's until `write_stream_reader`
        ends (the caller keeps `write_stream`). The standalone GET stream is opened by the
        transport itself once the session is initialized (as `start_get_stream` would)."""
        self.client, self.read_send, self.tg = client, read_stream_writer, tg
        await self.write_loop(write_stream_reader)

    async def write_loop(self, write_recv: StreamReader) -> None:
        """POST what the client sends until its write stream ends: each request in a task of its
        own (in `tg`), notifications and responses in order."""
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
            params = json_object(message.get("params"))
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
        params = json_object(message.get("params"))
        state = StreamState(first_page=method == "tools/list" and not (params or {}).get("cursor"),
                            on_event_id=self._token_callbacks.get(request_id))
        try:
            async with self.client.stream("POST", self.url, content=encode(message).encode(), headers=headers) as response:
                state.opened = True
                status = response.status_code
                if status >= 300:
                    body = await response.aread()
                    error = post_error(request_id, response, body, self.session_id is not None)
                    if status == 404 and SESSION_HEADER in headers and method != "initialize":
                        return "expired", error
                    await self._push(error)
                    return None
                if method == "initialize":
                    session_id = response.headers.get(SESSION_HEADER)
                    if session_id:
                        self.session_id = session_id
                kind = content_type(response)
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
            await self._fail(request_id, CONNECTION_CLOSED, f"Connection error: {describe(exc)}")
            return None
        if not state.answered:
            await self._resume(state, request_id, method)
        return None
