"""The client end of `subscriptions/listen`: a live stream of typed change events."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Literal

import anyio

from mcp.shared.exceptions import ListenNotSupportedError, MCPError, SubscriptionLost, single_leaf
from mcp.shared.subscriptions import SUBSCRIPTION_ID_META_KEY as SUBSCRIPTION_ID_META_KEY
from mcp.shared.subscriptions import (
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ToolsListChanged,
    event_from_wire,
)

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

__all__ = ["ListenNotSupportedError", "ListenRoute", "OnEvent", "PromptsListChanged", "ResourceUpdated", "ResourcesListChanged",
           "ServerEvent", "Subscription", "SubscriptionLost", "ToolsListChanged", "listen"]

MAX_UNCONSUMED = 1024


Event = ToolsListChanged | PromptsListChanged | ResourcesListChanged | ResourceUpdated
ServerEvent = Event
"""What a listen stream yields (the official SDK's name for it)."""
OnEvent = Callable[[Event], Awaitable[None]]
"""A per-event callback, awaited before the event reaches the stream's consumer."""


def event_for(method: str, params: dict[str, Any]) -> Event | None:
    """The event a listen-stream notification stands for (see `mcp.shared.subscriptions`)."""
    return event_from_wire(method, params)


ListenEnd = Literal["closed", "lost", "local"]
"""How a listen stream ended: the server closed it, it was lost, or this side left it."""


class ListenRoute:
    """Where a listen stream's frames land, in wire order, before its consumer takes them: the
    acknowledged filter, the events not yet consumed (duplicates collapse into one), and how the
    stream ended (`end`, with `error` when it was lost)."""

    def __init__(self) -> None:
        self.honored: Any = None
        self.acked = anyio.Event()
        self.error: BaseException | None = None
        self.end: ListenEnd | None = None
        self._pending: dict[Event, None] = {}
        self._wake = anyio.Event()

    def set_acked(self, honored: Any) -> None:
        """Record the filter the server acknowledged (the first acknowledgement counts)."""
        if not self.acked.is_set():
            self.honored = honored
            self.acked.set()

    def deliver(self, event: Event) -> None:
        """Queue an event unless one like it is already waiting; too long a backlog loses the stream."""
        if self.end is not None or event in self._pending:
            return
        if len(self._pending) >= MAX_UNCONSUMED:
            self.settle("lost", SubscriptionLost(f"a subscription fell {MAX_UNCONSUMED} events behind; "
                                                 "re-listen and refetch"))
            return
        self._pending[event] = None
        self._wake.set()

    def settle(self, end: ListenEnd, error: BaseException | None = None) -> None:
        """Record how the stream ended (the first reason counts) and wake whoever waits."""
        if self.end is None:
            self.end, self.error = end, error
            self.acked.set()
            self._wake.set()

    async def next_event(self) -> Event | ListenEnd:
        """The oldest waiting event (left waiting until `consume`), or the end once none is left;
        leaving locally ends at once."""
        while True:
            wake = self._wake
            if self.end == "local":
                return self.end
            if self._pending:
                return next(iter(self._pending))
            if self.end is not None:
                return self.end
            await wake.wait()
            self._wake = anyio.Event()

    def consume(self, event: Event) -> None:
        """Take a waiting event off the backlog."""
        self._pending.pop(event, None)


class Subscription:
    """An open listen stream: `honored` (the acknowledged filter), `subscription_id`, and async
    iteration over its events, ending when the server closes the stream (`SubscriptionLost` when
    it was lost instead). Made by `listen()` / `Client.listen()`."""

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
        outcome = await self._route.next_event()
        if isinstance(outcome, str):
            if outcome == "lost":
                error = self._route.error
                if isinstance(error, SubscriptionLost):
                    raise error
                raise SubscriptionLost(f"subscription {self.subscription_id!r} ended without the server's "
                                       "graceful close; re-listen and refetch") from error
            raise StopAsyncIteration
        if self._on_event is not None:
            await self._on_event(outcome)  # the event stays waiting if this raises or is cancelled
        self._route.consume(outcome)
        return outcome


_LISTEN_IDS = itertools.count(1)


@asynccontextmanager
async def listen(session: ClientSession, *, tools_list_changed: bool = False, prompts_list_changed: bool = False,
                 resources_list_changed: bool = False, resource_subscriptions: Sequence[str] = (),
                 on_event: OnEvent | None = None, timeout: float = 30.0) -> AsyncIterator[Subscription]:
    """Open one `subscriptions/listen` stream on `session` (2026-07-28 only). Entering sends the
    request and returns once the server acknowledges it (`honored` is what it agreed to);
    leaving ends the stream. `on_event` is awaited before each event reaches the consumer."""
    if session.modern_meta is None:
        raise ListenNotSupportedError(session.protocol_version)
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
    session.register_listen_route(subscription_id, route)

    async def run() -> None:
        try:
            params = {"notifications": wanted, "_meta": dict(session.modern_meta or {})}
            await session.peer.send_request("subscriptions/listen", params, request_id=subscription_id)
            route.settle("closed")
        except MCPError as exc:
            route.settle("lost", exc)
        except anyio.get_cancelled_exc_class():
            route.settle("local")
            raise

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            with anyio.fail_after(timeout):
                await route.acked.wait()
            if route.honored is None:
                if isinstance(route.error, MCPError):
                    raise route.error
                raise SubscriptionLost("the listen stream ended before the server acknowledged it")
            try:
                yield Subscription(route, subscription_id, route.honored, on_event)
            finally:
                route.settle("local")
                tg.cancel_scope.cancel()
    except BaseException as exc:
        leaf = single_leaf(exc)
        if leaf is exc:
            raise
        raise leaf from None
    finally:
        session.unregister_listen_route(subscription_id)
