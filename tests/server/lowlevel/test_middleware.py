"""`server.middleware`: composed outermost first; sees every message; can observe, refuse,
rewrite or answer."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from mcp import Client, MCPError
from mcp.server import MCPServer, ServerRequestContext
from mcp.types import CallToolResult, TextContent

pytestmark = pytest.mark.anyio


def make_server() -> MCPServer:
    mcp = MCPServer("mw")

    @mcp.tool()
    def echo(text: str) -> str:
        return text

    return mcp


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_middleware_sees_every_message_in_order_outermost_first(mode: str) -> None:
    mcp = make_server()
    trail: list[str] = []

    def recorder(tag: str) -> Any:
        async def middleware(ctx: ServerRequestContext, call_next: Any) -> Any:
            trail.append(f"{tag}>{ctx.method}")
            try:
                return await call_next(ctx)
            finally:
                trail.append(f"{tag}<{ctx.method}")

        return middleware

    mcp.middleware.extend([recorder("outer"), recorder("inner")])
    async with Client(mcp, mode=mode) as client:
        await client.call_tool("echo", {"text": "x"})
        with pytest.raises(MCPError):
            await client.session.send_request_raw("no/such", None)
    handshake = "initialize" if mode == "legacy" else "server/discover"
    assert trail[:4] == [f"outer>{handshake}", f"inner>{handshake}", f"inner<{handshake}", f"outer<{handshake}"]
    if mode == "legacy":
        assert "outer>notifications/initialized" in trail
    assert "outer>tools/call" in trail and trail.index("outer>tools/call") < trail.index("inner>tools/call")
    assert "outer>no/such" in trail and "inner<no/such" in trail


async def test_middleware_can_refuse_a_request() -> None:
    mcp = make_server()

    async def deny_tools(ctx: ServerRequestContext, call_next: Any) -> Any:
        if ctx.method == "tools/call":
            raise MCPError(-32001, "Forbidden by policy", {"tool": (ctx.params or {}).get("name")})
        return await call_next(ctx)

    mcp.middleware.append(deny_tools)
    async with Client(mcp) as client:
        with pytest.raises(MCPError) as info:
            await client.call_tool("echo", {"text": "x"})
    assert (info.value.code, info.value.message, info.value.data) == (-32001, "Forbidden by policy", {"tool": "echo"})


async def test_middleware_can_rewrite_params_and_answer_without_the_handler() -> None:
    mcp = make_server()

    async def rewrite(ctx: ServerRequestContext, call_next: Any) -> Any:
        if ctx.method == "tools/call" and ctx.params is not None:
            if ctx.params["name"] == "cached":
                return CallToolResult(content=[TextContent(text="from middleware")])
            ctx.params = {**ctx.params, "arguments": {"text": "rewritten"}}
        return await call_next(ctx)

    mcp.middleware.append(rewrite)
    async with Client(mcp) as client:
        assert (await client.call_tool("echo", {"text": "original"})).structured_content == {"result": "rewritten"}
        answered = await client.call_tool("cached", {})
        assert answered.content == [TextContent(text="from middleware")]


async def test_a_middleware_added_while_serving_takes_effect_on_the_next_request() -> None:
    mcp = make_server()
    seen = anyio.Event()

    async def late(ctx: ServerRequestContext, call_next: Any) -> Any:
        seen.set()
        return await call_next(ctx)

    async with Client(mcp) as client:
        await client.call_tool("echo", {"text": "before"})
        assert not seen.is_set()
        mcp.middleware.append(late)
        await client.call_tool("echo", {"text": "after"})
        assert seen.is_set()
