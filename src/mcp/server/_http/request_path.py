"""The request path of the Streamable HTTP front door: `StreamableHTTPSessionManager`, one ASGI
endpoint for both protocol eras (`mcp.server.streamable_http` is its official home).

- 2026-07-28 requests (the era is `mcp._protocol.lifecycle.request_era`'s) are self-contained: no
  session, routing headers checked against the body, errors mapped to HTTP statuses, as the
  official modern entry answers them.
- Handshake-era requests get sessions (`Mcp-Session-Id`, the table of `mcp.server._http.sessions`)
  unless `stateless=True`; a session-less request gets its own throwaway `ServerSession`, so nothing
  one request sets is seen by another client's. Checks, statuses and texts follow the official
  transport.

Each POST is served in its own ASGI task, with a watcher for a client that disconnects (a session's
call outlives it; a session-less one is cancelled). A handshake-era request is answered with an SSE
stream (`json_response=True`: one JSON body; `mcp.server._http.channel`); messages related to no
request ride the session's GET stream. No background task is needed, so the app works mounted in
another app (the server lifespan is entered on first use). With an event store, streams are
resumable (`mcp.server._http.resumption`); with a `session_store`, every worker shares the sessions
(`mcp.server._http.shared_sessions`).
"""

from __future__ import annotations

import secrets
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any, Final, cast

import anyio

from mcp._engine.seam import WireReceiveStream, WireSendStream
from mcp._protocol import http as h
from mcp._protocol import messages as m
from mcp._protocol.codec import ParseError, decode
from mcp._protocol.lifecycle import MODERN_ERA, request_era
from mcp.server._host_check import check
from mcp.server._http.asgi import (
    DEFAULT_MAX_BODY,
    DISCONNECTED,
    JSON_HEADERS,
    DisconnectWatch,
    Receive,
    Scope,
    Send,
    headers_of,
    read_body,
    send_body,
    send_error,
    send_refusal,
)
from mcp.server._http.channel import HttpRequestMetadata, ListingMetadata, ResponseChannel
from mcp.server._http.resumption import PRIMING_SINCE, STANDALONE_STREAM_SUFFIX, StoringOutbox, replay
from mcp.server._http.sessions import (
    HttpSession,
    SessionEnd,
    SessionTable,
    foreign_session,
    principal_of,
    unknown_session,
)
from mcp.server._http.shared_sessions import SessionStore, SharedSessions, StoreUnavailable
from mcp.server.connection import aclose_shielded
from mcp.server.event_store import EventStore, forget_session
from mcp.server.http_limits import SessionsPerClient, TrustedProxies, too_many_sessions
from mcp.server.param_headers import param_header_mismatch_for_call
from mcp.server.session import ServerSession
from mcp.shared.message import SessionMessage
from mcp.types.jsonrpc import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from mcp.types.version import (
    CLIENT_CAPABILITIES_META_KEY,
    DEFAULT_NEGOTIATED_VERSION,
    MODERN_VERSIONS,
    PROTOCOL_VERSION_META_KEY,
    SUPPORTED_PROTOCOL_VERSIONS,
)

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server
    from mcp.server.transport_security import TransportSecuritySettings

INVALID_BODY: Final = "Body must be a single JSON-RPC request or notification object"
"""The 2026-07-28 entry's answer to well-formed JSON that is not one request or notification."""


