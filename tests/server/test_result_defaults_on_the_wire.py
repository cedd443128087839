"""Result defaults on the wire: what the official SDK sends, in the shape each revision allows."""

from __future__ import annotations

from typing import Any

import pytest

from mcp import Client
from mcp.server import CacheHint, MCPServer, Server
from mcp.types import CallToolResult, ListToolsResult, TextContent

pytestmark = pytest.mark.anyio


def _tools_server() -> MCPServer:
    mcp = MCPServer("defaults")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.tool()
    def built() -> CallToolResult:
        return CallToolResult(content=[TextContent(text="own")])

    return mcp


@pytest.mark.parametrize("name", ["add", "built"])
async def test_a_tool_result_says_is_error_false_on_every_revision_and_is_tagged_only_on_2026(name: str) -> None:
    mcp = _tools_server()
    async with Client(mcp) as client:
        raw = await client.session.send_request_raw("tools/call", {"name": name, "arguments": {"a": 1, "b": 2}})
        assert raw["isError"] is False and raw["resultType"] == "complete"
    async with Client(mcp, mode="legacy") as client:
        raw = await client.session.send_request_raw("tools/call", {"name": name, "arguments": {"a": 1, "b": 2}})
        assert raw["isError"] is False and "resultType" not in raw


async def test_a_result_model_left_at_its_cache_defaults_takes_the_configured_hint() -> None:
    async def as_model(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[])

    async def as_dict(ctx: Any, params: Any) -> dict[str, Any]:
        return {"tools": [], "cacheScope": "private"}

    hints = {"tools/list": CacheHint(ttl_ms=60_000, scope="public")}
    async with Client(Server("model", cache_hints=hints, on_list_tools=as_model)) as client:
        raw = await client.session.send_request_raw("tools/list", None)
        assert (raw["ttlMs"], raw["cacheScope"]) == (60_000, "public")
    async with Client(Server("dict", cache_hints=hints, on_list_tools=as_dict)) as client:
        raw = await client.session.send_request_raw("tools/list", None)
        assert (raw["ttlMs"], raw["cacheScope"]) == (60_000, "private")
    async with Client(Server("legacy", cache_hints=hints, on_list_tools=as_model), mode="legacy") as client:
        raw = await client.session.send_request_raw("tools/list", None)
        assert not {"ttlMs", "cacheScope", "resultType"} & set(raw)
