"""What client code sees of the server: `message_handler` gets typed server notifications (and
transport exceptions) as in the official SDK, never raw JSON-RPC; requests the client cannot answer
get the official error codes and texts."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from mcp import Client, MCPError
from mcp.client import ClientExtension, ClientSession, NotificationBinding
from mcp.client.transports import in_memory
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.shared.message import SessionMessage
from mcp.types import (
    ElicitCompleteNotification,
    LoggingMessageNotification,
    ProgressNotification,
    PromptListChangedNotification,
    ResourceListChangedNotification,
    ResourceUpdatedNotification,
    SubscriptionsAcknowledgedNotification,
    ToolListChangedNotification,
)

pytestmark = [
    pytest.mark.anyio,
    # logging, progress and the back-channel requests are deprecated features; their messages are the subject here
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]


class Inbox:
    """A `message_handler` that keeps what it gets and lets a test wait for a count."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self._changed = anyio.Event()

    async def __call__(self, message: Any) -> None:
        self.messages.append(message)
        self._changed.set()

    async def wait_for(self, count: int) -> list[Any]:
        with anyio.fail_after(5):
            while len(self.messages) < count:
                self._changed = anyio.Event()
                await self._changed.wait()
        return self.messages

    def of(self, kind: type[Any]) -> list[Any]:
        return [message for message in self.messages if isinstance(message, kind)]


def notifying_server() -> MCPServer:
    mcp = MCPServer("notifier")

    @mcp.tool()
    async def poke(ctx: Context) -> str:
        await ctx.session.send_tool_list_changed()
        await ctx.session.send_resource_updated("data://x")
        await ctx.session.send_prompt_list_changed()
        await ctx.session.send_resource_list_changed()
        await ctx.session.send_log_message("info", "hello")
        await ctx.report_progress(1, 2, "half")
        return "poked"

    @mcp.tool()
    async def finish_elicitation(ctx: Context) -> str:
        await ctx.session.send_elicit_complete("el-1")
        return "sent"

    @mcp.tool()
    async def vendor(ctx: Context, n: int) -> str:
        await ctx.session.send_notification("com.example/tick", {"n": n})
        await ctx.session.send_tool_list_changed()  # a marker: the handler has had everything before it
        return "ticked"

    return mcp


async def test_the_message_handler_gets_typed_notifications_not_json_rpc_dicts() -> None:
    inbox = Inbox()
    async with Client(notifying_server(), mode="legacy", message_handler=inbox) as client:
        await client.call_tool("poke", {}, progress_callback=lambda *_: anyio.lowlevel.checkpoint())
        messages = await inbox.wait_for(6)
    assert [type(message) for message in messages] == [
        ToolListChangedNotification, ResourceUpdatedNotification, PromptListChangedNotification,
        ResourceListChangedNotification, LoggingMessageNotification, ProgressNotification,
    ]
    assert messages[0].params is None
    assert str(messages[1].params.uri) == "data://x"
    assert messages[4].params.level == "info" and messages[4].params.data == "hello"
    assert (messages[5].params.progress, messages[5].params.total, messages[5].params.message) == (1, 2, "half")


async def test_a_log_message_reaches_the_logging_callback_and_then_the_message_handler() -> None:
    heard, received = anyio.create_memory_object_stream[str](10)

    async def on_log(params: Any) -> None:
        heard.send_nowait(f"log:{params.data}")

    async def on_message(message: Any) -> None:
        heard.send_nowait(f"message:{type(message).__name__}")

    mcp = MCPServer("logs")

    @mcp.tool()
    async def say(ctx: Context) -> str:
        await ctx.session.send_log_message("warning", "careful")
        await ctx.session.send_tool_list_changed()
        return "said"

    with heard, received:
        async with Client(mcp, mode="legacy", logging_callback=on_log, message_handler=on_message) as client:
            await client.call_tool("say", {})
            with anyio.fail_after(5):
                order = [await received.receive() for _ in range(3)]
    assert order == ["log:careful", "message:LoggingMessageNotification", "message:ToolListChangedNotification"]


async def test_an_elicitation_complete_notification_arrives_typed_on_2025_11_25() -> None:
    inbox = Inbox()
    async with Client(notifying_server(), mode="legacy", message_handler=inbox) as client:
        assert client.protocol_version == "2025-11-25"
        await client.call_tool("finish_elicitation", {})
        (message,) = await inbox.wait_for(1)
    assert isinstance(message, ElicitCompleteNotification)
    assert message.params.elicitation_id == "el-1"


