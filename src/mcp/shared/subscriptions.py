"""The `subscriptions/listen` event vocabulary (2026-07-28), one home for server and client.

Each event is a level trigger ("this changed; refetch if you care"), so equal events collapse and
both sides bound their buffers by that. The server publishes them (`mcp.server.subscriptions`),
the client receives them (`mcp.client.subscriptions`); both re-export these very classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, cast

if TYPE_CHECKING:
    from mcp.types import ServerNotification, SubscriptionFilter

__all__ = ["LISTEN_STREAM_METHODS", "SUBSCRIPTION_ID_META_KEY", "PromptsListChanged", "ResourceUpdated",
           "ResourcesListChanged", "ServerEvent", "ToolsListChanged", "event_from_wire", "event_matches",
           "event_to_notification"]

SUBSCRIPTION_ID_META_KEY = "io.modelcontextprotocol/subscriptionId"
"""The `_meta` key that ties a notification to the listen stream it belongs to."""


@dataclass(frozen=True, slots=True)
class ToolsListChanged:
    method: ClassVar[str] = "notifications/tools/list_changed"


@dataclass(frozen=True, slots=True)
class PromptsListChanged:
    method: ClassVar[str] = "notifications/prompts/list_changed"


@dataclass(frozen=True, slots=True)
class ResourcesListChanged:
    method: ClassVar[str] = "notifications/resources/list_changed"


@dataclass(frozen=True, slots=True)
class ResourceUpdated:
    uri: str
    method: ClassVar[str] = "notifications/resources/updated"


ServerEvent = ToolsListChanged | PromptsListChanged | ResourcesListChanged | ResourceUpdated

_LIST_CHANGED: dict[str, type[ToolsListChanged | PromptsListChanged | ResourcesListChanged]] = {
    cls.method: cls for cls in (ToolsListChanged, PromptsListChanged, ResourcesListChanged)
}

LISTEN_STREAM_METHODS: frozenset[str] = frozenset({*_LIST_CHANGED, ResourceUpdated.method})
"""The notification methods a listen stream carries."""


def event_from_wire(method: str, params: Any) -> ServerEvent | None:
    """The event a listen-stream notification stands for, or `None` for anything else (or a
    `resources/updated` without a URI)."""
    if method == ResourceUpdated.method:
        uri: Any = cast("dict[str, Any]", params).get("uri") if isinstance(params, dict) else None
        return ResourceUpdated(uri=uri) if isinstance(uri, str) else None
    cls = _LIST_CHANGED.get(method)
    return cls() if cls is not None else None


def event_matches(honored: SubscriptionFilter, uris: frozenset[str], event: ServerEvent) -> bool:
    """Is `event` inside what the stream's acknowledged filter (`honored`, with its resource
    subscriptions as the set `uris`) lets through? Both sides admit only what was acknowledged."""
    if isinstance(event, ToolsListChanged):
        return honored.tools_list_changed is True
    if isinstance(event, PromptsListChanged):
        return honored.prompts_list_changed is True
    if isinstance(event, ResourcesListChanged):
        return honored.resources_list_changed is True
    return event.uri in uris


def event_to_notification(event: ServerEvent, meta: dict[str, Any]) -> ServerNotification:
    """The typed notification the server sends for `event`, its `_meta` stamped with `meta`."""
    from mcp import types

    if isinstance(event, ResourceUpdated):
        return types.ResourceUpdatedNotification(
            params=types.ResourceUpdatedNotificationParams(uri=event.uri, _meta=meta))  # pyright: ignore[reportCallIssue]
    model = {ToolsListChanged: types.ToolListChangedNotification, PromptsListChanged: types.PromptListChangedNotification,
             ResourcesListChanged: types.ResourceListChangedNotification}[type(event)]
    return model(params=types.NotificationParams(_meta=meta))  # pyright: ignore[reportCallIssue]
