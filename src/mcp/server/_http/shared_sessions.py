"""Shared sessions of the Streamable HTTP front door: the `SessionStore` interface the session
manager talks to, the `SessionRecord` it keeps there, and `SharedSessions`, the manager's side of it.

Without a store (the default) a session lives in one process's memory only. With one
(`MCPServer(state=RedisState...)` gives it one; `mcp.redis.RedisSessionStore` is the
implementation for several processes), sessions are served by every worker: what a session needs
to be served anywhere (its id, negotiated version, client info and capabilities, log level,
resource subscriptions, owner) is the record. The session table holds this process's replicas,
each rebuilt from the record when needed. The record is read (its idle TTL renewed) once per
request, written when `initialize` succeeds or a request changed it (before the answer goes out,
so no other worker can see the answer first), renewed while a GET stream is open, and deleted by
`DELETE`; evicting a replica forgets nothing. A store that counts sessions per client (Redis)
makes `max_sessions_per_client` one cap across workers: checked before `initialize` runs, and
again, atomically, when its record is created. Change events on the server's shared bus reach the
GET streams this process holds: list changes every one, a resource update the sessions subscribed
to it (as the store has them now).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from mcp._protocol import messages as m
from mcp.server.http_limits import client_digest, too_many_sessions
from mcp.shared.exceptions import MCPError, error_fields_for
from mcp.types.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST

if TYPE_CHECKING:
    from mcp.server._http.sessions import HttpSession, SessionTable
    from mcp.server.session import ServerSession

__all__ = ["SessionRecord", "SessionStore", "SharedSessions", "StoreUnavailable", "record_of", "restore", "state_of"]

logger = logging.getLogger("mcp.server.http")


class StoreUnavailable(MCPError):
    """A shared store (Redis) could not be reached: the request that needed it fails with this
    JSON-RPC error (-32603) instead of hanging; the reason and the store's address go to the log."""

    def __init__(self, message: str = "Service unavailable: the shared state store cannot be reached") -> None:
        super().__init__(INTERNAL_ERROR, message)


@dataclass(slots=True)
class SessionRecord:
    """What any worker needs to serve a handshake-era session."""

    session_id: str
    protocol_version: str
    client_info: dict[str, Any] | None = None
    client_capabilities: dict[str, Any] | None = None
    log_level: str | None = None
    subscriptions: list[str] = field(default_factory=list[str])
    owner: dict[str, str | None] | None = None
    """The principal that opened the session (client id, issuer, subject), None without a token:
    every worker answers it alone."""

    def state(self) -> tuple[Any, ...]:
        """The parts a request may change (compared to decide whether to write back)."""
        return state_of_record(self)


