"""docs/client/callbacks.md: a server asks, the client's callbacks answer; registering a callback
is declaring its capability; the deprecated pair and the notification callbacks."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic import BaseModel, FileUrl

from mcp import Client, MCPError
from mcp.client import ClientRequestContext, IncomingMessage
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import (
    ClientCapabilities,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitResult,
    ErrorData,
    ListRootsResult,
    LoggingMessageNotificationParams,
    Root,
    SamplingCapability,
    SamplingMessage,
    TextContent,
)

sys.path.insert(0, str(Path(__file__).parent))
from client_pages_kit import serving

pytestmark = pytest.mark.anyio


class Borrower(BaseModel):
    name: str


def desk() -> MCPServer:
    mcp = MCPServer("Desk")

    @mcp.tool()
    async def lend(ctx: Context) -> str:
        """Lend a book to someone the client names."""
        answer = await ctx.elicit("Who is borrowing the book?", schema=Borrower)
        if answer.action == "accept":
            return f"Lent to {answer.data.name}."
        return f"Not lent ({answer.action})."

    @mcp.tool()
    def declared(ctx: Context) -> list[str]:
        """The optional client features the session declared."""
        names = []
        for name in ("elicitation", "sampling", "roots"):
            if ctx.session.check_client_capability(ClientCapabilities(**{name: {}})):
                names.append(name)
        return names

    @mcp.tool()
    async def ask_model(ctx: Context) -> str:
        """Borrow the client's model (deprecated, push-style)."""
        result = await ctx.session.create_message(
            [SamplingMessage(role="user", content=TextContent(type="text", text="Summarise Emma"))], max_tokens=20)
        assert isinstance(result.content, TextContent)
        return result.content.text

    @mcp.tool()
    async def folders(ctx: Context) -> list[str]:
        """The client's roots (deprecated, push-style)."""
        return [str(root.uri) for root in (await ctx.session.list_roots()).roots]

    @mcp.tool()
    async def chatty(ctx: Context) -> str:
        """Logs through the protocol (deprecated)."""
        await ctx.info("lending desk open")
        return "ok"

    return mcp


