"""The HTTP apps mounted inside a host app work without the host running their lifespans (there is
no task group to start: each request is served in its own ASGI task, and the server lifespan is
entered on first use); custom routes are served next to the endpoint."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from httpkit import (
    build_server,
    connect,
    initialize,
    legacy_headers,
    messages_of,
    modern_headers,
    modern_tool_call,
    open_session,
    text_of,
    tool_call,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Mount

from mcp.server import MCPServer
from mcp.server.mcpserver import Context

pytestmark = pytest.mark.anyio


def server_with_lifespan(name: str, entered: list[str]) -> MCPServer:
    @asynccontextmanager
    async def lifespan(server: MCPServer) -> AsyncIterator[dict[str, str]]:
        entered.append(name)
        await anyio.sleep(0.01)  # a slow start: concurrent first requests must still enter it once
        yield {"owner": name}

    mcp = MCPServer(name, lifespan=lifespan)

    @mcp.tool()
    def whoami(ctx: Context) -> str:
        """Name the server whose lifespan state this request sees."""
        return ctx.request_context.lifespan_context["owner"]

    return mcp


async def test_two_servers_mounted_in_one_app_work_without_their_lifespans_being_run(wire: str) -> None:
    entered: list[str] = []
    alpha, beta = server_with_lifespan("alpha", entered), server_with_lifespan("beta", entered)
    host = Starlette(routes=[Mount("/a", app=alpha.streamable_http_app()), Mount("/b", app=beta.streamable_http_app())])
    with anyio.fail_after(20):
        async with connect(wire, host, lifespan=True) as client:  # the host's lifespan only
            ids: dict[str, str] = {}

            async def start(prefix: str) -> None:
                ids[prefix] = await open_session(client, f"{prefix}/mcp")

            async with anyio.create_task_group() as tg:
                for prefix in ("/a", "/b", "/a", "/b"):
                    tg.start_soon(start, prefix)
            assert sorted(entered) == ["alpha", "beta"]  # once each

            for prefix, owner in (("/a", "alpha"), ("/b", "beta")):
                response = await client.post(f"{prefix}/mcp", json=tool_call(2, "whoami"),
                                             headers=legacy_headers(ids[prefix]))
                assert text_of(messages_of(response)[-1]) == owner
                init = await client.post(f"{prefix}/mcp", json=initialize(), headers=legacy_headers(version=None))
                assert messages_of(init)[-1]["result"]["serverInfo"]["name"] == owner
                call = modern_tool_call(3, "whoami")
                response = await client.post(f"{prefix}/mcp", json=call, headers=modern_headers(call))
                assert messages_of(response)[-1]["result"]["content"][0]["text"] == owner
            # a session id of one server means nothing to the other
            wrong = await client.post("/b/mcp", json=tool_call(4, "whoami"), headers=legacy_headers(ids["/a"]))
            assert wrong.status_code == 404
        await alpha.session_manager.close()
        await beta.session_manager.close()


async def test_a_mounted_app_serves_get_streams_and_progress(wire: str) -> None:
    mcp = build_server()
    host = Starlette(routes=[Mount("/tools", app=mcp.streamable_http_app())])
    with anyio.fail_after(20):
        async with connect(wire, host, lifespan=False) as client:
            session_id = await open_session(client, "/tools/mcp")
            response = await client.post("/tools/mcp", json=tool_call(2, "progress", {"steps": 2}, progress_token=1),
                                         headers=legacy_headers(session_id))
            assert text_of(messages_of(response)[-1]) == "counted 2"
            async with client.stream("GET", "/tools/mcp",
                                     headers=legacy_headers(session_id, accept="text/event-stream")) as get:
                assert get.status_code == 200
            assert (await client.delete("/tools/mcp", headers=legacy_headers(session_id))).status_code == 200
            assert mcp.session_manager.session_count == 0
        await mcp.session_manager.close()


async def test_custom_routes_are_served_next_to_the_endpoint_and_when_mounted(wire: str) -> None:
    mcp = build_server()

    @mcp.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    @mcp.custom_route("/info", methods=["POST"], name="info")
    async def info(request: Request) -> JSONResponse:
        return JSONResponse({"sessions": mcp.session_manager.session_count, "body": await request.json()})

    app = mcp.streamable_http_app()
    with anyio.fail_after(20):
        async with connect(wire, app) as client:
            assert (await client.get("/health")).text == "ok"
            await open_session(client)
            answer = await client.post("/info", json={"x": 1})
            assert answer.json() == {"sessions": 1, "body": {"x": 1}}
            assert (await client.post("/health")).status_code == 405

        host = Starlette(routes=[Mount("/svc", app=app)])
        async with connect(wire, host, lifespan=False) as client:
            assert (await client.get("/svc/health")).text == "ok"
        await mcp.session_manager.close()


async def test_the_server_lifespan_runs_once_for_the_life_of_a_standalone_app(wire: str) -> None:
    entered: list[str] = []
    exited: list[str] = []

    @asynccontextmanager
    async def lifespan(server: MCPServer) -> AsyncIterator[dict[str, Any]]:
        entered.append("in")
        try:
            yield {"owner": "solo"}
        finally:
            exited.append("out")

    mcp = MCPServer("solo", lifespan=lifespan)

    @mcp.tool()
    def whoami(ctx: Context) -> str:
        """Lifespan state."""
        return ctx.request_context.lifespan_context["owner"]

    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            assert entered == ["in"]  # entered by the app's lifespan, before any request
            session_id = await open_session(client)
            response = await client.post("/mcp", json=tool_call(2, "whoami"), headers=legacy_headers(session_id))
            assert text_of(messages_of(response)[-1]) == "solo"
            assert exited == []
        assert exited == ["out"]
        assert entered == ["in"]
        assert mcp.session_manager.session_count == 0  # the app's shutdown ended the sessions
