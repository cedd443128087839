"""ClientSessionGroup over real stdio servers: merged views, routing, collisions, the name hook."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from mcp import ClientSessionGroup, MCPError, StdioServerParameters

pytestmark = pytest.mark.anyio

SERVERS = Path(__file__).parent / "servers"


def _params(name: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(SERVERS / f"{name}.py")])


async def test_a_group_merges_two_servers_and_routes_calls_by_name() -> None:
    with anyio.fail_after(30):
        async with ClientSessionGroup(component_name_hook=lambda name, info: f"{info.name}.{name}") as group:
            await group.connect_to_server(_params("library"))
            web = await group.connect_to_server(_params("web"))
            assert sorted(group.tools) == ["Library.search", "Web.search"]
            assert group.tools["Web.search"].name == "search"
            result = await group.call_tool("Library.search", {"query": "dune"})
            assert result.content[0].text == "library: dune"
            await group.disconnect_from_server(web)
            assert sorted(group.tools) == ["Library.search"]


async def test_colliding_names_are_refused_before_anything_is_registered() -> None:
    with anyio.fail_after(30):
        async with ClientSessionGroup() as group:
            await group.connect_to_server(_params("library"))
            with pytest.raises(MCPError, match=r"\{'search'\} already exist in group tools."):
                await group.connect_to_server(_params("web"))
            assert list(group.tools) == ["search"]
