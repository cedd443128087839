"""The message unions of each direction, across every revision, and their `TypeAdapter`s.

Requests and notifications are told apart by `method`. Results carry no tag (bar 2026-07-28's
`resultType`), so a result is recognised by its one required member (`tools`, `contents`...),
and anything unrecognised is an `EmptyResult`. Which revision allows which member is recorded in
`mcp.types.methods`, not enforced here. The adapters build on first use.
"""

from __future__ import annotations

from typing import Annotated, Any, cast

from pydantic import Discriminator, Field, Tag, TypeAdapter

from mcp.types._base import DEFERRED
from mcp.types._common import EmptyResult
from mcp.types._completion import CompleteRequest, CompleteResult
from mcp.types._elicitation import ElicitCompleteNotification, ElicitRequest, ElicitResult
from mcp.types._input_required import InputRequiredResult
from mcp.types._lifecycle import (
    DiscoverRequest,
    DiscoverResult,
    InitializedNotification,
    InitializeRequest,
    InitializeResult,
    PingRequest,
)
from mcp.types._logging import LoggingMessageNotification, SetLevelRequest
from mcp.types._notifications import CancelledNotification, ProgressNotification
from mcp.types._prompts import (
    GetPromptRequest,
    GetPromptResult,
    ListPromptsRequest,
    ListPromptsResult,
    PromptListChangedNotification,
)
from mcp.types._resources import (
    ListResourcesRequest,
    ListResourcesResult,
    ListResourceTemplatesRequest,
    ListResourceTemplatesResult,
    ReadResourceRequest,
    ReadResourceResult,
    ResourceListChangedNotification,
    ResourceUpdatedNotification,
    SubscribeRequest,
    UnsubscribeRequest,
)
from mcp.types._roots import ListRootsRequest, ListRootsResult, RootsListChangedNotification
from mcp.types._sampling import CreateMessageRequest, CreateMessageResult
from mcp.types._subscriptions import SubscriptionsAcknowledgedNotification, SubscriptionsListenRequest
from mcp.types._tasks import (
    CancelTaskRequest,
    CreateTaskResult,
    GetTaskPayloadRequest,
    GetTaskRequest,
    GetTaskResult,
    ListTasksRequest,
    ListTasksResult,
    TaskStatusNotification,
)
from mcp.types._tools import (
    CallToolRequest,
    CallToolResult,
    ListToolsRequest,
    ListToolsResult,
    ToolListChangedNotification,
)

__all__ = [
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
]

ClientRequest = Annotated[
    PingRequest
    | InitializeRequest
    | DiscoverRequest
    | CompleteRequest
    | SetLevelRequest
    | GetPromptRequest
    | ListPromptsRequest
    | ListResourcesRequest
    | ListResourceTemplatesRequest
    | ReadResourceRequest
    | SubscribeRequest
    | UnsubscribeRequest
    | SubscriptionsListenRequest
    | CallToolRequest
    | ListToolsRequest
    | GetTaskRequest
    | GetTaskPayloadRequest
    | CancelTaskRequest
    | ListTasksRequest,
    Field(discriminator="method"),
]
"""Every request a client may send, in any revision."""

ServerRequest = Annotated[
    PingRequest
    | CreateMessageRequest
    | ListRootsRequest
    | ElicitRequest
    | GetTaskRequest
    | GetTaskPayloadRequest
    | CancelTaskRequest
    | ListTasksRequest,
    Field(discriminator="method"),
]
"""Every standalone request a server may send (none on 2026-07-28, where they ride in results)."""

ClientNotification = Annotated[
    CancelledNotification
    | ProgressNotification
    | InitializedNotification
    | RootsListChangedNotification
    | TaskStatusNotification,
    Field(discriminator="method"),
]

ServerNotification = Annotated[
    CancelledNotification
    | ProgressNotification
    | LoggingMessageNotification
    | ResourceUpdatedNotification
    | ResourceListChangedNotification
    | ToolListChangedNotification
    | PromptListChangedNotification
    | ElicitCompleteNotification
    | SubscriptionsAcknowledgedNotification
    | TaskStatusNotification,
    Field(discriminator="method"),
]

