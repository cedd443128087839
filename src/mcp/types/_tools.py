"""Tools: listing, calling, results."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mcp.types._base import MCPModel, Meta, meta_field
from mcp.types._common import CacheableResult, Icon, NotificationParams, PaginatedRequestParams, Result
from mcp.types._content import ContentBlock
from mcp.types._input_required import InputResponseRequestParams
from mcp.types._messages import Notification, Request
from mcp.types._tasks import TaskMetadata


class ToolAnnotations(MCPModel):
    title: str | None = None
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None


class ToolExecution(MCPModel):
    task_support: str | None = None


class Tool(MCPModel):
    name: str
    title: str | None = None
    description: str | None = None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    annotations: ToolAnnotations | None = None
    icons: list[Icon] | None = None
    execution: ToolExecution | None = None
    meta: Meta | None = meta_field()


class ListToolsRequestParams(PaginatedRequestParams):
    pass


class ListToolsRequest(Request[ListToolsRequestParams | None, Literal["tools/list"]]):
    method: Literal["tools/list"] = "tools/list"
    params: ListToolsRequestParams | None = None


class ListToolsResult(CacheableResult):
    tools: list[Tool]
    next_cursor: str | None = None


class CallToolRequestParams(InputResponseRequestParams):
    """`input_responses` and `request_state` (2026-07-28 retries) come from the base class."""

    name: str
    arguments: dict[str, Any] | None = None
    task: TaskMetadata | None = None
    """Task augmentation (2025-11-25 only)."""


class CallToolRequest(Request[CallToolRequestParams, Literal["tools/call"]]):
    name_param = "name"
    method: Literal["tools/call"] = "tools/call"
    params: CallToolRequestParams


class CallToolResult(Result):
    content: list[ContentBlock] = Field(default_factory=list)  # pyright: ignore[reportUnknownVariableType]
    structured_content: Any = None
    is_error: bool | None = None


class ToolListChangedNotification(
    Notification[NotificationParams | None, Literal["notifications/tools/list_changed"]]
):
    method: Literal["notifications/tools/list_changed"] = "notifications/tools/list_changed"
    params: NotificationParams | None = None
