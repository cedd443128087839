"""`RedisSubscriptionBus`: change events (`list_changed`, resource updates) published on one
worker reach the `subscriptions/listen` streams and GET streams of every worker, over Redis
pub/sub. Messages that do not name a listen-stream event are refused (logged)."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from typing import Any

from mcp.redis._client import RedisConnection, dumps, loads_object
from mcp.server.session_store import StoreUnavailable
from mcp.shared.subscriptions import ResourceUpdated, ServerEvent, event_from_wire

logger = logging.getLogger("mcp.redis")


class RedisSubscriptionBus:
    """A `mcp.server.subscriptions.SubscriptionBus` on Redis pub/sub. An event published here
    comes back through Redis to this worker's listeners too (each hears it once). While Redis is
    unreachable, events go to this worker's listeners only (logged)."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection
        self._channel = connection.key("bus")
        self._listeners: dict[int, Callable[[ServerEvent], None]] = {}
        self._tokens = itertools.count()
        self._hub: Any = None

    @classmethod
    def from_url(cls, url: str, *, prefix: str = "mcp") -> RedisSubscriptionBus:
        return cls(RedisConnection(url, prefix=prefix))

    async def publish(self, event: ServerEvent) -> None:
        wire: dict[str, Any] = {"method": event.method}
        if isinstance(event, ResourceUpdated):
            wire["uri"] = event.uri
        data = dumps(wire)
        try:
            await self.connection.run("publish a change event", lambda r: r.publish(self._channel, data))
        except StoreUnavailable:
            logger.warning("%s reaches this worker's listeners only: Redis is unreachable", event.method)
            self._deliver(event)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        token = next(self._tokens)
        self._listeners[token] = listener
        hub = self.connection.hub()
        if self._hub is not hub:  # once per event loop
            hub.subscribe("bus", self._incoming)
            self._hub = hub

        def unsubscribe() -> None:
            self._listeners.pop(token, None)

        return unsubscribe

    @property
    def listener_count(self) -> int:
        return len(self._listeners)

    def _incoming(self, data: bytes) -> None:
        wire = loads_object(data, "change event", self._channel)
        if wire is None:
            return
        method = wire.get("method")
        event = event_from_wire(method, wire) if isinstance(method, str) else None
        if event is None:
            logger.warning("refusing change event on %s: %r is not a listen-stream event", self._channel, method)
            return
        self._deliver(event)

    def _deliver(self, event: ServerEvent) -> None:
        for listener in list(self._listeners.values()):
            try:
                listener(event)
            except Exception:
                logger.exception("subscription listener failed")
