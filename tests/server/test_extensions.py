"""Extensions (SEP-2133): identifiers, contributions, capabilities, vendor methods, interception,
client-side advertisement and result claims."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import Field

from mcp import Client, MCPError
from mcp.client import ClaimContext, ClientExtension, ResultClaim, advertise
from mcp.server.mcpserver import (
    Context,
    Extension,
    MCPServer,
    MethodBinding,
    ToolBinding,
    require_client_extension,
)
from mcp.types import CallToolResult, RequestParams, Result, TextContent

pytestmark = pytest.mark.anyio


def test_a_bad_identifier_fails_when_the_class_is_defined() -> None:
    with pytest.raises(TypeError, match=r"Stamps.identifier must be a `vendor-prefix/name` string"):

        class Stamps(Extension):  # pyright: ignore[reportUnusedClass]  # defined for the error it raises
            identifier = "stamps"


class SearchParams(RequestParams):
    query: str
    limit: int = Field(default=2, ge=1, le=100)


class SearchResult(Result):
    hits: list[str]


class Stamps(Extension):
    identifier = "com.example/stamps"

    def settings(self) -> dict[str, Any]:
        return {"ink": "blue"}

    def tools(self) -> list[ToolBinding]:
        def stamp(text: str) -> str:
            """Stamps a text."""
            return f"[{text}]"

        return [ToolBinding(stamp, meta={"com.example/kind": "stamp"})]

    def methods(self) -> list[MethodBinding]:
        async def search(ctx: Any, params: SearchParams) -> SearchResult:
            require_client_extension(ctx, self.identifier)
            return SearchResult(hits=[f"{params.query}-{i}" for i in range(params.limit)])

        return [MethodBinding("com.example/search", SearchParams, search, protocol_versions=frozenset({"2026-07-28"}))]

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        if params.name == "forbidden":
            raise MCPError(-32001, "Refused by the stamps extension")
        return await call_next(ctx)


def make_server() -> MCPServer:
    mcp = MCPServer("ext", extensions=[Stamps()])

    @mcp.tool()
    def forbidden() -> str:
        return "never"

    return mcp


async def test_an_extension_contributes_tools_and_is_advertised() -> None:
    async with Client(make_server()) as client:
        assert client.server_capabilities.extensions == {"com.example/stamps": {"ink": "blue"}}
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["stamp"].meta == {"com.example/kind": "stamp"}
        assert (await client.call_tool("stamp", {"text": "a"})).structured_content == {"result": "[a]"}


async def test_the_interceptor_can_refuse_a_tool_call() -> None:
    async with Client(make_server()) as client:
        with pytest.raises(MCPError, match="Refused by the stamps extension"):
            await client.call_tool("forbidden", {})


async def test_a_vendor_method_needs_the_client_extension_and_its_protocol_version() -> None:
    async with Client(make_server(), extensions=[advertise("com.example/stamps")]) as client:
        raw = await client.session.send_request_raw("com.example/search", {"query": "q"})
        assert raw["hits"] == ["q-0", "q-1"]
        with pytest.raises(MCPError) as invalid:
            await client.session.send_request_raw("com.example/search", {"query": "q", "limit": 1000})
        assert invalid.value.code == -32602
    async with Client(make_server()) as client:
        with pytest.raises(MCPError) as missing:
            await client.session.send_request_raw("com.example/search", {"query": "q"})
        assert missing.value.code == -32021
        assert missing.value.data == {"requiredCapabilities": {"extensions": {"com.example/stamps": {}}}}
    async with Client(make_server(), mode="legacy") as client:
        with pytest.raises(MCPError) as old:
            await client.session.send_request_raw("com.example/search", {"query": "q"})
        assert old.value.code == -32601


def test_binding_a_spec_method_or_no_version_is_refused() -> None:
    async def handler(ctx: Any, params: Any) -> Any:
        return None

    with pytest.raises(ValueError, match="cannot bind spec method"):
        MethodBinding("tools/list", RequestParams, handler)
    with pytest.raises(ValueError, match="empty protocol_versions"):
        MethodBinding("com.example/x", RequestParams, handler, protocol_versions=frozenset())


def test_two_extensions_binding_one_method_are_refused() -> None:
    class Other(Extension):
        identifier = "com.example/other"

        def methods(self) -> list[MethodBinding]:
            async def handler(ctx: Any, params: Any) -> Any:
                return None

            return [MethodBinding("com.example/search", RequestParams, handler)]

    with pytest.raises(ValueError, match="which is already registered"):
        MCPServer("x", extensions=[Stamps(), Other()])


class Receipt(Result):
    result_type: Literal["receipt"] = "receipt"
    receipt_token: str


class Receipts(ClientExtension):
    identifier = "com.example/receipts"

    def claims(self) -> list[ResultClaim]:
        async def redeem(receipt: Receipt, ctx: ClaimContext) -> CallToolResult:
            follow_up = await ctx.session.call_tool("redeem", {"token": receipt.receipt_token})
            return follow_up

        return [ResultClaim(result_type="receipt", model=Receipt, resolve=redeem)]


@pytest.mark.wire_invalid_ok({"result": {"resultType": "receipt"}},
                              reason="a claimed extension result shape is by design not a core CallToolResult")
async def test_a_claimed_result_shape_is_resolved_before_call_tool_returns() -> None:
    mcp = MCPServer("shop")

    @mcp.tool()
    def buy(ctx: Context) -> Any:
        return Receipt(receipt_token="tok-1")  # a vendor result shape the client claimed

    @mcp.tool()
    def redeem(token: str) -> str:
        return f"redeemed {token}"

    async with Client(mcp, extensions=[Receipts()]) as client:
        caps = client.session.capabilities(modern=True)
        assert caps.extensions == {"com.example/receipts": {}}
        result = await client.call_tool("buy", {})
    assert result.content == [TextContent(text="redeemed tok-1")]


@pytest.mark.wire_invalid_ok({"method": "tools/call", "params": {"arguments": {}}},
                              reason="the test sends a tools/call without a name on purpose")
async def test_a_malformed_tools_call_is_invalid_params_even_with_an_interceptor() -> None:
    async with Client(make_server()) as client:
        with pytest.raises(MCPError) as info:
            await client.session.send_request_raw("tools/call", {"arguments": {}})
    assert info.value.code == -32602


def test_an_identifier_set_in_init_is_checked_when_the_server_applies_the_extension() -> None:
    class PerInstance(Extension):
        def __init__(self, identifier: str) -> None:
            self.identifier = identifier

    server = MCPServer("ids", extensions=[PerInstance("com.example/one")])
    assert "com.example/one" in server._lowlevel_server.extensions
    with pytest.raises(TypeError, match=r"PerInstance.identifier must be"):
        MCPServer("ids", extensions=[PerInstance("bad")])


async def test_call_next_returns_the_tools_call_tool_result() -> None:
    seen: list[Any] = []

    class Observer(Extension):
        identifier = "com.example/observer"

        async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
            result = await call_next(ctx)
            seen.append(result)
            return result

    server = MCPServer("observed", extensions=[Observer()])

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    async with Client(server) as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})
    assert result.structured_content == {"result": 3}
    assert len(seen) == 1 and isinstance(seen[0], CallToolResult)
    assert seen[0].structured_content == {"result": 3}
