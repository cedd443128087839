"""`create_client_server_memory_streams` connects a low-level `Server` and a `ClientSession` in
one process, used exactly as the migration guide shows."""

from typing import Any

import anyio
import pytest

from mcp.client.session import ClientSession
from mcp.server import Server, ServerRequestContext
from mcp.shared.memory import create_client_server_memory_streams
from mcp.types import ListToolsResult, PaginatedRequestParams, Tool

pytestmark = pytest.mark.anyio


async def test_a_server_and_a_client_session_talk_over_the_memory_streams() -> None:
    async def list_tools(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="in-memory", input_schema={"type": "object"})])

    server = Server("memory", on_list_tools=list_tools)
    with anyio.fail_after(10):
        async with create_client_server_memory_streams() as (client_streams, server_streams), \
                anyio.create_task_group() as tg:
            tg.start_soon(lambda: server.run(*server_streams, server.create_initialization_options()))
            async with ClientSession(*client_streams) as session:
                initialized = await session.initialize()
                tools = await session.list_tools()
            tg.cancel_scope.cancel()
    assert initialized.server_info.name == "memory"
    assert [tool.name for tool in tools.tools] == ["in-memory"]
