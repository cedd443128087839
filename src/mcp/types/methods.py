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
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from mcp.types.version import HANDSHAKE_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS

__all__ = [
    "CACHEABLE_METHODS",
    "CLIENT_NOTIFICATIONS",
    "CLIENT_REQUESTS",
    "CLIENT_RESULTS",
    "INPUT_REQUIRED_METHODS",
    "METHODS",
    "MONOLITH_NOTIFICATIONS",
    "MONOLITH_REQUESTS",
    "MONOLITH_RESULTS",
    "SERVER_NOTIFICATIONS",
    "SERVER_REQUESTS",
    "SERVER_RESULTS",
    "SPEC_CLIENT_METHODS",
    "SPEC_CLIENT_NOTIFICATION_METHODS",
    "CacheableMethod",
    "MethodInfo",
    "core_methods",
    "get",
    "is_defined",
    "is_input_required",
    "methods_for",
    "parse_client_notification",
    "parse_client_request",
    "parse_client_result",
    "parse_server_notification",
    "parse_server_request",
    "parse_server_result",
    "serialize_server_result",
    "validate_client_notification",
    "validate_client_request",
    "validate_client_result",
    "validate_server_result",
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


# Methods of the 2025-11-25 tasks feature: in the table (the tasks extension serves them), but not in
# the spec-method maps and sets below, which, as in the official SDK, cover the core protocol only.
_TASKS_PREFIXES: Final = ("tasks/", "notifications/tasks/")


def core_methods() -> Iterator[MethodInfo]:
    """The table without the tasks feature: what the spec-method maps cover, in table order."""
    return (info for info in _TABLE if not info.name.startswith(_TASKS_PREFIXES))


SPEC_CLIENT_METHODS: Final[frozenset[str]] = frozenset(
    info.name for info in core_methods() if info.kind == "request" and info.client_sends
)
"""Request methods a client may send at some revision: how a server tells a spec method from a
vendor one."""

SPEC_CLIENT_NOTIFICATION_METHODS: Final[frozenset[str]] = frozenset(
    info.name for info in core_methods() if info.kind == "notification" and info.client_sends
)
"""Notification methods a client may send at some revision."""

INPUT_REQUIRED_METHODS: Final[frozenset[str]] = frozenset(info.name for info in core_methods() if info.input_required)
"""Methods a server may answer with an `InputRequiredResult` (2026-07-28)."""

CacheableMethod = Literal[
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "server/discover",
    "tools/list",
]
"""Methods whose results carry the caching hints `ttlMs` / `cacheScope` (a `CacheableResult`)."""

CACHEABLE_METHODS: Final[frozenset[str]] = frozenset(get_args(CacheableMethod))
"""`CacheableMethod` as a runtime set."""

# Names whose values need the models (the (method, version) and method -> model maps, and the
# parse/validate/serialize functions whose defaults are those maps): `mcp.types._method_maps`,
# imported on first access so that importing this module loads no pydantic.
_FROM_MAPS: Final = frozenset(
    {
        "CLIENT_NOTIFICATIONS",
        "CLIENT_REQUESTS",
        "CLIENT_RESULTS",
        "MONOLITH_NOTIFICATIONS",
        "MONOLITH_REQUESTS",
        "MONOLITH_RESULTS",
        "SERVER_NOTIFICATIONS",
        "SERVER_REQUESTS",
        "SERVER_RESULTS",
        "is_input_required",
        "parse_client_notification",
        "parse_client_request",
        "parse_client_result",
        "parse_server_notification",
        "parse_server_request",
        "parse_server_result",
        "serialize_server_result",
        "validate_client_notification",
        "validate_client_request",
        "validate_client_result",
        "validate_server_result",
    }
)


def __getattr__(name: str) -> Any:
    if name not in _FROM_MAPS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module("mcp.types._method_maps"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_FROM_MAPS})


if TYPE_CHECKING:
    from mcp.types._method_maps import CLIENT_NOTIFICATIONS as CLIENT_NOTIFICATIONS
    from mcp.types._method_maps import CLIENT_REQUESTS as CLIENT_REQUESTS
    from mcp.types._method_maps import CLIENT_RESULTS as CLIENT_RESULTS
    from mcp.types._method_maps import MONOLITH_NOTIFICATIONS as MONOLITH_NOTIFICATIONS
    from mcp.types._method_maps import MONOLITH_REQUESTS as MONOLITH_REQUESTS
    from mcp.types._method_maps import MONOLITH_RESULTS as MONOLITH_RESULTS
    from mcp.types._method_maps import SERVER_NOTIFICATIONS as SERVER_NOTIFICATIONS
    from mcp.types._method_maps import SERVER_REQUESTS as SERVER_REQUESTS
    from mcp.types._method_maps import SERVER_RESULTS as SERVER_RESULTS
    from mcp.types._method_maps import is_input_required as is_input_required
    from mcp.types._method_maps import parse_client_notification as parse_client_notification
    from mcp.types._method_maps import parse_client_request as parse_client_request
    from mcp.types._method_maps import parse_client_result as parse_client_result
    from mcp.types._method_maps import parse_server_notification as parse_server_notification
    from mcp.types._method_maps import parse_server_request as parse_server_request
    from mcp.types._method_maps import parse_server_result as parse_server_result
    from mcp.types._method_maps import serialize_server_result as serialize_server_result
    from mcp.types._method_maps import validate_client_notification as validate_client_notification
    from mcp.types._method_maps import validate_client_request as validate_client_request
    from mcp.types._method_maps import validate_client_result as validate_client_result
    from mcp.types._method_maps import validate_server_result as validate_server_result
