"""The public names of `mcp.types`: the official SDK v2's, resolvable, each owned by one module."""

from __future__ import annotations

import importlib
import typing

import pytest
from pydantic import BaseModel, TypeAdapter

import mcp.types as types

API_SURFACE_NAMES = [
    "CallToolRequestParams",
    "CallToolResult",
    "ClientCapabilities",
    "Completion",
    "CompletionArgument",
    "CompletionContext",
    "CreateMessageRequestParams",
    "CreateMessageResult",
    "ElicitRequest",
    "ElicitRequestFormParams",
    "ElicitRequestParams",
    "ElicitRequestURLParams",
    "ElicitResult",
    "ElicitationCapability",
    "EmbeddedResource",
    "INVALID_PARAMS",
    "Icon",
    "Implementation",
    "InputRequest",
    "InputRequiredResult",
    "InputResponse",
    "ListResourceTemplatesResult",
    "ListResourcesResult",
    "ListRootsResult",
    "ListToolsResult",
    "PaginatedRequestParams",
    "PromptReference",
    "ReadResourceRequestParams",
    "ReadResourceResult",
    "Request",
    "RequestParams",
    "Resource",
    "ResourceTemplate",
    "ResourceTemplateReference",
    "Result",
    "Root",
    "RootsCapability",
    "SamplingCapability",
    "SamplingMessage",
    "TextContent",
    "TextResourceContents",
    "Tool",
    "ToolAnnotations",
    "ImageContent",
    "AudioContent",
    "BlobResourceContents",
    "ResourceLink",
    "DiscoverResult",
    "SamplingToolsCapability",
    "SubscriptionFilter",
    "INVALID_REQUEST",
    "INTERNAL_ERROR",
    "SubscriptionsListenRequestParams",
    "SERVER_INFO_META_KEY",
]
"""The `mcp.types` / `mcp_types` names listed in api-surface.md section 2.2."""

OFFICIAL_V2_NAMES = [
    "LATEST_PROTOCOL_VERSION",
    "DEFAULT_NEGOTIATED_VERSION",
    "PROTOCOL_VERSION_META_KEY",
    "CLIENT_INFO_META_KEY",
    "CLIENT_CAPABILITIES_META_KEY",
    "LOG_LEVEL_META_KEY",
    "ContentBlock",
    "ElicitRequestedSchema",
    "ElicitRequestParams",
    "IncludeContext",
    "InputRequest",
    "InputRequests",
    "InputResponse",
    "InputResponses",
    "LoggingLevel",
    "ProgressToken",
    "ResultType",
    "Role",
    "SamplingContent",
    "SamplingMessageContentBlock",
    "StopReason",
    "TaskStatus",
    "BaseMetadata",
    "Request",
    "Notification",
    "Result",
    "RequestParams",
    "RequestParamsMeta",
    "InputResponseRequestParams",
    "NotificationParams",
    "PaginatedRequest",
    "PaginatedRequestParams",
    "PaginatedResult",
    "CacheableResult",
    "EmptyResult",
    "ClientCapabilities",
    "ClientTasksCapability",
    "ClientTasksRequestsCapability",
    "CompletionsCapability",
    "ElicitationCapability",
    "FormElicitationCapability",
    "LoggingCapability",
    "PromptsCapability",
    "ResourcesCapability",
    "RootsCapability",
    "SamplingCapability",
    "SamplingContextCapability",
    "SamplingToolsCapability",
    "ServerCapabilities",
    "ServerTasksCapability",
    "ServerTasksRequestsCapability",
    "TasksCallCapability",
    "TasksCancelCapability",
    "TasksCreateElicitationCapability",
    "TasksCreateMessageCapability",
    "TasksElicitationCapability",
    "TasksListCapability",
    "TasksSamplingCapability",
    "TasksToolsCapability",
    "ToolsCapability",
    "UrlElicitationCapability",
    "Annotations",
    "AudioContent",
    "BlobResourceContents",
    "EmbeddedResource",
    "Icon",
    "IconTheme",
    "ImageContent",
    "ResourceContents",
    "ResourceLink",
    "TextContent",
    "TextResourceContents",
    "ToolResultContent",
    "ToolUseContent",
    "Completion",
    "CompletionArgument",
    "CompletionContext",
    "Implementation",
    "ModelHint",
    "ModelPreferences",
    "Prompt",
    "PromptArgument",
    "PromptMessage",
    "PromptReference",
    "Resource",
    "ResourceTemplate",
    "ResourceTemplateReference",
    "Root",
    "SamplingMessage",
    "SubscriptionFilter",
    "Task",
    "TaskMetadata",
    "RelatedTaskMetadata",
    "Tool",
    "ToolAnnotations",
    "ToolChoice",
    "ToolExecution",
    "CallToolRequest",
    "CallToolRequestParams",
    "CompleteRequest",
    "CompleteRequestParams",
    "CancelTaskRequest",
    "CancelTaskRequestParams",
    "CreateMessageRequest",
    "CreateMessageRequestParams",
    "DiscoverRequest",
    "ElicitRequest",
    "ElicitRequestFormParams",
    "ElicitRequestURLParams",
    "GetPromptRequest",
    "GetPromptRequestParams",
    "GetTaskPayloadRequest",
    "GetTaskPayloadRequestParams",
    "GetTaskRequest",
    "GetTaskRequestParams",
    "InitializeRequest",
    "InitializeRequestParams",
    "ListPromptsRequest",
    "ListResourcesRequest",
    "ListResourceTemplatesRequest",
    "ListRootsRequest",
    "ListTasksRequest",
    "ListToolsRequest",
    "PingRequest",
    "ReadResourceRequest",
    "ReadResourceRequestParams",
    "SetLevelRequest",
    "SetLevelRequestParams",
    "SubscribeRequest",
    "SubscribeRequestParams",
    "SubscriptionsListenRequest",
    "SubscriptionsListenRequestParams",
    "UnsubscribeRequest",
    "UnsubscribeRequestParams",
    "CallToolResult",
    "CancelTaskResult",
    "CompleteResult",
    "CreateMessageResult",
    "CreateMessageResultWithTools",
    "CreateTaskResult",
    "DiscoverResult",
    "ElicitResult",
    "ElicitationRequiredErrorData",
    "GetPromptResult",
    "GetTaskPayloadResult",
    "GetTaskResult",
    "InitializeResult",
    "InputRequiredResult",
    "ListPromptsResult",
    "ListResourcesResult",
    "ListResourceTemplatesResult",
    "ListRootsResult",
    "ListTasksResult",
    "ListToolsResult",
    "ReadResourceResult",
    "MissingRequiredClientCapabilityErrorData",
    "UnsupportedProtocolVersionErrorData",
    "CancelledNotification",
    "CancelledNotificationParams",
    "ElicitCompleteNotification",
    "ElicitCompleteNotificationParams",
    "InitializedNotification",
    "LoggingMessageNotification",
    "LoggingMessageNotificationParams",
    "ProgressNotification",
    "ProgressNotificationParams",
    "PromptListChangedNotification",
    "ResourceListChangedNotification",
    "ResourceUpdatedNotification",
    "ResourceUpdatedNotificationParams",
    "RootsListChangedNotification",
    "SubscriptionsAcknowledgedNotification",
    "SubscriptionsAcknowledgedNotificationParams",
    "TaskStatusNotification",
    "TaskStatusNotificationParams",
    "ToolListChangedNotification",
    "ClientNotification",
    "ClientRequest",
    "ClientResult",
    "ServerNotification",
    "ServerRequest",
    "ServerResult",
    "client_notification_adapter",
    "client_request_adapter",
    "client_result_adapter",
    "server_notification_adapter",
    "server_request_adapter",
    "server_result_adapter",
    "CONNECTION_CLOSED",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "JSONRPC_VERSION",
    "METHOD_NOT_FOUND",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "PARSE_ERROR",
    "REQUEST_TIMEOUT",
    "RESOURCE_NOT_FOUND",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "URL_ELICITATION_REQUIRED",
    "ErrorData",
    "JSONRPCError",
    "JSONRPCMessage",
    "JSONRPCNotification",
    "JSONRPCRequest",
    "JSONRPCResponse",
    "RequestId",
    "jsonrpc_message_adapter",
]
"""The public names of the official SDK v2's `mcp.types`."""


