"""How the Streamable HTTP client reads what the server sends: a JSON body or an SSE stream,
each message pushed to the read stream, until the awaited response arrives (what a stream said
so far is kept in a `StreamState`, enough to resume it).

`ResponseReader` is that half of `StreamableHTTPTransport` (its state is set up by the
transport's `__init__`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any, cast

import anyio

from mcp._protocol.codec import ParseError, decode
from mcp._protocol.sse import SSEParser
from mcp.client.streamable_http.headers import HeaderState
from mcp.client.streamable_http.wire import (
    DEFAULT_RETRY_SECONDS,
    DRAIN_SECONDS,
    LOGGER_NAME,
    ReadSend,
    body_messages,
    describe,
    json_object,
)
from mcp.shared.message import ResumptionTokenUpdateCallback, SessionMessage
from mcp.types.jsonrpc import CONNECTION_CLOSED, INTERNAL_ERROR, PARSE_ERROR
from mcp.types.version import HANDSHAKE_VERSIONS

if TYPE_CHECKING:
    from mcp.client._http_library import HTTPResponse

logger = logging.getLogger(LOGGER_NAME)


class StreamState:
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


class ResponseReader(HeaderState):
    """The reading half of `StreamableHTTPTransport`: answers and streams to the read stream."""

    max_sse_event_size: int | None
    read_send: ReadSend

    async def _read_sse(self, response: HTTPResponse, state: StreamState, request_id: Any,
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
                                         f"SSE stream failed: Server-sent event exceeded the {limit} byte limit.")
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
                    with anyio.move_on_after(DRAIN_SECONDS):
                        async for _ in chunks:
                            pass
                    return
        except self._errors.transport as exc:
            logger.debug("SSE stream interrupted: %s", describe(exc))

    async def _unparsable_event(self, exc: ParseError, data: str, state: StreamState, request_id: Any) -> None:
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

    async def _deliver_body(self, body: bytes, state: StreamState, request_id: Any, method: str) -> None:
        try:
            message = decode(body)
        except ParseError as exc:  # the official code and text
            await self._fail(request_id, PARSE_ERROR, f"Failed to parse JSON response: {exc}")
            state.answered = True
            return
        for item in body_messages(message):
            await self._deliver(item, state, request_id, method)
        if not state.answered:
            await self._fail(request_id, INTERNAL_ERROR, f"The server's JSON answer to {method} held no response")
            state.answered = True

    async def _deliver(self, value: Any, state: StreamState, request_id: Any, method: str | None) -> None:
        message = json_object(value)
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
                result = json_object(message.get("result"))
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
