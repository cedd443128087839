"""Over an in-memory connection each message carries its sender's context variables, as officially
(`mcp.shared.memory` snapshots the sender's context, the receiving side serves a request in it): a
variable the caller set (FastMCP's `suppress_fastmcp_telemetry()` block, an OpenTelemetry
context) is seen by the handler it calls, and by the client callback a handler calls back into.
The SDK's own request-local variables do not cross: the handler's request is not the caller's."""

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar
from typing import Any

import anyio
import pytest

from mcp import Client, ClientSession
from mcp.client.session import ClientRequestContext
from mcp.server import MCPServer
from mcp.server._session_handshake import current_progress_token
from mcp.server.mcpserver import Context
from mcp.shared.memory import create_client_server_memory_streams
from mcp.types import (
    CallToolResult,
    CreateMessageRequestParams,
    CreateMessageResult,
    SamplingMessage,
    TextContent,
)

pytestmark = pytest.mark.anyio

flavour: ContextVar[str] = ContextVar("test_in_memory_flavour", default="unset")


def text_of(result: CallToolResult) -> str:
    content = result.content[0]
    assert isinstance(content, TextContent)
    return content.text


def flavour_server() -> MCPServer:
    server = MCPServer("flavours")

    @server.tool()
    async def taste() -> str:
        """The caller's flavour, as this handler sees it."""
        return flavour.get()

    return server


@asynccontextmanager
async def by_client(server: MCPServer) -> AsyncIterator[Any]:
    async with Client(server) as client:
        yield client


@asynccontextmanager
async def by_memory_streams(server: MCPServer) -> AsyncIterator[Any]:
    """FastMCP's in-memory transport: the official streams, a low-level server and a ClientSession."""
    lowlevel = server._lowlevel_server
    async with create_client_server_memory_streams() as (client_streams, server_streams), \
            anyio.create_task_group() as tg:
        tg.start_soon(lambda: lowlevel.run(*server_streams, lowlevel.create_initialization_options()))
        async with ClientSession(*client_streams) as session:
            await session.initialize()
            yield session
        tg.cancel_scope.cancel()


CONNECTIONS = [pytest.param(by_client, id="Client"), pytest.param(by_memory_streams, id="memory-streams")]


@pytest.mark.parametrize("connect", CONNECTIONS)
async def test_a_contextvar_the_caller_set_is_seen_by_the_tool_it_calls_in_memory_as_officially(
        connect: Callable[[MCPServer], AbstractAsyncContextManager[Any]]) -> None:
    seen: list[str] = []
    with anyio.fail_after(10):
        async with connect(flavour_server()) as client:
            token = flavour.set("suppressed")
            try:
                seen.append(text_of(await client.call_tool("taste", {})))
            finally:
                flavour.reset(token)
            seen.append(text_of(await client.call_tool("taste", {})))
    assert seen == ["suppressed", "unset"]


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")  # sampling
async def test_a_client_callback_sees_the_context_of_the_handler_that_called_back() -> None:
    server = MCPServer("asks")

    @server.tool()
    async def ask(ctx: Context) -> str:
        flavour.set("from the handler")
        answer = await ctx.session.create_message(
            [SamplingMessage(role="user", content=TextContent(type="text", text="?"))], max_tokens=5)
        assert isinstance(answer.content, TextContent)
        return answer.content.text

    async def sampling(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=flavour.get()),
                                   model="context")

    with anyio.fail_after(10):
        async with Client(server, mode="legacy", sampling_callback=sampling) as client:
            result = await client.call_tool("ask", {})
    assert text_of(result) == "from the handler"


async def test_the_callers_request_local_variables_start_afresh_in_the_handler_it_calls() -> None:
    backend = MCPServer("backend")

    @backend.tool()
    async def token_seen() -> str:
        """The progress token of the request this handler serves (its own has none)."""
        return repr(current_progress_token.get())

    front = MCPServer("front")

    @front.tool()
    async def relay(ctx: Context) -> str:
        """Call the backend in memory while serving a request that has a progress token."""
        own = repr(current_progress_token.get())
        async with Client(backend) as inner:
            return f"{own} / {text_of(await inner.call_tool('token_seen', {}))}"

    async def progress(done: float, total: float | None, message: str | None) -> None:
        return None

    with anyio.fail_after(10):
        async with Client(front) as client:
            result = await client.call_tool("relay", {}, progress_callback=progress)
    own, inner = text_of(result).split(" / ")
    assert own != "None"
    assert inner == "None"
