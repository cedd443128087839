"""Change notifications for `subscriptions/listen` streams (2026-07-28).

Handlers publish typed `ServerEvent`s to a `SubscriptionBus`; `ListenHandler` serves each listen
stream: acknowledgement first, then only the events its filter asked for, every frame tagged with
the subscription id (the listen request's id). The bus is the seam for running replicas.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from mcp._engine.loop_event import LoopEvent
from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import CONNECTION_CLOSED, METHOD_NOT_FOUND
from mcp.types.version import MODERN_VERSIONS

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectSendStream

    from mcp.shared.subscriptions import SUBSCRIPTION_ID_META_KEY as SUBSCRIPTION_ID_META_KEY
    from mcp.shared.subscriptions import PromptsListChanged as PromptsListChanged
    from mcp.shared.subscriptions import ResourcesListChanged as ResourcesListChanged
    from mcp.shared.subscriptions import ResourceUpdated as ResourceUpdated
    from mcp.shared.subscriptions import ServerEvent as ServerEvent
    from mcp.shared.subscriptions import ToolsListChanged as ToolsListChanged

__all__ = ["SUBSCRIPTION_ID_META_KEY", "InMemorySubscriptionBus", "ListenHandler", "PromptsListChanged",
           "ResourceUpdated", "ResourcesListChanged", "ServerEvent", "SubscriptionBus", "ToolsListChanged"]

logger = logging.getLogger("mcp.server.subscriptions")

_EVENT_NAMES = frozenset({"SUBSCRIPTION_ID_META_KEY", "PromptsListChanged", "ResourcesListChanged", "ResourceUpdated",
                          "ServerEvent", "ToolsListChanged"})
"""Re-exported from `mcp.shared.subscriptions` on first access: a server that never publishes or
serves a listen stream does not define the event classes (a stdio cold start skips them)."""


def __getattr__(name: str) -> Any:
    if name not in _EVENT_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module("mcp.shared.subscriptions"), name)
    globals()[name] = value
    return value



class SubscriptionBus(Protocol):
    async def publish(self, event: ServerEvent) -> None: ...

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]: ...


class InMemorySubscriptionBus:
    """One process: every listener registered here hears every event. Listeners must not block."""

    def __init__(self) -> None:
        self._listeners: dict[int, Callable[[ServerEvent], None]] = {}
        self._next = 0

    async def publish(self, event: ServerEvent) -> None:
        for listener in list(self._listeners.values()):
            try:
                listener(event)
            except Exception:
                logger.exception("subscription listener failed")

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        token = self._next
        self._next += 1
        self._listeners[token] = listener

        def unsubscribe() -> None:
            self._listeners.pop(token, None)

        return unsubscribe

    @property
    def listener_count(self) -> int:
        return len(self._listeners)


def _wants(filter_: Any, event: ServerEvent) -> bool:
    from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged

    if isinstance(event, ToolsListChanged):
        return bool(filter_.tools_list_changed)
    if isinstance(event, PromptsListChanged):
        return bool(filter_.prompts_list_changed)
    if isinstance(event, ResourcesListChanged):
        return bool(filter_.resources_list_changed)
    return event.uri in (filter_.resource_subscriptions or ())


class ListenHandler:
    """The `subscriptions/listen` handler (what `MCPServer` registers; usable on a low-level
    `Server` as `on_subscriptions_listen=ListenHandler(bus)`)."""

    def __init__(self, bus: SubscriptionBus, *, max_subscriptions: int = 1024, max_buffered_events: int = 1024) -> None:
        self.bus = bus
        self.max_subscriptions = max_subscriptions
        self.max_buffered_events = max_buffered_events
        self._open: set[MemoryObjectSendStream[ServerEvent]] = set()

    @property
    def open_streams(self) -> int:
        return len(self._open)

    def close(self) -> None:
        """End every open stream gracefully (each gets the listen result as its last frame)."""
        for stream in list(self._open):
            stream.close()

    async def __call__(self, ctx: Any, params: Any) -> Any:
        from mcp.shared.subscriptions import SUBSCRIPTION_ID_META_KEY, ResourceUpdated, ServerEvent
        from mcp.types import SubscriptionsListenResult

        if ctx.protocol_version not in MODERN_VERSIONS:
            raise MCPError(METHOD_NOT_FOUND, "Method not found", "subscriptions/listen")
        if len(self._open) >= self.max_subscriptions:
            raise MCPError(-32603, "Too many open subscriptions")
        filter_ = params.notifications
        tag = {SUBSCRIPTION_ID_META_KEY: ctx.request_id}
        send, receive = anyio.create_memory_object_stream[ServerEvent](self.max_buffered_events)

        def listener(event: ServerEvent) -> None:
            if _wants(filter_, event):
                try:
                    send.send_nowait(event)
                except anyio.WouldBlock:
                    logger.warning("listen stream %r is not keeping up; dropping %s", ctx.request_id, event.method)
                except anyio.ClosedResourceError:
                    pass

        self._open.add(send)
        unsubscribe = self.bus.subscribe(listener)
        peer = ctx.session.peer
        input_closed: Any = getattr(peer, "closed", None)
        """Set when the connection's input ends (stdio EOF): the stream ends at once with -32000
        "Connection closed" instead of holding the server's exit for its drain timeout."""
        lost = False
        try:
            await peer.send_notification("notifications/subscriptions/acknowledged",
                                         {"notifications": filter_.to_wire(), "_meta": tag})
            async with anyio.create_task_group() as watchers:
                if isinstance(input_closed, (anyio.Event, LoopEvent)):

                    async def end_on_close(closed: anyio.Event | LoopEvent = input_closed) -> None:
                        nonlocal lost
                        await closed.wait()
                        lost = True
                        send.close()

                    watchers.start_soon(end_on_close)
                async with receive:
                    async for event in receive:
                        params_out: dict[str, Any] = {"_meta": tag}
                        if isinstance(event, ResourceUpdated):
                            params_out["uri"] = event.uri
                        await peer.send_notification(event.method, params_out)
                watchers.cancel_scope.cancel()
        finally:
            unsubscribe()
            self._open.discard(send)
            send.close()
        if lost:
            raise MCPError(CONNECTION_CLOSED, "Connection closed")
        return SubscriptionsListenResult(meta=tag)