async def test_the_elicitation_callback_gets_the_parsed_form_request_and_its_answer_resumes_the_tool() -> None:
    seen: list[tuple[ClientRequestContext, ElicitRequestParams]] = []

    async def fill(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        seen.append((context, params))
        return ElicitResult(action="accept", content={"name": "Anne Elliot"})

    async with Client(desk(), mode="legacy", elicitation_callback=fill) as client:
        result = await client.call_tool("lend", {})
    assert result.content == [TextContent(type="text", text="Lent to Anne Elliot.")]
    ((context, params),) = seen
    assert isinstance(params, ElicitRequestFormParams)
    assert params.mode == "form"
    assert params.message == "Who is borrowing the book?"
    assert params.requested_schema == {"properties": {"name": {"title": "Name", "type": "string"}},
                                       "required": ["name"], "title": "Borrower", "type": "object"}
    assert context.session is not None and context.request_id is not None


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_decline_and_cancel_reach_the_tool(action: str) -> None:
    async def refuse(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        return ElicitResult(action=action)  # type: ignore[arg-type]

    async with Client(desk(), mode="legacy", elicitation_callback=refuse) as client:
        result = await client.call_tool("lend", {})
    assert result.content == [TextContent(type="text", text=f"Not lent ({action}).")]


async def test_an_error_data_answer_refuses_the_request_and_fails_the_whole_call() -> None:
    async def refuse(context: ClientRequestContext, params: ElicitRequestParams) -> ErrorData:
        return ErrorData(code=-32600, message="No forms on this terminal")

    async with Client(desk(), mode="legacy", elicitation_callback=refuse) as client:
        with pytest.raises(MCPError, match="No forms on this terminal"):
            await client.call_tool("lend", {})


def test_client_request_context_is_constructible_as_documented() -> None:
    context = ClientRequestContext(session=None, request_id=7, meta=None)  # type: ignore[arg-type]
    assert (context.session, context.request_id, context.meta) == (None, 7, None)


async def _declared(**callbacks: Any) -> list[str]:
    async with Client(desk(), mode="legacy", **callbacks) as client:
        return (await client.call_tool("declared", {})).structured_content["result"]  # type: ignore[index]


async def _elicit(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
    return ElicitResult(action="decline")


async def _sample(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text="A comedy of manners."),
                               model="docs-llm")


async def _roots(context: ClientRequestContext) -> ListRootsResult:
    return ListRootsResult(roots=[Root(uri=FileUrl("file:///home/anne/catalogues"), name="catalogues")])


async def test_each_callback_declares_its_own_capability() -> None:
    assert await _declared(elicitation_callback=_elicit) == ["elicitation"]
    assert await _declared(sampling_callback=_sample) == ["sampling"]
    assert await _declared(list_roots_callback=_roots) == ["roots"]
    assert await _declared(elicitation_callback=_elicit, sampling_callback=_sample,
                           list_roots_callback=_roots) == ["elicitation", "sampling", "roots"]
    assert await _declared() == []


async def test_the_declared_capabilities_on_the_wire_are_the_pages_table(wire_check: Any) -> None:
    async with Client(desk(), mode="legacy", elicitation_callback=_elicit, sampling_callback=_sample,
                      list_roots_callback=_roots, logging_callback=None):
        pass
    (initialize,) = [m for sender, m, _v, _r in wire_check.messages if sender == "client"
                     and m.get("method") == "initialize"]
    assert initialize["params"]["capabilities"] == {"elicitation": {"form": {}, "url": {}}, "sampling": {},
                                                    "roots": {"listChanged": True}}
    async with Client(desk(), mode="legacy"):
        pass
    initializes = [m for sender, m, _v, _r in wire_check.messages if sender == "client"
                   and m.get("method") == "initialize"]
    assert initializes[-1]["params"]["capabilities"] == {}


async def test_sampling_tools_are_declared_only_with_sampling_capabilities(wire_check: Any) -> None:
    from mcp.types import SamplingToolsCapability

    async with Client(desk(), mode="legacy", sampling_callback=_sample,
                      sampling_capabilities=SamplingCapability(tools=SamplingToolsCapability())):
        pass
    (initialize,) = [m for sender, m, _v, _r in wire_check.messages if sender == "client"
                     and m.get("method") == "initialize"]
    assert initialize["params"]["capabilities"] == {"sampling": {"tools": {}}}


async def test_without_an_elicitation_callback_the_call_raises_elicitation_not_supported() -> None:
    async with Client(desk(), mode="legacy") as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("lend", {})
    assert str(refused.value) == "Elicitation not supported"
    assert refused.value.code == -32600


@pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")
async def test_the_deprecated_pair_answer_sampling_and_roots_with_what_the_page_says() -> None:
    async with Client(desk(), mode="legacy", sampling_callback=_sample, list_roots_callback=_roots) as client:
        assert (await client.call_tool("ask_model", {})).content == [
            TextContent(type="text", text="A comedy of manners.")]
        assert (await client.call_tool("folders", {})).structured_content == {
            "result": ["file:///home/anne/catalogues"]}


@pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")
async def test_the_deprecated_callbacks_may_refuse_with_error_data() -> None:
    async def no_model(context: ClientRequestContext, params: CreateMessageRequestParams) -> ErrorData:
        return ErrorData(code=-32603, message="no model here")

    async with Client(desk(), mode="legacy", sampling_callback=no_model) as client:
        with pytest.raises(MCPError, match="no model here"):
            await client.call_tool("ask_model", {})


@pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")
async def test_the_logging_callback_and_the_message_handler_receive_notifications_over_http() -> None:
    logged: list[LoggingMessageNotificationParams] = []
    handled: list[IncomingMessage] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logged.append(params)

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, Exception):
            raise message
        handled.append(message)

    mcp = desk()
    with serving(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(30):
        async with Client(f"{base}/mcp", mode="legacy", logging_callback=on_log,
                          message_handler=on_message) as client:
            assert (await client.call_tool("chatty", {})).is_error is False
    assert [(p.level, p.data) for p in logged] == [("info", "lending desk open")]
    assert any(type(m).__name__ == "LoggingMessageNotification" for m in handled)


@pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")
async def test_on_the_2026_wire_log_messages_need_the_log_level_opt_in() -> None:
    logged: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logged.append(params)

    async with Client(desk(), logging_callback=on_log) as client:
        await client.call_tool("chatty", {})
    assert logged == []
    async with Client(desk(), logging_callback=on_log, log_level="info") as client:
        await client.call_tool("chatty", {})
    assert [p.data for p in logged] == ["lending desk open"]
