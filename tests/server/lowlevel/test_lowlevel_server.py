"""The low-level `Server`: results on the wire as returned, sanitised errors, exact capabilities,
custom methods, and one dispatch path shared with MCPServer."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from mcp import Client, MCPError
from mcp.server import MCPServer, Server, ServerRequestContext
from mcp.server.lowlevel.server import HandlerEntry, LazyParams
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    RequestParams,
    Result,
    TextContent,
    Tool,
)

pytestmark = pytest.mark.anyio

# An output schema whose key order and odd spacing of values must survive untouched.
ODD_SCHEMA = {"type": "object", "properties": {"z": {"type": "string", "pattern": "^a  b$"}, "a": {"type": "integer"}},
              "required": ["z"], "$schema": "https://json-schema.org/draft/2020-12/schema", "x-vendor": [1, {"k": None}]}


async def list_tools(ctx: ServerRequestContext, params: PaginatedRequestParams | None) -> ListToolsResult:
    return ListToolsResult(tools=[Tool(name=name, input_schema={"type": "object"}, output_schema=ODD_SCHEMA)
                                  for name in ("echo", "other")])


async def call_tool(ctx: ServerRequestContext, params: CallToolRequestParams) -> CallToolResult:
    args = params.arguments or {}
    if params.name == "crash":
        raise RuntimeError("database password is hunter2")
    if params.name == "bare":
        return [TextContent(text="not a result")]  # type: ignore[return-value]
    return CallToolResult(
        content=[TextContent(text=str(args))],
        structured_content={"z": "a  b", "a": args.get("a", 0)} if params.name == "echo" else {"wrong": True},
        _meta={"app/only": {"secret": 1}},
    )


def make_server() -> Server:
    return Server("low", version="9", on_list_tools=list_tools, on_call_tool=call_tool)


async def test_results_go_on_the_wire_unchanged_with_meta_passed_through() -> None:
    async with Client(make_server()) as client:
        tools = await client.list_tools()
        assert tools.tools[0].output_schema == ODD_SCHEMA
        assert list(tools.tools[0].output_schema) == list(ODD_SCHEMA)
        result = await client.call_tool("echo", {"a": 5, "unchecked": "arguments are never validated"})
        assert result.structured_content == {"z": "a  b", "a": 5}
        assert result.meta is not None and result.meta["app/only"] == {"secret": 1}
        assert result.meta["io.modelcontextprotocol/serverInfo"] == {"name": "low", "version": "9"}


async def test_the_client_rejects_structured_content_that_breaks_the_output_schema() -> None:
    async with Client(make_server()) as client:
        with pytest.raises(RuntimeError, match=r"^Invalid structured content returned by tool other"):
            await client.call_tool("other", {})


async def test_a_handler_exception_is_sanitised_to_internal_error(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="mcp.server"):
        async with Client(make_server()) as client:
            with pytest.raises(MCPError) as info:
                await client.call_tool("crash", {})
    assert (info.value.code, info.value.message) == (-32603, "Internal server error")
    assert "hunter2" not in str(info.value.data)
    assert "hunter2" in caplog.text


async def test_raise_exceptions_reraises_the_handler_exception_at_the_call_site() -> None:
    async with Client(make_server(), raise_exceptions=True, mode="legacy") as client:
        with pytest.raises(RuntimeError, match="hunter2"):
            await client.call_tool("crash", {})
        assert (await client.call_tool("echo", {"a": 1})).structured_content == {"z": "a  b", "a": 1}


async def test_raise_exceptions_on_the_2026_wire_reveals_the_text_as_an_internal_error() -> None:
    async with Client(make_server(), raise_exceptions=True) as client:
        with pytest.raises(MCPError, match="hunter2") as raised:
            await client.call_tool("crash", {})
        assert raised.value.code == -32603
        assert (await client.call_tool("echo", {"a": 1})).structured_content == {"z": "a  b", "a": 1}


async def test_returning_something_that_is_not_a_result_is_a_clear_type_error() -> None:
    async with Client(make_server(), raise_exceptions=True, mode="legacy") as client:
        with pytest.raises(TypeError, match="expected a result model"):
            await client.call_tool("bare", {})


class _StampedResult(CallToolResult):
    """A result class of the application's own that overrides `model_dump`."""

    def model_dump(self, **options: Any) -> dict[str, Any]:
        dumped = super().model_dump(**options)
        dumped["structuredContent"] = {**dumped.get("structuredContent", {}), "stamped": True}
        return dumped


