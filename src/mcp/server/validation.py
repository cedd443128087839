"""Checks on sampling requests a server sends: tool use needs the client's `sampling.tools`
capability, and tool results must answer the tool uses just before them (SEP-1577)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import INVALID_PARAMS


def check_sampling_tools_capability(client_caps: Any) -> bool:
    """Whether the client declared `sampling.tools`."""
    sampling = getattr(client_caps, "sampling", None)
    return sampling is not None and getattr(sampling, "tools", None) is not None


def wants_sampling_tools(tools: Sequence[Any] | None, tool_choice: Any) -> bool:
    """Whether a sampling request is in tools mode (gated by `sampling.tools`)."""
    return tools is not None or tool_choice is not None


def validate_sampling_tools(client_caps: Any, tools: Sequence[Any] | None, tool_choice: Any) -> None:
    """Raise `MCPError` (invalid params) when tools are asked for but the client cannot use them."""
    if wants_sampling_tools(tools, tool_choice) and not check_sampling_tools_capability(client_caps):
        raise MCPError(INVALID_PARAMS, "Client does not support sampling tools capability")


def _blocks(message: Any) -> list[Any]:
    content: Any = message.content
    return list(cast("list[Any]", content)) if isinstance(content, list) else [content]


def validate_tool_use_result_messages(messages: Sequence[Any]) -> None:
    """Raise `ValueError` unless the last message's tool results (if any) are its only content and
    answer exactly the tool uses of the message before it."""
    if not messages:
        return
    last = _blocks(messages[-1])
    previous = _blocks(messages[-2]) if len(messages) >= 2 else None
    has_results = any(block.type == "tool_result" for block in last)
    previous_uses = previous is not None and any(block.type == "tool_use" for block in previous)
    if has_results:
        if any(block.type != "tool_result" for block in last):
            raise ValueError("The last message must contain only tool_result content if any is present")
        if previous is None:
            raise ValueError("tool_result requires a previous message containing tool_use")
        if not previous_uses:
            raise ValueError("tool_result blocks do not match any tool_use in the previous message")
    if previous_uses and previous is not None:
        use_ids = {block.id for block in previous if block.type == "tool_use"}
        result_ids = {block.tool_use_id for block in last if block.type == "tool_result"}
        if use_ids != result_ids:
            raise ValueError("ids of tool_result blocks and tool_use blocks from previous message do not match")
