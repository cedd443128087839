"""docs/advanced/index.md: the escape hatches it lists exist where it says: the low-level
`Server` (`on_*` handlers, custom methods), pagination and middleware on it, extensions and MCP
Apps composed into a server."""

from __future__ import annotations

import pytest

from mcp import Client
from mcp.server import MCPServer, Server
from mcp.server.apps import Apps
from mcp.server.extension import Extension

pytestmark = pytest.mark.anyio


def test_the_low_level_server_takes_handlers_as_constructor_parameters() -> None:
    async def handler(ctx: object, params: object) -> dict[str, object]:
        return {}

    server = Server("x", on_list_tools=handler, on_call_tool=handler, on_list_resources=handler)
    assert {"tools/list", "tools/call", "resources/list"} <= {
        method for method in ("tools/list", "tools/call", "resources/list") if server.get_request_handler(method)}
    assert callable(Server("x").add_request_handler)
    assert isinstance(Server("x").middleware, list)


async def test_mcpserver_is_built_on_the_low_level_server_and_composes_extensions() -> None:
    apps = Apps()
    mcp = MCPServer("Composed", extensions=[apps])
    assert isinstance(mcp._lowlevel_server, Server)  # pyright: ignore[reportPrivateUsage]
    assert issubclass(Apps, Extension)
    async with Client(mcp) as client:
        assert client.server_capabilities.extensions == {"io.modelcontextprotocol/ui": {}}
