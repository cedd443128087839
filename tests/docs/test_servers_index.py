"""docs/servers/index.md: an `MCPServer` exposes the three primitives (tools for the model,
resources for the application, prompts for a person) plus completions, media and errors; the three
primitives are always declared, handlers or not."""

from __future__ import annotations

import pytest

from mcp import Client
from mcp.server import MCPServer

pytestmark = pytest.mark.anyio


async def test_an_empty_server_still_declares_the_three_primitives_and_nothing_optional() -> None:
    async with Client(MCPServer("Empty")) as client:
        caps = client.server_capabilities
        assert caps is not None
        assert caps.tools is not None and caps.resources is not None and caps.prompts is not None
        assert caps.completions is None
        assert (await client.list_tools()).tools == []
        assert (await client.list_resources()).resources == []
        assert (await client.list_prompts()).prompts == []


async def test_one_of_each_primitive_is_listed_where_its_user_finds_it() -> None:
    mcp = MCPServer("Three")

    @mcp.tool()
    def act() -> str:
        return "acted"

    @mcp.resource("data://fact")
    def fact() -> str:
        return "a fact"

    @mcp.prompt()
    def ask() -> str:
        return "a question"

    async with Client(mcp) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["act"]
        assert [str(r.uri) for r in (await client.list_resources()).resources] == ["data://fact"]
        assert [p.name for p in (await client.list_prompts()).prompts] == ["ask"]
        assert (await client.call_tool("act", {})).structured_content == {"result": "acted"}
        assert (await client.read_resource("data://fact")).contents[0].text == "a fact"  # type: ignore[union-attr]
        assert (await client.get_prompt("ask")).messages[0].role == "user"