async def test_a_message_handler_may_call_the_server_while_handling_a_notification() -> None:
    """Handlers run off the receive loop (official behaviour), so refreshing the tool list when it
    changes does not deadlock the connection."""
    refreshed: list[list[str]] = []
    done = anyio.Event()
    holder: dict[str, Client] = {}

    async def on_message(message: Any) -> None:
        if isinstance(message, ToolListChangedNotification):
            tools = await holder["client"].list_tools(cache_mode="bypass")
            refreshed.append([tool.name for tool in tools.tools])
            done.set()

    async with Client(notifying_server(), mode="legacy", message_handler=on_message) as client:
        holder["client"] = client
        await client.call_tool("poke", {})
        with anyio.fail_after(5):
            await done.wait()
    assert refreshed == [["poke", "finish_elicitation", "vendor"]]


async def test_a_raising_message_handler_costs_only_that_notification(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[str] = []
    all_seen = anyio.Event()

    async def on_message(message: Any) -> None:
        seen.append(type(message).__name__)
        if len(seen) == 5:  # no progress token, so no progress notification
            all_seen.set()
        if isinstance(message, ToolListChangedNotification):
            raise RuntimeError("handler bug")

    async with Client(notifying_server(), mode="legacy", message_handler=on_message) as client:
        with caplog.at_level(logging.ERROR, logger="mcp.client"):
            await client.call_tool("poke", {})
            with anyio.fail_after(5):
                await all_seen.wait()
        assert (await client.call_tool("finish_elicitation", {})).content[0].text == "sent"  # type: ignore[union-attr]
    assert "handler bug" in caplog.text


async def test_vendor_notifications_go_to_their_extension_binding_and_never_to_the_message_handler() -> None:
    class Tick(BaseModel):
        n: int

    ticks: list[Tick] = []

    async def on_tick(params: Tick) -> None:
        ticks.append(params)

    class Ticker(ClientExtension):
        identifier = "com.example/ticker"

        def notifications(self) -> list[NotificationBinding[Any]]:
            return [NotificationBinding(method="com.example/tick", params_type=Tick, handler=on_tick)]

    inbox = Inbox()
    async with Client(notifying_server(), mode="legacy", message_handler=inbox, extensions=[Ticker()]) as client:
        await client.call_tool("vendor", {"n": 7})
        await inbox.wait_for(1)
    assert ticks == [Tick(n=7)]
    assert [type(message) for message in inbox.messages] == [ToolListChangedNotification]


async def test_an_unbound_vendor_notification_is_dropped() -> None:
    inbox = Inbox()
    async with Client(notifying_server(), mode="legacy", message_handler=inbox) as client:
        await client.call_tool("vendor", {"n": 1})
        await inbox.wait_for(1)
    assert [type(message) for message in inbox.messages] == [ToolListChangedNotification]


async def test_a_live_listen_stream_keeps_its_acknowledgement_but_its_events_still_reach_the_handler() -> None:
    mcp = MCPServer("board")

    @mcp.tool()
    async def change(ctx: Context) -> str:
        await ctx.notify_tools_changed()
        return "changed"

    inbox = Inbox()
    async with Client(mcp, message_handler=inbox) as client:
        assert client.protocol_version == "2026-07-28"
        async with client.listen(tools_list_changed=True) as subscription:
            await client.call_tool("change", {})
            with anyio.fail_after(5):
                await subscription.__anext__()
            await inbox.wait_for(1)
    assert inbox.of(SubscriptionsAcknowledgedNotification) == []
    assert len(inbox.of(ToolListChangedNotification)) == 1


# -- the wire, scripted: what the session does with notifications a real server would not send ----


class ScriptedServer:
    """The server's end of a `ClientSession`'s streams, driven by the test."""

    def __init__(self) -> None:
        self.to_client, self.client_reads = anyio.create_memory_object_stream[SessionMessage | Exception](32)
        self.client_writes, self.from_client = anyio.create_memory_object_stream[SessionMessage](32)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self.to_client.send(SessionMessage(message))

    def sent_by_client(self) -> list[Any]:
        sent: list[Any] = []
        while True:
            try:
                sent.append(self.from_client.receive_nowait().message)
            except anyio.WouldBlock:
                return sent

    def close(self) -> None:
        for stream in (self.to_client, self.client_reads, self.client_writes, self.from_client):
            stream.close()


async def test_a_transport_exception_reaches_the_message_handler_and_nothing_is_sent_back() -> None:
    server = ScriptedServer()
    inbox = Inbox()
    fault = ValueError("Parse error: garbage on the wire")
    try:
        async with ClientSession(server.client_reads, server.client_writes, message_handler=inbox):
            await server.to_client.send(fault)
            await server.notify("notifications/tools/list_changed")
            messages = await inbox.wait_for(2)
            assert messages[0] is fault
            assert isinstance(messages[1], ToolListChangedNotification)
            assert server.sent_by_client() == []
    finally:
        server.close()


async def test_cancellations_invalid_and_unknown_notifications_never_reach_the_handler(
        caplog: pytest.LogCaptureFixture) -> None:
    server = ScriptedServer()
    inbox = Inbox()
    try:
        async with ClientSession(server.client_reads, server.client_writes, message_handler=inbox):
            with caplog.at_level(logging.WARNING, logger="mcp.client"):
                await server.notify("notifications/cancelled", {"requestId": 5, "reason": "gone"})
                await server.notify("notifications/resources/updated", {})  # no uri: invalid
                await server.notify("notifications/initialized")  # a client notification
                await server.notify("ping")  # a request method, sent without an id
                await server.notify("com.example/unknown", {"x": 1})
                await server.notify("notifications/prompts/list_changed")
                (message,) = await inbox.wait_for(1)
    finally:
        server.close()
    assert isinstance(message, PromptListChangedNotification)
    assert "notifications/resources/updated" in caplog.text


async def test_notifications_are_read_at_the_negotiated_version() -> None:
    """`notifications/elicitation/complete` exists from 2025-11-25 on: at 2025-06-18 it is dropped."""
    mcp = MCPServer("old")

    @mcp.tool()
    async def finish(ctx: Context) -> str:
        await ctx.session.send_elicit_complete("el-2")
        await ctx.session.send_tool_list_changed()
        return "done"

    inbox = Inbox()
    async with (
        in_memory(mcp._lowlevel_server) as (read, write),
        ClientSession(read, write, message_handler=inbox) as session,
    ):
        result = await session.initialize("2025-06-18")
        assert result.protocol_version == "2025-06-18"
        await session.call_tool("finish", {})
        await inbox.wait_for(1)
    assert [type(message) for message in inbox.messages] == [ToolListChangedNotification]


# -- requests the client cannot answer -------------------------------------------------------------


def asking_server() -> MCPServer:
    mcp = MCPServer("asker")

    @mcp.tool()
    async def ask(ctx: Context, method: str) -> dict[str, Any]:
        params: dict[str, Any] = {
            "elicitation/create": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}},
            "sampling/createMessage": {"messages": [], "maxTokens": 5},
        }.get(method, {})
        try:
            await ctx.session.send_request(method, params)
        except MCPError as exc:
            return {"code": exc.code, "message": exc.message, "data": exc.data}
        return {"code": None}

    return mcp


