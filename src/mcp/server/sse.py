"""The legacy HTTP+SSE transport (2024-11-05): a GET stream for server messages, whose first
event names the URL to POST client messages to."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote
from uuid import UUID, uuid4

import anyio

from mcp._engine.seam import WireReceiveStream, WireSendStream
from mcp._protocol.codec import ParseError, decode, encode_bytes
from mcp._protocol.messages import InvalidMessage, classify
from mcp._protocol.sse import encode_event
from mcp.server._host_check import check
from mcp.server._http.asgi import (
    DEFAULT_MAX_BODY,
    DISCONNECTED,
    headers_of,
    read_body,
    send_body,
    send_refusal,
)
from mcp.server._http.sessions import principal_of
from mcp.shared.message import SessionMessage

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectSendStream

    from mcp.server.transport_security import TransportSecuritySettings

logger = logging.getLogger("mcp.server.sse")


class SseServerTransport:
    """ASGI endpoints of the legacy SSE transport, as in the official SDK.

    `connect_sse` (for the GET) opens the event stream, tells the client where to POST and yields
    `(read_stream, write_stream)` for `Server.run`; `handle_post_message` (an ASGI app, mounted at
    `endpoint`) feeds the POSTed messages to the right stream. Given a `server=`, `handle_sse`
    serves that server's connection itself (what `build_sse_app` mounts).

    `_read_stream_writers` maps each open session's id (a `UUID`) to the stream its POSTed messages
    go into, as officially (tests and proxies read it); a session leaves it when its GET stream
    ends. A session opened with a bearer token answers only POSTs that carry the same principal
    (`_session_owners`); to anyone else it does not exist (404).
    """

    _read_stream_writers: dict[UUID, MemoryObjectSendStream[SessionMessage | Exception]]
    _session_owners: dict[UUID, Any]

    def __init__(self, endpoint: str, security_settings: TransportSecuritySettings | None = None,
                 max_request_body_size: int = DEFAULT_MAX_BODY, *, server: Any = None) -> None:
        if max_request_body_size <= 0:
            raise ValueError("max_request_body_size must be a positive number of bytes")
        if "://" in endpoint or endpoint.startswith("//") or "?" in endpoint or "#" in endpoint:
            raise ValueError(f"Given endpoint: {endpoint} is not a relative path (e.g., '/messages/'), "
                             "expecting a relative path (e.g., '/messages/').")
        self.server = server
        self._endpoint = endpoint if endpoint.startswith("/") else "/" + endpoint
        self.max_request_body_size = max_request_body_size
        self.security_settings = security_settings
        self._read_stream_writers = {}
        self._session_owners = {}
        self._lifespan_context: Any = None
        self._lifespan_stack: AsyncExitStack | None = None
        self._lifespan_lock = anyio.Lock()

    async def _ensure_lifespan(self) -> Any:
        """The server lifespan's context, entered on first use when the host did not run the
        app's lifespan (mounted apps)."""
        if self._lifespan_stack is None:
            async with self._lifespan_lock:
                if self._lifespan_stack is None:
                    stack = AsyncExitStack()
                    self._lifespan_context = await stack.enter_async_context(self.server.lifespan(self.server))
                    self._lifespan_stack = stack
        return self._lifespan_context

    @asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """Enter the server's lifespan for the life of the app (the app's lifespan does this)."""
        await self._ensure_lifespan()
        try:
            yield
        finally:
            stack, self._lifespan_stack = self._lifespan_stack, None
            if stack is not None:
                await stack.aclose()

    @asynccontextmanager
    async def connect_sse(self, scope: Any, receive: Any, send: Any) -> AsyncIterator[tuple[Any, Any]]:
        """Answer a GET with the event stream and yield `(read_stream, write_stream)` for one
        connection. The block is cancelled when the client disconnects. A request the security
        settings refuse is answered (421/403) and raises `ValueError`."""
        if scope.get("type") != "http":
            raise ValueError("connect_sse can only handle HTTP requests")
        headers = headers_of(scope)
        rejected = check(self.security_settings, headers.get("host"), headers.get("origin"))
        if rejected is not None:
            await send_refusal(send, *rejected)
            raise ValueError("Request validation failed")
        session_id = uuid4()
        in_send, in_recv = anyio.create_memory_object_stream[SessionMessage | Exception](64)
        out_send, out_recv = anyio.create_memory_object_stream[SessionMessage](64)
        owner = principal_of(scope)
        if owner is not None:
            self._session_owners[session_id] = owner
        self._read_stream_writers[session_id] = in_send
        # The URL the client POSTs to: the mount prefix (`root_path`) and the endpoint, from the
        # server's root, so that it works wherever the app is mounted.
        path = quote(str(scope.get("root_path", "")).rstrip("/") + self._endpoint)
        endpoint = f"{path}?session_id={session_id.hex}"
        pumped = anyio.Event()

        async def pump() -> None:
            try:
                async for item in out_recv:
                    await send({"type": "http.response.body", "body": encode_event(encode_bytes(item.message)),
                                "more_body": True})
            except OSError:
                pass
            finally:
                pumped.set()

        try:
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache, no-transform"),
                (b"x-accel-buffering", b"no")]})
            await send({"type": "http.response.body", "body": encode_event(endpoint, event="endpoint"), "more_body": True})
            async with anyio.create_task_group() as tg:

                async def watch() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    tg.cancel_scope.cancel()

                tg.start_soon(watch)
                tg.start_soon(pump)
                try:
                    yield WireReceiveStream(in_recv), WireSendStream(out_send)
                finally:
                    out_send.close()  # what the connection wrote still goes out
                    with anyio.move_on_after(2, shield=True):
                        await pumped.wait()
                    tg.cancel_scope.cancel()
        except OSError:
            pass
        finally:
            self._read_stream_writers.pop(session_id, None)
            self._session_owners.pop(session_id, None)
            in_send.close()
            in_recv.close()
            out_send.close()
            out_recv.close()

    async def handle_sse(self, scope: Any, receive: Any, send: Any) -> None:
        """The GET endpoint serving `server=`'s connection (`connect_sse` + `serve_connection`)."""
        if self.server is None:
            raise TypeError("handle_sse needs SseServerTransport(..., server=); use connect_sse otherwise")
        headers = headers_of(scope)
        rejected = check(self.security_settings, headers.get("host"), headers.get("origin"))
        if rejected is not None:
            await send_refusal(send, *rejected)
            return
        lifespan_context = await self._ensure_lifespan()
        async with self.connect_sse(scope, receive, send) as (read_stream, write_stream):
            await self.server.serve_connection(read_stream, write_stream, lifespan_context)

    async def handle_post_message(self, scope: Any, receive: Any, send: Any) -> None:
        """The message endpoint (an ASGI app to mount at `endpoint`). Its answers, in the official
        order: 405 for another method; 413 for a body over `max_request_body_size`; 400 for a
        Content-Type that is not JSON; 421/403 from the security settings; 400 without a
        `session_id` or with one that is not a UUID; 404 for a session that is not open (or was
        opened by another principal); 400 for a body that is not one JSON-RPC message; else 202,
        and the message goes to the session's stream."""
        if scope.get("method") != "POST":
            await send_body(send, 405, b"", [(b"allow", b"POST")])
            return
        headers = headers_of(scope)
        body = await read_body(receive, headers, self.max_request_body_size)
        if body is DISCONNECTED:
            return
        if body is None:
            await _send_plain(send, 413, "Request body too large")
            return
        if not headers.get("content-type", "").lower().startswith("application/json"):
            await _send_plain(send, 400, "Invalid Content-Type header")
            return
        rejected = check(self.security_settings, headers.get("host"), headers.get("origin"))
        if rejected is not None:
            await send_refusal(send, *rejected)
            return
        raw_id = _session_param(scope.get("query_string", b""))
        if raw_id is None:
            await _send_plain(send, 400, "session_id is required")
            return
        try:
            session_id = UUID(hex=raw_id)
        except ValueError:
            await _send_plain(send, 400, "Invalid session ID")
            return
        writer = self._read_stream_writers.get(session_id)
        if writer is None or principal_of(scope) != self._session_owners.get(session_id):
            # A session answers only the principal that opened it; to anyone else it does not exist.
            await _send_plain(send, 404, "Could not find session")
            return
        try:
            message = decode(body)
            classify(message)
        except (ParseError, InvalidMessage) as exc:
            logger.warning("Could not parse message: %s", exc)
            await _send_plain(send, 400, "Could not parse message")
            return
        try:
            await writer.send(SessionMessage(message, _PostMetadata(scope)))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            await _send_plain(send, 404, "Could not find session")  # the stream closed meanwhile
            return
        await _send_plain(send, 202, "Accepted")


