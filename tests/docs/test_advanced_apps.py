"""docs/advanced/apps.md: an MCP App is a tool stamped with `_meta.ui.resourceUri` plus a `ui://`
HTML resource; the server advertises `io.modelcontextprotocol/ui`; CSP, permissions, domain and
border ride the resource's `_meta.ui`; misconfigurations fail at startup."""

from __future__ import annotations

from typing import Any

import pytest

from mcp import Client
from mcp.client import advertise
from mcp.server.apps import (
    APP_MIME_TYPE,
    EXTENSION_ID,
    Apps,
    ResourceCsp,
    ResourcePermissions,
    client_supports_apps,
)
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resources import TextResource
from mcp.types import TextContent, TextResourceContents

pytestmark = pytest.mark.anyio

PAGE = "<!doctype html><title>Weather</title><p id='out'></p>"


def weather_app() -> MCPServer:
    apps = Apps()

    @apps.tool(resource_uri="ui://weather/view.html", description="Today's weather.", meta={"acme/x": 1})
    def forecast(ctx: Context) -> str:
        if not client_supports_apps(ctx):
            return "Sunny, 21 degrees in Lisbon."
        return "sunny:21"

    @apps.tool(resource_uri="ui://weather/view.html", visibility=["app"])
    def refresh() -> str:
        """Refresh the view."""
        return "refreshed"

    apps.add_html_resource(
        "ui://weather/view.html", PAGE, title="Weather",
        csp=ResourceCsp(connect_domains=["https://api.weather.test"], resource_domains=["https://cdn.test"],
                        frame_domains=["https://maps.test"], base_uri_domains=["https://weather.test"]),
        permissions=ResourcePermissions(camera={}, microphone={}, geolocation={}, clipboard_write={}),
        domain="weather.example.com", prefers_border=True,
    )
    return MCPServer("weather", extensions=[apps])


UI_META: dict[str, Any] = {"ui": {
    "csp": {"connectDomains": ["https://api.weather.test"], "resourceDomains": ["https://cdn.test"],
            "frameDomains": ["https://maps.test"], "baseUriDomains": ["https://weather.test"]},
    "permissions": {"camera": {}, "microphone": {}, "geolocation": {}, "clipboardWrite": {}},
    "domain": "weather.example.com", "prefersBorder": True,
}}


async def test_the_server_advertises_the_apps_extension_under_its_capabilities_extensions() -> None:
    async with Client(weather_app()) as client:
        assert client.server_capabilities.extensions == {EXTENSION_ID: {}}
    assert EXTENSION_ID == "io.modelcontextprotocol/ui"


async def test_an_app_tool_carries_the_nested_ui_stamp_and_keeps_other_meta_keys() -> None:
    async with Client(weather_app()) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert tools["forecast"].meta == {"acme/x": 1, "ui": {"resourceUri": "ui://weather/view.html"}}
    assert tools["refresh"].meta == {"ui": {"resourceUri": "ui://weather/view.html", "visibility": ["app"]}}


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_the_html_resource_carries_csp_permissions_domain_and_border_in_the_official_shape(mode: str) -> None:
    async with Client(weather_app(), mode=mode) as client:
        (listed,) = (await client.list_resources()).resources
        (read,) = (await client.read_resource("ui://weather/view.html")).contents
    assert listed.mime_type == APP_MIME_TYPE == "text/html;profile=mcp-app"
    assert listed.meta == UI_META
    assert isinstance(read, TextResourceContents)
    assert (read.mime_type, read.text, read.meta) == (APP_MIME_TYPE, PAGE, UI_META)


async def test_the_rich_answer_goes_only_to_a_client_that_lists_the_app_mime_type() -> None:
    server = weather_app()
    rich = advertise(EXTENSION_ID, {"mimeTypes": [APP_MIME_TYPE]})
    async with Client(server, extensions=[rich]) as client:
        assert (await client.call_tool("forecast", {})).content == [TextContent(text="sunny:21")]
    for extensions in ([], [advertise(EXTENSION_ID, {})]):
        async with Client(server, extensions=extensions) as client:
            result = await client.call_tool("forecast", {})
            assert result.content == [TextContent(text="Sunny, 21 degrees in Lisbon.")]


def test_misconfigurations_fail_at_startup_with_a_value_error() -> None:
    apps = Apps()
    with pytest.raises(ValueError, match="ui:// scheme"):
        apps.tool(resource_uri="https://x.test/app.html")(lambda: "x")
    with pytest.raises(ValueError, match="ui:// scheme"):
        apps.add_html_resource("https://x.test/app.html", PAGE)
    with pytest.raises(ValueError, match=r"owns _meta\['ui'\]"):
        apps.tool(resource_uri="ui://x/app.html", meta={"ui": {}})(lambda: "x")
    with pytest.raises(ValueError, match="text/html;profile=mcp-app"):
        apps.add_resource(TextResource(uri="ui://x/app.html", name="x", text=PAGE, mime_type="text/plain"))

    unbound = Apps()

    @unbound.tool(resource_uri="ui://nowhere/app.html")
    def lonely() -> str:
        return "x"

    with pytest.raises(ValueError, match="no such resource is registered"):
        MCPServer("broken", extensions=[unbound])


async def test_add_resource_fills_in_the_app_mime_type_when_the_resource_sets_none() -> None:
    apps = Apps()

    @apps.tool(resource_uri="ui://report/app.html")
    def report() -> str:
        return "report"

    apps.add_resource(TextResource(uri="ui://report/app.html", name="report", text=PAGE))
    async with Client(MCPServer("report", extensions=[apps])) as client:
        (listed,) = (await client.list_resources()).resources
    assert listed.mime_type == APP_MIME_TYPE


async def test_a_legacy_client_can_still_use_the_tool_without_the_extension() -> None:
    async with Client(weather_app(), mode="legacy") as client:
        assert client.server_capabilities.extensions is None
        result = await client.call_tool("forecast", {})
    assert result.content == [TextContent(text="Sunny, 21 degrees in Lisbon.")]
