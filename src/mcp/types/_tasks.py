"""Tasks (2025-11-25 only): task-augmented requests, the `tasks/*` methods, their capabilities.

2026-07-28 dropped tasks from the core protocol (they continue as an extension), so these types
are modelled for the handshake-era wire and for extensions that reuse them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from mcp.types._base import MCPModel
from mcp.types._common import NotificationParams, PaginatedResult, RequestParams, Result
from mcp.types._messages import Notification, PaginatedRequest, Request

__all__ = [
    "CancelTaskRequest",
    "CancelTaskRequestParams",
    "CancelTaskResult",
    "ClientTasksCapability",
    "ClientTasksRequestsCapability",
    "CreateTaskResult",
    "GetTaskPayloadRequest",
    "GetTaskPayloadRequestParams",
    "GetTaskPayloadResult",
    "GetTaskRequest",
    "GetTaskRequestParams",
    "GetTaskResult",
    "ListTasksRequest",
    "ListTasksResult",
    "RelatedTaskMetadata",
    "ServerTasksCapability",
    "ServerTasksRequestsCapability",
    "Task",
    "TaskAugmentedRequestParams",
    "TaskMetadata",
    "TaskStatus",
    "TaskStatusNotification",
    "TaskStatusNotificationParams",
    "TasksCallCapability",
    "TasksCancelCapability",
    "TasksCreateElicitationCapability",
    "TasksCreateMessageCapability",
    "TasksElicitationCapability",
    "TasksListCapability",
    "TasksSamplingCapability",
    "TasksToolsCapability",
]

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]


class TaskMetadata(MCPModel):
    """The `task` member of a task-augmented request's params."""

    ttl: int | None = None


class RelatedTaskMetadata(MCPModel):
    """What `_meta["io.modelcontextprotocol/related-task"]` holds."""

    task_id: str


class TaskAugmentedRequestParams(RequestParams):
    task: TaskMetadata | None = None


class Task(MCPModel):
    task_id: str
    status: TaskStatus
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl: int | None
    """Retention in milliseconds; `None` (sent as `null`, never dropped) means unlimited."""
    poll_interval: int | None = None

    @model_serializer(mode="wrap")
    def _keep_null_ttl(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        out.setdefault("ttl", None)
        return out


class CreateTaskResult(Result):
    """The answer to a task-augmented request: the task that will produce the real result."""

    task: Task


class GetTaskRequestParams(RequestParams):
    task_id: str


class GetTaskRequest(Request[GetTaskRequestParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: GetTaskRequestParams


class GetTaskResult(Result, Task):
    pass


class GetTaskPayloadRequestParams(RequestParams):
    task_id: str


class GetTaskPayloadRequest(Request[GetTaskPayloadRequestParams, Literal["tasks/result"]]):
    method: Literal["tasks/result"] = "tasks/result"
    params: GetTaskPayloadRequestParams


class GetTaskPayloadResult(Result):
    """The finished task's result. Its fields are those of the original request's result, which this
    model does not keep: validate the answer as that result type (e.g. `CallToolResult`) instead."""


class CancelTaskRequestParams(RequestParams):
    task_id: str


class CancelTaskRequest(Request[CancelTaskRequestParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: CancelTaskRequestParams


class CancelTaskResult(Result, Task):
    pass


class ListTasksRequest(PaginatedRequest[Literal["tasks/list"]]):
    method: Literal["tasks/list"] = "tasks/list"


class ListTasksResult(PaginatedResult):
    tasks: list[Task]


class TaskStatusNotificationParams(NotificationParams, Task):
    pass


class TaskStatusNotification(
    Notification[TaskStatusNotificationParams, Literal["notifications/tasks/status"]]
):
    method: Literal["notifications/tasks/status"] = "notifications/tasks/status"
    params: TaskStatusNotificationParams


class TasksListCapability(MCPModel):
    pass


class TasksCancelCapability(MCPModel):
    pass


class TasksCreateMessageCapability(MCPModel):
    pass


class TasksSamplingCapability(MCPModel):
    create_message: TasksCreateMessageCapability | None = None


class TasksCreateElicitationCapability(MCPModel):
    pass


class TasksElicitationCapability(MCPModel):
    create: TasksCreateElicitationCapability | None = None


class ClientTasksRequestsCapability(MCPModel):
    sampling: TasksSamplingCapability | None = None
    elicitation: TasksElicitationCapability | None = None


class ClientTasksCapability(MCPModel):
    """`ClientCapabilities.tasks`."""

    list: TasksListCapability | None = None
    cancel: TasksCancelCapability | None = None
    requests: ClientTasksRequestsCapability | None = None


class TasksCallCapability(MCPModel):
    pass


class TasksToolsCapability(MCPModel):
    call: TasksCallCapability | None = None


class ServerTasksRequestsCapability(MCPModel):
    tools: TasksToolsCapability | None = None


class ServerTasksCapability(MCPModel):
    """`ServerCapabilities.tasks`."""

    list: TasksListCapability | None = None
    cancel: TasksCancelCapability | None = None
    requests: ServerTasksRequestsCapability | None = None
