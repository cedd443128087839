"""The legacy HTTP+SSE client transport (protocol 2024-11-05).

A GET opens the server's event stream; its first `endpoint` event names the URL (resolved against
the stream's URL, and required to be on the same origin) that every client message is POSTed to.
Server messages arrive as `message` events. A POST the server refuses fails that request with a
JSON-RPC error instead of leaving its caller waiting.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qs, urljoin, urlparse

import anyio
import httpx2
from anyio.abc import TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from mcp._engine.seam import WireReceiveStream, WireSendStream
from mcp._protocol.codec import ParseError, decode, encode
from mcp._protocol.sse import SSEParser
from mcp.client._http_library import errors_of
from mcp.client.streamable_http import create_mcp_http_client
from mcp.shared.exceptions import single_leaf
from mcp.shared.message import SessionMessage
from mcp.types.jsonrpc import CONNECTION_CLOSED, INTERNAL_ERROR

if TYPE_CHECKING:
    from mcp.client._http_library import AsyncHTTPClient, HTTPAuth

logger = logging.getLogger("mcp.client.sse")


class McpHttpClientFactory(Protocol):
    def __call__(self, headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None,
                 auth: HTTPAuth | None = None) -> AsyncHTTPClient: ...


def remove_request_params(url: str) -> str:
    """`url` without its query string and fragment."""
    return urljoin(url, urlparse(url).path)


@asynccontextmanager
async def sse_client(
    url: str,
    headers: dict[str, Any] | None = None,
    timeout: float = 5.0,
    sse_read_timeout: float = 300.0,
    httpx_client_factory: McpHttpClientFactory | None = create_mcp_http_client,
    auth: HTTPAuth | None = None,
    on_session_created: Callable[[str], None] | None = None,
) -> AsyncGenerator[tuple[WireReceiveStream, WireSendStream]]:
    """Connect to a legacy SSE server; yields `(read_stream, write_stream)`.

    `timeout` bounds HTTP operations (and the wait for the `endpoint` event), `sse_read_timeout`
    how long the event stream may stay silent. `on_session_created` receives the `session_id`
    query parameter of the endpoint URL, when it has one.
    """
    factory = httpx_client_factory or create_mcp_http_client
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](64)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](64)
    try:
        client = factory(headers=headers, timeout=httpx2.Timeout(timeout, read=sse_read_timeout), auth=auth)
        async with client, anyio.create_task_group() as tg:
            with anyio.fail_after(timeout + 1):
                endpoint: str = await tg.start(_read_events, client, url, read_send)
            if on_session_created is not None:
                session_id = parse_qs(httpx2.URL(endpoint).query.decode()).get("session_id")
                if session_id:
                    on_session_created(session_id[0])
            tg.start_soon(_write_messages, client, endpoint, write_recv, read_send)
            try:
                yield WireReceiveStream(read_recv), WireSendStream(write_send)
            finally:
                tg.cancel_scope.cancel()
    except BaseException as exc:
        leaf = single_leaf(exc)  # task-group plumbing never reaches the caller as a bare group
        if leaf is exc:
            raise
        raise leaf from leaf.__cause__  # keeps the cause an `httpx2.ConnectError` has, as officially
    finally:
        with anyio.CancelScope(shield=True):
            await write_send.aclose()
            await write_recv.aclose()
            await read_send.aclose()
            await read_recv.aclose()


async def _read_events(client: AsyncHTTPClient, url: str, read_send: MemoryObjectSendStream[SessionMessage | Exception],
                       *, task_status: TaskStatus[str]) -> None:
    started = False
    failure: Exception | None = None
    http_error = errors_of(client).http
    try:
        async with client.stream("GET", url, headers={"Accept": "text/event-stream"}) as response:
            response.raise_for_status()
            content_type = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if content_type != "text/event-stream":
                raise ValueError(f"Expected an SSE stream from {url}, got content type {content_type!r}")
            parser = SSEParser()
            # Stopping early cancels the read instead of leaving the loop: the cancellation then
            # unwinds httpx's async generators, which would otherwise be left to the GC (trio
            # reports those).
            with anyio.CancelScope() as reading:
                async for chunk in response.aiter_bytes():
                    if reading.cancel_called:
                        continue
                    for event in parser.feed(chunk):
                        if event.event == "endpoint" and not started:
                            try:
                                endpoint = _resolve_endpoint(url, event.data)
                            except ValueError as exc:
                                failure = exc
                                reading.cancel()
                                break
                            started = True
                            task_status.started(endpoint)
                        elif event.event == "message" and event.data:
                            if not started:
                                logger.warning("ignoring a message received before the endpoint event")
                                continue
                            try:
                                item: SessionMessage | Exception = SessionMessage(decode(event.data))
                            except ParseError as exc:
                                item = exc
                            try:
                                await read_send.send(item)
                            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                                reading.cancel()  # nobody reads any more
                                break
            if failure is not None:
                raise failure
            if not started:
                raise ConnectionError(f"The SSE stream from {url} ended before the endpoint event")
    except http_error as exc:
        if not started:
            raise
        logger.warning("the SSE stream broke: %s", exc)
    finally:
        if started:
            await read_send.aclose()  # the connection is gone: pending requests fail


def _resolve_endpoint(url: str, data: str) -> str:
    base = httpx2.URL(url)
    endpoint = base.join(data.strip())
    if (endpoint.scheme, endpoint.host, endpoint.port) != (base.scheme, base.host, base.port):
        raise ValueError(f"Endpoint origin does not match the connection origin: {endpoint}")
    return str(endpoint)


async def _write_messages(client: AsyncHTTPClient, endpoint: str, write_recv: MemoryObjectReceiveStream[SessionMessage],
                          read_send: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
    http_error = errors_of(client).http
    async with write_recv:
        async for item in write_recv:
            message = item.message
            request_id = message.get("id") if "method" in message else None
            error: dict[str, Any] | None = None
            try:
                response = await client.post(endpoint, content=encode(message).encode(),
                                             headers={"Content-Type": "application/json"})
                if response.status_code >= 300:
                    text = response.text.strip()[:200]
                    error = {"code": INTERNAL_ERROR, "message": f"HTTP {response.status_code} {response.reason_phrase}"
                                                                + (f": {text}" if text else "")}
            except http_error as exc:
                error = {"code": CONNECTION_CLOSED, "message": f"Connection error: {exc or type(exc).__name__}"}
            if error is None:
                continue
            logger.warning("sending %s failed: %s", message.get("method") or "a response", error["message"])
            if request_id is not None:
                try:
                    await read_send.send(SessionMessage({"jsonrpc": "2.0", "id": request_id, "error": error}))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
