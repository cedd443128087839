"""`Client.call_tool` on the 2026-07-28 wire: a call the server refuses with HEADER_MISMATCH
(-32020) is resent once after re-listing tools (as the official client does); what the caller
sees when the re-list or the retry fails.

The server is scripted with `httpx.MockTransport`: it rejects a `tools/call` whose `region`
argument is not mirrored in `Mcp-Param-Region` when its current listing declares the header."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest
from pydantic import ValidationError

from mcp import Client, MCPError
from mcp.client.header_mismatch import RELIST_PAGE_CAP
from mcp.client.streamable_http import streamable_http_client
from mcp.types.jsonrpc import HEADER_MISMATCH, METHOD_NOT_FOUND

pytestmark = pytest.mark.anyio

URL = "http://mcp.test/mcp"
PLAIN = {"type": "object", "properties": {"region": {"type": "string"}}}
ANNOTATED = {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}


class Server:
    """`tools/list` answers `pages` (lists of (name, schema), cursors "1", "2", ...), or `listing`
    (a raw result) when set; `tools/call` of a tool listed ANNOTATED needs the header."""

    def __init__(self, pages: list[list[tuple[str, dict[str, Any]]]], *, ttl_ms: int = 0) -> None:
        self.pages = pages
        self.ttl_ms = ttl_ms
        self.listing: dict[str, Any] | None = None
        self.strip_param_headers = False
        self.refuse_listing = False
        self.wire: list[tuple[str, Any, str | None]] = []
        """(method, cursor or tool name, mirrored Mcp-Param-Region) of every request."""

    def handle(self, request: httpx.Request) -> httpx.Response:
        if request.method != "POST":
            return httpx.Response(405)  # no standalone stream, no session to end
        body = httpx.Response(200, content=request.content).json()
        if "id" not in body:
            return httpx.Response(202)
        method, params = body["method"], body.get("params") or {}
        region = None if self.strip_param_headers else request.headers.get("mcp-param-region")
        self.wire.append((method, params.get("cursor") if method == "tools/list" else params.get("name"), region))
        if method == "tools/list" and not self.refuse_listing:
            if self.listing is not None:
                return self._answer(body, self.listing)
            index = int(params.get("cursor") or 0)
            tools = [{"name": name, "inputSchema": schema} for name, schema in self.pages[index]]
            result: dict[str, Any] = {"resultType": "complete", "ttlMs": self.ttl_ms, "cacheScope": "private",
                                      "tools": tools}
            if index + 1 < len(self.pages):
                result["nextCursor"] = str(index + 1)
            return self._answer(body, result)
        if method == "tools/call":
            declared = [schema for page in self.pages for name, schema in page if name == params["name"]]
            if declared and declared[-1] is ANNOTATED and region != params["arguments"]["region"]:
                error = {"code": HEADER_MISMATCH, "message": "Header mismatch: missing Mcp-Param-Region"}
                return httpx.Response(400, json={"jsonrpc": "2.0", "id": body["id"], "error": error})
            return self._answer(body, {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]})
        error = {"code": METHOD_NOT_FOUND, "message": "Method not found"}
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "error": error})

    @staticmethod
    def _answer(body: dict[str, Any], result: dict[str, Any]) -> httpx.Response:
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": result})

    def client(self, mode: str = "2026-07-28", **kwargs: Any) -> Client:
        http = httpx.AsyncClient(transport=httpx.MockTransport(self.handle))
        return Client(streamable_http_client(URL, http_client=http), mode=mode, **kwargs)


async def test_a_call_to_a_never_listed_tool_is_resent_with_its_header_after_one_re_list() -> None:
    server = Server([[("run", ANNOTATED)]])
    with anyio.fail_after(10):
        async with server.client() as client:
            result = await client.call_tool("run", {"region": "eu"})
    assert result.content[0].text == "ok"
    assert server.wire == [("tools/call", "run", None), ("tools/list", None, None), ("tools/call", "run", "eu")]


async def test_the_re_list_refreshes_the_cached_listing_a_stale_schema_came_from() -> None:
    server = Server([[("run", PLAIN)]], ttl_ms=60_000)
    with anyio.fail_after(10):
        async with server.client() as client:
            await client.list_tools()
            server.pages = [[("run", ANNOTATED)]]
            await client.call_tool("run", {"region": "eu"})
            cached = await client.list_tools()
    assert [tool.input_schema for tool in cached.tools] == [ANNOTATED]
    assert [method for method, _, _ in server.wire] == ["tools/list", "tools/call", "tools/list", "tools/call"]


async def test_the_re_list_follows_cursors_only_as_far_as_the_page_naming_the_tool() -> None:
    server = Server([[("a", PLAIN)], [("run", ANNOTATED)], [("z", PLAIN)]])
    with anyio.fail_after(10):
        async with server.client() as client:
            await client.call_tool("run", {"region": "eu"})
    assert server.wire == [("tools/call", "run", None), ("tools/list", None, None), ("tools/list", "1", None),
                           ("tools/call", "run", "eu")]


async def test_a_mismatch_that_survives_the_retry_is_raised_after_exactly_one_retry() -> None:
    server = Server([[("run", ANNOTATED)]])
    server.strip_param_headers = True
    with anyio.fail_after(10):
        async with server.client() as client:
            with pytest.raises(MCPError) as info:
                await client.call_tool("run", {"region": "eu"})
    assert info.value.code == HEADER_MISMATCH
    assert [method for method, _, _ in server.wire] == ["tools/call", "tools/list", "tools/call"]


async def test_a_listing_that_never_names_the_tool_is_walked_for_at_most_the_page_cap() -> None:
    server = Server([[("other", PLAIN)]] * (RELIST_PAGE_CAP + 5) + [[("run", ANNOTATED)]])
    with anyio.fail_after(20):
        async with server.client() as client:
            with pytest.raises(MCPError) as info:
                await client.call_tool("run", {"region": "eu"})
    assert info.value.code == HEADER_MISMATCH
    methods = [method for method, _, _ in server.wire]
    assert methods == ["tools/call", *["tools/list"] * RELIST_PAGE_CAP, "tools/call"]


async def test_a_malformed_re_list_page_leaves_the_mismatch_raised_with_the_validation_error_as_cause() -> None:
    server = Server([[("run", ANNOTATED)]])
    server.listing = {"resultType": "complete", "tools": "not a list"}
    with anyio.fail_after(10):
        async with server.client() as client:
            with pytest.raises(MCPError) as info:
                await client.call_tool("run", {"region": "eu"})
    assert info.value.code == HEADER_MISMATCH
    assert isinstance(info.value.__cause__, ValidationError)
    assert [method for method, _, _ in server.wire] == ["tools/call", "tools/list"]


async def test_a_refused_re_list_leaves_the_mismatch_raised_with_the_refusal_as_its_cause() -> None:
    server = Server([[("run", ANNOTATED)]])
    server.refuse_listing = True
    with anyio.fail_after(10):
        async with server.client() as client:
            with pytest.raises(MCPError) as info:
                await client.call_tool("run", {"region": "eu"})
    assert info.value.code == HEADER_MISMATCH
    assert isinstance(info.value.__cause__, MCPError) and info.value.__cause__.code == METHOD_NOT_FOUND
    assert [method for method, _, _ in server.wire] == ["tools/call", "tools/list"]


async def test_a_handshake_era_header_mismatch_is_raised_as_it_arrives() -> None:
    server = Server([[("run", ANNOTATED)]])

    def legacy(request: httpx.Request) -> httpx.Response:
        body = httpx.Response(200, content=request.content or b"{}").json()
        if body.get("method") == "initialize":
            return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "scripted", "version": "1"}}})
        return server.handle(request)

    http = httpx.AsyncClient(transport=httpx.MockTransport(legacy))
    with anyio.fail_after(10):
        async with Client(streamable_http_client(URL, http_client=http), mode="legacy") as client:
            with pytest.raises(MCPError) as info:
                await client.call_tool("run", {"region": "eu"})
    assert info.value.code == HEADER_MISMATCH
    assert [method for method, _, _ in server.wire] == ["tools/call"]
