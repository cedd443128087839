"""docs/deprecated.md: every deprecated feature still works on a handshake-era session and warns
with `MCPDeprecationWarning` (a `UserWarning`) when it runs; on a modern connection the push-style
requests warn and then fail with the no-back-channel error; `ping` is removed."""

from __future__ import annotations

import warnings

import pytest
from pydantic import FileUrl

from mcp import Client, MCPDeprecationWarning, MCPError
from mcp.client import ClientRequestContext
from mcp.server import MCPServer
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import NoBackChannelError
from mcp.types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    EmptyResult,
    ListRootsResult,
    Root,
    SamplingMessage,
    TextContent,
)

pytestmark = pytest.mark.anyio

SAMPLING = r"^The sampling capability is deprecated as of 2026-07-28 \(SEP-2577\)\.$"
ROOTS = r"^The roots capability is deprecated as of 2026-07-28 \(SEP-2577\)\.$"
LOGGING = r"^The logging capability is deprecated as of 2026-07-28 \(SEP-2577\)\.$"
NO_BACK_CHANNEL = ("Cannot send 'sampling/createMessage': "
                   "this transport context has no back-channel for server-initiated requests.")


def reading_room() -> MCPServer:
    mcp = MCPServer("Reading room")

    @mcp.tool()
    async def summarise(title: str, ctx: Context) -> str:
        """Summarise a title with the client's model."""
        result = await ctx.session.create_message(
            [SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarise {title}"))],
            max_tokens=40)
        assert isinstance(result.content, TextContent)
        return result.content.text

    @mcp.tool()
    async def announce(ctx: Context) -> str:
        """Announce through protocol logging."""
        await ctx.info("closing in ten minutes")
        return "announced"

    @mcp.tool()
    async def check_client(ctx: Context) -> str:
        """Ping the client mid-call (no warning on the server side)."""
        answer = await ctx.session.send_ping()
        return type(answer).__name__

    return mcp


async def answer_sampling(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text="Short and sharp."),
                               model="docs-llm")


def test_the_warning_is_a_user_warning_not_a_deprecation_warning() -> None:
    assert issubclass(MCPDeprecationWarning, UserWarning)
    assert not issubclass(MCPDeprecationWarning, DeprecationWarning)


async def test_create_message_on_a_modern_connection_warns_and_then_raises_no_back_channel() -> None:
    async with Client(reading_room()) as client:
        with pytest.warns(MCPDeprecationWarning, match=SAMPLING), pytest.raises(NoBackChannelError) as failed:
            await client.call_tool("summarise", {"title": "Emma"})
    assert str(failed.value) == NO_BACK_CHANNEL
    assert failed.value.code == -32600


async def test_a_deprecated_feature_still_works_on_a_legacy_session_and_warns() -> None:
    async with Client(reading_room(), mode="legacy", sampling_callback=answer_sampling) as client:
        with pytest.warns(MCPDeprecationWarning, match=SAMPLING):
            result = await client.call_tool("summarise", {"title": "Emma"})
    assert result.content == [TextContent(type="text", text="Short and sharp.")]


async def test_protocol_logging_warns_where_the_tool_logs() -> None:
    async with Client(reading_room(), mode="legacy") as client:
        with pytest.warns(MCPDeprecationWarning, match=LOGGING):
            result = await client.call_tool("announce", {})
    assert result.content == [TextContent(type="text", text="announced")]


async def test_set_logging_level_warns() -> None:
    async with Client(reading_room(), mode="legacy") as client:
        with pytest.warns(MCPDeprecationWarning, match=LOGGING), pytest.raises(MCPError, match=r"^Method not found$"):
            # MCPServer serves no logging/setLevel, as officially; the warning is the claim.
            await client.set_logging_level("info")


async def test_client_ping_warns_removed_and_is_method_not_found_on_a_modern_connection() -> None:
    async with Client(reading_room(), mode="legacy") as client:
        with pytest.warns(MCPDeprecationWarning, match="removed"):
            assert isinstance(await client.send_ping(), EmptyResult)
    async with Client(reading_room()) as client:
        with pytest.warns(MCPDeprecationWarning, match="removed"), pytest.raises(MCPError, match=r"^Method not found$"):
            await client.send_ping()


async def test_a_server_side_ping_carries_no_warning_on_a_legacy_session() -> None:
    async with Client(reading_room(), mode="legacy") as client:
        with warnings.catch_warnings():
            warnings.simplefilter("error", MCPDeprecationWarning)
            result = await client.call_tool("check_client", {})
    assert result.content == [TextContent(type="text", text="EmptyResult")]


async def test_client_progress_notifications_warn() -> None:
    async with Client(reading_room(), mode="legacy") as client:
        with pytest.warns(MCPDeprecationWarning):
            await client.send_progress_notification("token", 0.5)


async def test_roots_list_changed_warns_and_the_server_asks_for_the_new_roots() -> None:
    workspace: list[Root] = [Root(uri=FileUrl("file:///srv/one"), name="one")]
    asked: list[list[str]] = []

    async def list_roots(context: ClientRequestContext) -> ListRootsResult:
        return ListRootsResult(roots=list(workspace))

    import anyio

    changed = anyio.Event()

    async def roots_changed(ctx: object, params: object) -> None:
        roots = (await ctx.session.list_roots()).roots  # type: ignore[attr-defined]
        asked.append([str(root.uri) for root in roots])
        changed.set()

    with pytest.warns(MCPDeprecationWarning, match=ROOTS):  # at construction, as the page says
        server = Server("Reading room", on_roots_list_changed=roots_changed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)  # the server's own list_roots()
        async with Client(server, mode="legacy", list_roots_callback=list_roots) as client:
            workspace.append(Root(uri=FileUrl("file:///srv/two"), name="two"))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", MCPDeprecationWarning)
                await client.send_roots_list_changed()
            assert any(issubclass(w.category, MCPDeprecationWarning) and "roots" in str(w.message)
                       for w in caught)
            with anyio.fail_after(10):
                await changed.wait()
    assert asked == [["file:///srv/one", "file:///srv/two"]]


async def test_the_one_line_filter_silences_every_deprecation() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
        async with Client(reading_room(), mode="legacy", sampling_callback=answer_sampling) as client:
            await client.send_ping()
            assert (await client.call_tool("summarise", {"title": "Emma"})).is_error is False
