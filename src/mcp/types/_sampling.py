"""Sampling: a server asks the client's LLM for a completion (`sampling/createMessage`).

A server->client request through 2025-11-25; on 2026-07-28 it rides inside an
`InputRequiredResult`. Tool use in sampling (tools, tool_choice, tool_use/tool_result blocks) is
2025-11-25+. Deprecated in 2026-07-28.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import GetCoreSchemaHandler
from pydantic_core import CoreSchema

from mcp.types._base import MCPModel, Meta, meta_field
from mcp.types._common import RequestParams, Result, Role
from mcp.types._content import AudioContent, ImageContent, TextContent, ToolResultContent, ToolUseContent
from mcp.types._messages import Request
from mcp.types._tasks import TaskMetadata

if TYPE_CHECKING:
    from mcp.types._tools import Tool
else:

    class Tool:
        """Stands for `mcp.types.Tool` until the first model build, which imports `_tools`.

        `_tools` imports this module (through `_input_required`), so importing it here would be
        a cycle; resolving it when a validator is first built is not.
        """

        @classmethod
        def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
            from mcp.types._tools import Tool

            return handler(Tool)


__all__ = [
    "CreateMessageRequest",
    "CreateMessageRequestParams",
    "CreateMessageResult",
    "CreateMessageResultWithTools",
    "IncludeContext",
    "ModelHint",
    "ModelPreferences",
    "SamplingContent",
    "SamplingMessage",
    "SamplingMessageContentBlock",
    "StopReason",
    "ToolChoice",
]

IncludeContext = Literal["none", "thisServer", "allServers"]
"""Which servers' context the client should attach; the non-"none" values are deprecated."""

StopReason = Literal["endTurn", "stopSequence", "maxTokens", "toolUse"] | str
"""Why sampling stopped; open to provider-specific reasons."""

SamplingContent = TextContent | ImageContent | AudioContent
"""A single content block of a plain (tool-less) sampling exchange."""

SamplingMessageContentBlock = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent
"""Any content block a sampling message may carry."""


class SamplingMessage(MCPModel):
    role: Role
    content: SamplingMessageContentBlock | list[SamplingMessageContentBlock]
    meta: Meta | None = meta_field()

    @property
    def content_as_list(self) -> list[SamplingMessageContentBlock]:
        """The content as a list, whether one block or several were sent."""
        return self.content if isinstance(self.content, list) else [self.content]


class ModelHint(MCPModel):
    name: str | None = None
    """A substring of a model name the client should prefer."""


class ModelPreferences(MCPModel):
    hints: list[ModelHint] | None = None
    cost_priority: float | None = None
    """0 (cost does not matter) to 1 (cost matters most); the range is advisory, not enforced."""
    speed_priority: float | None = None
    intelligence_priority: float | None = None


class ToolChoice(MCPModel):
    mode: Literal["auto", "required", "none"] | None = None
    """Absent means "auto"."""


class CreateMessageRequestParams(RequestParams):
    messages: list[SamplingMessage]
    model_preferences: ModelPreferences | None = None
    system_prompt: str | None = None
    include_context: IncludeContext | None = None
    temperature: float | None = None
    max_tokens: int
    stop_sequences: list[str] | None = None
    metadata: dict[str, Any] | None = None
    tools: list[Tool] | None = None
    tool_choice: ToolChoice | None = None
    task: TaskMetadata | None = None
    """Task augmentation (2025-11-25 only)."""


class CreateMessageRequest(Request[CreateMessageRequestParams, Literal["sampling/createMessage"]]):
    method: Literal["sampling/createMessage"] = "sampling/createMessage"
    params: CreateMessageRequestParams


class CreateMessageResult(Result):
    """The sampled message, for a request without tools: one text, image or audio block."""

    role: Role
    content: SamplingContent
    model: str
    stop_reason: StopReason | None = None


class CreateMessageResultWithTools(Result):
    """The sampled message when tools were in play (2025-11-25+): one block or a list, which may
    hold tool-use blocks (`stop_reason` "toolUse")."""

    role: Role
    content: SamplingMessageContentBlock | list[SamplingMessageContentBlock]
    model: str
    stop_reason: StopReason | None = None

    @property
    def content_as_list(self) -> list[SamplingMessageContentBlock]:
        """The content as a list, whether one block or several were sent."""
        return self.content if isinstance(self.content, list) else [self.content]
