"""docs/run/asgi.md: `streamable_http_app()` is a Starlette app with one `/mcp` route and a lifespan
running `session_manager`; it takes `run()`'s options except `port`; it answers only localhost
until given an allowlist (421 otherwise); it mounts under a prefix (the path moves with
`streamable_http_path`), two servers share one host app, browsers need CORS, custom routes sit
beside `/mcp` unauthenticated, and the configured body limit answers 413.

Where we differ from the page on purpose: a mounted app whose host never enters
`session_manager.run()` still serves (README, "beyond the official SDK": no lifespan wiring needed);
the page shows it failing with "Task group is not initialized"."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from tests.server.http.httpkit import uvicorn_server

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import TextContent

pytestmark = pytest.mark.anyio

ASYNCIO_ONLY = pytest.mark.parametrize("anyio_backend", ["asyncio"])
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}


def notes(name: str = "Notes") -> MCPServer:
    mcp = MCPServer(name)

    @mcp.tool()
    def add_note(text: str) -> str:
        """Save a note."""
        return f"{name} saved: {text}"

    return mcp


async def end_session(http: httpx.AsyncClient, url: str, opened: httpx.Response,
                      extra: dict[str, str] | None = None) -> None:
    """DELETE the session a raw `initialize` opened, so nothing outlives the test's server."""
    session_id = opened.headers.get("mcp-session-id")
    if session_id is not None:
        await http.delete(url, headers={"Mcp-Session-Id": session_id, "Mcp-Protocol-Version": "2025-11-25",
                                        **(extra or {})})


async def call_over(url: str, http: httpx.AsyncClient | None = None) -> list[object]:
    target = streamable_http_client(url, http_client=http) if http is not None else url
    async with Client(target) as client:
        return list((await client.call_tool("add_note", {"text": "milk"})).content)


def test_the_app_is_starlette_with_one_route_and_takes_runs_options_except_port() -> None:
    app = notes().streamable_http_app()
    assert isinstance(app, Starlette)
    (route,) = app.routes
    assert isinstance(route, Route) and route.path == "/mcp"
    parameters = set(inspect.signature(MCPServer.streamable_http_app).parameters)
    assert {"streamable_http_path", "json_response", "stateless_http", "event_store", "retry_interval",
            "max_request_body_size", "transport_security", "host"} <= parameters
    assert "port" not in parameters


@ASYNCIO_ONLY
async def test_the_app_serves_a_client_under_any_asgi_server() -> None:
    async with uvicorn_server(notes().streamable_http_app()) as base:
        assert await call_over(f"{base}/mcp") == [TextContent(text="Notes saved: milk")]


@ASYNCIO_ONLY
async def test_out_of_the_box_a_real_hostname_gets_421_until_allowlisted() -> None:
    server = notes()
    app = server.streamable_http_app()
    async with uvicorn_server(app) as base, httpx.AsyncClient() as http:
        refused = await http.post(f"{base}/mcp", json=INITIALIZE, headers={**HEADERS, "Host": "mcp.example.com"})
        local = await http.post(f"{base}/mcp", json=INITIALIZE, headers=HEADERS)
        await end_session(http, f"{base}/mcp", local)
    assert refused.status_code == 421
    assert local.status_code == 200
    allowed = notes().streamable_http_app(transport_security=TransportSecuritySettings(
        allowed_hosts=["mcp.example.com"], allowed_origins=[]))
    async with uvicorn_server(allowed) as base, httpx.AsyncClient() as http:
        accepted = await http.post(f"{base}/mcp", json=INITIALIZE, headers={**HEADERS, "Host": "mcp.example.com"})
        await end_session(http, f"{base}/mcp", accepted, {"Host": "mcp.example.com"})
    assert accepted.status_code == 200


