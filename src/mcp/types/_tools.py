"""Tools: listing, calling, results."""

from __future__ import annotations

from typing import Any, Literal

from mcp.types._base import MCPModel, Meta, meta_field
from mcp.types._common import (
    BaseMetadata,
    CacheableResult,
    Icon,
    NotificationParams,
    PaginatedRequestParams,
    PaginatedResult,
    Result,
    ResultType,
)
from mcp.types._content import ContentBlockField
from mcp.types._input_required import InputResponseRequestParams
from mcp.types._messages import Notification, PaginatedRequest, Request
from mcp.types._tasks import TaskMetadata


class ToolAnnotations(MCPModel):
    title: str | None = None
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None


class ToolExecution(MCPModel):
    task_support: str | None = None


class Tool(BaseMetadata):
    description: str | None = None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    annotations: ToolAnnotations | None = None
    icons: list[Icon] | None = None
    execution: ToolExecution | None = None
    meta: Meta | None = meta_field()


ListToolsRequestParams = PaginatedRequestParams
"""The params of `tools/list`: the cursor."""


class ListToolsRequest(PaginatedRequest[Literal["tools/list"]]):
    method: Literal["tools/list"] = "tools/list"


class ListToolsResult(PaginatedResult, CacheableResult):
    tools: list[Tool]
    result_type: ResultType = "complete"


class CallToolRequestParams(InputResponseRequestParams):
    """`input_responses` and `request_state` (2026-07-28 retries) come from the base class."""

    name: str
    arguments: dict[str, Any] | None = None
    task: TaskMetadata | None = None
    """Task augmentation (2025-11-25 only)."""


class CallToolRequest(Request[CallToolRequestParams, Literal["tools/call"]]):
    method: Literal["tools/call"] = "tools/call"
    params: CallToolRequestParams


class CallToolResult(Result):
    """A tool's answer. A failure of the tool itself is a result with `is_error=True` (so the
    model can see it); an unknown tool or a protocol failure is an error response instead."""

    content: list[ContentBlockField]
    structured_content: Any = None
    """Any JSON value on 2026-07-28; a JSON object on 2025-06-18 and 2025-11-25."""
    is_error: bool = False
    result_type: ResultType = "complete"


class ToolListChangedNotification(
    Notification[NotificationParams | None, Literal["notifications/tools/list_changed"]]
):
    method: Literal["notifications/tools/list_changed"] = "notifications/tools/list_changed"
    params: NotificationParams | None = None
