"""`DirectDispatcher`: a client and a server joined in process, no framing: the embedding the
migration guide names (`ClientSession(dispatcher=...)` against an `MCPServer`), and the raw pair."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from mcp.client import ClientRequestContext, ClientSession
from mcp.server.connection import Connection
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.runner import serve_connection
from mcp.shared.direct_dispatcher import DirectDispatcher, create_direct_dispatcher_pair
from mcp.shared.exceptions import MCPError, NoBackChannelError
from mcp.types import ElicitResult
from mcp.types.jsonrpc import CONNECTION_CLOSED, INTERNAL_ERROR, REQUEST_TIMEOUT

pytestmark = pytest.mark.anyio


async def test_a_client_session_over_a_direct_dispatcher_uses_an_mcpserver_in_process() -> None:
    mcp = MCPServer("embedded")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.tool()
    async def ask_name(ctx: Context) -> str:
        answer = await ctx.session.elicit_form("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        return f"{answer.action}:{answer.content['name']}"

    async def elicit(context: ClientRequestContext, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"name": "Ada"})

    server = mcp._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    client_side, server_side = create_direct_dispatcher_pair()
    connection = Connection.for_loop(server_side)
    async with server.lifespan(server) as state, anyio.create_task_group() as tg:
        await tg.start(lambda task_status: serve_connection(server, server_side, connection=connection,
                                                            lifespan_state=state, task_status=task_status))
        async with ClientSession(dispatcher=client_side, elicitation_callback=elicit) as session:
            with anyio.fail_after(10):
                result = await session.initialize()
                assert result.server_info.name == "embedded"
                assert [tool.name for tool in (await session.list_tools()).tools] == ["add", "ask_name"]
                assert (await session.call_tool("add", {"a": 2, "b": 5})).structured_content == {"result": 7}
                asked = await session.call_tool("ask_name", {})
                assert asked.content[0].text == "accept:Ada"  # type: ignore[union-attr]
        assert connection.protocol_version == result.protocol_version
        assert connection.client_params is not None and connection.initialized.is_set()
        server_side.close()


async def ignore(ctx: Any, method: str, params: Mapping[str, Any] | None) -> None:
    return None


async def test_a_pair_calls_across_reports_progress_and_maps_failures() -> None:
    client, server = create_direct_dispatcher_pair(headers={"x-test": "1"})
    updates: list[tuple[float, float | None, str | None]] = []

    async def serve(ctx: Any, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        if method == "echo":
            await ctx.progress(1, 2, "half")
            back = await ctx.send_raw_request("whoami", None)  # the back-channel reaches the caller
            return {"params": dict(params or {}), "headers": dict(ctx.transport.headers), "back": back}
        if method == "slow":
            await anyio.sleep_forever()
        raise RuntimeError("disk on fire")

    async def client_serves(ctx: Any, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        return {"me": "client"}

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async with anyio.create_task_group() as tg:
        await tg.start(lambda task_status: server.run(serve, ignore, task_status=task_status))
        await tg.start(lambda task_status: client.run(client_serves, ignore, task_status=task_status))
        with anyio.fail_after(10):
            result = await client.send_raw_request("echo", {"x": 1}, {"on_progress": on_progress})
            assert result == {"params": {"x": 1}, "headers": {"x-test": "1"}, "back": {"me": "client"}}
            assert updates == [(1, 2, "half")]
            with pytest.raises(MCPError) as crashed:
                await client.send_raw_request("crash", None)
            assert crashed.value.code == INTERNAL_ERROR
            assert isinstance(crashed.value.__cause__, RuntimeError)  # chained for in-process debugging
            with pytest.raises(MCPError) as timed_out:
                await client.send_raw_request("slow", None, {"timeout": 0.05})
            assert timed_out.value.code == REQUEST_TIMEOUT
        server.close()
        client.close()
    with pytest.raises(MCPError) as closed:
        await client.send_raw_request("echo", None)
    assert closed.value.code == CONNECTION_CLOSED


async def test_without_raise_handler_exceptions_a_failure_is_opaque_and_no_back_channel_refuses() -> None:
    client, server = create_direct_dispatcher_pair(can_send_request=False, raise_handler_exceptions=False)

    async def serve(ctx: Any, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        if method == "ask":
            with pytest.raises(NoBackChannelError):
                await ctx.send_raw_request("sampling/createMessage", {})
            return {"refused": True}
        raise RuntimeError("secret detail")

    async with anyio.create_task_group() as tg:
        await tg.start(lambda task_status: server.run(serve, ignore, task_status=task_status))
        await tg.start(lambda task_status: client.run(serve, ignore, task_status=task_status))
        with anyio.fail_after(10):
            assert await client.send_raw_request("ask", None) == {"refused": True}
            with pytest.raises(MCPError) as crashed:
                await client.send_raw_request("crash", None)
        assert (crashed.value.code, crashed.value.message) == (INTERNAL_ERROR, "Internal error")
        server.close()
        client.close()


async def test_sending_before_run_or_without_a_peer_is_a_runtime_error() -> None:
    client, _server = create_direct_dispatcher_pair()
    with pytest.raises(RuntimeError, match="before run"):
        await client.send_raw_request("ping", None)
    lonely = DirectDispatcher(client._transport)  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(RuntimeError, match="no peer"):
        await lonely.send_raw_request("ping", None)


async def test_a_tool_asking_the_client_over_a_pair_without_back_channel_gets_no_back_channel_error() -> None:
    mcp = MCPServer("embedded")

    @mcp.tool()
    async def ask_name(ctx: Context) -> str:
        try:
            await ctx.session.elicit_form("Your name?", {"type": "object", "properties": {}})
        except NoBackChannelError:
            return "no back-channel"
        return "asked"

    server = mcp._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    client_side, server_side = create_direct_dispatcher_pair(can_send_request=False)
    async with server.lifespan(server) as state, anyio.create_task_group() as tg:
        await tg.start(lambda task_status: serve_connection(server, server_side, connection=Connection.for_loop(server_side),
                                                            lifespan_state=state, task_status=task_status))
        async with ClientSession(dispatcher=client_side) as session:
            with anyio.fail_after(10):
                await session.initialize()
                result = await session.call_tool("ask_name", {})
        assert result.content[0].text == "no back-channel"  # type: ignore[union-attr]
        server_side.close()
