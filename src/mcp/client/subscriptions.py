"""The client end of `subscriptions/listen`: a live stream of typed change events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio

from mcp.shared.exceptions import ListenNotSupportedError, SubscriptionLost

__all__ = ["ListenNotSupportedError", "PromptsListChanged", "ResourceUpdated", "ResourcesListChanged", "Subscription",
           "SubscriptionLost", "ToolsListChanged"]

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


class Subscription:
    """An open listen stream: `honored` (the acknowledged filter), `subscription_id`, and async
    iteration over events (duplicates not yet consumed collapse into one)."""

    def __init__(self, subscription_id: str) -> None:
        self.subscription_id = subscription_id
        self.honored: Any = None
        self.acknowledged = anyio.Event()
        self._pending: dict[Event, None] = {}
        self._wakeup = anyio.Event()
        self._ended = False
        self._error: BaseException | None = None

    def _acknowledge(self, filter_: dict[str, Any]) -> None:
        from mcp.types import SubscriptionFilter

        self.honored = SubscriptionFilter.model_validate(filter_)
        self.acknowledged.set()

    def _push(self, event: Event) -> None:
        if self._ended:
            return
        if event not in self._pending and len(self._pending) >= MAX_UNCONSUMED:
            self._fail(SubscriptionLost(f"subscription {self.subscription_id} fell {MAX_UNCONSUMED} events behind"))
            return
        self._pending[event] = None
        self._wakeup.set()

    def _finish(self) -> None:
        self._ended = True
        self._wakeup.set()
        self.acknowledged.set()

    def _fail(self, error: BaseException) -> None:
        if self._error is None:
            self._error = error
        self._finish()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Event:
        while True:
            if self._pending:
                event = next(iter(self._pending))
                del self._pending[event]
                return event
            if self._error is not None:
                raise self._error
            if self._ended:
                raise StopAsyncIteration
            self._wakeup = anyio.Event()
            await self._wakeup.wait()
