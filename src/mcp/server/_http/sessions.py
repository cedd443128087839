"""The session table of the Streamable HTTP front door: the handshake-era sessions one manager
serves, their eviction, and who owns each.

Sessions are bounded: idle ones are evicted after `session_idle_timeout`, and the table never
holds more than `max_sessions` (least recently used idle sessions go first; the caller answers 503
when every session has a client connected). Evictions happen as requests arrive; a session is idle
when no client is connected to it, even if a call whose client vanished is still running (eviction
cancels it). A session belongs to the principal whose credential opened it: a request acting for
anyone else is answered as if the session did not exist.
"""

from __future__ import annotations

import logging
import math
import re
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Iterator, ValuesView
from typing import TYPE_CHECKING, Any, Final

import anyio

from mcp._protocol.codec import encode_bytes
from mcp._protocol.sse import encode_event
from mcp.server._http.asgi import GONE, SSE_HEADERS, Receive, Scope, Send, cancel_on_disconnect, send_error
from mcp.server._http.resumption import Stamp
from mcp.server.connection import aclose_shielded
from mcp.server.event_store import EventStore, forget_session
from mcp.types.jsonrpc import INVALID_REQUEST

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from mcp.server._http.shared_sessions import SessionRecord
    from mcp.server.http_limits import SessionsPerClient
    from mcp.server.session import ServerSession

logger = logging.getLogger("mcp.server.http")

KeepAlive = Callable[["HttpSession", anyio.CancelScope], Coroutine[Any, Any, None]]
"""Runs beside a GET stream; may end it by cancelling the scope."""

SESSION_ID_PATTERN: Final = re.compile(r"^[\x21-\x7E]+$")
"""What a session id may be made of: visible ASCII (the spec's rule)."""


class HttpSession:
    """A handshake-era session: its ServerSession and the queue feeding its GET stream."""

    __slots__ = ("client", "connections", "get_scope", "get_stream_open", "headers", "id", "last_active", "outbox",
                 "principal", "record", "server_session")

    def __init__(self, session_id: str, server_session: ServerSession, outbox: Any, client: Any = None,
                 principal: Any = None) -> None:
        self.id = session_id
        self.headers = [(b"mcp-session-id", session_id.encode())]
        """What every response of this session carries (as officially)."""
        self.client = client
        """Who opened it, as `SessionsPerClient` counts clients."""
        self.principal = principal
        """Who opened it, as `principal_of` names a request's principal: the session answers no one else."""
        self.server_session = server_session
        self.outbox = outbox
        self.last_active = time.monotonic()
        self.get_stream_open = False
        self.get_scope: anyio.CancelScope | None = None
        self.connections = 0
        """HTTP exchanges of this session whose client is still connected."""
        self.record: SessionRecord | None = None
        """The shared record this replica was last brought up to date with (with a session store)."""

    @property
    def busy(self) -> bool:
        """A client is connected (a POST being answered, the GET stream, a resumed stream).
        In-flight requests whose client went away do not keep the session alive."""
        return self.connections > 0

    def close_get_stream(self) -> None:
        if self.get_scope is not None:
            self.get_scope.cancel()

    async def serve_get_stream(self, send: Send, receive: Receive, keep_alive: KeepAlive | None) -> None:
        """Serve this session's GET stream on `send`: what the session sends outside any request
        (each with its event id, when an event store stamped it), until the client goes away, the
        session ends, or `close_get_stream()`. `keep_alive(session, scope)` runs beside it (a
        shared session's record is renewed while a client listens). The caller checked that no
        other GET stream is open."""
        self.get_stream_open = True
        self.connections += 1
        try:
            await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS + self.headers})
            await send({"type": "http.response.body", "body": b": stream open\n\n", "more_body": True})
            async with anyio.create_task_group() as tg:
                self.get_scope = tg.cancel_scope
                tg.start_soon(cancel_on_disconnect, receive, tg.cancel_scope)
                if keep_alive is not None:
                    tg.start_soon(keep_alive, self, tg.cancel_scope)
                outbox = self.outbox
                while True:
                    try:
                        item = await outbox.receive()
                    except (anyio.EndOfStream, anyio.ClosedResourceError):
                        break  # the session ended
                    stamp: Any = item.metadata
                    event_id = stamp.event_id if type(stamp) is Stamp else None
                    await send({"type": "http.response.body", "more_body": True,
                                "body": encode_event(encode_bytes(item.message), event_id=event_id)})
                tg.cancel_scope.cancel()
            with anyio.CancelScope(shield=True):
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except GONE:
            pass  # the client went away
        finally:
            self.get_scope = None
            self.get_stream_open = False
            self.connections -= 1
            self.last_active = time.monotonic()