class _PostMetadata:
    """Transport metadata of one POSTed message: handlers see its HTTP request
    (`ctx.request`, a Starlette `Request` made on first use), as officially."""

    __slots__ = ("_request", "scope")

    def __init__(self, scope: Any) -> None:
        self.scope = scope
        self._request: Any = None

    @property
    def request(self) -> Any:
        if self._request is None:
            from starlette.requests import Request

            self._request = Request(self.scope)
        return self._request


def _session_param(query_string: bytes) -> str | None:
    """The `session_id` query parameter, decoded; the last one when repeated (as Starlette's
    `query_params.get`)."""
    found: str | None = None
    for name, value in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True):
        if name == "session_id":
            found = value
    return found


async def _send_plain(send: Any, status: int, text: str) -> None:
    """A short text answer with no Content-Type, as the official transport's."""
    await send_body(send, status, text.encode(), [])


def build_sse_app(server: Any, *, sse_path: str = "/sse", message_path: str = "/messages/",
                  max_request_body_size: int = DEFAULT_MAX_BODY, transport_security: TransportSecuritySettings | None = None,
                  host: str = "127.0.0.1", custom_starlette_routes: list[Any] | None = None, debug: bool = False,
                  auth: Any = None, token_verifier: Any = None, auth_server_provider: Any = None) -> Any:
    """A Starlette app serving `server` over the legacy SSE transport (GET `sse_path`, POST
    `message_path`); with `auth`, as officially, both endpoints require a bearer token (a session
    then answers only the principal that opened it), and the authorization server's and the
    protected-resource metadata routes are served."""
    from starlette.applications import Starlette
    from starlette.routing import Mount, Route

    transport = SseServerTransport(
        message_path, transport_security if transport_security is not None else _default_security(host),
        max_request_body_size, server=server,
    )

    @asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        async with transport.run():
            yield

    class _Endpoint:
        def __init__(self, handler: Any) -> None:
            self.handler = handler

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await self.handler(scope, receive, send)

    stream: Any = _Endpoint(transport.handle_sse)
    messages: Any = _Endpoint(transport.handle_post_message)
    auth_routes: list[Any] = []
    if auth is not None:
        from mcp.server.auth.app import wrap_with_auth

        requirements = getattr(server, "scope_requirements", None)
        stream, auth_routes = wrap_with_auth(stream, token_verifier=token_verifier, auth=auth, mcp_path=sse_path,
                                             auth_server_provider=auth_server_provider, scope_requirements=requirements)
        messages, _ = wrap_with_auth(messages, token_verifier=token_verifier, auth=auth, mcp_path=sse_path,
                                     auth_server_provider=auth_server_provider, scope_requirements=requirements,
                                     max_request_body_size=max_request_body_size)
    routes = [Route(sse_path, endpoint=stream, methods=["GET"]), Mount(message_path, app=messages),
              *auth_routes, *(custom_starlette_routes or [])]
    return Starlette(debug=debug, routes=routes, lifespan=lifespan)


def _default_security(host: str) -> TransportSecuritySettings | None:
    from mcp.server.transport_security import default_for_host

    return default_for_host(host)
