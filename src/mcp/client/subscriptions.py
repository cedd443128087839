"""The client end of `subscriptions/listen`: a live stream of typed change events."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from mcp.shared.exceptions import ListenNotSupportedError, MCPError, SubscriptionLost, single_leaf

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

__all__ = ["ListenNotSupportedError", "ListenRoute", "OnEvent", "PromptsListChanged", "ResourceUpdated", "ResourcesListChanged",
           "ServerEvent", "Subscription", "SubscriptionLost", "ToolsListChanged", "listen"]

SUBSCRIPTION_ID_META_KEY = "io.modelcontextprotocol/subscriptionId"
MAX_UNCONSUMED = 1024


@dataclass(frozen=True, slots=True)
class ToolsListChanged:
    pass


@dataclass(frozen=True, slots=True)
class PromptsListChanged:
    pass


@dataclass(frozen=True, slots=True)
class ResourcesListChanged:
    pass


@dataclass(frozen=True, slots=True)
class ResourceUpdated:
    uri: str


Event = ToolsListChanged | PromptsListChanged | ResourcesListChanged | ResourceUpdated
ServerEvent = Event
"""What a listen stream yields (the official SDK's name for it)."""
OnEvent = Callable[[Event], Awaitable[None]]
"""A per-event callback, awaited before the event reaches the stream's consumer."""

_EVENTS: dict[str, Any] = {
    "notifications/tools/list_changed": ToolsListChanged,
    "notifications/prompts/list_changed": PromptsListChanged,
    "notifications/resources/list_changed": ResourcesListChanged,
}


def event_for(method: str, params: dict[str, Any]) -> Event | None:
    if method == "notifications/resources/updated":
        uri = params.get("uri")
        return ResourceUpdated(uri=str(uri)) if uri is not None else None
    cls = _EVENTS.get(method)
    return cls() if cls is not None else None


class ListenRoute:
    """Where a listen stream's frames land, in wire order, before its consumer takes them: the
    acknowledged filter, the events not yet consumed (duplicates collapse into one), and how the
    stream ended."""

    def __init__(self) -> None:
        self.honored: Any = None
        self.acknowledged = anyio.Event()
        self._pending: dict[Event, None] = {}
        self._wakeup = anyio.Event()
        self._ended = False
        self.error: BaseException | None = None

    def _acknowledge(self, filter_: dict[str, Any]) -> None:
        from mcp.types import SubscriptionFilter

        self.honored = SubscriptionFilter.model_validate(filter_)
        self.acknowledged.set()

    def _push(self, event: Event) -> None:
        if self._ended:
            return
        if event not in self._pending and len(self._pending) >= MAX_UNCONSUMED:
            self._fail(SubscriptionLost(f"a subscription fell {MAX_UNCONSUMED} events behind"))
            return
        self._pending[event] = None
        self._wakeup.set()

    def _finish(self) -> None:
        self._ended = True
        self._wakeup.set()
        self.acknowledged.set()

    def _fail(self, error: BaseException) -> None:
        if self.error is None:
            self.error = error
        self._finish()

    async def next_event(self, on_event: OnEvent | None = None) -> Event:
        """The oldest unconsumed event (`on_event` awaited first: it stays pending until that
        returns); `StopAsyncIteration` once the stream ended, its error when it was lost."""
        while True:
            if self._pending:
                event = next(iter(self._pending))
                if on_event is not None:
                    await on_event(event)
                self._pending.pop(event, None)
                return event
            if self.error is not None:
                raise self.error
            if self._ended:
                raise StopAsyncIteration
            self._wakeup = anyio.Event()
            await self._wakeup.wait()


class Subscription:
    """An open listen stream: `honored` (the acknowledged filter), `subscription_id`, and async
    iteration over its events. Made by `listen()` / `Client.listen()`."""

    def __init__(self, route: ListenRoute, subscription_id: Any, honored: Any, on_event: OnEvent | None = None) -> None:
        self._route = route
        self.subscription_id = subscription_id
        """The listen request's id, stamped into the `_meta` of every frame of the stream."""
        self.honored = honored
        """The part of the requested filter the server agreed to deliver."""
        self._on_event = on_event

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Event:
        return await self._route.next_event(self._on_event)


_LISTEN_IDS = itertools.count(1)


@asynccontextmanager
async def listen(session: ClientSession, *, tools_list_changed: bool = False, prompts_list_changed: bool = False,
                 resources_list_changed: bool = False, resource_subscriptions: Sequence[str] = (),
                 on_event: OnEvent | None = None, timeout: float = 30.0) -> AsyncIterator[Subscription]:
    """Open one `subscriptions/listen` stream on `session` (2026-07-28 only). Entering sends the
    request and returns once the server acknowledges it (`honored` is what it agreed to);
    leaving ends the stream. `on_event` is awaited before each event reaches the consumer."""
    if session._modern_meta is None:
        raise ListenNotSupportedError("subscriptions/listen needs a 2026-07-28 connection")
    wanted: dict[str, Any] = {}
    if tools_list_changed:
        wanted["toolsListChanged"] = True
    if prompts_list_changed:
        wanted["promptsListChanged"] = True
    if resources_list_changed:
        wanted["resourcesListChanged"] = True
    if resource_subscriptions:
        wanted["resourceSubscriptions"] = [str(uri) for uri in resource_subscriptions]
    subscription_id = f"listen-{next(_LISTEN_IDS)}"
    route = ListenRoute()
    session._subscriptions[subscription_id] = route

    async def run() -> None:
        try:
            params = {"notifications": wanted, "_meta": dict(session._modern_meta or {})}
            await session.peer.send_request("subscriptions/listen", params, request_id=subscription_id)
            route._finish()
        except MCPError as exc:
            route._fail(exc)
        except anyio.get_cancelled_exc_class():
            route._finish()
            raise

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            with anyio.fail_after(timeout):
                await route.acknowledged.wait()
            if route.error is not None and route.honored is None:
                raise route.error
            try:
                yield Subscription(route, subscription_id, route.honored, on_event)
            finally:
                tg.cancel_scope.cancel()
    except BaseException as exc:
        leaf = single_leaf(exc)
        if leaf is exc:
            raise
        raise leaf from None
    finally:
        session._subscriptions.pop(subscription_id, None)
