"""The message unions of each direction, across every revision, and their `TypeAdapter`s.

Each is a plain union, as in the official SDK, so `isinstance(x, ServerRequest)` works and the
adapters pick the member a value fits best (requests and notifications by their `method` literal,
results by the members they carry; an unrecognised result is an `EmptyResult`). The 2025-11-25
task messages come after the official members. Which revision allows which member is recorded in
`mcp.types.methods`, not enforced here. The adapters build on first use.
"""

from __future__ import annotations

from pydantic import TypeAdapter

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
from mcp.types._sampling import CreateMessageRequest, CreateMessageResult, CreateMessageResultWithTools
from mcp.types._subscriptions import (
    SubscriptionsAcknowledgedNotification,
    SubscriptionsListenRequest,
    SubscriptionsListenResult,
)
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

ClientRequest = (
    PingRequest
    | InitializeRequest
    | CompleteRequest
    | SetLevelRequest
    | GetPromptRequest
    | ListPromptsRequest
    | ListResourcesRequest
    | ListResourceTemplatesRequest
    | ReadResourceRequest
    | SubscribeRequest
    | UnsubscribeRequest
    | CallToolRequest
    | ListToolsRequest
    | DiscoverRequest
    | SubscriptionsListenRequest
    | GetTaskRequest
    | GetTaskPayloadRequest
    | CancelTaskRequest
    | ListTasksRequest
)
"""Every request a client may send, in any revision."""

ServerRequest = (
    PingRequest
    | CreateMessageRequest
    | ListRootsRequest
    | ElicitRequest
    | GetTaskRequest
    | GetTaskPayloadRequest
    | CancelTaskRequest
    | ListTasksRequest
)
"""Every standalone request a server may send (none on 2026-07-28, where they ride in results)."""

ClientNotification = (
    CancelledNotification
    | ProgressNotification
    | InitializedNotification
    | RootsListChangedNotification
    | TaskStatusNotification
)
"""Every notification a client may send."""

ServerNotification = (
    CancelledNotification
    | ProgressNotification
    | LoggingMessageNotification
    | ResourceUpdatedNotification
    | ResourceListChangedNotification
    | ToolListChangedNotification
    | PromptListChangedNotification
    | ElicitCompleteNotification
    | SubscriptionsAcknowledgedNotification
    | TaskStatusNotification
)
"""Every notification a server may send."""

ServerResult = (
    EmptyResult
    | InitializeResult
    | DiscoverResult
    | CompleteResult
    | GetPromptResult
    | ListPromptsResult
    | ListResourcesResult
    | ListResourceTemplatesResult
    | ReadResourceResult
    | CallToolResult
    | ListToolsResult
    | SubscriptionsListenResult
    | ListTasksResult
    | CreateTaskResult
    | GetTaskResult
    | InputRequiredResult
)
"""Every result a server may answer with. `InputRequiredResult` (both fields optional) comes last so
it does not shadow the others."""

ClientResult = (
    EmptyResult
    | CreateMessageResult
    | CreateMessageResultWithTools
    | ListRootsResult
    | ElicitResult
    | ListTasksResult
    | CreateTaskResult
    | GetTaskResult
)
"""Every result a client may answer with; a sampling answer holding tool use is
`CreateMessageResultWithTools`."""

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