class SessionEnd:
    """One live session as the official manager's private `_server_instances` map holds it: what
    FastMCP awaits (`terminate()`) at shutdown to end every session before the task group stops."""

    __slots__ = ("session", "table")

    def __init__(self, table: SessionTable, session: HttpSession) -> None:
        self.table = table
        self.session = session

    async def terminate(self) -> None:
        await self.table.end(self.session)


class SessionTable:
    """The sessions of one manager by id, least recently used first (see the module docstring).

    `replicas`: the sessions are replicas of shared ones (a session store keeps them), so evicting
    one here ends nothing but this process's copy."""

    __slots__ = ("_by_id", "_last_sweep", "_sweep_interval", "event_store", "idle_timeout", "max_sessions",
                 "per_client", "replicas", "teardowns")

    def __init__(self, per_client: SessionsPerClient, *, max_sessions: int | None, idle_timeout: float | None,
                 event_store: EventStore | None) -> None:
        self._by_id: OrderedDict[str, HttpSession] = OrderedDict()
        self.per_client = per_client
        """Open sessions per client (`max_sessions_per_client`)."""
        self.max_sessions = sys.maxsize if max_sessions is None else max_sessions
        self.idle_timeout = math.inf if idle_timeout is None else idle_timeout
        self.event_store = event_store
        """Whose streams of a session are forgotten once the session ends."""
        self.replicas = False
        self.teardowns: TaskGroup | None = None
        """Where the teardown of a session ended without awaiting (`terminate`) runs: the manager's
        task group while it runs (without one, such a teardown is skipped, debug-logged)."""
        self._sweep_interval = min(60.0, self.idle_timeout / 4)
        self._last_sweep = time.monotonic()

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._by_id

    def __getitem__(self, session_id: str) -> HttpSession:
        return self._by_id[session_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def get(self, session_id: str) -> HttpSession | None:
        return self._by_id.get(session_id)

    def values(self) -> ValuesView[HttpSession]:
        """The sessions, least recently used first."""
        return self._by_id.values()

    def has_room(self) -> bool:
        """Whether one more session fits, evicting the least recently used idle one if need be."""
        return len(self._by_id) < self.max_sessions or self.evict_one()

    def add(self, session: HttpSession) -> None:
        """Serve `session` here (counted as its client's)."""
        self._by_id[session.id] = session
        self.per_client.opened(session.client)

    def is_foreign(self, session: HttpSession, scope: Scope) -> bool:
        """Whether `scope`'s request acts for another principal than the one that opened `session`."""
        return session.principal != principal_of(scope)

    def touch(self, session: HttpSession) -> None:
        """`session` was just used: it becomes the most recently used one."""
        session.last_active = time.monotonic()
        self._by_id.move_to_end(session.id)

    def _idle(self) -> list[HttpSession]:
        """The sessions idle for `idle_timeout` now (the sweep's interval elapsed)."""
        self._last_sweep = now = time.monotonic()
        deadline = now - self.idle_timeout
        return [session for session in self._by_id.values() if session.last_active < deadline and not session.busy]

    def sweep(self) -> None:
        """Evict sessions idle for `idle_timeout` (checked at most every quarter of it)."""
        if time.monotonic() - self._last_sweep < self._sweep_interval:
            return
        for session in self._idle():
            self.terminate(session, ended=not self.replicas)

    async def expire_idle(self) -> None:
        """Sweep every quarter of `idle_timeout` (at most every minute), so an idle session ends on
        time even when no request comes to sweep it (as officially, where a session's own timer
        ends it: its teardown done before it leaves the table); runs until cancelled, or returns
        at once when sessions never expire."""
        if math.isinf(self.idle_timeout):
            return
        while True:
            await anyio.sleep(self._sweep_interval)
            if time.monotonic() - self._last_sweep < self._sweep_interval:
                continue  # a request swept meanwhile
            for session in self._idle():
                if self._by_id.get(session.id) is session:
                    await self.end(session, ended=not self.replicas)

    def evict_one(self) -> bool:
        """Evict the least recently used idle session; False when every session is busy."""
        for session in self._by_id.values():  # least recently used first
            if not session.busy:
                self.terminate(session, ended=not self.replicas)
                return True
        return False

    def discard(self, session: HttpSession) -> None:
        """Drop `session` from the table (no longer counted as its client's); nothing is ended."""
        if self._by_id.pop(session.id, None) is not None:
            self.per_client.closed(session.client)

    def terminate(self, session: HttpSession, *, ended: bool = True) -> None:
        """Stop serving `session` here: its requests in flight are cancelled, its streams closed;
        its connection's teardown runs in `teardowns`. `ended`: the session is over (not only
        this process's replica of a shared one), so its resumable streams are freed too."""
        self.discard(session)
        self._stop(session, ended)
        connection = session.server_session.connection
        if connection.has_teardown:
            if self.teardowns is not None:
                self.teardowns.start_soon(aclose_shielded, connection)
            else:
                logger.debug("session %s ended with no task group to run its connection's teardown", session.id)

    async def end(self, session: HttpSession, *, ended: bool = True) -> None:
        """`terminate`, awaiting the connection's teardown before the session leaves the table (as
        officially: what a session's end cleans up is gone once its id answers 404)."""
        self._stop(session, ended)
        await aclose_shielded(session.server_session.connection)
        self.discard(session)

    def _stop(self, session: HttpSession, ended: bool) -> None:
        if ended:
            forget_session(self.event_store, session.id)
        peer = session.server_session.peer
        peer.cancel_all()
        peer.close()
        peer.close_output()
        session.outbox.close()
        session.close_get_stream()

    def session_ends(self) -> dict[str, SessionEnd]:
        """Live sessions by id, each ended by `await value.terminate()`."""
        return {sid: SessionEnd(self, session) for sid, session in self._by_id.items()}


def principal_of(scope: Scope) -> Any:
    """Who an authenticated request acts for (`authorization_context` of its `AuthenticatedUser`:
    client id, issuer, subject), for comparing with who opened a session; None without a bearer
    token."""
    user = scope.get("user")
    if user is None or getattr(user, "access_token", None) is None:
        return None
    from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context

    return authorization_context(user) if isinstance(user, AuthenticatedUser) else None


async def unknown_session(send: Send, session_id: str) -> None:
    """404 for a session id this process never issued (or evicted): a JSON-RPC body with a null id
    and an INFO log line, both as officially (the troubleshooting page quotes them). A server
    restart makes these in bursts, hence INFO, not WARNING."""
    logger.info("Rejected request with unknown or expired session ID: %s", session_id[:64])
    await send_error(send, 404, None, INVALID_REQUEST, "Session not found")


async def foreign_session(send: Send, session_id: str) -> None:
    """404 for a session another principal opened: answered exactly as an unknown one (a session
    belongs to the credential that created it; as officially, with a WARNING saying so)."""
    logger.warning("Rejecting request for session %s: credential does not match the one that created the session",
                   session_id[:64])
    await send_error(send, 404, None, INVALID_REQUEST, "Session not found")
