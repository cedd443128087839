"""The method table: every MCP method, its message/params/result models, and the revisions and
directions in which it exists.

Stdlib only and lazy: entries name their models, which are imported from `mcp.types` only when a
`*_type()` accessor is called, so importing this module loads no feature module and no pydantic.
The revision sets are read off each revision's schema (`ClientRequest`, `ServerRequest`,
`ClientNotification` and `ServerNotification` unions).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Literal

from mcp.types.version import HANDSHAKE_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS

__all__ = [
    "CLIENT_NOTIFICATIONS",
    "CLIENT_REQUESTS",
    "CLIENT_RESULTS",
    "METHODS",
    "SERVER_NOTIFICATIONS",
    "SERVER_REQUESTS",
    "SERVER_RESULTS",
    "MethodInfo",
    "get",
    "is_defined",
    "methods_for",
]

Kind = Literal["request", "notification"]
Sender = Literal["client", "server"]


@dataclass(frozen=True)
class MethodInfo:
    """One method. Model fields hold public `mcp.types` names; `*_type()` resolves them."""

    name: str
    kind: Kind
    message: str
    """The typed request/notification class, e.g. "CallToolRequest"."""
    params: str
    """The params model (or union alias, for `elicitation/create`)."""
    result: str | None
    """The result model of a request; `None` for a notification."""
    client_sends: tuple[str, ...] = ()
    """Revisions in which a client sends it as a standalone JSON-RPC message."""
    server_sends: tuple[str, ...] = ()
    """Revisions in which a server sends it as a standalone JSON-RPC message."""
    input_request: tuple[str, ...] = ()
    """Revisions in which it travels inside `InputRequiredResult.input_requests` instead."""
    input_required: tuple[str, ...] = ()
    """Revisions in which the server may answer it with an `InputRequiredResult`."""
    name_param: str | None = None
    """The params key mirrored into the `Mcp-Name` HTTP header (2026-07-28)."""

    @property
    def revisions(self) -> tuple[str, ...]:
        """Every revision that defines the method, in any role."""
        present = set(self.client_sends) | set(self.server_sends) | set(self.input_request)
        return tuple(v for v in SUPPORTED_PROTOCOL_VERSIONS if v in present)

    def sent_by(self, sender: Sender, version: str) -> bool:
        """Whether `sender` may send it as its own JSON-RPC message at `version`."""
        return version in (self.client_sends if sender == "client" else self.server_sends)

    def message_type(self) -> Any:
        return _resolve(self.message)

    def params_type(self) -> Any:
        return _resolve(self.params)

    def result_type(self) -> Any:
        return None if self.result is None else _resolve(self.result)

    def result_types(self, version: str) -> tuple[Any, ...]:
        """The results a request may get at `version` (its own, plus `InputRequiredResult`)."""
        if self.result is None:
            return ()
        own = (_resolve(self.result),)
        return (*own, _resolve("InputRequiredResult")) if version in self.input_required else own


def _resolve(name: str) -> Any:
    return getattr(importlib.import_module("mcp.types"), name)


_ALL: Final = SUPPORTED_PROTOCOL_VERSIONS
_LEGACY: Final = HANDSHAKE_VERSIONS
_MODERN: Final = ("2026-07-28",)
_FROM_2025_06: Final = ("2025-06-18", "2025-11-25")
_ONLY_2025_11: Final = ("2025-11-25",)


def _request(name: str, stem: str, params: str, result: str, **roles: Any) -> MethodInfo:
    return MethodInfo(name, "request", f"{stem}Request", params, result, **roles)


def _notification(name: str, stem: str, params: str, **roles: Any) -> MethodInfo:
    return MethodInfo(name, "notification", f"{stem}Notification", params, None, **roles)


_TABLE: Final = (
    # Lifecycle
    _request("initialize", "Initialize", "InitializeRequestParams", "InitializeResult", client_sends=_LEGACY),
    _request("server/discover", "Discover", "DiscoverRequestParams", "DiscoverResult", client_sends=_MODERN),
    _request("ping", "Ping", "RequestParams", "EmptyResult", client_sends=_LEGACY, server_sends=_LEGACY),
    _notification(
        "notifications/initialized", "Initialized", "InitializedNotificationParams", client_sends=_LEGACY
    ),
    # Tools, resources, prompts, completion
    _request("tools/list", "ListTools", "ListToolsRequestParams", "ListToolsResult", client_sends=_ALL),
    _request(
        "tools/call",
        "CallTool",
        "CallToolRequestParams",
        "CallToolResult",
        client_sends=_ALL,
        input_required=_MODERN,
        name_param="name",
    ),
    _request(
        "resources/list",
        "ListResources",
        "ListResourcesRequestParams",
        "ListResourcesResult",
        client_sends=_ALL,
    ),
    _request(
        "resources/templates/list",
        "ListResourceTemplates",
        "ListResourceTemplatesRequestParams",
        "ListResourceTemplatesResult",
        client_sends=_ALL,
    ),
    _request(
        "resources/read",
        "ReadResource",
        "ReadResourceRequestParams",
        "ReadResourceResult",
        client_sends=_ALL,
        input_required=_MODERN,
        name_param="uri",
    ),
    _request(
        "resources/subscribe", "Subscribe", "SubscribeRequestParams", "EmptyResult", client_sends=_LEGACY
    ),
    _request(
        "resources/unsubscribe",
        "Unsubscribe",
        "UnsubscribeRequestParams",
        "EmptyResult",
        client_sends=_LEGACY,
    ),
    _request(
        "prompts/list", "ListPrompts", "ListPromptsRequestParams", "ListPromptsResult", client_sends=_ALL
    ),
    _request(
        "prompts/get",
        "GetPrompt",
        "GetPromptRequestParams",
        "GetPromptResult",
        client_sends=_ALL,
        input_required=_MODERN,
        name_param="name",
    ),
    _request("completion/complete", "Complete", "CompleteRequestParams", "CompleteResult", client_sends=_ALL),
    _request("logging/setLevel", "SetLevel", "SetLevelRequestParams", "EmptyResult", client_sends=_LEGACY),
    _request(
        "subscriptions/listen",
        "SubscriptionsListen",
        "SubscriptionsListenRequestParams",
        "SubscriptionsListenResult",
        client_sends=_MODERN,
    ),
    # Server -> client requests (embedded in InputRequiredResult on 2026-07-28)
    _request(
        "sampling/createMessage",
        "CreateMessage",
        "CreateMessageRequestParams",
        "CreateMessageResult",
        server_sends=_LEGACY,
        input_request=_MODERN,
    ),
    _request(
        "roots/list",
        "ListRoots",
        "RequestParams",
        "ListRootsResult",
        server_sends=_LEGACY,
        input_request=_MODERN,
    ),
    _request(
        "elicitation/create",
        "Elicit",
        "ElicitRequestParams",
        "ElicitResult",
        server_sends=_FROM_2025_06,
        input_request=_MODERN,
    ),
    # Tasks (2025-11-25; either side may hold tasks)
    _request(
        "tasks/get",
        "GetTask",
        "GetTaskRequestParams",
        "GetTaskResult",
        client_sends=_ONLY_2025_11,
        server_sends=_ONLY_2025_11,
    ),
    _request(
        "tasks/result",
        "GetTaskPayload",
        "GetTaskPayloadRequestParams",
        "GetTaskPayloadResult",
        client_sends=_ONLY_2025_11,
        server_sends=_ONLY_2025_11,
    ),
    _request(
        "tasks/cancel",
        "CancelTask",
        "CancelTaskRequestParams",
        "CancelTaskResult",
        client_sends=_ONLY_2025_11,
        server_sends=_ONLY_2025_11,
    ),
    _request(
        "tasks/list",
        "ListTasks",
        "PaginatedRequestParams",
        "ListTasksResult",
        client_sends=_ONLY_2025_11,
        server_sends=_ONLY_2025_11,
    ),
    # Notifications
    _notification(
        "notifications/cancelled",
        "Cancelled",
        "CancelledNotificationParams",
        client_sends=_ALL,
        server_sends=_ALL,
    ),
    _notification(
        "notifications/progress",
        "Progress",
        "ProgressNotificationParams",
        client_sends=_LEGACY,
        server_sends=_ALL,
    ),
    _notification(
        "notifications/message", "LoggingMessage", "LoggingMessageNotificationParams", server_sends=_ALL
    ),
    _notification(
        "notifications/resources/updated",
        "ResourceUpdated",
        "ResourceUpdatedNotificationParams",
        server_sends=_ALL,
    ),
    _notification(
        "notifications/resources/list_changed", "ResourceListChanged", "NotificationParams", server_sends=_ALL
    ),
    _notification(
        "notifications/tools/list_changed", "ToolListChanged", "NotificationParams", server_sends=_ALL
    ),
    _notification(
        "notifications/prompts/list_changed", "PromptListChanged", "NotificationParams", server_sends=_ALL
    ),
    _notification(
        "notifications/roots/list_changed", "RootsListChanged", "NotificationParams", client_sends=_LEGACY
    ),
    _notification(
        "notifications/elicitation/complete",
        "ElicitComplete",
        "ElicitCompleteNotificationParams",
        server_sends=_ONLY_2025_11,
    ),
    _notification(
        "notifications/subscriptions/acknowledged",
        "SubscriptionsAcknowledged",
        "SubscriptionsAcknowledgedNotificationParams",
        server_sends=_MODERN,
    ),
    _notification(
        "notifications/tasks/status",
        "TaskStatus",
        "TaskStatusNotificationParams",
        client_sends=_ONLY_2025_11,
        server_sends=_ONLY_2025_11,
    ),
)

METHODS: Final[Mapping[str, MethodInfo]] = MappingProxyType({info.name: info for info in _TABLE})
"""Every method by name."""


def get(method: str) -> MethodInfo | None:
    """The entry of `method`, or `None` for a method no revision defines (a vendor method)."""
    return METHODS.get(method)


def is_defined(method: str, version: str, sender: Sender | None = None) -> bool:
    """Whether `method` exists as a standalone message at `version` (sent by `sender`, if given)."""
    info = METHODS.get(method)
    if info is None:
        return False
    if sender is None:
        return version in info.client_sends or version in info.server_sends
    return info.sent_by(sender, version)


def methods_for(version: str, sender: Sender, kind: Kind | None = None) -> Iterator[MethodInfo]:
    """The methods `sender` may send as standalone messages at `version`."""
    return (i for i in _TABLE if i.sent_by(sender, version) and (kind is None or i.kind == kind))


def _surface(sender: Sender, kind: Kind, field: str) -> Mapping[tuple[str, str], Any]:
    return MappingProxyType(
        {
            (info.name, version): _resolve(getattr(info, field))
            for version in SUPPORTED_PROTOCOL_VERSIONS
            for info in methods_for(version, sender, kind)
        }
    )


# (method, version) -> model maps in the official SDK's shape, built (and the models imported) on
# first access: CLIENT_REQUESTS, CLIENT_NOTIFICATIONS, SERVER_REQUESTS, SERVER_NOTIFICATIONS,
# SERVER_RESULTS (results of client requests) and CLIENT_RESULTS (results of server requests).
_SURFACES: Final[dict[str, tuple[Sender, Kind, str]]] = {
    "CLIENT_REQUESTS": ("client", "request", "message"),
    "CLIENT_NOTIFICATIONS": ("client", "notification", "message"),
    "SERVER_REQUESTS": ("server", "request", "message"),
    "SERVER_NOTIFICATIONS": ("server", "notification", "message"),
    "SERVER_RESULTS": ("client", "request", "result"),
    "CLIENT_RESULTS": ("server", "request", "result"),
}
_built: dict[str, Mapping[tuple[str, str], Any]] = {}

if TYPE_CHECKING:
    CLIENT_REQUESTS: Mapping[tuple[str, str], Any]
    CLIENT_NOTIFICATIONS: Mapping[tuple[str, str], Any]
    SERVER_REQUESTS: Mapping[tuple[str, str], Any]
    SERVER_NOTIFICATIONS: Mapping[tuple[str, str], Any]
    SERVER_RESULTS: Mapping[tuple[str, str], Any]
    CLIENT_RESULTS: Mapping[tuple[str, str], Any]


def __getattr__(name: str) -> Any:
    spec = _SURFACES.get(name)
    if spec is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name not in _built:
        sender, kind, field = spec
        _built[name] = _surface(sender, kind, field)
    return _built[name]
