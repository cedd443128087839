"""Prompts: listing, getting (possibly over several rounds on 2026-07-28), change notifications."""

from __future__ import annotations

from typing import Literal

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
    Role,
)
from mcp.types._content import ContentBlockField
from mcp.types._input_required import InputResponseRequestParams
from mcp.types._messages import Notification, PaginatedRequest, Request

__all__ = [
    "GetPromptRequest",
    "GetPromptRequestParams",
    "GetPromptResult",
    "ListPromptsRequest",
    "ListPromptsRequestParams",
    "ListPromptsResult",
    "Prompt",
    "PromptArgument",
    "PromptListChangedNotification",
    "PromptMessage",
]


class PromptArgument(BaseMetadata):
    description: str | None = None
    required: bool | None = None


class Prompt(BaseMetadata):
    description: str | None = None
    arguments: list[PromptArgument] | None = None
    icons: list[Icon] | None = None
    meta: Meta | None = meta_field()


class PromptMessage(MCPModel):
    role: Role
    content: ContentBlockField


ListPromptsRequestParams = PaginatedRequestParams
"""The params of `prompts/list`: the cursor."""


class ListPromptsRequest(PaginatedRequest[Literal["prompts/list"]]):
    method: Literal["prompts/list"] = "prompts/list"


class ListPromptsResult(PaginatedResult, CacheableResult):
    prompts: list[Prompt]
    result_type: ResultType = "complete"


class GetPromptRequestParams(InputResponseRequestParams):
    name: str
    arguments: dict[str, str] | None = None


class GetPromptRequest(Request[GetPromptRequestParams, Literal["prompts/get"]]):
    method: Literal["prompts/get"] = "prompts/get"
    params: GetPromptRequestParams


class GetPromptResult(Result):
    description: str | None = None
    messages: list[PromptMessage]
    result_type: ResultType = "complete"


class PromptListChangedNotification(
    Notification[NotificationParams | None, Literal["notifications/prompts/list_changed"]]
):
    method: Literal["notifications/prompts/list_changed"] = "notifications/prompts/list_changed"
    params: NotificationParams | None = None
