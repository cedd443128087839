"""The low-level `Server`'s official surface: identity, capabilities, handler lookup, the session
manager, initialization options and `ServerRequestContext` construction."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from mcp import Client
from mcp.server import InitializationOptions, Server, ServerRequestContext
from mcp.server.lowlevel.server import HandlerEntry, NotificationOptions, lifespan
from mcp.server.models import InitializationOptions as ModelsInitializationOptions
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    Implementation,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

pytestmark = pytest.mark.anyio


async def list_tools(ctx: ServerRequestContext, params: PaginatedRequestParams | None) -> ListToolsResult:
    return ListToolsResult(tools=[Tool(name="echo", input_schema={"type": "object"})])


async def call_tool(ctx: ServerRequestContext, params: CallToolRequestParams) -> CallToolResult:
    return CallToolResult(content=[TextContent(text="hi")])


def test_server_info_is_an_implementation_and_the_stamp_is_a_fresh_wire_dict() -> None:
    server = Server("x", version="1.0", title="X")
    assert server.server_info == Implementation(name="x", version="1.0", title="X")
    stamp = server.server_info_stamp
    assert stamp == {"name": "x", "version": "1.0", "title": "X"}
    stamp["name"] = "changed"
    assert server.server_info_stamp["name"] == "x"
    assert Server("bare").server_info_stamp == {"name": "bare", "version": ""}


def test_handler_lookup_returns_the_registered_entry_or_none() -> None:
    async def on_progress(ctx: ServerRequestContext, params: Any) -> None: ...

    server = Server("x", on_call_tool=call_tool)
    entry = server.get_request_handler("tools/call")
    assert isinstance(entry, HandlerEntry) and entry.handler is call_tool
    assert server.get_request_handler("prompts/get") is None
    assert server.get_notification_handler("notifications/progress") is None
    server.add_notification_handler("notifications/custom", BaseModel, on_progress)
    notification = server.get_notification_handler("notifications/custom")
    assert notification is not None and notification.handler is on_progress


def test_the_session_manager_exists_only_after_streamable_http_app() -> None:
    server = Server("x")
    with pytest.raises(RuntimeError, match="only be accessed after calling streamable_http_app"):
        _ = server.session_manager
    server.streamable_http_app()
    assert type(server.session_manager).__name__ == "StreamableHTTPSessionManager"


def test_get_tool_input_schema_is_accepted_and_kept() -> None:
    def schema_of(name: str) -> dict[str, Any] | None:
        return {"type": "object"} if name == "echo" else None

    server = Server("x", get_tool_input_schema=schema_of)
    assert server.name == "x"
    assert server.get_tool_input_schema is schema_of


def test_the_defaults_are_the_official_lifespan_and_ping_handler() -> None:
    import inspect

    parameters = inspect.signature(Server).parameters
    assert parameters["lifespan"].default is lifespan
    assert parameters["on_ping"].default.__name__ == "_ping_handler"


def test_capabilities_follow_notification_options_and_extensions() -> None:
    server = Server("x", on_list_tools=list_tools, on_call_tool=call_tool)
    assert server.get_capabilities().tools is not None
    assert server.get_capabilities().tools.list_changed is False  # type: ignore[union-attr]
    caps = server.get_capabilities(NotificationOptions(tools_changed=True), None, {"com.example/ext": {"a": 1}})
    assert caps.tools is not None and caps.tools.list_changed is True
    assert caps.extensions == {"com.example/ext": {"a": 1}}
    server.extensions["com.example/other"] = {}
    assert server.get_capabilities().extensions == {"com.example/other": {}}


def test_at_a_modern_version_list_changed_follows_subscriptions_listen() -> None:
    server = Server("x", on_list_tools=list_tools)
    caps = server.get_capabilities(NotificationOptions(tools_changed=True), protocol_version="2026-07-28")
    assert caps.tools is not None and caps.tools.list_changed is False


def test_initialization_options_are_a_pydantic_model_carrying_identity_and_extensions() -> None:
    assert InitializationOptions is ModelsInitializationOptions
    server = Server("x", version="2", title="T", description="D", on_list_tools=list_tools)
    options = server.create_initialization_options(None, None, {"com.example/ext": {}})
    assert isinstance(options, BaseModel)
    assert (options.server_name, options.server_version, options.title, options.description) == ("x", "2", "T", "D")
    assert options.capabilities.extensions == {"com.example/ext": {}}


def test_importing_the_low_level_server_builds_no_pydantic_model() -> None:
    import subprocess
    import sys

    code = "import sys\nimport mcp.server.lowlevel.server\nprint('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_request_context_can_be_built_by_keyword_with_params_defaulting_to_none() -> None:
    ctx: ServerRequestContext[dict[str, Any]] = ServerRequestContext(
        session=None,  # type: ignore[arg-type]
        lifespan_context={},
        protocol_version="2025-11-25",
        method="tools/list",
    )
    assert ctx.params is None and ctx.request_id is None
    assert ctx.close_sse_stream is None and ctx.close_standalone_sse_stream is None


async def test_on_stdio_like_transports_the_sse_closers_are_none() -> None:
    seen: list[Any] = []

    async def tool(ctx: ServerRequestContext, params: CallToolRequestParams) -> CallToolResult:
        seen.append((ctx.close_sse_stream, ctx.close_standalone_sse_stream))
        return CallToolResult(content=[])

    async with Client(Server("x", on_list_tools=list_tools, on_call_tool=tool)) as client:
        await client.call_tool("echo", {})
    assert seen == [(None, None)]


class _Dispatch:
    """A dispatch context as a transport gives one: its metadata and the request's back-channel."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport
        self.sent: list[tuple[str, Any]] = []

    async def notify(self, method: str, params: Any, opts: Any = None) -> None:
        self.sent.append((method, params))


