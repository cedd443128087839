"""docs/advanced/pagination.md: `MCPServer` answers every list in one page (`next_cursor=None`); a
low-level `on_list_resources` pages with a cursor it mints itself; the handler gets params even
when the request carried none; the client loop drains by `next_cursor`; a client that ignores
paging still works; an invented cursor the handler cannot parse is -32603."""

from __future__ import annotations

from typing import Any

import pytest

from mcp import Client, MCPError
from mcp.server import Server, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.types import ListResourcesResult, PaginatedRequestParams, Resource

pytestmark = pytest.mark.anyio

SHELF = [Resource(uri=f"shelf://item-{n}", name=f"item-{n}") for n in range(1, 26)]
PAGE = 10


async def list_resources(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListResourcesResult:
    assert params is not None  # over a connection the handler always gets the model
    start = 0 if params.cursor is None else int(params.cursor)
    end = start + PAGE
    return ListResourcesResult(resources=SHELF[start:end], next_cursor=str(end) if end < len(SHELF) else None)


def paged() -> Server[Any]:
    return Server("Shelf", on_list_resources=list_resources)


async def test_mcpserver_answers_every_list_in_one_page() -> None:
    mcp = MCPServer("Small")
    for n in range(30):
        mcp.add_tool(lambda: "x", name=f"tool_{n}")
    async with Client(mcp) as client:
        tools = await client.list_tools()
    assert len(tools.tools) == 30 and tools.next_cursor is None


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_the_server_pages_with_its_own_cursor(mode: str) -> None:
    async with Client(paged(), mode=mode) as client:
        first = await client.list_resources()
        second = await client.list_resources(cursor=first.next_cursor)
    assert [r.name for r in first.resources] == [f"item-{n}" for n in range(1, 11)]
    assert first.next_cursor == "10"
    assert second.resources[0].name == "item-11" and second.next_cursor == "20"


async def test_the_client_loop_drains_every_page_and_exits_on_none() -> None:
    seen: list[str] = []
    pages = 0
    async with Client(paged()) as client:
        cursor: str | None = None
        while True:
            page = await client.list_resources(cursor=cursor)
            pages += 1
            seen.extend(resource.name for resource in page.resources)
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
    assert seen == [f"item-{n}" for n in range(1, 26)]
    assert pages == 3


async def test_an_invented_cursor_is_an_internal_error() -> None:
    async with Client(paged()) as client:
        with pytest.raises(MCPError) as failed:
            await client.list_resources(cursor="page-2")
        assert len((await client.list_resources()).resources) == PAGE  # a client ignoring paging still works
    assert (failed.value.error.code, failed.value.error.message) == (-32603, "Internal server error")
