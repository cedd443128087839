"""The Streamable HTTP client's GET streams: the standalone stream of server-initiated messages
(opened once the session is initialized, reopened as the server's `retry` says), and the resumption
of a response stream that ended before its answer (GET + `Last-Event-ID`, also for a request sent
with `ClientMessageMetadata.resumption_token`).

`ResumableStreams` is that half of `StreamableHTTPTransport` (its state is set up by the
transport's `__init__`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup

from mcp.client.streamable_http.reading import ResponseReader, StreamState
from mcp.client.streamable_http.wire import (
    LAST_EVENT_ID_HEADER,
    LOGGER_NAME,
    MAX_RECONNECTION_ATTEMPTS,
    StreamWriter,
    content_type,
    describe,
    http_error,
)
from mcp.types.jsonrpc import CONNECTION_CLOSED

if TYPE_CHECKING:
    from mcp.client._http_library import AsyncHTTPClient
    from mcp.shared.message import ResumptionTokenUpdateCallback

logger = logging.getLogger(LOGGER_NAME)


class ResumableStreams(ResponseReader):
    """The GET-stream half of `StreamableHTTPTransport`: the standalone stream and resumptions."""

    tg: TaskGroup | None
    _get_scope: anyio.CancelScope | None
    _token_callbacks: dict[Any, ResumptionTokenUpdateCallback]
    """request id -> its `ClientMessageMetadata.on_resumption_token_update`, while in flight."""

    async def handle_get_stream(self, client: AsyncHTTPClient, read_stream_writer: StreamWriter) -> None:
        """Run the standalone GET stream (server-initiated messages) until it ends, reconnecting
        as the server's `retry` says; nothing to do before a session exists."""
        self.client, self.read_send = client, read_stream_writer
        if self.session_id is not None:
            await self._get_stream(anyio.CancelScope())

    # -- resuming a response stream -----------------------------------------------------------

    async def _resume_from_token(self, message: dict[str, Any], token: str) -> None:
        """A request sent with `ClientMessageMetadata.resumption_token`, as officially: not POSTed;
        a GET with `Last-Event-ID: <token>` replays the stream the token comes from (on this or an
        earlier connection), and the response it carries answers this request, its id remapped."""
        request_id = message["id"]
        method: str = message["method"]
        state = StreamState(on_event_id=self._token_callbacks.get(request_id))
        state.last_event_id = token
        state.remap = True
        headers = self._stream_headers()
        headers[LAST_EVENT_ID_HEADER] = token
        async with self.client.stream("GET", self.url, headers=headers) as response:
            status = response.status_code
            if status >= 300 or content_type(response) != "text/event-stream":
                body = await response.aread()
                await self._push(http_error(request_id, response, body))
                return
            await self._read_sse(response, state, request_id, method)
        if not state.answered:  # the replay ended early: go on resuming from where it stopped
            await self._resume(state, request_id, method)

    async def _resume(self, state: StreamState, request_id: Any, method: str) -> None:
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
                    if status >= 300 or content_type(response) != "text/event-stream":
                        body = await response.aread()
                        if 300 <= status < 500:
                            await self._push(http_error(request_id, response, body))
                            return
                    else:
                        connected = True
                        await self._read_sse(response, state, request_id, method)
            except self._errors.transport as exc:
                logger.debug("resuming the stream for %r failed: %s", request_id, describe(exc))
            failures = 0 if connected else failures + 1
            if state.received > before:
                last_news = anyio.current_time()

    # -- the standalone GET stream ------------------------------------------------------------

    def _open_get_stream(self) -> None:
        if self._get_scope is not None:
            self._get_scope.cancel()
        if self.tg is not None:
            self._get_scope = anyio.CancelScope()
            self.tg.start_soon(self._get_stream, self._get_scope)

    async def _get_stream(self, scope: anyio.CancelScope) -> None:
        with scope:
            state = StreamState()
            attempts = 0
            while attempts < MAX_RECONNECTION_ATTEMPTS:
                connected = False
                headers = self._stream_headers()
                if state.last_event_id is not None:
                    headers[LAST_EVENT_ID_HEADER] = state.last_event_id
                try:
                    async with self.client.stream("GET", self.url, headers=headers) as response:
                        status = response.status_code
                        if status >= 300 or content_type(response) != "text/event-stream":
                            await response.aread()
                            if status != 405:
                                logger.debug("no standalone SSE stream: HTTP %d", status)
                            if status < 500:
                                return  # 405: the server offers none; 404: the session is gone
                        else:
                            connected = True
                            await self._read_sse(response, state, None, None)
                except self._errors.http as exc:
                    logger.debug("standalone SSE stream failed: %s", describe(exc))
                attempts = 0 if connected else attempts + 1
                await anyio.sleep(state.retry)
