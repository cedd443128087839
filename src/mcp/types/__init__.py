"""The protocol's data types, for every revision from 2024-11-05 to 2026-07-28.

A lazy facade (PEP 562): `import mcp.types` loads no feature module and builds no model; a name
is imported from its feature module on first access. `_EXPORTS` is the one table of which
module owns which public name.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mcp.types.jsonrpc import (
    CONNECTION_CLOSED,
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    JSONRPC_VERSION,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    REQUEST_TIMEOUT,
    RESOURCE_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
    URL_ELICITATION_REQUIRED,
)
from mcp.types.version import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    DEFAULT_NEGOTIATED_VERSION,
    LATEST_HANDSHAKE_VERSION,
    LATEST_PROTOCOL_VERSION,
    LOG_LEVEL_META_KEY,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
    SUPPORTED_PROTOCOL_VERSIONS,
)

_EXPORTS: dict[str, tuple[str, ...]] = {
    "_base": ("MCPModel",),
    "_common": (
        "Role", "Cursor", "ProgressToken", "RequestId", "RequestParams", "PaginatedRequestParams",
        "NotificationParams", "Result", "PaginatedResult", "CacheableResult", "EmptyResult",
        "ErrorData", "Icon", "Annotations", "BaseMetadata", "IconTheme", "ResultType",
        "RequestParamsMeta", "CORE_RESULT_TYPES",
    ),
    "_content": (
        "TextContent", "ImageContent", "AudioContent", "Resource", "ResourceContents", "TextResourceContents",
        "BlobResourceContents", "EmbeddedResource", "ResourceLink", "ToolUseContent",
        "ToolResultContent", "ContentBlock", "Content",
    ),
    "_tools": (
        "ToolAnnotations", "ToolExecution", "Tool", "ListToolsRequestParams", "ListToolsResult",
        "CallToolRequestParams", "CallToolResult", "ListToolsRequest", "CallToolRequest",
        "ToolListChangedNotification",
    ),
    "_lifecycle": (
        "Implementation", "RootsCapability", "SamplingToolsCapability", "SamplingContextCapability",
        "SamplingCapability", "FormElicitationCapability", "UrlElicitationCapability",
        "ElicitationCapability", "ClientCapabilities", "PromptsCapability", "ResourcesCapability",
        "ToolsCapability", "LoggingCapability", "CompletionsCapability", "ServerCapabilities",
        "InitializeRequestParams", "InitializeResult", "InitializedNotificationParams",
        "DiscoverRequestParams", "DiscoverResult", "InitializeRequest", "InitializedNotification",
        "PingRequest", "DiscoverRequest",
    ),
    "_messages": (
        "Request", "PaginatedRequest", "Notification", "JSONRPCRequest", "JSONRPCNotification",
        "JSONRPCResponse", "JSONRPCError", "JSONRPCResultResponse", "JSONRPCErrorResponse",
        "JSONRPCMessage", "jsonrpc_message_adapter",
    ),
    "_resources": (
        "ResourceTemplate", "ListResourcesRequestParams", "ListResourcesRequest",
        "ListResourcesResult", "ListResourceTemplatesRequestParams", "ListResourceTemplatesRequest",
        "ListResourceTemplatesResult", "ResourceRequestParams", "ReadResourceRequestParams",
        "ReadResourceRequest", "ReadResourceResult", "SubscribeRequestParams", "SubscribeRequest",
        "UnsubscribeRequestParams", "UnsubscribeRequest", "ResourceUpdatedNotificationParams",
        "ResourceUpdatedNotification", "ResourceListChangedNotification",
    ),
    "_prompts": (
        "Prompt", "PromptArgument", "PromptMessage", "ListPromptsRequestParams", "ListPromptsRequest",
        "ListPromptsResult", "GetPromptRequestParams", "GetPromptRequest", "GetPromptResult",
        "PromptListChangedNotification",
    ),
    "_completion": (
        "PromptReference", "ResourceTemplateReference", "ResourceReference", "CompletionArgument",
        "CompletionContext", "CompleteRequestParams", "CompleteRequest", "Completion", "CompleteResult",
    ),
    "_sampling": (
        "IncludeContext", "StopReason", "SamplingContent", "SamplingMessageContentBlock",
        "SamplingMessage", "ModelHint", "ModelPreferences", "ToolChoice", "CreateMessageRequestParams",
        "CreateMessageRequest", "CreateMessageResult", "CreateMessageResultWithTools",
    ),
    "_elicitation": (
        "ElicitRequestedSchema", "ElicitRequestFormParams", "ElicitRequestURLParams",
        "ElicitRequestParams", "ElicitRequest", "ElicitResult", "ElicitCompleteNotificationParams",
        "ElicitCompleteNotification", "ElicitationCompleteNotificationParams",
        "ElicitationCompleteNotification", "ElicitationRequiredErrorData",
    ),
    "_form_schema": (
        "StringSchema", "NumberSchema", "BooleanSchema", "EnumOption", "UntitledSingleSelectEnumSchema",
        "TitledSingleSelectEnumSchema", "LegacyTitledEnumSchema", "UntitledEnumItems", "TitledEnumItems",
        "UntitledMultiSelectEnumSchema", "TitledMultiSelectEnumSchema", "SingleSelectEnumSchema",
        "MultiSelectEnumSchema", "EnumSchema", "PrimitiveSchemaDefinition",
    ),
    "_roots": ("Root", "ListRootsRequest", "ListRootsResult", "RootsListChangedNotification"),
    "_logging": (
        "LoggingLevel", "SetLevelRequestParams", "SetLevelRequest", "LoggingMessageNotificationParams",
        "LoggingMessageNotification",
    ),
    "_notifications": (
        "ProgressNotificationParams", "ProgressNotification", "CancelledNotificationParams",
        "CancelledNotification",
    ),
    "_subscriptions": (
        "SubscriptionFilter", "SubscriptionsListenRequestParams", "SubscriptionsListenRequest",
        "SubscriptionsListenResult", "SubscriptionsAcknowledgedNotificationParams",
        "SubscriptionsAcknowledgedNotification",
    ),
    "_input_required": (
        "InputRequest", "InputRequests", "InputResponse", "InputResponses",
        "InputResponseRequestParams", "InputRequiredResult",
    ),
    "_tasks": (
        "TaskStatus", "TaskMetadata", "RelatedTaskMetadata", "TaskAugmentedRequestParams", "Task",
        "CreateTaskResult", "GetTaskRequestParams", "GetTaskRequest", "GetTaskResult",
        "GetTaskPayloadRequestParams", "GetTaskPayloadRequest", "GetTaskPayloadResult",
        "CancelTaskRequestParams", "CancelTaskRequest", "CancelTaskResult", "ListTasksRequest",
        "ListTasksResult", "TaskStatusNotificationParams", "TaskStatusNotification",
        "TasksListCapability", "TasksCancelCapability", "TasksCreateMessageCapability",
        "TasksSamplingCapability", "TasksCreateElicitationCapability", "TasksElicitationCapability",
        "ClientTasksRequestsCapability", "ClientTasksCapability", "TasksCallCapability",
        "TasksToolsCapability", "ServerTasksRequestsCapability", "ServerTasksCapability",
    ),
    "_errors": ("UnsupportedProtocolVersionErrorData", "MissingRequiredClientCapabilityErrorData"),
    "_unions": (
        "ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification", "ClientResult",
        "ServerResult", "client_request_adapter", "client_notification_adapter",
        "client_result_adapter", "server_request_adapter", "server_notification_adapter",
        "server_result_adapter",
    ),
}

_OWNER: dict[str, str] = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = [
    "CLIENT_CAPABILITIES_META_KEY", "CLIENT_INFO_META_KEY", "CONNECTION_CLOSED",
    "DEFAULT_NEGOTIATED_VERSION", "HEADER_MISMATCH", "INTERNAL_ERROR", "INVALID_PARAMS",
    "INVALID_REQUEST", "JSONRPC_VERSION", "LATEST_HANDSHAKE_VERSION", "LATEST_PROTOCOL_VERSION", "LOG_LEVEL_META_KEY",
    "METHOD_NOT_FOUND", "MISSING_REQUIRED_CLIENT_CAPABILITY", "PARSE_ERROR",
    "PROTOCOL_VERSION_META_KEY", "REQUEST_TIMEOUT", "RESOURCE_NOT_FOUND", "SERVER_INFO_META_KEY",
    "SUPPORTED_PROTOCOL_VERSIONS", "UNSUPPORTED_PROTOCOL_VERSION", "URL_ELICITATION_REQUIRED",
    *_OWNER,
]


_SUBMODULES = frozenset({"methods"})


def __getattr__(name: str) -> Any:
    module = _OWNER.get(name)
    if module is None:
        if name in _SUBMODULES:
            return importlib.import_module(f"mcp.types.{name}")
        raise AttributeError(f"module 'mcp.types' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"mcp.types.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from mcp.types import methods as methods
    from mcp.types._base import MCPModel as MCPModel
    from mcp.types._common import *  # noqa: F403
    from mcp.types._completion import *  # noqa: F403
    from mcp.types._content import *  # noqa: F403
    from mcp.types._elicitation import *  # noqa: F403
    from mcp.types._errors import *  # noqa: F403
    from mcp.types._form_schema import *  # noqa: F403
    from mcp.types._input_required import *  # noqa: F403
    from mcp.types._lifecycle import *  # noqa: F403
    from mcp.types._logging import *  # noqa: F403
    from mcp.types._messages import *  # noqa: F403
    from mcp.types._notifications import *  # noqa: F403
    from mcp.types._prompts import *  # noqa: F403
    from mcp.types._resources import *  # noqa: F403
    from mcp.types._roots import *  # noqa: F403
    from mcp.types._sampling import *  # noqa: F403
    from mcp.types._subscriptions import *  # noqa: F403
    from mcp.types._tasks import *  # noqa: F403
    from mcp.types._tools import *  # noqa: F403
    from mcp.types._unions import *  # noqa: F403