# A result is recognised by the first of these members it has (wire or Python spelling).
_SERVER_RESULT_KEYS = (
    ("protocolVersion", "InitializeResult"),
    ("protocol_version", "InitializeResult"),
    ("supportedVersions", "DiscoverResult"),
    ("supported_versions", "DiscoverResult"),
    ("completion", "CompleteResult"),
    ("messages", "GetPromptResult"),
    ("prompts", "ListPromptsResult"),
    ("resources", "ListResourcesResult"),
    ("resourceTemplates", "ListResourceTemplatesResult"),
    ("resource_templates", "ListResourceTemplatesResult"),
    ("contents", "ReadResourceResult"),
    ("content", "CallToolResult"),
    ("tools", "ListToolsResult"),
    ("tasks", "ListTasksResult"),
    ("task", "CreateTaskResult"),
    ("taskId", "GetTaskResult"),
    ("task_id", "GetTaskResult"),
)
_CLIENT_RESULT_KEYS = (
    ("action", "ElicitResult"),
    ("roots", "ListRootsResult"),
    ("model", "CreateMessageResult"),
    ("tasks", "ListTasksResult"),
    ("task", "CreateTaskResult"),
    ("taskId", "GetTaskResult"),
    ("task_id", "GetTaskResult"),
)


def _tag_of_instance(value: Any) -> str:
    for cls in type(value).__mro__:
        if cls.__name__ in _RESULT_CLASS_NAMES and cls.__module__.startswith("mcp.types."):
            return cls.__name__
    return "EmptyResult"


def _server_result_kind(raw: Any) -> str:
    if not isinstance(raw, dict):
        return _tag_of_instance(raw)
    value = cast("dict[str, Any]", raw)
    if value.get("resultType") == "input_required" or value.get("result_type") == "input_required":
        return "InputRequiredResult"
    return next((tag for key, tag in _SERVER_RESULT_KEYS if key in value), "EmptyResult")


def _client_result_kind(value: Any) -> str:
    if not isinstance(value, dict):
        return _tag_of_instance(value)
    return next((tag for key, tag in _CLIENT_RESULT_KEYS if key in value), "EmptyResult")


ServerResult = Annotated[
    Annotated[InitializeResult, Tag("InitializeResult")]
    | Annotated[DiscoverResult, Tag("DiscoverResult")]
    | Annotated[CompleteResult, Tag("CompleteResult")]
    | Annotated[GetPromptResult, Tag("GetPromptResult")]
    | Annotated[ListPromptsResult, Tag("ListPromptsResult")]
    | Annotated[ListResourcesResult, Tag("ListResourcesResult")]
    | Annotated[ListResourceTemplatesResult, Tag("ListResourceTemplatesResult")]
    | Annotated[ReadResourceResult, Tag("ReadResourceResult")]
    | Annotated[CallToolResult, Tag("CallToolResult")]
    | Annotated[ListToolsResult, Tag("ListToolsResult")]
    | Annotated[InputRequiredResult, Tag("InputRequiredResult")]
    | Annotated[ListTasksResult, Tag("ListTasksResult")]
    | Annotated[CreateTaskResult, Tag("CreateTaskResult")]
    | Annotated[GetTaskResult, Tag("GetTaskResult")]
    | Annotated[EmptyResult, Tag("EmptyResult")],
    Discriminator(_server_result_kind),
]
"""Every result a server may answer with; unrecognised shapes (ping, listen end...) are `EmptyResult`."""

ClientResult = Annotated[
    Annotated[CreateMessageResult, Tag("CreateMessageResult")]
    | Annotated[ListRootsResult, Tag("ListRootsResult")]
    | Annotated[ElicitResult, Tag("ElicitResult")]
    | Annotated[ListTasksResult, Tag("ListTasksResult")]
    | Annotated[CreateTaskResult, Tag("CreateTaskResult")]
    | Annotated[GetTaskResult, Tag("GetTaskResult")]
    | Annotated[EmptyResult, Tag("EmptyResult")],
    Discriminator(_client_result_kind),
]
"""Every result a client may answer with; unrecognised shapes are `EmptyResult`."""

_RESULT_CLASS_NAMES = frozenset(
    {tag for _, tag in _SERVER_RESULT_KEYS}
    | {tag for _, tag in _CLIENT_RESULT_KEYS}
    | {"InputRequiredResult", "EmptyResult"}
)

client_request_adapter: TypeAdapter[ClientRequest] = TypeAdapter(ClientRequest, config=DEFERRED)
client_notification_adapter: TypeAdapter[ClientNotification] = TypeAdapter(
    ClientNotification, config=DEFERRED
)
client_result_adapter: TypeAdapter[ClientResult] = TypeAdapter(ClientResult, config=DEFERRED)
server_request_adapter: TypeAdapter[ServerRequest] = TypeAdapter(ServerRequest, config=DEFERRED)
server_notification_adapter: TypeAdapter[ServerNotification] = TypeAdapter(
    ServerNotification, config=DEFERRED
)
server_result_adapter: TypeAdapter[ServerResult] = TypeAdapter(ServerResult, config=DEFERRED)