class SessionStore(Protocol):
    """Where shared sessions live. Every method may raise `StoreUnavailable`."""

    async def create(self, record: SessionRecord, ttl: float) -> None:
        """Store a new session, to expire after `ttl` seconds without use."""
        ...

    async def load(self, session_id: str, ttl: float) -> SessionRecord | None:
        """The session (its idle TTL renewed to `ttl`), or None when unknown, deleted or expired.
        One round trip: this is on every request of a shared session."""
        ...

    async def save(self, record: SessionRecord) -> None:
        """Write back what a request changed (log level, subscriptions); keeps the TTL. A session
        deleted meanwhile stays deleted."""
        ...

    async def delete(self, session_id: str) -> None:
        """Remove the session everywhere (`DELETE`): other workers drop their replicas."""
        ...

    async def load_many(self, session_ids: list[str]) -> list[SessionRecord | None]:
        """Several records at once, without renewing them (fresh subscriptions for an event)."""
        ...

    def on_deleted(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call `callback(session_id)` when any worker deletes a session; returns an unsubscribe."""
        ...


def _wire(value: Any) -> dict[str, Any] | None:
    if value is None or isinstance(value, dict):
        return value  # pyright: ignore[reportUnknownVariableType]
    dumped: dict[str, Any] = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def record_of(session_id: str, session: ServerSession, owner: Any = None) -> SessionRecord:
    """The record of a live (initialized) session opened by `owner`."""
    handshake = session.handshake_snapshot()
    assert handshake is not None
    version, client_info, capabilities = handshake
    return SessionRecord(session_id, version, _wire(client_info), _wire(capabilities), session.log_level,
                         sorted(session.subscribed_uris), dict(owner) if owner is not None else None)


def state_of_record(record: SessionRecord) -> tuple[Any, ...]:
    return (record.log_level, tuple(sorted(record.subscriptions)))


def state_of(session: ServerSession) -> tuple[Any, ...]:
    """What `SessionRecord.state()` would be for this live session (cheap: no record built)."""
    return (session.log_level, tuple(sorted(session.subscribed_uris)))


def restore(session: ServerSession, record: SessionRecord) -> None:
    """Make a replica's session state that of `record` (a fresh replica, or one another worker changed)."""
    if session.negotiated_version is None:
        session.adopt_handshake(record.protocol_version, record.client_info, record.client_capabilities)
    session.initialized = True  # a client sending more requests is past the handshake
    session.log_level = record.log_level
    session.subscribed_uris = set(record.subscriptions)


MakeReplica = Callable[[str, Any], Awaitable["HttpSession | None"]]
"""Builds this process's replica of a shared session (its id, its owner) in the session table;
None when the table is full."""


class SharedSessions:
    """The session manager's side of a `SessionStore` (see the module docstring): it keeps the
    manager's `table` of replicas in step with the store."""

    def __init__(self, table: SessionTable, make_replica: MakeReplica, store: SessionStore, shared_state: Any) -> None:
        self.table = table
        table.replicas = True
        self.make_replica = make_replica
        self.store = store
        self.shared_state = shared_state
        idle = table.idle_timeout
        self.ttl = idle if idle != float("inf") else 86_400.0
        """A record's idle TTL (a day when sessions never expire here: the store stays bounded)."""
        self._watching: list[Callable[[], None]] | None = None
        self._background: set[Any] = set()

    async def session(self, session_id: str, replica: HttpSession | None) -> HttpSession | None:
        """The replica serving `session_id` brought up to date with the store (one round trip),
        built when this process has none; None when the store does not know the session.
        Raises `StoreUnavailable`."""
        if self._watching is None:
            self._watch()
        record = await self.store.load(session_id, self.ttl)
        if record is None:
            if replica is not None:
                self.table.terminate(replica)  # deleted or expired elsewhere
            return None
        if replica is None:
            replica = await self.make_replica(session_id, record.owner)
            if replica is None:
                return None
        if replica.record is None or replica.record.state() != record.state():
            restore(replica.server_session, record)
        replica.record = record
        return replica

    @property
    def counts_clients(self) -> bool:
        """Whether the store keeps the per-client session count (then it is the one consulted)."""
        return hasattr(self.store, "create_within")

    async def admits(self, client: Hashable | None, limit: int | None) -> bool:
        """Whether `client` may open one more session, counting its sessions on every worker.
        Raises `StoreUnavailable`."""
        if client is None or limit is None:
            return True
        store: Any = self.store
        return await store.open_sessions(client_digest(client)) < limit

    def committer(self, owner: HttpSession, new: bool, request_id: Any
                  ) -> Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]:
        """The `before_final` hook of a shared session's request: stores a new session once its
        `initialize` succeeded (counted as its client's, refused at the cap), writes back what a
        request changed; a store failure turns the answer into the JSON-RPC error (and a new
        session is then not created)."""

        async def commit(message: dict[str, Any]) -> dict[str, Any]:
            if "result" not in message:
                return message
            session = owner.server_session
            try:
                if new:
                    if session.negotiated_version is None:
                        return message
                    owner.record = record_of(owner.id, session, owner.principal)
                    limit = self.table.per_client.limit
                    store: Any = self.store
                    if owner.client is None or limit is None or not self.counts_clients:
                        await self.store.create(owner.record, self.ttl)
                    elif not await store.create_within(owner.record, self.ttl, client_digest(owner.client), limit):
                        self.table.discard(owner)  # another worker took the last place meanwhile (the caller terminates it)
                        return m.error_response(request_id, INVALID_REQUEST, too_many_sessions(limit), {"limit": limit})
                elif owner.record is not None and state_of(session) != owner.record.state():
                    owner.record = record_of(owner.id, session, owner.principal)
                    await self.store.save(owner.record)
            except StoreUnavailable as exc:
                if new:
                    self.table.discard(owner)  # not created after all (the caller terminates it)
                return m.error_response(request_id, *error_fields_for(exc))
            return message

        return commit

    async def delete(self, session_id: str) -> None:
        """`DELETE`: gone from the store, and so from every worker. Raises `StoreUnavailable`."""
        await self.store.delete(session_id)

    async def keep_alive(self, session: HttpSession, scope: anyio.CancelScope) -> None:
        """While a GET stream is open, renew the record's idle TTL (a connected client is not
        idle); end the stream once the session is gone from the store."""
        while True:
            await anyio.sleep(self.ttl / 3)
            try:
                record = await self.store.load(session.id, self.ttl)
            except StoreUnavailable:
                continue  # renewed on the next round, once the store is back
            if record is None:
                scope.cancel()
                return

    def close(self) -> None:
        for unwatch in self._watching or ():
            unwatch()
        self._watching = None

    def _watch(self) -> None:
        """Follow the other workers: sessions deleted there, and the shared bus's change events."""
        self._watching = [self.store.on_deleted(self._deleted_elsewhere)]
        bus = self.shared_state.subscription_bus() if self.shared_state is not None else None
        if bus is not None:
            self._watching.append(bus.subscribe(self._on_event))

    def _deleted_elsewhere(self, session_id: str) -> None:
        replica = self.table.get(session_id)
        if replica is not None:
            self.table.terminate(replica)

    def _on_event(self, event: Any) -> None:
        if not any(s.get_stream_open for s in self.table.values()):
            return
        task = asyncio.get_running_loop().create_task(self._to_get_streams(event))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _to_get_streams(self, event: Any) -> None:
        from mcp.shared.subscriptions import ResourceUpdated

        targets = [s for s in self.table.values() if s.get_stream_open]
        params: dict[str, Any] | None = None
        if isinstance(event, ResourceUpdated):
            try:
                records = await self.store.load_many([s.id for s in targets])
            except StoreUnavailable:
                logger.warning("resource update for %s not delivered: the session store is unreachable", event.uri)
                return
            targets = [s for s, r in zip(targets, records, strict=True) if r is not None and event.uri in r.subscriptions]
            params = {"uri": event.uri}
        for session in targets:
            try:
                await session.server_session.peer.send_notification(event.method, params)
            except Exception:  # the session ended meanwhile
                logger.debug("change event not delivered to session %s", session.id, exc_info=True)
