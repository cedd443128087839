"""`ServerSession` takes the official SDK's call forms: typed requests and notifications
(`send_request(request, result_type)`, `send_notification(notification, related_request_id)`),
`send_elicit_complete(id, related_request_id)`, `report_progress`, and the per-request form
`ServerSession(request_outbound, connection)` over any outbound channel."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from mcp import Client
from mcp.server import Server, ServerRequestContext
from mcp.server.connection import Connection
from mcp.server.session import ServerSession
from mcp.shared.message import ServerMessageMetadata
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ClientCapabilities,
    ElicitationCapability,
    ListRootsRequest,
    ListRootsResult,
    ListToolsResult,
    PaginatedRequestParams,
    Root,
    RootsCapability,
    TextContent,
    Tool,
    ToolListChangedNotification,
)

pytestmark = pytest.mark.anyio


def _server(calls: dict[str, Any]) -> Server[Any]:
    async def list_tools(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="ask", input_schema={"type": "object"})])

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> CallToolResult:
        session = ctx.session
        calls["protocol_version"] = session.protocol_version
        calls["can_send_request"] = session.can_send_request
        roots = await session.send_request(ListRootsRequest(), ListRootsResult,
                                           metadata=ServerMessageMetadata(related_request_id=ctx.request_id))
        await session.send_notification(ToolListChangedNotification(), ctx.request_id)
        await session.send_elicit_complete("elic-1", ctx.request_id)
        await session.report_progress(0.5, 1.0, "half")
        return CallToolResult(content=[TextContent(text=",".join(str(root.uri) for root in roots.roots))])

    return Server("official-forms", on_list_tools=list_tools, on_call_tool=call_tool)


async def test_typed_requests_notifications_and_progress_reach_a_legacy_client() -> None:
    calls: dict[str, Any] = {}
    seen: list[Any] = []
    progress: list[tuple[float, float | None, str | None]] = []
    both_seen = anyio.Event()

    async def list_roots(context: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri="file:///work")])

    async def on_message(message: Any) -> None:
        seen.append(message)
        if len(seen) >= 2:
            both_seen.set()

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async with Client(_server(calls), mode="legacy", list_roots_callback=list_roots,
                      message_handler=on_message) as client:
        result = await client.call_tool("ask", {}, progress_callback=on_progress)
        with anyio.fail_after(5):
            await both_seen.wait()
    assert isinstance(result.content[0], TextContent) and result.content[0].text == "file:///work"
    assert calls == {"protocol_version": "2025-11-25", "can_send_request": True}
    methods = [getattr(message, "method", None) for message in seen]
    assert methods[:2] == ["notifications/tools/list_changed", "notifications/elicitation/complete"]
    assert progress == [(0.5, 1.0, "half")]


class RecordingOutbound:
    """An outbound channel that answers every request with a fixed result and records traffic."""

    def __init__(self, result: dict[str, Any]) -> None:
        self.result = result
        self.requests: list[tuple[str, Any, Any]] = []
        self.notifications: list[tuple[str, Any]] = []
        self.progress_reports: list[tuple[float, float | None, str | None]] = []
        self.can_send_request = True

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None,
                               opts: Any = None) -> dict[str, Any]:
        self.requests.append((method, params, opts))
        return self.result

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> None:
        self.notifications.append((method, params))

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        self.progress_reports.append((progress, total, message))


async def test_the_per_request_form_sends_on_the_request_channel_or_the_connections() -> None:
    request_channel = RecordingOutbound({"roots": [{"uri": "file:///a"}]})
    connection_channel = RecordingOutbound({})
    connection = Connection.for_loop(connection_channel, session_id="s-1")
    connection.client_capabilities = ClientCapabilities(roots=RootsCapability(list_changed=True))
    session = ServerSession(request_channel, connection)

    assert session.protocol_version == "2025-11-25"
    assert session.can_send_request is True
    assert session.check_client_capability(ClientCapabilities(roots=RootsCapability()))
    assert not session.check_client_capability(ClientCapabilities(elicitation=ElicitationCapability()))

    roots = await session.send_request(ListRootsRequest(), ListRootsResult, 2.5,
                                       ServerMessageMetadata(related_request_id=7))
    assert [str(root.uri) for root in roots.roots] == ["file:///a"]
    assert request_channel.requests == [("roots/list", None, {"timeout": 2.5})]

    await session.send_notification(ToolListChangedNotification())  # no related request: the connection's
    await session.send_elicit_complete("e-9", related_request_id=7)
    await session.report_progress(1, 2, "step")
    assert connection_channel.notifications == [("notifications/tools/list_changed", None)]
    assert request_channel.notifications == [("notifications/elicitation/complete", {"elicitationId": "e-9"})]
    assert request_channel.progress_reports == [(1, 2, "step")]


async def test_a_connection_from_a_2026_envelope_is_ready_and_has_no_channel() -> None:
    connection = Connection.from_envelope("2026-07-28", {"name": "c", "version": "1"}, {"roots": {}})
    assert connection.initialized.is_set() and connection.initialize_accepted
    assert not connection.has_standalone_channel
    assert connection.client_params is not None and connection.client_params.client_info.name == "c"
    with pytest.raises(Exception, match="no back-channel"):
        await connection.send_raw_request("ping", None)
