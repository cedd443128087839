"""docs/client/session-groups.md: one `ClientSessionGroup` over several servers (stdio
subprocesses and a Streamable HTTP server), merged views, routing, the collision error, the name
hook, disconnecting, and adopting a session the group did not open."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from mcp import Client, ClientSessionGroup, MCPError, StdioServerParameters
from mcp.client.session_group import StreamableHttpParameters
from mcp.types import Implementation

sys.path.insert(0, str(Path(__file__).parent))
from client_pages_kit import bookshop, serving

pytestmark = pytest.mark.anyio


def _server_file(tmp_path: Path, name: str, extra: str = "") -> StdioServerParameters:
    path = tmp_path / f"{name.lower()}_server.py"
    path.write_text(
        "from mcp.server import MCPServer\n"
        f"mcp = MCPServer({name!r})\n"
        "@mcp.tool()\n"
        "def search(query: str) -> str:\n"
        f"    return {name!r} + ' results for ' + query\n"
        f"{extra}"
        "mcp.run()\n"
    )
    return StdioServerParameters(command=sys.executable, args=[str(path)])


def _by_server(name: str, server_info: Implementation) -> str:
    return f"{server_info.name}.{name}"


async def test_two_servers_with_the_same_tool_name_collide_with_the_documented_error(tmp_path: Path) -> None:
    with anyio.fail_after(60):
        async with ClientSessionGroup() as group:
            await group.connect_to_server(_server_file(tmp_path, "Library"))
            with pytest.raises(MCPError) as refused:
                await group.connect_to_server(_server_file(tmp_path, "Web"))
            assert str(refused.value) == "{'search'} already exist in group tools."
            assert sorted(group.tools) == ["search"]  # nothing of the second server registered


async def test_the_name_hook_prefixes_every_name_and_calls_route_to_the_owner(tmp_path: Path) -> None:
    hours = "@mcp.resource('library://hours')\ndef hours() -> str:\n    return '9 to 5'\n"
    with anyio.fail_after(60):
        async with ClientSessionGroup(component_name_hook=_by_server) as group:
            await group.connect_to_server(_server_file(tmp_path, "Library", hours))
            web = await group.connect_to_server(_server_file(tmp_path, "Web"))
            assert sorted(group.tools) == ["Library.search", "Web.search"]
            assert group.tools["Web.search"].name == "search"  # the prefix never leaves the process
            assert "Library.hours" in group.resources
            result = await group.call_tool("Web.search", {"query": "mcp"})
            assert result.structured_content == {"result": "Web results for mcp"}
            # The most recent connection is the one a task may leave (its scopes are innermost).
            await group.disconnect_from_server(web)
            assert sorted(group.tools) == ["Library.search"]
            assert "Library.hours" in group.resources


async def test_a_streamable_http_server_joins_the_group_with_the_classic_handshake() -> None:
    mcp = bookshop()
    with serving(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(30):
        async with ClientSessionGroup() as group:
            session = await group.connect_to_server(StreamableHttpParameters(url=f"{base}/mcp"))
            assert session.protocol_version == "2025-11-25"
            assert sorted(group.tools) == ["search_books"]
            result = await group.call_tool("search_books", {"query": "Dune"})
            assert result.structured_content == {"result": "Found 3 books matching 'Dune'."}


async def test_an_existing_session_is_aggregated_and_never_closed_by_the_group() -> None:
    async with Client(bookshop()) as client:
        async with ClientSessionGroup(component_name_hook=_by_server) as group:
            await group.connect_with_session(Implementation(name="Shop", version="1"), client.session)
            assert sorted(group.tools) == ["Shop.search_books"]
            assert (await group.call_tool("Shop.search_books", {"query": "x"})).is_error is False
        assert [tool.name for tool in (await client.list_tools()).tools] == ["search_books"]