class _Connection:
    def __init__(self, protocol_version: str, session_id: str | None = None) -> None:
        self.protocol_version = protocol_version
        self.session_id = session_id


async def test_the_low_level_context_exposes_lifespan_connection_and_request_scoped_logging() -> None:
    from mcp.server.context import Context
    from mcp.shared.exceptions import MCPDeprecationWarning

    class Transport:
        def __init__(self) -> None:
            self.headers = {"x-test": "1"}

    dctx = _Dispatch(Transport())
    ctx: Context[dict[str, int]] = Context(dctx, lifespan={"n": 1}, connection=_Connection("2025-11-25", "sid"))
    assert ctx.lifespan == {"n": 1} and ctx.session_id == "sid" and ctx.headers == {"x-test": "1"}
    with pytest.warns(MCPDeprecationWarning):
        await ctx.log("info", "hello", logger="app")
    assert dctx.sent == [("notifications/message", {"level": "info", "data": "hello", "logger": "app"})]

    modern = _Dispatch(None)
    opted_in = {"io.modelcontextprotocol/logLevel": "warning"}
    ctx = Context(modern, lifespan={}, connection=_Connection("2026-07-28"), meta=opted_in)
    with pytest.warns(MCPDeprecationWarning):
        await ctx.log("info", "dropped")
        await ctx.log("error", "kept")
    assert [params["data"] for _, params in modern.sent] == ["kept"]


async def test_server_discover_can_be_replaced_but_initialize_cannot() -> None:
    from mcp.types import RequestParams

    async def discover(ctx: ServerRequestContext, params: Any) -> dict[str, Any]:
        return {"supportedVersions": ["2026-07-28"], "capabilities": {}, "instructions": "custom"}

    server = Server("x")
    server.add_request_handler("server/discover", RequestParams, discover)
    assert server.get_request_handler("server/discover").handler is discover  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="'initialize' is handled by the server runner and cannot be overridden"):
        server.add_request_handler("initialize", RequestParams, discover)


def test_cache_hints_name_every_method_that_is_not_cacheable() -> None:
    from mcp.server.caching import CacheHint, validate_cache_hints

    with pytest.raises(ValueError, match=r"got: 'tools/call', 'x/y'$"):
        validate_cache_hints(cache_hints={"x/y": CacheHint(), "tools/call": CacheHint()})
