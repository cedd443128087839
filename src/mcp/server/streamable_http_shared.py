"""Shared sessions for the Streamable HTTP session manager (`mcp.server.streamable_http`), when it
has a `SessionStore` (`MCPServer(state=RedisState...)` gives it one).

Sessions are then served by every worker: the manager's table holds this process's replicas, each
rebuilt from the store's record when needed. The record is read (its idle TTL renewed) once per
request, written when `initialize` succeeds or a request changed it (before the answer goes out,
so no other worker can see the answer first), renewed while a GET stream is open, and deleted by
`DELETE`; evicting a replica forgets nothing. A store that counts sessions per client (Redis) makes
`max_sessions_per_client` one cap across workers: checked before `initialize` runs, and again,
atomically, when its record is created. Change events on the server's shared bus reach the
GET streams this process holds: list changes every one, a resource update the sessions subscribed
to it (as the store has them now).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import TYPE_CHECKING, Any

import anyio

from mcp._protocol import messages as m
from mcp.server.http_limits import client_digest, too_many_sessions
from mcp.server.session_store import SessionStore, StoreUnavailable, record_of, restore, state_of
from mcp.shared.exceptions import error_fields_for
from mcp.types.jsonrpc import INVALID_REQUEST

if TYPE_CHECKING:
    from mcp.server.streamable_http import StreamableHTTPSessionManager, _HttpSession

logger = logging.getLogger("mcp.server.http")


class SharedSessions:
    """The session manager's side of a `SessionStore` (see the module docstring)."""

    def __init__(self, manager: StreamableHTTPSessionManager, store: SessionStore, shared_state: Any) -> None:
        self.manager = manager
        self.store = store
        self.shared_state = shared_state
        idle = manager.session_idle_timeout
        self.ttl = idle if idle != float("inf") else 86_400.0
        """A record's idle TTL (a day when sessions never expire here: the store stays bounded)."""
        self._watching: list[Callable[[], None]] | None = None
        self._background: set[Any] = set()

    async def session(self, session_id: str, replica: _HttpSession | None) -> _HttpSession | None:
        """The replica serving `session_id` brought up to date with the store (one round trip),
        built when this process has none; None when the store does not know the session.
        Raises `StoreUnavailable`."""
        if self._watching is None:
            self._watch()
        record = await self.store.load(session_id, self.ttl)
        if record is None:
            if replica is not None:
                self.manager._terminate(replica)  # deleted or expired elsewhere
            return None
        if replica is None:
            replica = await self.manager._make_session(session_id, principal=record.owner)
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

    def committer(self, owner: _HttpSession, new: bool, request_id: Any
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
                    if session._protocol_version is None:
                        return message
                    owner.record = record_of(owner.id, session, owner.principal)
                    limit = self.manager.sessions_per_client.limit
                    store: Any = self.store
                    if owner.client is None or limit is None or not self.counts_clients:
                        await self.store.create(owner.record, self.ttl)
                    elif not await store.create_within(owner.record, self.ttl, client_digest(owner.client), limit):
                        self._unmake(owner)  # another worker took the last place meanwhile
                        return m.error_response(request_id, INVALID_REQUEST, too_many_sessions(limit), {"limit": limit})
                elif owner.record is not None and state_of(session) != owner.record.state():
                    owner.record = record_of(owner.id, session, owner.principal)
                    await self.store.save(owner.record)
            except StoreUnavailable as exc:
                if new:
                    self._unmake(owner)
                return m.error_response(request_id, *error_fields_for(exc))
            return message

        return commit

    def _unmake(self, owner: _HttpSession) -> None:
        """A new session was not created after all (the caller terminates it)."""
        if self.manager._sessions.pop(owner.id, None) is not None:
            self.manager.sessions_per_client.closed(owner.client)

    async def delete(self, session_id: str) -> None:
        """`DELETE`: gone from the store, and so from every worker. Raises `StoreUnavailable`."""
        await self.store.delete(session_id)

    async def keep_alive(self, session: _HttpSession, scope: anyio.CancelScope) -> None:
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
        replica = self.manager._sessions.get(session_id)
        if replica is not None:
            self.manager._terminate(replica)

    def _on_event(self, event: Any) -> None:
        if not any(s.get_stream_open for s in self.manager._sessions.values()):
            return
        task = asyncio.get_running_loop().create_task(self._to_get_streams(event))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _to_get_streams(self, event: Any) -> None:
        from mcp.shared.subscriptions import ResourceUpdated

        targets = [s for s in self.manager._sessions.values() if s.get_stream_open]
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
