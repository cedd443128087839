"""`RedisState`: one line to run a server as many processes, `MCPServer(..., state=RedisState.from_url(url))`.

It hands the server its Redis stores (sessions, change bus, SSE events when `resumable=True`,
tasks) and, when the server starts: connects (a clear error naming the URL when Redis cannot be
reached), starts the pub/sub subscription, and checks that this replica matches the others that
share the prefix (same server name, same `requestState` keys), logging at WARNING when not.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from mcp.redis._bus import RedisSubscriptionBus
from mcp.redis._client import RedisConnection, RedisUnavailable, dumps, loads_object
from mcp.redis._events import RedisEventStore
from mcp.redis._sessions import RedisSessionStore
from mcp.redis._tasks import RedisTaskStore
from mcp.server.session_store import StoreUnavailable

logger = logging.getLogger("mcp.redis")

IDENTITY_TTL = 86_400
"""How long the replica identity of a prefix is remembered after the last replica started."""


class RedisState:
    """The Redis stores of one service (all keys under `prefix`; give each service its own)."""

    def __init__(self, connection: RedisConnection, *, resumable: bool = False) -> None:
        self.connection = connection
        self.resumable = resumable
        """Resumable SSE through Redis Streams: a client reconnecting with `Last-Event-ID` to any
        worker gets what it missed (each response then starts as an SSE stream)."""
        self._stores: dict[str, Any] = {}

    @classmethod
    def from_url(cls, url: str, *, prefix: str = "mcp", resumable: bool = False, **options: Any) -> RedisState:
        """`options` go to `RedisConnection` (`connect_timeout`, `timeout`, `max_connections`)."""
        return cls(RedisConnection(url, prefix=prefix, **options), resumable=resumable)

    def __repr__(self) -> str:
        return f"RedisState({self.connection.safe_url!r}, prefix={self.connection.prefix!r})"

    def _store(self, name: str, factory: Any) -> Any:
        store = self._stores.get(name)
        if store is None:
            store = self._stores[name] = factory(self.connection)
        return store

    def session_store(self) -> RedisSessionStore:
        return self._store("sessions", RedisSessionStore)

    def subscription_bus(self) -> RedisSubscriptionBus:
        return self._store("bus", RedisSubscriptionBus)

    def event_store(self) -> RedisEventStore:
        return self._store("events", RedisEventStore)

    def task_store(self) -> RedisTaskStore:
        return self._store("tasks", RedisTaskStore)

    # -- startup ------------------------------------------------------------------------------

    async def start(self, server: Any = None) -> None:
        """Connect, subscribe, and compare this replica with the others (see the module docstring).
        Raises `RedisUnavailable` naming the URL when Redis cannot be reached."""
        url = self.connection.safe_url
        try:
            await self.connection.run("connect", lambda r: r.ping())
        except StoreUnavailable:
            raise RedisUnavailable(f"cannot reach Redis at {url} (is it running, and is the URL right?)") from None
        if not await self.connection.hub().ready(timeout=5.0):
            raise RedisUnavailable(f"cannot subscribe to Redis pub/sub at {url}")
        if server is not None:
            await self._check_replica(server)
        logger.info("shared state on Redis at %s, prefix %r", url, self.connection.prefix)

    async def stop(self) -> None:
        await self.connection.aclose()

    async def _check_replica(self, server: Any) -> None:
        identity = replica_identity(server)
        if identity["requestStateKeys"] == "ephemeral":
            logger.warning(
                "server %r: requestState is sealed with a random per-process key, so a multi-round-trip request "
                "continued on another replica fails with 'Invalid or expired requestState'; give every replica the "
                "same keys: MCPServer(..., request_state_security=RequestStateSecurity(keys=[...]))", identity["name"])
        key = self.connection.key("replica")
        value = dumps(identity)

        async def op(r: Any) -> Any:
            async with r.pipeline(transaction=False) as pipe:  # returns its connection to the pool
                pipe.set(key, value, ex=IDENTITY_TTL, nx=True)
                pipe.get(key)
                return await pipe.execute()

        try:
            _, raw = await self.connection.run("check replicas", op)
        except StoreUnavailable:
            raise RedisUnavailable(f"cannot reach Redis at {self.connection.safe_url}") from None
        other = loads_object(raw, "replica identity", key)
        if other is None:
            return
        mismatches = [f"{field} {other.get(field)!r} there, {identity[field]!r} here"
                      for field in ("name", "audience", "requestStateKeys") if other.get(field) != identity[field]]
        if mismatches:
            logger.warning("this replica does not match the others sharing Redis prefix %r: %s; requests moving "
                           "between replicas will fail (requestState, tasks) until every replica is configured alike",
                           self.connection.prefix, "; ".join(mismatches))
        else:
            await self.connection.run("check replicas", lambda r: r.expire(key, IDENTITY_TTL))
            logger.info("replica matches the others sharing Redis prefix %r (server %r)", self.connection.prefix,
                        identity["name"])


def replica_identity(server: Any) -> dict[str, Any]:
    """What every replica must share: server name, requestState audience, and a fingerprint of
    its first requestState key ("ephemeral" for a per-process key, "custom" for a codec of the
    application's own: not compared). The fingerprint reveals nothing of the key."""
    boundary: Any = getattr(server, "_boundary", None)
    security: Any = getattr(boundary, "security", None)
    keys: Any = getattr(security, "keys", None)
    if security is None:
        fingerprint = "none"
    elif getattr(security, "_ephemeral", False):
        fingerprint = "ephemeral"
    elif keys:
        first = keys[0]
        secret = first.encode() if isinstance(first, str) else bytes(first)
        fingerprint = hashlib.sha256(b"mcpkit replica check\x00" + secret).hexdigest()[:16]
    else:
        fingerprint = "custom"
    return {"name": getattr(server, "name", None), "audience": getattr(boundary, "audience", None),
            "requestStateKeys": fingerprint}