@pytest.mark.parametrize(("method", "message"), [
    ("elicitation/create", "Elicitation not supported"),
    ("sampling/createMessage", "Sampling not supported"),
    ("roots/list", "List roots not supported"),
])
async def test_a_request_for_a_missing_callback_is_refused_as_an_invalid_request(method: str, message: str) -> None:
    async with Client(asking_server(), mode="legacy") as client:
        result = await client.call_tool("ask", {"method": method})
    assert result.structured_content == {"code": -32600, "message": message, "data": None}


async def test_an_unknown_server_request_is_method_not_found_with_the_method_as_data() -> None:
    async with Client(asking_server(), mode="legacy") as client:
        result = await client.call_tool("ask", {"method": "com.example/unknown"})
    assert result.structured_content == {"code": -32601, "message": "Method not found", "data": "com.example/unknown"}


async def test_log_level_opts_every_stateless_request_in_to_log_messages_unless_the_call_names_one() -> None:
    mcp = MCPServer("logs")

    @mcp.tool()
    async def chatty(ctx: Context) -> str:
        await ctx.debug("debug line")
        await ctx.error("error line")
        return "ok"

    heard, received = anyio.create_memory_object_stream[str](10)

    async def on_log(params: Any) -> None:
        heard.send_nowait(params.data)

    with heard, received:
        async with Client(mcp, log_level="debug", logging_callback=on_log) as client:
            assert client.protocol_version == "2026-07-28"
            await client.call_tool("chatty", {})
            with anyio.fail_after(5):
                assert [await received.receive() for _ in range(2)] == ["debug line", "error line"]
            await client.call_tool("chatty", {}, meta={"io.modelcontextprotocol/logLevel": "error"})
            with anyio.fail_after(5):
                assert await received.receive() == "error line"  # the debug line, had it come, would be first
