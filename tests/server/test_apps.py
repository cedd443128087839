"""MCP Apps: UI-bound tools, ui:// HTML resources, negotiation and the rules enforced at startup."""

from __future__ import annotations

import pytest

from mcp import Client
from mcp.client import advertise
from mcp.server.apps import APP_MIME_TYPE, Apps, ResourceCsp, ResourcePermissions, client_supports_apps
from mcp.server.mcpserver import Context, MCPServer

pytestmark = pytest.mark.anyio


def clock_server() -> MCPServer:
    apps = Apps()

    @apps.tool(resource_uri="ui://clock/app.html", visibility=["model", "app"])
    def get_time(ctx: Context) -> str:
        """The time."""
        return "rich" if client_supports_apps(ctx) else "It is noon."

    apps.add_html_resource("ui://clock/app.html", "<html>clock</html>", csp=ResourceCsp(connect_domains=["a.example"]),
                           permissions=ResourcePermissions(clipboard_write=True))
    return MCPServer("clock", extensions=[apps])


async def test_an_app_tool_points_at_its_html_resource_and_degrades_without_the_extension() -> None:
    async with Client(clock_server()) as client:
        assert client.server_capabilities.extensions == {"io.modelcontextprotocol/ui": {}}
        tool = (await client.list_tools()).tools[0]
        assert tool.meta == {"ui": {"resourceUri": "ui://clock/app.html", "visibility": ["model", "app"]}}
        page = (await client.read_resource("ui://clock/app.html")).contents[0]
        assert page.mime_type == APP_MIME_TYPE and page.text == "<html>clock</html>"
        assert page.meta == {"ui": {"csp": {"connectDomains": ["a.example"]}, "permissions": {"clipboardWrite": {}}}}
        assert (await client.call_tool("get_time", {})).content[0].text == "It is noon."
    ui = advertise("io.modelcontextprotocol/ui", {"mimeTypes": [APP_MIME_TYPE]})
    async with Client(clock_server(), extensions=[ui]) as client:
        assert (await client.call_tool("get_time", {})).content[0].text == "rich"


def test_misconfigured_apps_fail_at_startup() -> None:
    apps = Apps()
    with pytest.raises(ValueError, match="ui://"):
        apps.tool(resource_uri="https://x")
    with pytest.raises(ValueError, match="owns _meta"):
        apps.tool(resource_uri="ui://x", meta={"ui": {}})

    @apps.tool(resource_uri="ui://missing.html")
    def orphan() -> str:
        return "x"

    with pytest.raises(ValueError, match="no such resource is registered"):
        MCPServer("x", extensions=[apps])