async def test_a_result_class_overriding_model_dump_is_put_on_the_wire_through_its_override() -> None:
    async def stamped(ctx: ServerRequestContext, params: CallToolRequestParams) -> CallToolResult:
        return _StampedResult(content=[TextContent(text="x")], structured_content={"n": 1})

    server = Server("stamped", on_list_tools=list_tools, on_call_tool=stamped)
    async with Client(server, mode="legacy") as client:
        for _ in range(2):  # the second call takes the cached way
            result = await client.call_tool("plain", {})
            assert result.structured_content == {"n": 1, "stamped": True}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_capabilities_are_exactly_those_of_the_handlers_given(mode: str) -> None:
    async with Client(make_server(), mode=mode) as client:
        caps = client.server_capabilities.model_dump(exclude_none=True)
        assert caps == {"tools": {"list_changed": False}}
    async with Client(Server("empty"), mode=mode) as client:
        assert client.server_capabilities.model_dump(exclude_none=True) == {}


class SearchParams(RequestParams):
    query: str
    limit: int = 3


class SearchResult(Result):
    hits: list[str]


async def test_a_custom_method_is_validated_then_served_end_to_end() -> None:
    server = Server("custom")

    async def search(ctx: ServerRequestContext, params: SearchParams) -> SearchResult:
        return SearchResult(hits=[f"{params.query}-{i}" for i in range(params.limit)])

    server.add_request_handler("vendor/search", SearchParams, search)
    async with Client(server) as client:
        raw = await client.session.send_request_raw("vendor/search", {"query": "q", "limit": 2})
        assert raw["hits"] == ["q-0", "q-1"]
        with pytest.raises(MCPError) as info:
            await client.session.send_request_raw("vendor/search", {"limit": "many"})
        assert info.value.code == -32602 and "query" in info.value.message
        with pytest.raises(MCPError) as missing:
            await client.session.send_request_raw("vendor/other", {})
        assert missing.value.code == -32601


def test_registering_initialize_is_refused_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match="'initialize' is handled by the server runner and cannot be overridden"):
        Server("x").add_request_handler("initialize", RequestParams, list_tools)  # type: ignore[arg-type]


async def test_notification_handlers_receive_validated_params() -> None:
    server = Server("n")
    seen: list[Any] = []
    got = anyio.Event()

    class PingedParams(BaseModel):
        count: int

    async def on_pinged(ctx: ServerRequestContext, params: PingedParams) -> None:
        seen.append(params.count)
        got.set()

    server.add_notification_handler("vendor/pinged", PingedParams, on_pinged)
    async with Client(server, mode="legacy") as client:
        await client.session.send_notification("vendor/pinged", {"count": 7})
        with anyio.fail_after(5):
            await got.wait()
    assert seen == [7]


async def test_mcpserver_and_server_share_one_dispatch_path() -> None:
    mcp = MCPServer("high")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    lowlevel = mcp._lowlevel_server
    assert isinstance(lowlevel, Server)
    assert lowlevel.get_request_handler("tools/call") is not None
    async with Client(lowlevel) as client:
        assert (await client.call_tool("add", {"a": 1, "b": 2})).structured_content == {"result": 3}


async def test_an_entry_set_through_the_table_door_serves_and_can_be_replaced_field_by_field() -> None:
    server = Server("doors")
    seen: list[Any] = []

    async def echo(ctx: ServerRequestContext, params: Any) -> dict[str, Any]:
        seen.append(params)
        return {"echo": params["word"]}

    async def shout(ctx: ServerRequestContext, params: Any) -> dict[str, Any]:
        return {"shout": str(params["word"]).upper()}

    server.set_request_entry("vendor/echo", HandlerEntry(None, echo))
    async with Client(server) as client:
        raw = await client.session.send_request_raw("vendor/echo", {"word": "hi"})
        assert raw["echo"] == "hi" and type(seen[0]) is dict  # params type None: the raw params
        server.replace_request_entry("vendor/echo", handler=shout)
        assert (await client.session.send_request_raw("vendor/echo", {"word": "hi"}))["shout"] == "HI"
    entry = server.request_entry("vendor/echo")
    assert entry is not None and entry.handler is shout and entry.params_type is None


def test_replacing_an_entry_that_was_never_registered_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        Server("x").replace_request_entry("vendor/absent", planner=None)


def test_mcpserver_registers_its_own_entries_through_the_doors_with_planners_and_optional_list_params() -> None:
    mcp = MCPServer("high")
    lowlevel = mcp.lowlevel_server
    assert lowlevel is mcp._lowlevel_server
    call = lowlevel.request_entry("tools/call")
    assert call is not None and call.planner is not None and call.params_type is None
    for method in ("tools/list", "resources/list", "resources/templates/list", "prompts/list"):
        entry = lowlevel.request_entry(method)
        assert entry is not None and isinstance(entry.params_type, LazyParams) and entry.params_type.optional
    read = lowlevel.request_entry("resources/read")
    assert read is not None and read.planner is not None
    # the official lookup still hands out the model class, never the lazy name
    official = lowlevel.get_request_handler("tools/list")
    assert official is not None and official.params_type is PaginatedRequestParams
