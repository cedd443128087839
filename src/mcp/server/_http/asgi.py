"""ASGI plumbing of the HTTP front door: reading a request, sending a whole response or an error,
and noticing a client that went away. Shared by the Streamable HTTP request path and the legacy
SSE transport (`mcp.server.sse`); nothing here knows MCP sessions."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Final

import anyio
import sniffio

from mcp._protocol import http as h
from mcp._protocol import messages as m
from mcp._protocol.codec import encode_bytes

logger = logging.getLogger("mcp.server.http")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

SSE_HEADERS: Final = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache, no-transform"),
                      (b"x-accel-buffering", b"no"), (b"connection", b"keep-alive")]
JSON_HEADERS: Final = [(b"content-type", b"application/json")]
GONE: Final = (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError)
"""What an ASGI server's `send` may raise once the client is gone (servers that raise instead of
dropping the write: sockets raise OSError, in-memory bridges anyio's stream errors)."""
DEFAULT_MAX_BODY: Final = h.DEFAULT_MAX_REQUEST_BODY_SIZE
"""The request body size beyond which a request is refused (413) unless configured otherwise."""
DISCONNECTED: Any = object()
"""`read_body`'s answer when the client went away before the body was read."""


def headers_of(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name (the last of repeated ones)."""
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


async def read_body(receive: Receive, headers: dict[str, str], limit: int) -> Any:
    """The request body; None as soon as it is known to exceed `limit` (nothing more is read);
    `DISCONNECTED` when the client went away first."""
    declared = headers.get("content-length")
    if declared is not None and declared.isdigit() and (len(declared) > 18 or int(declared) > limit):
        return None  # (a length past int's 4300-digit parsing limit is no ValueError here)
    chunks: list[bytes] = []
    size = 0
    while True:
        event = await receive()
        if event["type"] == "http.disconnect":
            return DISCONNECTED
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not event.get("more_body", False):
            return b"".join(chunks) if len(chunks) != 1 else chunks[0]


async def send_body(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    """A whole response; with its length, so that the server need not frame it in chunks."""
    headers = [*headers, (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def send_refusal(send: Send, status: int, text: str) -> None:
    """The DNS-rebinding refusal (421 Invalid Host header / 403 Invalid Origin header) with no
    Content-Type, as officially: the troubleshooting page tells users the body is not JSON-RPC."""
    await send_body(send, status, text.encode(), [])


async def send_error(send: Send, status: int, request_id: Any, code: int, message: str, data: Any = None, *,
                     headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """A JSON-RPC error as a whole JSON response with HTTP `status`."""
    body = encode_bytes(m.error_response(request_id, code, message, data))
    await send_body(send, status, body, JSON_HEADERS + headers if headers else JSON_HEADERS)


async def wait_disconnect(receive: Receive) -> None:
    """Return once the client has disconnected (whatever else arrives is ignored)."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def cancel_on_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
    """Cancel `scope` once the client has disconnected."""
    await wait_disconnect(receive)
    scope.cancel()


class DisconnectWatch:
    """`async with DisconnectWatch(receive, on_disconnect):` runs its body while a watcher waits
    for the client to disconnect, then calls `on_disconnect(scope)` (which may cancel the body
    through `scope`). Nothing is called once the body has ended.

    On asyncio the watcher is a bare task (a task group per request costs several event-loop
    passes and most of the per-request overhead), started only once the body has run for
    `WATCH_AFTER` seconds: most requests are answered sooner and need no watcher at all (a
    disconnect is noticed that much later). Elsewhere, a task group. Being a context manager, it
    adds no frame to the request's await chain (every resumption walks that chain)."""

    WATCH_AFTER: ClassVar[float] = 0.05

    __slots__ = ("_on_disconnect", "_receive", "_scope", "_task_group", "_timer", "_watcher")

    def __init__(self, receive: Receive, on_disconnect: Callable[[anyio.CancelScope], None]) -> None:
        self._receive = receive
        self._on_disconnect = on_disconnect
        self._scope: anyio.CancelScope | None = None
        self._task_group: Any = None
        self._timer: asyncio.TimerHandle | None = None
        self._watcher: asyncio.Task[None] | None = None

    async def __aenter__(self) -> None:
        if sniffio.current_async_library() == "asyncio":
            self._scope = anyio.CancelScope()
            self._scope.__enter__()
            self._timer = asyncio.get_running_loop().call_later(self.WATCH_AFTER, self._start_watching)
            return
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        self._scope = self._task_group.cancel_scope
        self._task_group.start_soon(self._watch)

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        assert self._scope is not None
        if self._task_group is None:
            if self._timer is not None:
                self._timer.cancel()
            if self._watcher is not None:
                self._watcher.cancel()
            return self._scope.__exit__(*exc_info)
        self._scope.cancel()
        return await self._task_group.__aexit__(*exc_info)

    def _start_watching(self) -> None:
        self._timer = None
        self._watcher = asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self) -> None:
        try:
            await wait_disconnect(self._receive)
        except Exception:  # the exchange is over; nothing to cancel
            logger.debug("disconnect watcher ended", exc_info=True)
            return
        assert self._scope is not None
        self._on_disconnect(self._scope)