@ASYNCIO_ONLY
async def test_two_mounted_servers_share_one_host_lifespan_and_the_path_follows_the_prefix() -> None:
    first, second = notes("Notes"), notes("Tasks")
    routes = [Mount("/notes", app=first.streamable_http_app()),
              Mount("/tasks", app=second.streamable_http_app(streamable_http_path="/"))]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(first.session_manager.run())
            await stack.enter_async_context(second.session_manager.run())
            yield

    async with uvicorn_server(Starlette(routes=routes, lifespan=lifespan)) as base:
        assert await call_over(f"{base}/notes/mcp") == [TextContent(text="Notes saved: milk")]
        assert await call_over(f"{base}/tasks/") == [TextContent(text="Tasks saved: milk")]


@ASYNCIO_ONLY
async def test_a_mounted_app_serves_even_when_the_host_never_enters_the_session_manager() -> None:
    host = Starlette(routes=[Mount("/", app=notes().streamable_http_app())])
    async with uvicorn_server(host) as base:
        assert await call_over(f"{base}/mcp") == [TextContent(text="Notes saved: milk")]


@ASYNCIO_ONLY
async def test_cors_lets_a_browser_send_mcp_headers_and_read_the_session_id() -> None:
    server = notes()
    security = TransportSecuritySettings(allowed_hosts=["127.0.0.1:*"], allowed_origins=["https://app.example.com"])
    app = Starlette(routes=[Mount("/", app=server.streamable_http_app(transport_security=security))], middleware=[
        Middleware(CORSMiddleware, allow_origins=["https://app.example.com"], allow_methods=["GET", "POST", "DELETE"],
                   allow_headers=["Content-Type", "Mcp-Protocol-Version", "Mcp-Session-Id", "Mcp-Method", "Mcp-Name"],
                   expose_headers=["Mcp-Session-Id"])])
    origin = {"Origin": "https://app.example.com"}
    async with uvicorn_server(app) as base, httpx.AsyncClient() as http:
        preflight = await http.options(f"{base}/mcp", headers={
            **origin, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,mcp-protocol-version"})
        opened = await http.post(f"{base}/mcp", json=INITIALIZE, headers={**HEADERS, **origin})
        stranger = await http.post(f"{base}/mcp", json=INITIALIZE, headers={**HEADERS, "Origin": "https://evil.test"})
        await end_session(http, f"{base}/mcp", opened, origin)
    assert preflight.status_code == 200
    assert "mcp-protocol-version" in preflight.headers["access-control-allow-headers"].lower()
    assert opened.status_code == 200 and "mcp-session-id" in opened.headers
    assert "mcp-session-id" in opened.headers["access-control-expose-headers"].lower()
    assert stranger.status_code == 403


@ASYNCIO_ONLY
async def test_a_custom_route_sits_beside_mcp() -> None:
    server = notes()

    @server.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    app = server.streamable_http_app()
    assert sorted(route.path for route in app.routes if isinstance(route, Route)) == ["/health", "/mcp"]
    async with uvicorn_server(app) as base, httpx.AsyncClient() as http:
        assert (await http.get(f"{base}/health")).json() == {"status": "ok"}


@ASYNCIO_ONLY
async def test_the_configured_body_limit_answers_413_whatever_the_headers() -> None:
    app = notes().streamable_http_app(max_request_body_size=64)
    async with uvicorn_server(app) as base, httpx.AsyncClient() as http:
        bare = await http.post(f"{base}/mcp", content=b"x" * 65)
        shaped = await http.post(f"{base}/mcp", content=b"x" * 65, headers=HEADERS)
        small = await http.post(f"{base}/mcp", json=INITIALIZE, headers=HEADERS)
    assert (bare.status_code, shaped.status_code) == (413, 413)
    assert small.status_code == 413  # the initialize body itself is over 64 bytes


@ASYNCIO_ONLY
async def test_a_body_within_the_configured_limit_is_served() -> None:
    roomy = notes().streamable_http_app(max_request_body_size=4096)
    async with uvicorn_server(roomy) as base, httpx.AsyncClient() as http:
        opened = await http.post(f"{base}/mcp", json=INITIALIZE, headers=HEADERS)
        await end_session(http, f"{base}/mcp", opened)
    assert opened.status_code == 200
