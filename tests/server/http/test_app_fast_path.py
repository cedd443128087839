"""The app built by `streamable_http_app()` hands requests for the MCP endpoint straight to it
(Starlette's routing and error middleware are skipped); everything a user can add to the app
(middleware, exception handlers, debug) or around it (a mount prefix) still applies."""

from typing import Any

import anyio
import pytest
from httpkit import build_server, connect, initialize, legacy_headers, messages_of
from starlette.applications import Starlette
from starlette.routing import Mount

pytestmark = pytest.mark.anyio


class Recorder:
    """Pure ASGI middleware noting the path of every HTTP request it sees."""

    def __init__(self, app: Any, seen: list[str]) -> None:
        self.app = app
        self.seen = seen

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.seen.append(scope["path"])
        await self.app(scope, receive, send)


async def test_middleware_added_to_the_app_still_sees_requests_for_the_endpoint(wire: str) -> None:
    seen: list[str] = []
    app = build_server().streamable_http_app()
    app.add_middleware(Recorder, seen=seen)
    with anyio.fail_after(20):
        async with connect(wire, app) as client:
            response = await client.post("/mcp", json=initialize(), headers=legacy_headers(version=None))
            assert response.status_code == 200
    assert seen == ["/mcp"]


async def test_the_endpoint_answers_the_same_under_a_mount_prefix(wire: str) -> None:
    host = Starlette(routes=[Mount("/tools", app=build_server().streamable_http_app())])
    with anyio.fail_after(20):
        async with connect(wire, host, lifespan=False) as client:
            response = await client.post("/tools/mcp", json=initialize(), headers=legacy_headers(version=None))
            assert response.status_code == 200
            assert messages_of(response)[0]["result"]["serverInfo"]["name"] == "http-test"
            session_id = response.headers["mcp-session-id"]
            ended = await client.delete("/tools/mcp", headers=legacy_headers(session_id))  # no lifespan ends it
            assert ended.status_code == 200


async def test_a_method_the_endpoint_does_not_serve_gets_its_405(wire: str) -> None:
    """As officially: the route passes every method on; the endpoint answers a JSON-RPC 405."""
    with anyio.fail_after(20):
        async with connect(wire, build_server().streamable_http_app()) as client:
            response = await client.put("/mcp", json=initialize(), headers=legacy_headers(version=None))
            assert response.status_code == 405
            assert response.headers["allow"] == "GET, POST, DELETE"
            assert response.json()["error"]["message"] == "Method Not Allowed"


async def test_a_json_response_carries_its_content_length_instead_of_being_chunked(wire: str) -> None:
    app = build_server().streamable_http_app(json_response=True)
    with anyio.fail_after(20):
        async with connect(wire, app) as client:
            response = await client.post("/mcp", json=initialize(), headers=legacy_headers(version=None))
            assert response.status_code == 200
            assert response.headers["content-type"] == "application/json"
            assert response.headers["content-length"] == str(len(response.content))
            assert "transfer-encoding" not in response.headers
            session_id = response.headers["mcp-session-id"]
            accepted = await client.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                                         headers=legacy_headers(session_id))
            assert accepted.status_code == 202
            assert accepted.headers["content-length"] == "0"
