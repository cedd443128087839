"""docs/handlers/subscriptions.md: one `subscriptions/listen` request is the stream; it is
acknowledged first with the filter, every frame carries the subscription id, only what was asked
for arrives; `ctx.notify_*` publish to those streams (idle: a no-op); a middleware can refuse a
listen; the low-level composition is a bus plus `ListenHandler`, whose `close()` ends streams; a
custom `SubscriptionBus` is passed as `MCPServer(subscriptions=...)`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest

import mcp.types as types
from mcp import Client, MCPError
from mcp.client.subscriptions import ResourceUpdated as UpdatedEvent
from mcp.client.subscriptions import ToolsListChanged as ToolsEvent
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.subscriptions import (
    SUBSCRIPTION_ID_META_KEY,
    InMemorySubscriptionBus,
    ListenHandler,
    ResourceUpdated,
    ServerEvent,
)

pytestmark = pytest.mark.anyio


def kanban(**options: Any) -> tuple[MCPServer, dict[str, dict[str, bool]]]:
    boards = {"sprint": {"design": False, "ship": False}, "backlog": {"tidy": False}}
    mcp = MCPServer("Kanban", **options)

    @mcp.resource("board://{name}")
    def board(name: str) -> str:
        return ", ".join(f"{task}={'done' if done else 'open'}" for task, done in boards[name].items())

    @mcp.tool()
    async def finish(board: str, task: str, ctx: Context) -> str:
        boards[board][task] = True
        await ctx.notify_resource_updated(f"board://{board}")
        return "ok"

    def report() -> str:
        return "report"

    @mcp.tool()
    async def enable_report(ctx: Context) -> str:
        mcp.add_tool(report)
        await ctx.notify_tools_changed()
        return "enabled"

    return mcp, boards


class Frames:
    def __init__(self) -> None:
        self.items: list[Any] = []
        self._changed = anyio.Event()

    async def handler(self, message: Any) -> None:
        if isinstance(message, Exception):
            raise message
        self.items.append(message)
        self._changed.set()
        self._changed = anyio.Event()

    async def wait_for(self, count: int) -> None:
        with anyio.fail_after(10):
            while len(self.items) < count:
                await self._changed.wait()


def listen_request(**fields: Any) -> types.SubscriptionsListenRequest:
    return types.SubscriptionsListenRequest(params=types.SubscriptionsListenRequestParams(
        notifications=types.SubscriptionFilter(**fields)))


async def test_the_stream_is_acknowledged_first_filtered_and_tagged_with_its_id() -> None:
    server, _ = kanban()
    frames = Frames()
    async with Client(server, message_handler=frames.handler) as client, anyio.create_task_group() as tg:
        async def listen() -> None:
            await client.session.send_request(listen_request(tools_list_changed=True,
                                                             resource_subscriptions=["board://sprint"]),
                                              types.SubscriptionsListenResult)

        tg.start_soon(listen)
        await frames.wait_for(1)
        ack = frames.items[0]
        assert isinstance(ack, types.SubscriptionsAcknowledgedNotification)
        assert ack.params.notifications == types.SubscriptionFilter(tools_list_changed=True,
                                                                     resource_subscriptions=["board://sprint"])
        assert ack.params.meta is not None and SUBSCRIPTION_ID_META_KEY in ack.params.meta
        await client.call_tool("finish", {"board": "backlog", "task": "tidy"})  # not subscribed: silent
        await client.call_tool("finish", {"board": "sprint", "task": "design"})
        await frames.wait_for(2)
        updated = frames.items[1]
        assert isinstance(updated, types.ResourceUpdatedNotification)
        assert updated.params.uri == "board://sprint" and updated.params.meta == ack.params.meta
        await client.call_tool("enable_report", {})
        await frames.wait_for(3)
        assert isinstance(frames.items[2], types.ToolListChangedNotification)
        tg.cancel_scope.cancel()


async def test_the_client_end_refetches_on_each_event() -> None:
    server, _ = kanban()
    async with Client(server) as client, client.listen(tools_list_changed=True,
                                                       resource_subscriptions=["board://sprint"]) as events:
        await client.call_tool("finish", {"board": "sprint", "task": "ship"})
        with anyio.fail_after(10):
            event = await events.__anext__()
        assert isinstance(event, UpdatedEvent) and event.uri == "board://sprint"
        (contents,) = (await client.read_resource(event.uri)).contents
        assert isinstance(contents, types.TextResourceContents) and contents.text == "design=open, ship=done"
        await client.call_tool("enable_report", {})
        with anyio.fail_after(10):
            assert isinstance(await events.__anext__(), ToolsEvent)
        assert "report" in {tool.name for tool in (await client.list_tools()).tools}


async def test_publishing_with_nobody_listening_is_a_no_op() -> None:
    server, boards = kanban()
    async with Client(server) as client:
        assert not (await client.call_tool("finish", {"board": "sprint", "task": "design"})).is_error
    assert boards["sprint"]["design"]


@pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")  # the 2025 verb, used on purpose
async def test_a_legacy_resources_subscribe_client_hears_only_the_uris_it_subscribed() -> None:
    # Beyond the page (README): `notify_resource_updated` also reaches handshake-era sessions that
    # called `resources/subscribe` for that URI (the official MCPServer serves no such verb).
    server, _ = kanban()
    received: list[Any] = []

    async def on_message(message: Any) -> None:
        received.append(message)

    async with Client(server, mode="legacy", message_handler=on_message) as client:
        await client.call_tool("finish", {"board": "sprint", "task": "design"})
        assert received == []
        await client.session.subscribe_resource("board://sprint")
        await client.call_tool("finish", {"board": "backlog", "task": "tidy"})
        await client.call_tool("finish", {"board": "sprint", "task": "ship"})
    updates = [m.params.uri for m in received if isinstance(m, types.ResourceUpdatedNotification)]
    assert updates == ["board://sprint"]


async def test_a_middleware_refuses_a_listen_and_the_connection_carries_on() -> None:
    async def gate(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        if ctx.method == "subscriptions/listen":
            params = types.SubscriptionsListenRequestParams.model_validate(ctx.params or {})
            if "board://secret" in (params.notifications.resource_subscriptions or ()):
                raise MCPError(types.INVALID_REQUEST, "not permitted to watch the requested resources")
        return await call_next(ctx)

    server, _ = kanban(middleware=[gate])
    async with Client(server) as client:
        with pytest.raises(MCPError, match="not permitted to watch the requested resources"):
            async with client.listen(resource_subscriptions=["board://secret"]):
                raise AssertionError("the stream should never open")
        assert (await client.call_tool("finish", {"board": "sprint", "task": "design"})).content[0].type == "text"


async def test_the_low_level_composition_serves_the_same_stream_and_close_ends_it() -> None:
    bus = InMemorySubscriptionBus()
    handler = ListenHandler(bus)

    async def read_resource(ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=params.uri, text="v2")])

    server = Server("Low", on_read_resource=read_resource, on_subscriptions_listen=handler)
    async with Client(server) as client, client.listen(resource_subscriptions=["doc://a"]) as events:
        await bus.publish(ResourceUpdated(uri="doc://b"))  # outside the filter: never delivered
        await bus.publish(ResourceUpdated(uri="doc://a"))
        with anyio.fail_after(10):
            event = await events.__anext__()
        assert isinstance(event, UpdatedEvent) and event.uri == "doc://a"
        handler.close()
        with anyio.fail_after(10):
            remaining = [item async for item in events]
    assert remaining == []


async def test_a_custom_bus_is_what_mcpserver_publishes_to() -> None:
    class RecordingBus:
        def __init__(self) -> None:
            self.inner = InMemorySubscriptionBus()
            self.published: list[ServerEvent] = []

        async def publish(self, event: ServerEvent) -> None:
            self.published.append(event)
            await self.inner.publish(event)

        def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
            return self.inner.subscribe(listener)

    bus = RecordingBus()
    server, _ = kanban(subscriptions=bus)
    async with Client(server) as client:
        await client.call_tool("finish", {"board": "sprint", "task": "design"})
    assert bus.published == [ResourceUpdated(uri="board://sprint")]
