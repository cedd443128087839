"""Behaviours of the official SDK that FastMCP and the OpenAI Agents SDK rely on (found running their
code and FastMCP's test suite on mcpkit; tests/ecosystem runs the libraries themselves): private
names they read, what middleware receives, the shape of `ctx.meta`, error texts they match."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import anyio
import pytest

from mcp import Client, MCPError
from mcp.server import MCPServer, Server, ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.streamable_http import StreamableHTTPSessionManager

pytestmark = pytest.mark.anyio


def fresh_interpreter(code: str) -> Any:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_vars_of_mcp_holds_client_once_client_session_was_imported_from_it() -> None:
    # the Agents SDK: `from mcp import ClientSession, stdio_client`, later `vars(import_module("mcp"))["Client"]`
    seen = fresh_interpreter(
        "import json, sys\nfrom mcp import ClientSession\nimport mcp\n"
        "print(json.dumps([vars(mcp)['Client'].__name__, 'httpx' in sys.modules]))"
    )
    assert seen == ["Client", False]  # and still no HTTP stack


def test_vars_of_mcp_types_holds_the_protocol_constants_without_loading_the_models() -> None:
    seen = fresh_interpreter(
        "import json, sys\nimport mcp_types\n"
        "print(json.dumps([vars(mcp_types)['CONNECTION_CLOSED'], vars(mcp_types)['INTERNAL_ERROR'],"
        " vars(mcp_types)['LATEST_PROTOCOL_VERSION'], 'pydantic' in sys.modules]))"
    )
    assert seen[:2] == [-32000, -32603]
    assert seen[2].count("-") == 2
    assert seen[3] is False


async def test_middleware_receives_the_initialize_result_as_a_mapping_and_the_client_gets_it_whole() -> None:
    server = Server("observed", version="1.2")
    received: list[Any] = []

    async def observe(ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method == "initialize":
            received.append(dict(result))  # FastMCP re-validates it: `InitializeResult.model_validate(dict(raw))`
        return result

    server.middleware.append(observe)
    async with Client(server, mode="legacy") as client:
        assert client.session.server_info.name == "observed"
    assert received[0]["serverInfo"] == {"name": "observed", "version": "1.2"}
    assert "protocolVersion" in received[0]


async def test_ctx_meta_names_the_progress_token_progress_token_as_the_official_sdk_does() -> None:
    app = MCPServer("progress")
    metas: list[Any] = []
    updates: list[float] = []

    @app.tool()
    async def work(ctx: Context) -> str:
        metas.append(dict(ctx.request_context.meta))
        await ctx.report_progress(1, 2)
        return "done"

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append(progress)

    async with Client(app) as client:
        await client.call_tool("work", {}, progress_callback=on_progress)
    assert "progress_token" in metas[0] and "progressToken" not in metas[0]
    assert updates == [1]


async def test_a_timed_out_request_says_so_in_the_official_words() -> None:
    app = MCPServer("slow")
    release = anyio.Event()

    @app.tool()
    async def wait() -> str:
        await release.wait()
        return "late"

    async with Client(app, mode="legacy") as client:
        with pytest.raises(MCPError) as info:
            await client.session.call_tool("wait", {}, read_timeout_seconds=0.05)
        release.set()
    assert info.value.message == "Request 'tools/call' timed out"


async def test_a_complete_tool_listing_forgets_the_output_schemas_of_tools_that_are_gone() -> None:
    app = MCPServer("tools")

    @app.tool()
    def kept() -> int:
        return 1

    async with Client(app) as client:
        session = client.session
        listing = await session.list_tools()
        session._tool_output_schemas["gone"] = {"type": "object"}
        assert session._absorb_tool_listing(listing, complete=False) is listing
        assert "gone" in session._tool_output_schemas
        session._absorb_tool_listing(listing, complete=True)
        assert set(session._tool_output_schemas) == {"kept"}
        assert session._session_read_timeout_seconds == session.read_timeout_seconds


@dataclass
class LogData:
    msg: str
    extra: dict[str, Any] | None = None


async def test_log_data_given_as_a_dataclass_reaches_the_client_in_its_json_form() -> None:
    app = MCPServer("logs")
    logged: list[Any] = []

    @app.tool()
    async def speak(ctx: Context) -> str:
        await ctx.request_context.session.send_log_message("info", LogData("hello?", {"k": 1}))
        return "ok"

    async def on_log(params: Any) -> None:
        logged.append(params.data)

    with pytest.warns(Warning):  # logging is deprecated as of 2026-07-28
        async with Client(app, mode="legacy", logging_callback=on_log) as client:
            await client.call_tool("speak", {})
    assert logged == [{"msg": "hello?", "extra": {"k": 1}}]


async def test_the_session_managers_server_instances_end_each_session_when_terminated() -> None:
    manager = StreamableHTTPSessionManager(Server("http"))
    assert manager._server_instances == {}
    # FastMCP walks this map at shutdown: `await transport.terminate()` for each value
    for transport in list(manager._server_instances.values()):
        await transport.terminate()


def test_the_httpx_utils_factory_makes_a_client_with_the_transport_defaults() -> None:
    from mcp.shared._httpx_utils import (
        MCP_DEFAULT_SSE_READ_TIMEOUT,
        MCP_DEFAULT_TIMEOUT,
        create_mcp_http_client,
    )

    client = create_mcp_http_client(headers={"X-Test": "1"})
    assert client.headers["X-Test"] == "1"
    assert (client.timeout.connect, client.timeout.read) == (MCP_DEFAULT_TIMEOUT, MCP_DEFAULT_SSE_READ_TIMEOUT)
    assert client.follow_redirects is True
