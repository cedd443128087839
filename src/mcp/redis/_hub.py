"""One pub/sub connection per event loop, carrying a service's channels to local callbacks; it
reconnects by itself when Redis comes back (messages published while it was away are lost, as
pub/sub messages are: change events are level triggers, and clients refetch)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.redis._client import RedisConnection

logger = logging.getLogger("mcp.redis")

CHANNELS = ("bus", "session-ended", "tasks")
"""Every channel of a prefix; one subscription covers them all."""


class Hub:
    def __init__(self, connection: RedisConnection) -> None:
        self._connection = connection
        self._channels = {connection.key(name).encode(): name for name in CHANNELS}
        self._handlers: dict[str, dict[int, Callable[[bytes], None]]] = {name: {} for name in CHANNELS}
        self._tokens = itertools.count()
        self._task: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()

    def subscribe(self, channel: str, callback: Callable[[bytes], None]) -> Callable[[], None]:
        """Call `callback(data)` for every message on `channel` (one of `CHANNELS`)."""
        token = next(self._tokens)
        handlers = self._handlers[channel]
        handlers[token] = callback
        self._ensure_running()

        def unsubscribe() -> None:
            handlers.pop(token, None)

        return unsubscribe

    async def ready(self, timeout: float) -> bool:
        """Wait until the pub/sub subscription is in place (False if not within `timeout`)."""
        self._ensure_running()
        try:
            await asyncio.wait_for(self._subscribed.wait(), timeout)
        except asyncio.TimeoutError:
            return False
        return True

    def _ensure_running(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="mcp-redis-pubsub")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _run(self) -> None:
        delay = 0.05
        down = False
        while True:
            pubsub: Any = None
            try:
                pubsub = self._connection.client().pubsub()
                await pubsub.subscribe(*self._channels)
                self._subscribed.set()
                if down:
                    logger.warning("Redis at %s is reachable again: change events flow again", self._connection.safe_url)
                down, delay = False, 0.05
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if message is not None and message.get("type") == "message":
                        self._dispatch(message.get("channel"), message.get("data"))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._subscribed.clear()
                if not down:
                    logger.warning("Redis pub/sub at %s lost (%s); retrying", self._connection.safe_url,
                                   exc or type(exc).__name__)
                down = True
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()

    def _dispatch(self, channel: Any, data: Any) -> None:
        name = self._channels.get(channel) if isinstance(channel, bytes) else None
        if name is None or not isinstance(data, bytes):
            return
        for callback in list(self._handlers[name].values()):
            try:
                callback(data)
            except Exception:
                logger.exception("a Redis %s message handler failed", name)
