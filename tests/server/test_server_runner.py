"""`mcp.server.runner`: a low-level `Server` served over a dispatcher (`serve_connection`,
`ServerRunner`) or a stream pair (`serve_loop`), with a plain `ClientSession` on the far end."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import anyio
import pytest

from mcp.client import ClientSession
from mcp.server import Server, ServerRequestContext
from mcp.server.connection import Connection
from mcp.server.runner import ServerRunner, serve_connection, serve_loop
from mcp.shared.direct_dispatcher import create_direct_dispatcher_pair
from mcp.shared.dispatcher import DispatchContext
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.memory import create_client_server_memory_streams
from mcp.types import CallToolResult, ListToolsResult, TextContent, Tool

pytestmark = pytest.mark.anyio


def echo_server() -> Server[Any]:
    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="echo", input_schema={"type": "object"})])

    async def call_tool(ctx: ServerRequestContext[Any], params: Any) -> CallToolResult:
        return CallToolResult(content=[TextContent(text=f"echo {params.arguments['text']}")])

    return Server("runner-demo", on_list_tools=list_tools, on_call_tool=call_tool)


async def test_serve_connection_serves_a_server_on_a_jsonrpc_dispatcher_to_a_plain_client() -> None:
    server = echo_server()
    async with create_client_server_memory_streams() as (client_streams, server_streams):
        dispatcher = JSONRPCDispatcher(*server_streams)
        connection = Connection.for_loop(dispatcher)
        async with anyio.create_task_group() as tg:
            await tg.start(lambda task_status: serve_connection(server, dispatcher, connection=connection,
                                                                lifespan_state={}, task_status=task_status))
            async with ClientSession(*client_streams) as session:
                with anyio.fail_after(10):
                    await session.initialize()
                    assert [tool.name for tool in (await session.list_tools()).tools] == ["echo"]
                    result = await session.call_tool("echo", {"text": "hi"})
                    assert result.content[0].text == "echo hi"  # type: ignore[union-attr]
                    with pytest.raises(MCPError, match="Method not found"):
                        await session.list_prompts()
            assert connection.initialized.is_set()
            tg.cancel_scope.cancel()


async def test_a_server_runner_answers_through_its_on_request_and_refuses_before_initialize() -> None:
    server = echo_server()
    client, server_side = create_direct_dispatcher_pair()
    runner = ServerRunner(server, Connection.for_loop(server_side), {})
    async with anyio.create_task_group() as tg:
        await tg.start(lambda task_status: server_side.run(runner.on_request, runner.on_notify, task_status=task_status))

        async def ignore(*args: Any) -> Any:
            return {}

        await tg.start(lambda task_status: client.run(ignore, ignore, task_status=task_status))
        with anyio.fail_after(10):
            with pytest.raises(MCPError, match="Invalid request parameters"):  # the official answer before the handshake
                await client.send_raw_request("tools/list", None)
            init = await client.send_raw_request("initialize", {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}})
            assert init["serverInfo"]["name"] == "runner-demo"
            assert runner.connection.protocol_version == "2025-06-18"
            await client.notify("notifications/initialized", None)
            listed = await client.send_raw_request("tools/list", None)
            assert [tool["name"] for tool in listed["tools"]] == ["echo"]
        server_side.close()
        client.close()


async def test_serve_loop_serves_a_server_over_a_stream_pair() -> None:
    server = echo_server()
    async with create_client_server_memory_streams() as (client_streams, server_streams), \
            anyio.create_task_group() as tg:
        tg.start_soon(lambda: serve_loop(server, *server_streams, lifespan_state={}))
        async with ClientSession(*client_streams) as session:
            with anyio.fail_after(10):
                await session.initialize()
                result = await session.call_tool("echo", {"text": "loop"})
                assert result.content[0].text == "echo loop"  # type: ignore[union-attr]
        tg.cancel_scope.cancel()


async def test_a_cancel_notification_through_the_runner_stops_the_request_it_names_only() -> None:
    started = anyio.Event()
    stopped = anyio.Event()

    async def call_tool(ctx: ServerRequestContext[Any], params: Any) -> CallToolResult:
        if params.name == "quick":
            return CallToolResult(content=[TextContent(text="quick")])
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            stopped.set()
        raise AssertionError("unreachable")

    server = Server("cancel-demo", on_call_tool=call_tool)
    client, server_side = create_direct_dispatcher_pair()
    runner = ServerRunner(server, Connection.for_loop(server_side), {}, stateless=True)

    async def ignore(*args: Any) -> Any:
        return {}

    async with anyio.create_task_group() as tg:
        await tg.start(lambda task_status: server_side.run(runner.on_request, runner.on_notify, task_status=task_status))
        await tg.start(lambda task_status: client.run(ignore, ignore, task_status=task_status))
        with anyio.fail_after(10):
            async def slow_call() -> None:
                with pytest.raises(MCPError):
                    await client.send_raw_request("tools/call", {"name": "slow", "arguments": {}}, {"request_id": 1})

            tg.start_soon(slow_call)
            await started.wait()
            await client.notify("notifications/cancelled", {"requestId": 99})  # names nothing in flight
            quick = await client.send_raw_request("tools/call", {"name": "quick", "arguments": {}}, {"request_id": 2})
            assert quick["content"][0]["text"] == "quick" and not stopped.is_set()
            await client.notify("notifications/cancelled", {"requestId": 1})
            await stopped.wait()
        server_side.close()
        client.close()
        tg.cancel_scope.cancel()


async def test_a_server_request_over_a_jsonrpc_dispatcher_goes_out_under_the_connections_one_id_sequence() -> None:
    seen: list[tuple[Any, Any]] = []

    connections: list[Connection] = []

    async def call_tool(ctx: ServerRequestContext[Any], params: Any) -> CallToolResult:
        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            return None

        await ctx.session.send_raw_request("roots/list", None, progress_callback=on_progress)
        await connections[0].send_raw_request("ping", None)  # the connection's own, from a handler
        return CallToolResult(content=[TextContent(text="done")])

    server = Server("ids-demo", on_call_tool=call_tool)

    async def answer(dctx: DispatchContext[Any], method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        meta: dict[str, Any] = dict((params or {}).get("_meta") or {})
        seen.append((dctx.request_id, meta.get("progressToken")))
        return {"roots": []} if method == "roots/list" else {}

    async def ignore(dctx: DispatchContext[Any], method: str, params: Mapping[str, Any] | None) -> None:
        return None

    async with create_client_server_memory_streams() as (client_streams, server_streams):
        server_side: JSONRPCDispatcher[Any] = JSONRPCDispatcher(*server_streams)
        client: JSONRPCDispatcher[Any] = JSONRPCDispatcher(*client_streams)
        connection = Connection.for_loop(server_side)
        connections.append(connection)
        async with anyio.create_task_group() as tg:
            await tg.start(partial(serve_connection, server, server_side, connection=connection, lifespan_state={}))
            await tg.start(partial(client.run, answer, ignore))
            with anyio.fail_after(10):
                await client.send_raw_request("initialize", {
                    "protocolVersion": "2025-06-18", "capabilities": {"roots": {}},
                    "clientInfo": {"name": "raw", "version": "1"}})
                await client.notify("notifications/initialized", None)
                await connection.send_raw_request("ping", None)  # takes the connection's first id
                result = await client.send_raw_request("tools/call", {"name": "t", "arguments": {}})
            assert result["content"][0]["text"] == "done"
            # the ping took id 1; the roots/list request's progress token is its own wire id, 2; the
            # handler's own ping on the connection went out once, under the next id
            assert seen == [(1, None), (2, 2), (3, None)]
            tg.cancel_scope.cancel()
