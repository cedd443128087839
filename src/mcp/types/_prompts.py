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
    Result,
    Role,
)
from mcp.types._content import ContentBlock
from mcp.types._input_required import InputResponseRequestParams
from mcp.types._messages import Notification, Request

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
    content: ContentBlock


class ListPromptsRequestParams(PaginatedRequestParams):
    pass


class ListPromptsRequest(Request[ListPromptsRequestParams | None, Literal["prompts/list"]]):
    method: Literal["prompts/list"] = "prompts/list"
    params: ListPromptsRequestParams | None = None


class ListPromptsResult(CacheableResult):
    prompts: list[Prompt]
    next_cursor: str | None = None


class GetPromptRequestParams(InputResponseRequestParams):
    name: str
    arguments: dict[str, str] | None = None


class GetPromptRequest(Request[GetPromptRequestParams, Literal["prompts/get"]]):
    name_param = "name"
    method: Literal["prompts/get"] = "prompts/get"
    params: GetPromptRequestParams


class GetPromptResult(Result):
    description: str | None = None
    messages: list[PromptMessage]


class PromptListChangedNotification(
    Notification[NotificationParams | None, Literal["notifications/prompts/list_changed"]]
):
    method: Literal["notifications/prompts/list_changed"] = "notifications/prompts/list_changed"
    params: NotificationParams | None = None