class StreamableHTTPSessionManager:
    """The ASGI endpoint serving MCP over Streamable HTTP (see the module docstring)."""

    def __init__(
        self,
        app: Server[Any],
        event_store: EventStore | None = None,
        json_response: bool = False,
        stateless: bool = False,
        security_settings: TransportSecuritySettings | None = None,
        retry_interval: int | None = None,
        session_idle_timeout: float | None = h.DEFAULT_SESSION_IDLE_TIMEOUT,
        max_request_body_size: int = DEFAULT_MAX_BODY,
        max_sessions: int | None = h.DEFAULT_MAX_SESSIONS,
        max_sessions_per_client: int | None = h.DEFAULT_MAX_SESSIONS_PER_CLIENT,
        *,
        session_store: SessionStore | None = None,
        trusted_proxies: TrustedProxies = None,
    ) -> None:
        self.app = self.server = app
        """The low-level `Server` whose connections this manager serves."""
        self.json_response = json_response
        self.stateless = stateless
        self.event_store = event_store
        self.retry_interval = retry_interval
        self.max_request_body_size = max_request_body_size
        self.security_settings = security_settings
        self.session_idle_timeout = session_idle_timeout
        """Seconds a session may stay idle; None (never expire) stays None, as officially."""
        self.max_sessions = sys.maxsize if max_sessions is None else max_sessions
        self.sessions_per_client = SessionsPerClient(max_sessions_per_client, trusted_proxies)
        self._lifespan_stack: AsyncExitStack | None = None
        self._lifespan_context: Any = None
        self._lifespan_lock = anyio.Lock()
        self._live: dict[str, ResponseChannel] = {}
        """Resumable POST streams still waiting for their final response, by stream id."""
        # Streams closed at both ends: a session-less ServerSession never reads its input and
        # drops what it cannot put on a response (there is no connection to send it to).
        write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
        read_send, read_recv = anyio.create_memory_object_stream[Any](0)
        for stream in (write_send, write_recv, read_send, read_recv):
            stream.close()
        self._closed_read = WireReceiveStream(read_recv)
        self._closed_write = WireSendStream(write_send)
        shared: Any = getattr(app, "shared_state", None)
        """`MCPServer(state=...)`: the stores shared by every worker (sessions, events, bus)."""
        if shared is not None:
            session_store = session_store if session_store is not None else shared.session_store()
            if self.event_store is None and shared.resumable:
                self.event_store = shared.event_store()
        self.session_store = session_store
        self._sessions = SessionTable(self.sessions_per_client, max_sessions=self.max_sessions,
                                      idle_timeout=self.session_idle_timeout, event_store=self.event_store)
        """Handshake-era sessions, least recently used first."""
        self._shared: SharedSessions | None = None
        if session_store is not None:
            self._shared = SharedSessions(self._sessions, self._make_replica, session_store, shared)
        from mcp._telemetry import watch_sessions

        watch_sessions(self)  # the sessions-open metric reads `session_count` when collected

    # -- lifespan -----------------------------------------------------------------------------

    @asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """Enter the server's lifespan for the life of the app (the app's lifespan does this)."""
        await self._ensure_lifespan()
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._sessions.expire_idle)
            self._sessions.teardowns = tasks
            try:
                yield
            finally:
                await self.close()
                self._sessions.teardowns = None
                tasks.cancel_scope.cancel()

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

    async def close(self) -> None:
        """End every session and leave the server lifespan."""
        for session in list(self._sessions.values()):
            await self._sessions.end(session)
        if self._shared is not None:
            self._shared.close()
        stack, self._lifespan_stack = self._lifespan_stack, None
        if stack is not None:
            await stack.aclose()

    @property
    def session_count(self) -> int:
        return len(self._sessions)

    @property
    def _server_instances(self) -> dict[str, SessionEnd]:
        """Live handshake-era sessions by id, each ended by `await value.terminate()` (the official
        private name, which FastMCP's app lifespan walks at shutdown)."""
        return self._sessions.session_ends()

    # -- ASGI ---------------------------------------------------------------------------------

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI HTTP request (the manager itself is also the ASGI app)."""
        await self(scope, receive, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = headers_of(scope)
        self._sessions.sweep()
        method = scope["method"]
        if method == "POST":
            await self._post(scope, receive, send, headers)  # (its checks come after the body's size)
            return
        rejected = check(self.security_settings, headers.get("host"), headers.get("origin"))
        if rejected is not None:
            await send_refusal(send, rejected[0], rejected[1])
            return
        if request_era(headers.get(h.VERSION_HEADER), None) == MODERN_ERA:
            # the 2026-07-28 entry serves POST only (nothing but the Allow header, as officially)
            await send_body(send, 405, b"", [(b"allow", b"POST")])
        elif method == "GET":
            await self._get(scope, receive, send, headers)
        elif method == "DELETE":
            await self._delete(scope, send, headers)
        else:
            await send_error(send, 405, None, INVALID_REQUEST, "Method Not Allowed",
                              headers=[(b"allow", b"GET, POST, DELETE")])

    async def _post(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]) -> None:
        # As officially: the size limit first (413 whatever the headers), then the Content-Type
        # (400 before anything else: a cross-site form post is refused), then Host and Origin.
        body = await read_body(receive, headers, self.max_request_body_size)
        if body is DISCONNECTED:
            return
        if body is None:
            await send_error(send, 413, None, INVALID_REQUEST,
                              f"Payload Too Large: the request body exceeds {self.max_request_body_size} bytes")
            return
        content_type = headers.get("content-type")
        if content_type != h.JSON and not (content_type or "").lower().startswith(h.JSON):
            await send_refusal(send, 400, "Invalid Content-Type header")
            return
        rejected = check(self.security_settings, headers.get("host"), headers.get("origin"))
        if rejected is not None:
            await send_refusal(send, rejected[0], rejected[1])
            return
        version = headers.get(h.VERSION_HEADER)
        try:
            message: Any = decode(body)
        except ParseError as exc:
            message, parse_error = None, exc
        else:
            parse_error = None
        params: Any = cast("dict[str, Any]", message).get("params") if type(message) is dict else None
        meta: Any = cast("dict[str, Any]", params).get("_meta") if type(params) is dict else None
        meta_version: Any = cast("dict[str, Any]", meta).get(PROTOCOL_VERSION_META_KEY) if type(meta) is dict else None
        if request_era(version, meta_version) == MODERN_ERA:  # (a mixed request is the handshake entry's to refuse)
            await self._post_modern(scope, receive, send, headers, message, parse_error, version)
        else:
            await self._post_legacy(scope, receive, send, headers, message, parse_error, version)

    async def _post_modern(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str], message: Any,
                           parse_error: ParseError | None, version: str | None) -> None:
        """A self-contained 2026-07-28 POST: no session; rejections as the official modern entry."""
        accept = headers.get("accept")
        allow_json, allow_sse = h.accepts(accept) if accept else (False, False)
        if not allow_json or (not self.json_response and not allow_sse):
            await send_body(send, 406, b"", [])
            return
        if parse_error is not None:
            await send_error(send, 400, None, PARSE_ERROR, "Parse error")
            return
        shaped: dict[str, Any] | None = cast("dict[str, Any]", message) if type(message) is dict else None
        if shaped is not None and "id" not in shaped:  # notification-shaped
            method: Any = shaped.get("method")
            params: Any = shaped.get("params")
            if shaped.get("jsonrpc") != "2.0" or type(method) is not str or not (params is None or type(params) is dict):
                await send_error(send, 400, None, INVALID_REQUEST, INVALID_BODY)
                return
            if version is not None and version not in SUPPORTED_PROTOCOL_VERSIONS:
                await send_error(send, 400, None, UNSUPPORTED_PROTOCOL_VERSION,
                                  f"Unsupported protocol version: {version}",
                                  {"supported": list(MODERN_VERSIONS), "requested": version})
                return
            # Acknowledged and dropped, as officially: a self-contained exchange has no state a
            # client notification could act on (a client cancels by closing the response).
            await send_body(send, 202, b"", [])
            return
        try:
            kind = m.classify(message)
        except m.InvalidMessage:
            kind = None
        if kind is not m.REQUEST or shaped is None:  # a batch, a posted response, a malformed envelope
            await send_error(send, 400, None, INVALID_REQUEST, INVALID_BODY)
            return
        message = shaped
        request_id = message.get("id")
        streams = message.get("method") == "subscriptions/listen"
        if streams and not allow_sse:
            await send_body(send, 406, b"", [])
            return
        params = message.get("params")
        meta: Any = cast("dict[str, Any]", params).get("_meta") if type(params) is dict else None
        reason = None
        if type(meta) is dict and PROTOCOL_VERSION_META_KEY in meta and CLIENT_CAPABILITIES_META_KEY in meta:
            # (without the envelope the request fails the ladder's first rung, answered by the session)
            reason = h.header_mismatch(message, headers)
            requested: Any = cast("dict[str, Any]", meta)[PROTOCOL_VERSION_META_KEY]
            if (reason is None and message.get("method") == "tools/call" and requested in MODERN_VERSIONS
                    and version in (None, requested)):  # (else the session answers the version)
                # every raw line (a repeated Mcp-Param-* is refused), trimmed as HTTP servers hand
                # values over (RFC 9110 §5.5; an ASGI app called directly may not)
                lines = ((k.decode("latin-1").lower(), v.decode("latin-1").strip()) for k, v in scope["headers"])
                mismatch = await param_header_mismatch_for_call(
                    self.server, params, headers, lines,
                    lambda list_params: self._list_tools_as_caller(scope, version, request_id, list_params))
                if mismatch is not None:  # as officially: the reason alone
                    await send_error(send, 400, request_id, HEADER_MISMATCH, mismatch)
                    return
        if reason is not None:
            await send_error(send, 400, request_id, HEADER_MISMATCH, f"Header mismatch: {reason}")
            return
        session = self._stateless_session(await self._ensure_lifespan())
        json_only = (self.json_response and not streams) or not allow_sse
        channel = ResponseChannel(send, request_id, allow_json=allow_json, json_only=json_only, modern=True,
                                  extra_headers=[], event_store=None, retry_interval=None)
        await self._serve_request(session, message, HttpRequestMetadata(scope, version, channel, None), channel,
                                  receive, send, owner=None, new_session=None)

    async def _post_legacy(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str], message: Any,
                           parse_error: ParseError | None, version: str | None) -> None:
        """A handshake-era POST, checked in the official transport's order."""
        owner: HttpSession | None = None
        session_id = None if self.stateless else headers.get(h.SESSION_HEADER)
        if session_id is not None:
            owner = self._sessions.get(session_id)
            if self._shared is not None:
                try:
                    owner = await self._shared.session(session_id, owner)
                except StoreUnavailable as exc:
                    await send_error(send, 503, None, exc.code, exc.message)
                    return
            if owner is None:
                await unknown_session(send, session_id)
                return
            if self._sessions.is_foreign(owner, scope):
                await foreign_session(send, session_id)
                return
            self._sessions.touch(owner)
        session_headers = owner.headers if owner is not None else []
        accept = headers.get("accept")
        allow_json, allow_sse = h.accepts(accept) if accept else (False, False)
        if self.json_response:
            if not allow_json:
                await send_error(send, 406, None, INVALID_REQUEST, "Not Acceptable: Client must accept application/json",
                                  headers=session_headers)
                return
        elif not (allow_json and allow_sse):
            await send_error(send, 406, None, INVALID_REQUEST,
                              "Not Acceptable: Client must accept both application/json and text/event-stream",
                              headers=session_headers)
            return
        if not h.is_json_content_type(headers.get("content-type")):
            await send_error(send, 415, None, INVALID_REQUEST,
                              "Unsupported Media Type: Content-Type must be application/json", headers=session_headers)
            return
        if parse_error is not None:
            await send_error(send, 400, None, PARSE_ERROR, f"Parse error: {parse_error}", headers=session_headers)
            return
        try:
            kind = m.classify(message)
        except m.InvalidMessage as exc:
            await send_error(send, 400, None, INVALID_PARAMS, f"Validation error: {exc.reason}", headers=session_headers)
            return
        new_session: HttpSession | None = None
        initialize = kind is m.REQUEST and message["method"] == "initialize"
        if self.stateless:
            entered = self._lifespan_stack is not None  # no coroutine to await once entered
            session = self._stateless_session(self._lifespan_context if entered else await self._ensure_lifespan())
        else:
            if owner is None:
                if not initialize:
                    await send_error(send, 400, None, INVALID_REQUEST, "Bad Request: Missing session ID")
                    return
                request_id = message.get("id")
                client = self.sessions_per_client.client_of(scope)
                limit = self.sessions_per_client.limit
                if self._shared is not None and self._shared.counts_clients:  # one count for every worker
                    try:
                        admitted = await self._shared.admits(client, limit)
                    except StoreUnavailable as exc:
                        await send_error(send, 503, None, exc.code, exc.message)
                        return
                else:
                    admitted = self.sessions_per_client.admit(client)
                if not admitted:
                    assert limit is not None
                    await send_error(send, 429, request_id, INVALID_REQUEST, too_many_sessions(limit), {"limit": limit})
                    return
                new_session = await self._new_session(client, principal_of(scope))
                if new_session is None:
                    await send_error(send, 503, request_id, INVALID_REQUEST, "Service Unavailable: too many sessions")
                    return
                owner = new_session
            session = owner.server_session
        if kind is not m.REQUEST:
            await session.peer.handle(message, HttpRequestMetadata(scope, version, None, owner))
            await send_body(send, 202, b"", JSON_HEADERS + session_headers)
            return
        request_id = message.get("id")
        streams = message.get("method") == "subscriptions/listen"
        """A listen request is a stream by nature: answered over SSE even in JSON-response mode (a
        JSON body would wait for the stream's end, so the client saw nothing, acknowledgement included)."""
        if streams and not allow_sse:
            await send_error(send, 406, request_id, INVALID_REQUEST,
                              "Not Acceptable: subscriptions/listen is answered as text/event-stream")
            return
        json_only = self.json_response and not streams
        # resumable: the SSE streams of a session (an initialize's too, as officially)
        store = self.event_store if owner is not None and not json_only else None
        priming = False
        if store is not None:
            negotiating: Any = message.get("params") if initialize else None
            revision: Any = (cast("dict[str, Any]", negotiating).get("protocolVersion") if type(negotiating) is dict
                             else version) or DEFAULT_NEGOTIATED_VERSION
            priming = str(revision) >= PRIMING_SINCE  # older clients cannot parse an empty-data event
        channel = ResponseChannel(send, request_id, allow_json=json_only, json_only=json_only, modern=False,
                                  extra_headers=session_headers, event_store=store, retry_interval=self.retry_interval,
                                  stream_prefix=owner.id if owner is not None else "",
                                  unless_error_headers=new_session.headers if new_session is not None else None,
                                  priming=priming)
        metadata = HttpRequestMetadata(scope, version, channel, owner)
        if owner is not None and self._shared is not None:
            channel.before_final = self._shared.committer(owner, new_session is not None, request_id)
        await self._serve_request(session, message, metadata, channel, receive, send, owner=owner,
                                  new_session=new_session)

    async def _serve_request(self, session: ServerSession, message: dict[str, Any], metadata: HttpRequestMetadata,
                             channel: ResponseChannel, receive: Receive, send: Send, *, owner: HttpSession | None,
                             new_session: HttpSession | None) -> None:
        """Run one request to its answer on `channel`. A session's call outlives its client's
        connection (as officially: a disconnect is no cancellation; with an event store the client
        resumes); a session-less one is cancelled when its client goes away."""
        resumable = channel.stream_id != ""
        if resumable:
            self._live[channel.stream_id] = channel
        if owner is not None:
            owner.connections += 1
        connected = True

        def disconnected(cancel_scope: anyio.CancelScope) -> None:
            nonlocal connected
            connected = False
            if owner is not None:
                owner.connections -= 1
                owner.last_active = time.monotonic()
                channel.detach(send)  # keep serving: the call's answer is stored, or dropped
            else:
                cancel_scope.cancel()

        try:
            async with DisconnectWatch(receive, disconnected):
                if resumable and new_session is None:
                    # (an initialize's stream starts with its answer: a failed one names no session)
                    await channel.open_stream()
                await session.peer.handle(message, metadata)
                if new_session is not None and (session.negotiated_version is None or new_session.id not in self._sessions):
                    self._sessions.terminate(new_session)  # initialize failed: no session (before anyone sees the answer)
        finally:
            if resumable:
                self._live.pop(channel.stream_id, None)
            if owner is not None:
                owner.last_active = time.monotonic()
                if connected:
                    owner.connections -= 1
            if channel.finished.is_set() and not resumable and new_session is None:
                pass  # answered: nothing to clean up (and no shielded scope to pay for)
            else:
                with anyio.CancelScope(shield=True):
                    if new_session is not None and session.negotiated_version is None:
                        self._sessions.terminate(new_session)  # initialize failed: no session
                    await channel.finish_unanswered()
                    if owner is not None and self._shared is None and self._sessions.get(owner.id) is not owner:
                        forget_session(self.event_store, owner.id)  # what the session's end left unanswered
            if owner is None and session.connection.has_teardown:
                await aclose_shielded(session.connection)  # a session-less request is its own connection

    async def _list_tools_as_caller(self, scope: Scope, version: str | None, request_id: Any,
                                    params: dict[str, Any]) -> Any:
        """One `tools/list` page served as the caller of a 2026-07-28 `tools/call` (the `Mcp-Param-*`
        schema lookup): a fresh stateless session, the answer kept, anything else dropped."""
        session = self._stateless_session(await self._ensure_lifespan())
        metadata = ListingMetadata(scope, version, request_id)
        try:
            await session.peer.handle({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": params},
                                      metadata)
        finally:
            await aclose_shielded(session.connection)
        answer = metadata.answer
        if answer is None or "error" in answer:
            raise RuntimeError(f"tools/list was answered {answer!r}")
        return answer.get("result")

    async def _session_for(self, scope: Scope, send: Send, headers: dict[str, str], *,
                           deleting: bool = False) -> HttpSession | None:
        """The session a GET or DELETE names, or None after answering with the error."""
        if self.stateless:
            if deleting:  # as officially
                await send_error(send, 405, None, INVALID_REQUEST, "Method Not Allowed: Session termination not supported")
                return None
            # no sessions, no standalone stream
            await send_body(send, 405, b"Method Not Allowed", [(b"content-type", b"text/plain"), (b"allow", b"POST")])
            return None
        session_id = headers.get(h.SESSION_HEADER)
        if session_id is None:
            await send_error(send, 400, None, INVALID_REQUEST, "Bad Request: Missing session ID")
            return None
        session = self._sessions.get(session_id)
        if self._shared is not None:
            try:
                session = await self._shared.session(session_id, session)
            except StoreUnavailable as exc:
                await send_error(send, 503, None, exc.code, exc.message)
                return None
        if session is None:
            await unknown_session(send, session_id)
            return None
        if self._sessions.is_foreign(session, scope):
            await foreign_session(send, session_id)
            return None
        return session

    async def _get(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]) -> None:
        session = await self._session_for(scope, send, headers)
        if session is None:
            return
        accept = headers.get("accept")
        if not accept or not h.accepts(accept)[1]:
            await send_error(send, 406, None, INVALID_REQUEST, "Not Acceptable: Client must accept text/event-stream",
                              headers=session.headers)
            return
        self._sessions.touch(session)
        last_event_id = headers.get(h.LAST_EVENT_ID_HEADER)
        if last_event_id and self.event_store is not None:
            revision = headers.get(h.VERSION_HEADER) or DEFAULT_NEGOTIATED_VERSION
            await replay(self.event_store, self._live, session, send, receive, last_event_id,
                         priming=revision >= PRIMING_SINCE)
            return
        if session.get_stream_open:
            await send_error(send, 409, None, INVALID_REQUEST, "Conflict: Only one SSE stream is allowed per session",
                              headers=session.headers)
            return
        await session.serve_get_stream(send, receive,
                                       self._shared.keep_alive if self._shared is not None else None)

    async def _delete(self, scope: Scope, send: Send, headers: dict[str, str]) -> None:
        session = await self._session_for(scope, send, headers, deleting=True)
        if session is None:
            return
        if self._shared is not None:
            try:
                await self._shared.delete(session.id)
            except StoreUnavailable as exc:
                await send_error(send, 503, None, exc.code, exc.message)
                return
        await self._sessions.end(session)
        await send_body(send, 200, b"", JSON_HEADERS + session.headers)  # (as officially)

    # -- sessions -----------------------------------------------------------------------------

    def _stateless_session(self, lifespan_context: Any) -> ServerSession:
        """A session-less ServerSession for one self-contained request: nothing a request sets
        (log level, negotiated version, request ids in flight) is seen by another client's."""
        return ServerSession(server=self.server, read_stream=self._closed_read, write_stream=self._closed_write, lifespan_context=lifespan_context,
                             stateless=True, drop_when_full=True)

    async def _new_session(self, client: Any = None, principal: Any = None) -> HttpSession | None:
        return await self._make_session(secrets.token_urlsafe(24), client, principal)

    async def _make_session(self, session_id: str, client: Any = None, principal: Any = None) -> HttpSession | None:
        """A session of `principal` (or a shared session's replica, counted under no client) under
        `session_id`; None when the table is full."""
        context = await self._ensure_lifespan()
        if not self._sessions.has_room():
            return None
        outbox_send, outbox_recv = anyio.create_memory_object_stream[SessionMessage](256)
        store = self.event_store
        write: Any = WireSendStream(outbox_send) if store is None else StoringOutbox(outbox_send, store, session_id + STANDALONE_STREAM_SUFFIX)
        server_session = ServerSession(server=self.server, read_stream=self._closed_read, write_stream=write, lifespan_context=context,
                                       drop_when_full=store is None)
        server_session.connection.session_id = session_id
        session = HttpSession(session_id, server_session, outbox_recv, client, principal)
        self._sessions.add(session)
        return session

    async def _make_replica(self, session_id: str, principal: Any) -> HttpSession | None:
        """This process's replica of a shared session (counted under no client)."""
        return await self._make_session(session_id, principal=principal)
