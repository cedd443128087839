"""The client surface code written for the official SDK relies on: readable constructor
arguments, read-only handshake state, the official request signatures and their defaults."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import mcp.client
import mcp.client.context
import mcp.client.session
from mcp import Client
from mcp.client import CacheConfig, ClientRequestContext
from mcp.server import MCPServer, Server, ServerRequestContext
from mcp.types import (
    CallToolRequestParams,
    ElicitRequestParams,
    ElicitResult,
    Implementation,
    InputRequiredResult,
    PaginatedRequestParams,
    RootsListChangedNotification,
    TextContent,
    ToolListChangedNotification,
)

pytestmark = pytest.mark.anyio


def tools_server() -> MCPServer:
    mcp = MCPServer("surface", instructions="be brief")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    return mcp


def test_every_client_constructor_argument_reads_back_as_an_attribute() -> None:
    server = tools_server()
    client = Client(server)
    assert client.server is server
    assert client.mode == "auto" and client.raise_exceptions is False
    for name in ("client_info", "elicitation_callback", "extensions", "list_roots_callback", "log_level",
                 "logging_callback", "message_handler", "prior_discover", "read_timeout_seconds",
                 "sampling_callback", "sampling_capabilities"):
        assert getattr(client, name) is None, name
    assert client.input_required_max_rounds == 10
    assert isinstance(client.cache, CacheConfig)
    assert Client(server, cache=None, log_level="info").cache is None


def test_a_client_with_a_custom_cache_store_and_no_url_needs_a_target_id() -> None:
    from mcp.client import InMemoryResponseCacheStore

    store = InMemoryResponseCacheStore()
    with pytest.raises(ValueError, match="target_id"):
        Client(tools_server(), cache=CacheConfig(store=store, partition="alice"))
    Client(tools_server(), cache=CacheConfig(store=store, partition="alice", target_id="srv"))


def test_client_request_context_is_keyword_only_and_importable_from_three_homes() -> None:
    assert mcp.client.ClientRequestContext is mcp.client.context.ClientRequestContext
    assert mcp.client.session.ClientRequestContext is ClientRequestContext
    assert dataclasses.is_dataclass(ClientRequestContext)
    ctx = ClientRequestContext(session=None, request_id=7)  # type: ignore[arg-type]
    assert (ctx.request_id, ctx.meta) == (7, None)
    with pytest.raises(TypeError):
        ClientRequestContext(None, 7)  # type: ignore[misc]


def test_the_default_client_info_is_the_official_one() -> None:
    assert Implementation(name="mcp", version="0.1.0") == mcp.client.session.DEFAULT_CLIENT_INFO
    assert mcp.client.session.DISCOVER_TIMEOUT_SECONDS == 10.0


async def test_handshake_state_is_read_only_and_follows_the_result() -> None:
    async with Client(tools_server(), mode="legacy") as client:
        session = client.session
        assert session.initialize_result is not None and session.discover_result is None
        assert session.protocol_version == session.initialize_result.protocol_version
        assert session.server_info.name == "surface"
        assert session.server_capabilities.tools is not None
        assert session.instructions == "be brief"
        assert await session.initialize() is session.initialize_result  # no second handshake
        with pytest.raises(AttributeError):
            session.protocol_version = "2025-06-18"  # type: ignore[misc]
    async with Client(tools_server()) as client:
        assert client.session.discover_result is not None and client.session.initialize_result is None
        assert client.session.instructions == "be brief"


async def test_send_discover_returns_the_raw_result_and_adopts_nothing() -> None:
    async with Client(tools_server(), mode="legacy") as client:
        version = client.session.protocol_version
        raw = await client.session.send_discover("2026-07-28")
        assert "2026-07-28" in raw["supportedVersions"]
        assert client.session.protocol_version == version and client.session.discover_result is None


def paged_server() -> Server:
    from mcp.types import ListToolsResult, Tool

    async def list_tools(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        schema: dict[str, Any] = {"type": "object"}
        if params is None or params.cursor is None:
            return ListToolsResult(tools=[Tool(name="one", input_schema=schema)], next_cursor="p2")
        return ListToolsResult(tools=[Tool(name="two", input_schema=schema)])

    return Server("paged", on_list_tools=list_tools)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_list_tools_takes_the_official_params_model(mode: str) -> None:
    async with Client(paged_server(), mode=mode) as client:
        first = await client.session.list_tools()
        second = await client.session.list_tools(params=PaginatedRequestParams(cursor=first.next_cursor))
    assert [t.name for t in first.tools] == ["one"]
    assert [t.name for t in second.tools] == ["two"] and second.next_cursor is None


def stepping_server() -> Server:
    async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> Any:
        if params.request_state is None:
            return InputRequiredResult(input_requests={}, request_state="again")
        return {"content": [{"type": "text", "text": "done"}]}

    return Server("step", on_call_tool=call_tool)


async def test_an_input_required_answer_raises_unless_the_caller_allows_it() -> None:
    async with Client(stepping_server()) as client:
        with pytest.raises(RuntimeError, match="pass allow_input_required=True"):
            await client.session.call_tool("step", {})
        first = await client.session.call_tool("step", {}, allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        final = await client.session.call_tool("step", {}, request_state=first.request_state)
        assert final.content == [TextContent(text="done")]
        # Client drives the rounds itself
        assert (await client.call_tool("step", {})).content == [TextContent(text="done")]


async def test_the_session_checks_structured_output_against_the_declared_schema() -> None:
    from mcp.types import CallToolResult, ListToolsResult, Tool

    async def list_tools(ctx: ServerRequestContext[Any, Any], params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="n", input_schema={"type": "object"},
                                           output_schema={"type": "object", "required": ["n"]})])

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> CallToolResult:
        return CallToolResult(content=[], structured_content={"m": 1})

    server = Server("schema", on_list_tools=list_tools, on_call_tool=call_tool)
    async with Client(server, mode="legacy") as client:
        with pytest.raises(RuntimeError, match=r"^Invalid structured content returned by tool n"):
            await client.session.call_tool("n", {})
        good = CallToolResult(content=[], structured_content={"n": 1})
        await client.session.validate_tool_result("n", good)


async def test_dispatch_input_request_answers_with_the_callback_or_an_error() -> None:
    from mcp.types import ElicitRequest, ElicitRequestFormParams, ErrorData, ListRootsRequest

    async def elicit(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        assert context.request_id == "k"
        return ElicitResult(action="decline")

    async with Client(tools_server(), elicitation_callback=elicit) as client:
        ctx = ClientRequestContext(session=client.session, request_id="k")
        request = ElicitRequest(params=ElicitRequestFormParams(
            message="ok?", requested_schema={"type": "object", "properties": {}}))
        assert await client.session.dispatch_input_request(ctx, request) == ElicitResult(action="decline")
        refused = await client.session.dispatch_input_request(ctx, ListRootsRequest())
        assert isinstance(refused, ErrorData) and refused.message == "List roots not supported"


async def test_send_notification_takes_a_typed_notification() -> None:
    import anyio
    from pydantic import BaseModel

    class Empty(BaseModel):
        pass

    got = anyio.Event()
    server = Server("notes")

    async def on_changed(ctx: ServerRequestContext[Any, Any], params: Empty) -> None:
        got.set()

    server.add_notification_handler("notifications/roots/list_changed", Empty, on_changed)
    async with Client(server, mode="legacy") as client:
        await client.session.send_notification(RootsListChangedNotification())
        with anyio.fail_after(5):
            await got.wait()


async def test_the_input_required_driver_answers_rounds_and_gives_up_after_max_rounds() -> None:
    from mcp import InputRequiredRoundsExceededError
    from mcp.client._input_required import DEFAULT_INPUT_REQUIRED_MAX_ROUNDS, run_input_required_driver
    from mcp.shared.exceptions import MCPError
    from mcp.types import ErrorData, ListRootsRequest

    assert DEFAULT_INPUT_REQUIRED_MAX_ROUNDS == 10
    asked = InputRequiredResult(input_requests={"roots": ListRootsRequest()}, request_state="s")
    sent: list[Any] = []

    async def dispatch(key: str, request: Any) -> Any:
        return {"roots": []}

    async def retry(responses: Any, state: Any) -> Any:
        sent.append((responses, state))
        return asked if len(sent) < 2 else "final"

    assert await run_input_required_driver(asked, dispatch=dispatch, retry=retry) == "final"
    assert sent == [({"roots": {"roots": []}}, "s")] * 2

    async def always(responses: Any, state: Any) -> Any:
        return asked

    with pytest.raises(InputRequiredRoundsExceededError):
        await run_input_required_driver(asked, dispatch=dispatch, retry=always, max_rounds=2)

    async def refuse(key: str, request: Any) -> Any:
        return ErrorData(code=-32600, message="no roots here")

    with pytest.raises(MCPError, match="no roots here"):
        await run_input_required_driver(asked, dispatch=refuse, retry=always)


async def test_the_private_client_helpers_fastmcp_imports_work() -> None:
    from mcp.client._probe import negotiate_auto
    from mcp.client.caching import CacheConfig as Config
    from mcp.client.caching import ClientResponseCache
    from mcp.client.client import _evicting_message_handler, _fold_extensions, _synthesize_discover
    from mcp.client.extensions import advertise

    assert _synthesize_discover("2026-07-28").supported_versions == ["2026-07-28"]
    folded = _fold_extensions([advertise("com.example/flags", {"beta": True})])
    assert folded.ad == {"com.example/flags": {"beta": True}} and folded.claims is None
    seen: list[Any] = []

    async def user(message: Any) -> None:
        seen.append(message)

    cache = ClientResponseCache.for_client(Config(), None, lambda: "2026-07-28")
    handler = _evicting_message_handler(cache, user)
    await handler(ToolListChangedNotification())
    assert seen == [ToolListChangedNotification()]
    async with Client(tools_server(), mode="legacy") as client:
        await negotiate_auto(client.session)  # a server that speaks both eras ends up stateless
        assert client.session.discover_result is not None


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_slow_progress_callback_does_not_hold_up_the_result(mode: str) -> None:
    import anyio

    from mcp.server.mcpserver import Context

    mcp = MCPServer("progress")

    @mcp.tool()
    async def work(ctx: Context) -> str:
        await ctx.report_progress(1, 2)
        await ctx.report_progress(2, 2)
        return "done"

    release, done = anyio.Event(), anyio.Event()
    finished: list[float] = []

    async def gated(progress: float, total: float | None, message: str | None) -> None:
        await release.wait()
        finished.append(progress)
        if len(finished) == 2:
            done.set()

    async with Client(mcp, mode=mode) as client:
        with anyio.fail_after(5):
            result = await client.call_tool("work", {}, progress_callback=gated)
        assert finished == [] and result.content == [TextContent(text="done")]
        release.set()
        with anyio.fail_after(5):
            await done.wait()
    assert sorted(finished) == [1, 2]
