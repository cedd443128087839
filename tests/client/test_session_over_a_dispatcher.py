"""`ClientSession(dispatcher=...)`: the typed session over an official-style dispatcher (a duplex
channel with `run`, `send_raw_request` and `notify`), here one whose far end is scripted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from mcp.client import ClientRequestContext, ClientSession
from mcp.shared.exceptions import MCPError
from mcp.types import CreateMessageRequestParams, CreateMessageResult, ListRootsResult, TextContent

pytestmark = pytest.mark.anyio

INITIALIZE = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
              "serverInfo": {"name": "scripted", "version": "1"}}


class ScriptedDispatcher:
    """The far end of a connection: answers requests from a table, and can call the client."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any, Any]] = []
        self.notified: list[str] = []
        self.on_request: Any = None
        self.on_notify: Any = None
        self.ready = anyio.Event()

    async def run(self, on_request: Any, on_notify: Any, on_notify_intercept: Any = None, *,
                  task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        self.on_request, self.on_notify = on_request, on_notify
        self.ready.set()
        task_status.started()
        await anyio.sleep_forever()

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> dict[str, Any]:
        self.sent.append((method, params, opts))
        if method == "initialize":
            return INITIALIZE
        if method == "tools/list":
            return {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
        raise MCPError(-32601, "Method not found")

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> None:
        self.notified.append(method)


async def test_a_session_over_a_dispatcher_handshakes_lists_and_answers_callbacks() -> None:
    dispatcher = ScriptedDispatcher()
    logged: list[Any] = []
    was_logged = anyio.Event()

    async def sampling(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        return CreateMessageResult(role="assistant", content=TextContent(text="hi"), model="m")

    async def on_log(params: Any) -> None:
        logged.append(params.data)
        was_logged.set()

    async with ClientSession(dispatcher=dispatcher, sampling_callback=sampling, logging_callback=on_log,
                             read_timeout_seconds=5) as session:
        with anyio.fail_after(5):
            await dispatcher.ready.wait()
        result = await session.initialize()
        assert result.server_info.name == "scripted" and session.protocol_version == "2025-11-25"
        assert dispatcher.notified == ["notifications/initialized"]
        assert dispatcher.sent[0][2]["timeout"] == 5
        tools = await session.list_tools()
        assert [tool.name for tool in tools.tools] == ["echo"]

        class Ctx:
            request_id = 9

        answer = await dispatcher.on_request(Ctx(), "sampling/createMessage",
                                             {"messages": [], "maxTokens": 5})
        assert answer["content"] == {"type": "text", "text": "hi"}
        with pytest.raises(MCPError, match="List roots not supported"):
            await dispatcher.on_request(Ctx(), "roots/list", None)
        await dispatcher.on_notify(Ctx(), "notifications/message", {"level": "info", "data": "hello"})
        with anyio.fail_after(5):
            await was_logged.wait()
    assert logged == ["hello"]


def test_a_session_takes_streams_or_a_dispatcher_not_both() -> None:
    send, receive = anyio.create_memory_object_stream[Any](1)
    with pytest.raises(ValueError, match="not both"):
        ClientSession(receive, send, dispatcher=ScriptedDispatcher())
    with pytest.raises(ValueError, match="required"):
        ClientSession()
    send.close()
    receive.close()


async def test_a_callback_that_declines_reaches_the_dispatcher_as_an_error() -> None:
    dispatcher = ScriptedDispatcher()

    async def roots(context: ClientRequestContext) -> ListRootsResult:
        raise RuntimeError("disk on fire")

    async with ClientSession(dispatcher=dispatcher, list_roots_callback=roots):
        with anyio.fail_after(5):
            await dispatcher.ready.wait()

        class Ctx:
            request_id = "r"

        with pytest.raises(MCPError, match="Client error: disk on fire"):
            await dispatcher.on_request(Ctx(), "roots/list", None)
