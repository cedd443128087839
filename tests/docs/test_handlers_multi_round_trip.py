"""docs/handlers/multi-round-trip.md: at 2026-07-28 a handler that needs input returns an
`InputRequiredResult` (tools/call, prompts/get, template resources/read); `Client` drives the
rounds for you, `allow_input_required=True` hands you the loop, hand-built state is sealed only
when there is some, a legacy session gets -32603, and a tampered state the frozen -32602."""

from __future__ import annotations

from typing import Any

import pytest

from mcp import Client, MCPError
from mcp.client import ClientRequestContext
from mcp.server import Server, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitResult,
    InputRequiredResult,
    TextContent,
    TextResourceContents,
)

pytestmark = pytest.mark.anyio

ASK_CITY = ElicitRequest(params=ElicitRequestFormParams(
    message="Which city?",
    requested_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
))


def city_of(responses: dict[str, Any] | None) -> str | None:
    answer = (responses or {}).get("city")
    if isinstance(answer, ElicitResult) and answer.content:
        return str(answer.content["city"])
    return None


async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult | InputRequiredResult:
    city = city_of(params.input_responses)
    if city is None:
        return InputRequiredResult(input_requests={"city": ASK_CITY}, request_state="asked-once")
    return CallToolResult(content=[TextContent(text=f"Weather for {city} (state {params.request_state})")])


def lowlevel() -> Server[Any]:
    return Server("Weather", on_call_tool=call_tool)


def briefing_server() -> MCPServer:
    mcp = MCPServer("Briefing")

    @mcp.prompt()
    async def briefing(ctx: Context) -> list[UserMessage] | InputRequiredResult:
        city = city_of(ctx.input_responses)
        if city is None:
            return InputRequiredResult(input_requests={"city": ASK_CITY})
        return [UserMessage(f"Brief me on {city}.")]

    @mcp.resource("forecast://{day}")
    async def forecast(day: str, ctx: Context) -> str | InputRequiredResult:
        city = city_of(ctx.input_responses)
        if city is None:
            return InputRequiredResult(input_requests={"city": ASK_CITY}, request_state=f"day={day}")
        return f"{day} in {city}: mild (state {ctx.request_state})"

    return mcp


async def answer_oslo(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
    return ElicitResult(action="accept", content={"city": "Oslo"})


async def test_the_client_drives_the_rounds_and_returns_a_plain_result() -> None:
    async with Client(lowlevel(), elicitation_callback=answer_oslo) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("weather", {})
    assert result.content == [TextContent(text="Weather for Oslo (state asked-once)")]


async def test_the_manual_loop_sees_each_round_and_ends_with_the_result() -> None:
    async with Client(lowlevel()) as client:
        first = await client.session.call_tool("weather", {}, allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        assert first.input_requests == {"city": ASK_CITY}
        assert first.request_state == "asked-once"  # the low-level Server seals nothing unless asked
        done = await client.session.call_tool(
            "weather", {}, allow_input_required=True, request_state=first.request_state,
            input_responses={"city": ElicitResult(action="accept", content={"city": "Bergen"})})
    assert isinstance(done, CallToolResult)
    assert done.content == [TextContent(text="Weather for Bergen (state asked-once)")]


async def test_without_a_callback_the_loop_fails_with_elicitation_not_supported() -> None:
    async with Client(lowlevel()) as client:
        with pytest.raises(MCPError, match="Elicitation not supported"):
            await client.call_tool("weather", {})


async def test_a_prompt_first_round_carries_only_what_it_returned_no_sealed_state() -> None:
    async with Client(briefing_server()) as client:
        first = await client.session.get_prompt("briefing", allow_input_required=True)
    assert isinstance(first, InputRequiredResult)
    assert first.input_requests == {"city": ASK_CITY}
    assert first.request_state is None


async def test_the_prompt_and_template_resource_auto_loops_end_with_their_results() -> None:
    async with Client(briefing_server(), elicitation_callback=answer_oslo) as client:
        prompt = await client.get_prompt("briefing")
        (contents,) = (await client.read_resource("forecast://monday")).contents
    assert prompt.messages[0].content == TextContent(text="Brief me on Oslo.")
    assert isinstance(contents, TextResourceContents)
    assert contents.text == "monday in Oslo: mild (state day=monday)"


async def test_hand_built_state_is_sealed_on_the_wire_and_read_back_as_plaintext() -> None:
    async with Client(briefing_server()) as client:
        first = await client.session.read_resource("forecast://monday", allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        assert first.request_state is not None and "day=monday" not in first.request_state
        with pytest.raises(MCPError) as tampered:
            await client.session.read_resource("forecast://monday", allow_input_required=True,
                                               request_state=first.request_state[:-4] + "AAAA",
                                               input_responses={"city": ElicitResult(action="accept",
                                                                                     content={"city": "Oslo"})})
    assert (tampered.value.error.code, tampered.value.error.message) == (-32602, "Invalid or expired requestState")


async def test_a_legacy_session_cannot_carry_an_input_required_result() -> None:
    async with Client(lowlevel(), mode="legacy") as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("weather", {})
    assert (refused.value.error.code, refused.value.error.message) == (-32603, "Handler returned an invalid result")


async def test_the_round_limit_bounds_a_server_that_never_finishes() -> None:
    async def never(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> InputRequiredResult:
        return InputRequiredResult(input_requests={"city": ASK_CITY})

    async with Client(Server("Stuck", on_call_tool=never), elicitation_callback=answer_oslo,
                      input_required_max_rounds=3) as client:
        with pytest.raises(Exception, match="3"):
            await client.call_tool("weather", {})
