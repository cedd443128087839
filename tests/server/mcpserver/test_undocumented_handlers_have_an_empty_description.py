"""A tool, prompt, resource or template whose function has no docstring is listed with the
description "" (what the official SDK lists, so `tool.description.startswith(...)` never meets None)."""

import pytest

from mcp import Client
from mcp.server import MCPServer

pytestmark = pytest.mark.anyio


def _server() -> MCPServer:
    server = MCPServer("bare")

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @server.prompt()
    def greet() -> str:
        return "hi"

    @server.resource("notes://today")
    def today() -> str:
        return "nothing"

    @server.resource("notes://{day}")
    def by_day(day: str) -> str:
        return day

    return server


async def test_undocumented_tools_prompts_resources_and_templates_list_an_empty_description() -> None:
    async with Client(_server()) as client:
        assert [t.description for t in (await client.list_tools()).tools] == [""]
        assert [p.description for p in (await client.list_prompts()).prompts] == [""]
        assert [r.description for r in (await client.list_resources()).resources] == [""]
        assert [t.description for t in (await client.list_resource_templates()).resource_templates] == [""]
