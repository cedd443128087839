"""Connecting on the 2026-07-28 wire: in auto mode a `server/discover` refused with
UnsupportedProtocolVersion (-32022) is asked once more at a version the error lists as supported;
otherwise the client falls back to the handshake. A pinned version sends nothing to connect."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types.jsonrpc import UNSUPPORTED_PROTOCOL_VERSION
from mcp.types.version import PROTOCOL_VERSION_META_KEY

pytestmark = pytest.mark.anyio

URL = "http://mcp.test/mcp"


class RefusingServer:
    """Refuses the first `refusals` discover requests with -32022 listing `supported`."""

    def __init__(self, supported: list[str], refusals: int = 1) -> None:
        self.supported = supported
        self.refusals = refusals
        self.posts: list[tuple[dict[str, Any], httpx.Headers]] = []

    def methods(self) -> list[str]:
        return [body.get("method", "") for body, _ in self.posts]

    def handle(self, request: httpx.Request) -> httpx.Response:
        if request.method != "POST":
            return httpx.Response(405)
        body = httpx.Response(200, content=request.content).json()
        self.posts.append((body, request.headers))
        method = body.get("method")
        if "id" not in body:
            return httpx.Response(202)
        if method == "server/discover" and self.refusals > 0:
            self.refusals -= 1
            requested = body["params"]["_meta"][PROTOCOL_VERSION_META_KEY]
            error = {"code": UNSUPPORTED_PROTOCOL_VERSION, "message": "Unsupported protocol version",
                     "data": {"supported": self.supported, "requested": requested}}
            return httpx.Response(400, json={"jsonrpc": "2.0", "id": body["id"], "error": error})
        if method == "server/discover":
            result: dict[str, Any] = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                                      "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}
        elif method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {},
                      "serverInfo": {"name": "refusing", "version": "1"}}
        elif method == "tools/list":
            result = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": []}
        else:
            result = {}
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": result})

    def client(self, mode: str) -> Client:
        http = httpx.AsyncClient(transport=httpx.MockTransport(self.handle))
        return Client(streamable_http_client(URL, http_client=http), mode=mode)


async def test_a_discover_refused_as_unsupported_is_retried_once_at_a_listed_version() -> None:
    server = RefusingServer(["2026-07-28"])
    with anyio.fail_after(10):
        async with server.client("auto") as client:
            assert client.protocol_version == "2026-07-28"
            await client.list_tools()
    assert server.methods() == ["server/discover", "server/discover", "tools/list"]
    first, retry = server.posts[0], server.posts[1]
    assert first[0]["id"] != retry[0]["id"]
    for body, headers in server.posts:
        assert headers["mcp-protocol-version"] == "2026-07-28"
        assert body["params"]["_meta"][PROTOCOL_VERSION_META_KEY] == "2026-07-28"


async def test_a_pinned_client_sends_nothing_to_connect_and_knows_only_its_version() -> None:
    server = RefusingServer(["2099-01-01"])
    with anyio.fail_after(10):
        async with server.client("2026-07-28") as client:
            assert client.protocol_version == "2026-07-28" and client.server_info is None
            assert server.methods() == []
            await client.list_tools()
    assert server.methods() == ["tools/list"]


async def test_a_second_refusal_falls_back_to_the_handshake() -> None:
    server = RefusingServer(["2026-07-28"], refusals=2)
    with anyio.fail_after(10):
        async with server.client("auto") as client:
            assert client.protocol_version == "2025-11-25"
    assert server.methods()[:4] == ["server/discover", "server/discover", "initialize", "notifications/initialized"]


async def test_an_auto_client_told_only_handshake_versions_are_supported_does_the_handshake() -> None:
    server = RefusingServer(["2025-06-18", "2025-11-25"])
    with anyio.fail_after(10):
        async with server.client("auto") as client:
            assert client.protocol_version == "2025-11-25"
    assert server.methods()[:3] == ["server/discover", "initialize", "notifications/initialized"]


async def test_prior_discover_is_adopted_with_its_server_info_and_no_round_trip() -> None:
    from mcp.types import DiscoverResult

    prior = DiscoverResult.model_validate({
        "resultType": "complete", "ttlMs": 0, "cacheScope": "private", "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {"listChanged": True}}, "instructions": "be kind",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "known", "version": "7"}}})
    server = RefusingServer([], refusals=0)
    http = httpx.AsyncClient(transport=httpx.MockTransport(server.handle))
    with anyio.fail_after(10):
        async with Client(streamable_http_client(URL, http_client=http), mode="2026-07-28",
                          prior_discover=prior) as client:
            assert (client.protocol_version, client.server_info.name, client.instructions) == (
                "2026-07-28", "known", "be kind")
            assert client.server_capabilities.tools.list_changed is True
    assert server.methods() == []


async def test_a_prior_discover_sharing_no_version_with_the_client_is_refused() -> None:
    from mcp.types import DiscoverResult

    prior = DiscoverResult.model_validate({"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                                           "supportedVersions": ["2099-01-01"], "capabilities": {}})
    server = RefusingServer([], refusals=0)
    http = httpx.AsyncClient(transport=httpx.MockTransport(server.handle))
    with anyio.fail_after(10), pytest.raises(RuntimeError, match="No mutually supported modern protocol version"):
        async with Client(streamable_http_client(URL, http_client=http), mode="2026-07-28", prior_discover=prior):
            pass
