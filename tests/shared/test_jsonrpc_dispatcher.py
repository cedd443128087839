"""`JSONRPCDispatcher`: the official dispatcher over a stream pair, as users drive it: under a
`ClientSession(dispatcher=...)` against a real server, and raw, one dispatcher talking to another."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from mcp.client import ClientRequestContext, ClientSession
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import (
    JSONRPCDispatcher,
    cancelled_request_id_from_params,
    handler_exception_to_error_data,
    progress_token_from_params,
)
from mcp.shared.memory import create_client_server_memory_streams
from mcp.types import ElicitResult
from mcp.types.jsonrpc import CONNECTION_CLOSED, INVALID_PARAMS, REQUEST_TIMEOUT

pytestmark = pytest.mark.anyio


def demo_server() -> MCPServer:
    mcp = MCPServer("demo")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.tool()
    async def ask_name(ctx: Context) -> str:
        answer = await ctx.session.elicit_form("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        return f"{answer.action}:{answer.content['name']}"

    return mcp


async def test_a_client_session_over_a_jsonrpc_dispatcher_talks_to_a_server_over_memory_streams() -> None:
    server = demo_server()._lowlevel_server  # pyright: ignore[reportPrivateUsage]

    async def elicit(context: ClientRequestContext, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"name": "Ada"})

    async with create_client_server_memory_streams() as (client_streams, server_streams), \
            anyio.create_task_group() as tg:
        tg.start_soon(lambda: server.run(*server_streams, server.create_initialization_options()))
        dispatcher = JSONRPCDispatcher(*client_streams)
        async with ClientSession(dispatcher=dispatcher, elicitation_callback=elicit) as session:
            with anyio.fail_after(10):
                result = await session.initialize()
                assert result.server_info.name == "demo"
                added = await session.call_tool("add", {"a": 2, "b": 3})
                assert added.structured_content == {"result": 5}
                asked = await session.call_tool("ask_name", {})  # a server->client request on the way
                assert asked.content[0].text == "accept:Ada"  # type: ignore[union-attr]
        tg.cancel_scope.cancel()


class Pair:
    """Two dispatchers joined back to back over memory streams."""

    def __init__(self, **server_options: Any) -> None:
        a_send, a_recv = anyio.create_memory_object_stream[Any](32)
        b_send, b_recv = anyio.create_memory_object_stream[Any](32)
        self.streams = (a_send, a_recv, b_send, b_recv)
        self.caller = JSONRPCDispatcher(a_recv, b_send)
        self.callee = JSONRPCDispatcher(b_recv, a_send, **server_options)
        self.notified: list[tuple[str, Any]] = []

    async def __aenter__(self) -> Pair:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for stream in self.streams:
            stream.close()

    async def ignore(self, ctx: Any, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        raise MCPError(-32601, "Method not found")

    async def record(self, ctx: Any, method: str, params: Mapping[str, Any] | None) -> None:
        self.notified.append((method, params))


async def test_results_errors_and_notifications_cross_between_two_dispatchers() -> None:
    pair = Pair()
    got_note = anyio.Event()

    async def serve(ctx: Any, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        if method == "echo":
            return {"echo": dict(params or {}), "id_seen": ctx.request_id, "kind": ctx.transport.kind}
        if method == "refuse":
            raise MCPError(-32001, "nope", {"why": "policy"})
        raise RuntimeError("disk on fire")

    async def note(ctx: Any, method: str, params: Mapping[str, Any] | None) -> None:
        pair.notified.append((method, params))
        got_note.set()

    async with pair, anyio.create_task_group() as tg:
        await tg.start(lambda task_status: pair.callee.run(serve, note, task_status=task_status))
        await tg.start(lambda task_status: pair.caller.run(pair.ignore, pair.record, task_status=task_status))
        with anyio.fail_after(10):
            result = await pair.caller.send_raw_request("echo", {"x": 1})
            assert result["echo"] == {"x": 1} and result["kind"] == "jsonrpc" and result["id_seen"] is not None
            with pytest.raises(MCPError) as refused:
                await pair.caller.send_raw_request("refuse", None)
            assert (refused.value.code, refused.value.message, refused.value.data) == (-32001, "nope", {"why": "policy"})
            with pytest.raises(MCPError) as crashed:
                await pair.caller.send_raw_request("crash", None)
            assert (crashed.value.code, crashed.value.message) == (0, "disk on fire")
            await pair.caller.notify("notifications/hello", {"n": 1})
            await got_note.wait()
        assert pair.notified == [("notifications/hello", {"n": 1})]
        tg.cancel_scope.cancel()


async def test_sending_before_run_is_a_runtime_error_and_after_the_end_a_closed_connection() -> None:
    async with Pair() as pair:
        with pytest.raises(RuntimeError, match="before run"):
            await pair.caller.send_raw_request("echo", None)
        pair.streams[0].close()  # the far end goes away: the caller's input ends
        with anyio.fail_after(10):
            await pair.caller.run(pair.ignore, pair.record)
        with pytest.raises(MCPError) as closed:
            await pair.caller.send_raw_request("echo", None)
    assert closed.value.code == CONNECTION_CLOSED


async def test_progress_reaches_on_progress_and_a_timeout_fails_the_call() -> None:
    pair = Pair()
    updates: list[tuple[float, float | None, str | None]] = []

    async def serve(ctx: Any, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        if method == "slow":
            await anyio.sleep_forever()
        await ctx.progress(1, 2, "half")
        return {}

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async with pair, anyio.create_task_group() as tg:
        await tg.start(lambda task_status: pair.callee.run(serve, pair.record, task_status=task_status))
        await tg.start(lambda task_status: pair.caller.run(pair.ignore, pair.record, task_status=task_status))
        with anyio.fail_after(10):
            await pair.caller.send_raw_request("work", None, {"on_progress": on_progress})
            with pytest.raises(MCPError) as timed_out:
                await pair.caller.send_raw_request("slow", None, {"timeout": 0.05})
        assert updates == [(1, 2, "half")]
        assert timed_out.value.code == REQUEST_TIMEOUT
        tg.cancel_scope.cancel()


async def test_in_signal_mode_a_cancelled_handler_runs_on_but_is_never_answered() -> None:
    pair = Pair(peer_cancel_mode="signal")
    finished = anyio.Event()
    started = anyio.Event()
    flagged: list[bool] = []

    async def serve(ctx: Any, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        started.set()
        await ctx.cancel_requested.wait()
        flagged.append(True)
        finished.set()
        return {"late": True}

    async with pair, anyio.create_task_group() as tg:
        await tg.start(lambda task_status: pair.callee.run(serve, pair.record, task_status=task_status))
        await tg.start(lambda task_status: pair.caller.run(pair.ignore, pair.record, task_status=task_status))
        with anyio.fail_after(10):
            async with anyio.create_task_group() as calls:
                async def call() -> None:
                    await pair.caller.send_raw_request("work", None, {"request_id": 42})

                calls.start_soon(call)
                await started.wait()
                calls.cancel_scope.cancel()  # abandoning the call sends notifications/cancelled
            await finished.wait()
        assert flagged == [True]
        tg.cancel_scope.cancel()


def test_the_param_helpers_read_tokens_ids_and_map_exceptions() -> None:
    assert progress_token_from_params({"_meta": {"progressToken": "t"}}) == "t"
    assert progress_token_from_params({"_meta": {"progressToken": True}}) is None
    assert progress_token_from_params(None) is None
    assert cancelled_request_id_from_params({"requestId": 7}) == 7
    assert cancelled_request_id_from_params({"requestId": None}) is None
    assert handler_exception_to_error_data(MCPError(-1, "x")).code == -1  # type: ignore[union-attr]
    assert handler_exception_to_error_data(RuntimeError("x")) is None
    from pydantic import BaseModel, ValidationError

    class Model(BaseModel):
        n: int

    try:
        Model.model_validate({"n": "not a number"})
    except ValidationError as exc:
        error = handler_exception_to_error_data(exc)
        assert error is not None and error.code == INVALID_PARAMS and error.data == ""


async def test_with_raise_handler_exceptions_a_failure_is_answered_then_ends_run_with_the_exception() -> None:
    pair = Pair(raise_handler_exceptions=True)

    async def serve(ctx: Any, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        raise LookupError("no such thing")

    caught: list[BaseException] = []
    ended = anyio.Event()

    async def run_callee() -> None:
        try:
            await pair.callee.run(serve, pair.record)
        except LookupError as exc:
            caught.append(exc)
        ended.set()

    async with pair, anyio.create_task_group() as tg:
        tg.start_soon(run_callee)
        await tg.start(lambda task_status: pair.caller.run(pair.ignore, pair.record, task_status=task_status))
        with anyio.fail_after(10):
            with pytest.raises(MCPError) as answered:
                await pair.caller.send_raw_request("find", None)
            assert answered.value.message == "no such thing"
            await ended.wait()
        assert str(caught[0]) == "no such thing"
        tg.cancel_scope.cancel()


async def test_a_read_stream_fault_reaches_the_sessions_message_handler() -> None:
    seen: list[Any] = []
    delivered = anyio.Event()

    async def on_message(message: Any) -> None:
        seen.append(message)
        delivered.set()

    async with create_client_server_memory_streams() as (client_streams, server_streams):
        dispatcher = JSONRPCDispatcher(*client_streams)
        async with ClientSession(dispatcher=dispatcher, message_handler=on_message):
            _server_read, to_client = server_streams
            await to_client.send(ValueError("garbled bytes"))
            with anyio.fail_after(10):
                await delivered.wait()
    assert isinstance(seen[0], ValueError) and str(seen[0]) == "garbled bytes"