@pytest.mark.parametrize("name", API_SURFACE_NAMES + OFFICIAL_V2_NAMES)
def test_an_official_name_resolves_on_mcp_types(name: str) -> None:
    assert getattr(types, name) is not None
    assert name in types.__all__
    assert name in dir(types)


def test_the_public_submodules_are_reachable() -> None:
    assert importlib.import_module("mcp.types.methods") is types.methods
    assert types.jsonrpc.JSONRPC_VERSION == "2.0"
    assert types.version.LATEST_PROTOCOL_VERSION == "2026-07-28"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'NoSuchType'"):
        types.NoSuchType  # type: ignore[attr-defined]  # noqa: B018


def test_every_exported_name_lives_in_the_module_that_exports_it() -> None:
    for module_name, names in types._EXPORTS.items():
        module = importlib.import_module(f"mcp.types.{module_name}")
        exported = getattr(module, "__all__", None)
        if exported is not None:
            assert sorted(exported) == sorted(names), module_name
        for name in names:
            value = getattr(module, name)
            if isinstance(value, type) and issubclass(value, BaseModel) and value.__name__ == name:
                assert value.__module__ == f"mcp.types.{module_name}", name


def test_every_public_model_and_adapter_builds() -> None:
    for name in types.__all__:
        value = getattr(types, name)
        if isinstance(value, type) and issubclass(value, BaseModel):
            assert value.model_json_schema(), name
        elif isinstance(value, TypeAdapter):
            assert value.json_schema(), name


def test_unions_of_messages_list_every_typed_message_of_their_direction() -> None:
    def members(alias: object) -> set[str]:
        return {m.__name__ for m in typing.get_args(alias)}

    table = types.methods.METHODS.values()
    assert members(types.ClientRequest) == {
        i.message for i in table if i.kind == "request" and i.client_sends
    }
    assert members(types.ServerRequest) == {
        i.message for i in table if i.kind == "request" and i.server_sends
    }
    assert members(types.ClientNotification) == {
        i.message for i in table if i.kind == "notification" and i.client_sends
    }
    assert members(types.ServerNotification) == {
        i.message for i in table if i.kind == "notification" and i.server_sends
    }
