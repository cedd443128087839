"""SEP-2243 on the client: over Streamable HTTP at 2026-07-28 a tool whose `x-mcp-header`
declarations break the rules is left out of `tools/list` (with a warning) and its arguments are no
longer mirrored (a call by name still goes out, as officially); valid declarations, nullable and
nested ones included, are kept and mirrored.

The server is scripted with `httpx.MockTransport`, so every request the client makes is visible."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import httpx
import pytest

from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio

URL = "http://mcp.test/mcp"


def tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "description": name, "inputSchema": {"type": "object", "properties": properties}}


VALID = tool("valid_tool", {"region": {"type": "string", "x-mcp-header": "Region"}})


class ScriptedServer:
    """Answers discover / initialize / tools/list (with `tools`) / tools/call; notes every POST."""

    def __init__(self, tools: list[dict[str, Any]]) -> None:
        self.tools = tools
        self.posts: list[tuple[dict[str, Any], httpx.Headers]] = []

    def calls(self) -> list[tuple[dict[str, Any], httpx.Headers]]:
        return [(body, headers) for body, headers in self.posts if body.get("method") == "tools/call"]

    def handle(self, request: httpx.Request) -> httpx.Response:
        if request.method != "POST":
            return httpx.Response(405)
        body = httpx.Response(200, content=request.content).json()
        self.posts.append((body, request.headers))
        method = body.get("method")
        if "id" not in body:
            return httpx.Response(202)
        if method == "server/discover":
            result: dict[str, Any] = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                                      "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}
        elif method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "scripted", "version": "1"}}
        elif method == "tools/list":
            result = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": self.tools}
        elif method == "tools/call":
            result = {"resultType": "complete", "content": [{"type": "text", "text": "called"}]}
        else:
            result = {}
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": result})

    def client(self, mode: str = "2026-07-28") -> Client:
        http = httpx.AsyncClient(transport=httpx.MockTransport(self.handle))
        return Client(streamable_http_client(URL, http_client=http), mode=mode)


INVALID = {
    "empty name": {"value": {"type": "string", "x-mcp-header": ""}},
    "name not a string": {"value": {"type": "string", "x-mcp-header": 7}},
    "space in name": {"value": {"type": "string", "x-mcp-header": "My Region"}},
    "colon in name": {"value": {"type": "string", "x-mcp-header": "Region:Primary"}},
    "non-ASCII name": {"value": {"type": "string", "x-mcp-header": "Région"}},
    "control character in name": {"value": {"type": "string", "x-mcp-header": "Region\t1"}},
    "object parameter": {"data": {"type": "object", "x-mcp-header": "Data"}},
    "array parameter": {"items": {"type": "array", "items": {"type": "string"}, "x-mcp-header": "Items"}},
    "null parameter": {"nil": {"type": "null", "x-mcp-header": "Nil"}},
    "number parameter": {"score": {"type": "number", "x-mcp-header": "Score"}},
    "untyped parameter": {"anything": {"description": "no type", "x-mcp-header": "Anything"}},
    "number among the types": {"mixed": {"type": ["string", "number"], "x-mcp-header": "Mixed"}},
    "duplicate name": {"a": {"type": "string", "x-mcp-header": "Region"},
                       "b": {"type": "string", "x-mcp-header": "Region"}},
    "duplicate name in another case": {"a": {"type": "string", "x-mcp-header": "MyField"},
                                       "b": {"type": "string", "x-mcp-header": "myfield"}},
    "nested invalid declaration": {"outer": {"type": "object", "properties": {
        "inner": {"type": "object", "x-mcp-header": "Inner"}}}},
}


@pytest.mark.parametrize("properties", list(INVALID.values()), ids=list(INVALID))
async def test_a_tool_with_an_invalid_x_mcp_header_is_left_out_of_tools_list_with_a_warning(
    properties: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    server = ScriptedServer([VALID, tool("broken", properties)])
    with caplog.at_level(logging.WARNING, logger="mcp.client.streamable_http"), anyio.fail_after(10):
        async with server.client() as client:
            listed = await client.list_tools()
    assert [t.name for t in listed.tools] == ["valid_tool"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("'broken'" in text and "x-mcp-header" in text for text in warnings)


VALID_DECLARATIONS = {
    "integer": {"n": {"type": "integer", "x-mcp-header": "N"}},
    "boolean": {"flag": {"type": "boolean", "x-mcp-header": "Flag"}},
    "nullable via anyOf": {"region": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None,
                                      "x-mcp-header": "Region"}},
    "nullable via a type list": {"n": {"type": ["integer", "null"], "x-mcp-header": "N"}},
    "string enum": {"tier": {"enum": ["gold", "silver"], "x-mcp-header": "Tier"}},
    "token punctuation": {"v": {"type": "string", "x-mcp-header": "X_Trace-Id.v1!#$%&'*+^`|~"}},
    "nested parameter": {"outer": {"type": "object", "properties": {
        "inner": {"type": "string", "x-mcp-header": "Inner"}}}},
}


@pytest.mark.parametrize("properties", list(VALID_DECLARATIONS.values()), ids=list(VALID_DECLARATIONS))
async def test_a_tool_with_valid_x_mcp_header_declarations_is_kept(properties: dict[str, Any]) -> None:
    server = ScriptedServer([tool("fine", properties)])
    with anyio.fail_after(10):
        async with server.client() as client:
            listed = await client.list_tools()
    assert [t.name for t in listed.tools] == ["fine"]


async def test_calling_a_dropped_tool_sends_the_call_mirroring_nothing() -> None:
    server = ScriptedServer([VALID, tool("broken", INVALID["space in name"])])
    with anyio.fail_after(10):
        async with server.client() as client:
            await client.list_tools()
            dropped = await client.call_tool("broken", {"value": "x"})
            result = await client.call_tool("valid_tool", {"region": "us-west1"})
    assert dropped.content[0].text == result.content[0].text == "called"
    (broken, broken_headers), (_, valid_headers) = server.calls()
    assert broken["params"]["name"] == "broken"
    assert not any(name.startswith("mcp-param-") for name in broken_headers)
    assert valid_headers["mcp-param-region"] == "us-west1"


async def test_a_listing_that_drops_a_tool_stops_its_mirroring() -> None:
    server = ScriptedServer([VALID])
    with anyio.fail_after(10):
        async with server.client() as client:
            await client.list_tools(cache_mode="bypass")
            server.tools = [tool("valid_tool", {"region": {"type": "string", "x-mcp-header": "bad name"}})]
            assert (await client.list_tools(cache_mode="bypass")).tools == []
            await client.call_tool("valid_tool", {"region": "us-west1"})
            server.tools = [VALID]
            await client.list_tools(cache_mode="bypass")
            server.tools = [tool("other", {})]
            await client.list_tools(cache_mode="bypass")  # a whole listing without it
            await client.call_tool("valid_tool", {"region": "us-west1"})
    headers = [headers for _, headers in server.calls()]
    assert [h.get("mcp-param-region") for h in headers] == [None, None]


async def test_a_tool_fixed_by_a_later_listing_can_be_called_again() -> None:
    server = ScriptedServer([tool("flaky", INVALID["empty name"])])
    with anyio.fail_after(10):
        async with server.client() as client:
            assert (await client.list_tools(cache_mode="bypass")).tools == []
            server.tools = [tool("flaky", {"value": {"type": "string", "x-mcp-header": "Value"}})]
            assert [t.name for t in (await client.list_tools(cache_mode="bypass")).tools] == ["flaky"]
            await client.call_tool("flaky", {"value": "v"})
    ((_, headers),) = server.calls()
    assert headers["mcp-param-value"] == "v"


async def test_the_handshake_era_lists_tools_whatever_their_x_mcp_header() -> None:
    server = ScriptedServer([VALID, tool("broken", INVALID["space in name"])])
    with anyio.fail_after(10):
        async with server.client(mode="legacy") as client:
            listed = await client.list_tools()
            await client.call_tool("broken", {"value": "x"})
    assert [t.name for t in listed.tools] == ["valid_tool", "broken"]
    ((_, headers),) = server.calls()
    assert not any(name.startswith("mcp-param-") for name in headers)


async def test_a_whole_number_float_for_an_integer_parameter_is_mirrored_as_python_writes_it() -> None:
    """As officially (`str(3.0)`); servers compare integer parameters numerically, so `3.0` matches."""
    server = ScriptedServer([tool("sized", {"n": {"type": "integer", "x-mcp-header": "N"}})])
    with anyio.fail_after(10):
        async with server.client() as client:
            await client.list_tools()
            await client.call_tool("sized", {"n": 3.0})
    ((_, headers),) = server.calls()
    assert headers["mcp-param-n"] == "3.0"
