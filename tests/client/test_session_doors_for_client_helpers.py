"""What `Client`, the response cache and `listen` read from a `ClientSession` through its public
doors: the stateless wire's `_meta` stamp, the extension claim for a result type, and a tool
listing absorbed without a round trip."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from mcp import Client
from mcp.client import ClientSession, ResultClaim
from mcp.client.transports import in_memory
from mcp.server import MCPServer, Server, ServerRequestContext
from mcp.types import CallToolRequestParams, CallToolResult, ListToolsResult, Result, Tool
from mcp.types.version import PROTOCOL_VERSION_META_KEY

pytestmark = pytest.mark.anyio


def plain_server() -> MCPServer:
    mcp = MCPServer("plain")

    @mcp.tool()
    def echo(text: str) -> str:
        return text

    return mcp


async def test_the_stateless_stamp_is_absent_in_the_handshake_era_and_names_the_version_after_discover() -> None:
    async with Client(plain_server(), mode="legacy") as client:
        assert client.session.modern_meta is None
    async with Client(plain_server()) as client:
        stamp = client.session.modern_meta
        assert stamp is not None and stamp[PROTOCOL_VERSION_META_KEY] == client.session.protocol_version


class Receipt(Result):
    result_type: Literal["receipt"] = "receipt"
    receipt_token: str


async def redeem(receipt: Receipt, ctx: Any) -> CallToolResult:
    return CallToolResult(content=[])


async def test_claim_for_names_the_declared_claim_on_the_stateless_wire_only() -> None:
    claim = ResultClaim[Any](result_type="receipt", model=Receipt, resolve=redeem)
    async with (
        in_memory(plain_server()._lowlevel_server) as (read, write),
        ClientSession(read, write, extensions={"com.example/shop": {}},
                      result_claims={"com.example/shop": [claim]}) as session,
    ):
        await session.initialize()
        assert session.claim_for("receipt") is None  # claims never arrive on the handshake-era wire
        await session.discover()
        assert session.claim_for("receipt") is claim
        assert session.claim_for("voucher") is None


async def test_a_listing_absorbed_without_a_round_trip_is_what_tool_results_are_checked_against() -> None:
    async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> CallToolResult:
        return CallToolResult(content=[], structured_content={"count": "many"})

    server = Server("unlisted", on_call_tool=call_tool)  # no tools/list: nothing declares a schema
    async with Client(server, mode="legacy") as client:
        session = client.session
        await session.call_tool("count", {})  # unchecked: the server lists no tools
        listing = ListToolsResult(tools=[Tool(name="count", input_schema={"type": "object"}, output_schema={
            "type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]})])
        assert session.absorb_tool_listing(listing) is listing
        with pytest.raises(RuntimeError, match=r"^Invalid structured content returned by tool count"):
            await session.call_tool("count", {})
        session.absorb_tool_listing(ListToolsResult(tools=[]), complete=True)  # the whole set: count is gone
        await session.call_tool("count", {})
