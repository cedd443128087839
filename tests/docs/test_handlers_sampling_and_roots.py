"""docs/handlers/sampling-and-roots.md: `Sample(...)` and `ListRoots()` resolvers reach the
client's callbacks on both eras (a standalone request on 2025-11-25, an input round on 2026-07-28),
are gated on the declared capability (-32021), and do not warn; the session methods do."""

from __future__ import annotations

import warnings
from typing import Annotated

import pytest
from pydantic import FileUrl

from mcp import Client, MCPDeprecationWarning, MCPError
from mcp.client import ClientRequestContext
from mcp.server import MCPServer
from mcp.server.mcpserver import Context, ListRoots, Resolve, Sample
from mcp.types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ListRootsResult,
    Root,
    SamplingMessage,
    TextContent,
)

pytestmark = pytest.mark.anyio

MODES = ["legacy", "auto"]


def tagline_request(title: str) -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text=f"Tagline for {title}"))],
                  max_tokens=30)


def shared_folders() -> ListRoots:
    return ListRoots()


def shop() -> MCPServer:
    mcp = MCPServer("Shop")

    @mcp.tool()
    async def tagline(title: str, draft: Annotated[CreateMessageResult, Resolve(tagline_request)]) -> str:
        """A tagline from the client's model."""
        return draft.content.text if isinstance(draft.content, TextContent) else "none"

    @mcp.tool()
    async def export_to(roots: Annotated[ListRootsResult, Resolve(shared_folders)]) -> str:
        """Where the export goes: the first shared folder."""
        return str(roots.roots[0].uri) if roots.roots else "nowhere"

    @mcp.tool()
    async def old_style(ctx: Context) -> str:
        """The session method, on a 2025 connection."""
        roots = await ctx.session.list_roots()
        return str(roots.roots[0].uri)

    return mcp


prompts: list[str] = []


async def sampler(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
    (message,) = params.messages
    assert isinstance(message.content, TextContent)
    prompts.append(message.content.text)
    assert params.max_tokens == 30
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text="Read it twice."),
                               model="docs-llm")


async def roots(context: ClientRequestContext) -> ListRootsResult:
    return ListRootsResult(roots=[Root(uri=FileUrl("file:///srv/exports"), name="exports")])


@pytest.mark.parametrize("mode", MODES)
async def test_sample_injects_the_clients_completion_on_both_eras_without_a_warning(mode: str) -> None:
    prompts.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error", MCPDeprecationWarning)
        async with Client(shop(), mode=mode, sampling_callback=sampler) as client:
            result = await client.call_tool("tagline", {"title": "Persuasion"})
    assert result.content == [TextContent(type="text", text="Read it twice.")]
    assert prompts and set(prompts) == {"Tagline for Persuasion"}


@pytest.mark.parametrize("mode", MODES)
async def test_list_roots_injects_the_clients_roots_on_both_eras_without_a_warning(mode: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", MCPDeprecationWarning)
        async with Client(shop(), mode=mode, list_roots_callback=roots) as client:
            result = await client.call_tool("export_to", {})
    assert result.content == [TextContent(type="text", text="file:///srv/exports")]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool", ["tagline", "export_to"])
async def test_without_the_declared_capability_the_call_fails_with_minus_32021(mode: str, tool: str) -> None:
    async with Client(shop(), mode=mode) as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool(tool, {"title": "Emma"} if tool == "tagline" else {})
    assert refused.value.code == -32021


async def test_the_session_method_still_works_on_2025_and_warns() -> None:
    async with Client(shop(), mode="legacy", list_roots_callback=roots) as client:
        with pytest.warns(MCPDeprecationWarning, match=r"^The roots capability is deprecated as of 2026-07-28 \(SEP-2577\)\.$"):
            result = await client.call_tool("old_style", {})
    assert result.content == [TextContent(type="text", text="file:///srv/exports")]
