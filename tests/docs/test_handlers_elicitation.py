"""docs/handlers/elicitation.md: a resolver asks on every connection; `ctx.elicit` asks from the
tool body on a legacy connection only; the form schema is generated from a flat model, refused
before anything is sent when nested, and the answer is validated before the tool sees it."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from mcp import Client, MCPError
from mcp.client import ClientRequestContext
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.types import (
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitRequestURLParams,
    ElicitResult,
    TextContent,
)

pytestmark = pytest.mark.anyio


class Slot(BaseModel):
    take_it: bool = Field(description="Take the later slot?")
    time: str = Field(default="18:30", description="Later time (HH:MM)")


class Address(BaseModel):
    street: str


class Member(BaseModel):
    name: str
    address: Address


class Seat(BaseModel):
    zone: Literal["window", "aisle"]


def salon() -> MCPServer:
    mcp = MCPServer("Salon")

    @mcp.tool()
    async def book(time: str, ctx: Context) -> str:
        """Book a haircut."""
        if time != "18:00":
            return f"Booked {time}."
        answer = await ctx.elicit(message=f"{time} is taken. Take a later slot?", schema=Slot)
        if answer.action == "accept" and answer.data.take_it:
            return f"Booked {answer.data.time}."
        return "Nothing booked."

    @mcp.tool()
    async def join(ctx: Context) -> str:
        try:
            await ctx.elicit(message="Who are you?", schema=Member)
        except TypeError as exc:
            return f"TypeError: {exc}"
        return "asked"

    @mcp.tool()
    async def seat(ctx: Context) -> str:
        answer = await ctx.elicit(message="Where?", schema=Seat)
        return answer.data.zone if answer.action == "accept" else answer.action

    @mcp.tool()
    async def pay(ctx: Context) -> str:
        answer = await ctx.elicit_url(message="Pay the deposit", url="https://pay.test/d/7", elicitation_id="dep-7")
        return f"url answer: {answer.action}"

    return mcp


def answering(content: dict[str, Any] | None, action: Literal["accept", "decline", "cancel"] = "accept",
              seen: list[ElicitRequestParams] | None = None) -> Any:
    async def callback(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        if seen is not None:
            seen.append(params)
        return ElicitResult(action=action, content=content)

    return callback


async def test_the_client_receives_the_message_and_the_schema_generated_from_the_model() -> None:
    seen: list[ElicitRequestParams] = []
    async with Client(salon(), mode="legacy", elicitation_callback=answering({"take_it": True}, seen=seen)) as client:
        result = await client.call_tool("book", {"time": "18:00"})
    assert result.content == [TextContent(text="Booked 18:30.")]
    (params,) = seen
    assert isinstance(params, ElicitRequestFormParams)
    assert params.message == "18:00 is taken. Take a later slot?"
    assert params.requested_schema == {
        "properties": {
            "take_it": {"description": "Take the later slot?", "title": "Take It", "type": "boolean"},
            "time": {"default": "18:30", "description": "Later time (HH:MM)", "title": "Time", "type": "string"},
        },
        "required": ["take_it"], "title": "Slot", "type": "object",
    }


async def test_decline_and_cancel_are_ordinary_answers() -> None:
    for action in ("decline", "cancel"):
        async with Client(salon(), mode="legacy", elicitation_callback=answering(None, action)) as client:
            result = await client.call_tool("book", {"time": "18:00"})
        assert result.content == [TextContent(text="Nothing booked.")]
        assert not result.is_error


async def test_an_answer_that_does_not_match_the_schema_fails_the_call_before_the_tool_reads_it() -> None:
    async with Client(salon(), mode="legacy", elicitation_callback=answering({"take_it": "perhaps"})) as client:
        result = await client.call_tool("book", {"time": "18:00"})
    assert result.is_error
    assert isinstance(result.content[0], TextContent)
    assert "does not match the requested schema" in result.content[0].text


async def test_a_nested_model_raises_type_error_before_anything_is_sent() -> None:
    seen: list[ElicitRequestParams] = []
    async with Client(salon(), mode="legacy", elicitation_callback=answering({}, seen=seen)) as client:
        result = await client.call_tool("join", {})
    assert result.content == [TextContent(text=(
        "TypeError: Elicitation schema field 'address' rendered as {'$ref': '#/$defs/Address'}, which is not a "
        "valid PrimitiveSchemaDefinition"))]
    assert seen == []


async def test_a_literal_of_strings_becomes_an_enum() -> None:
    seen: list[ElicitRequestParams] = []
    async with Client(salon(), mode="legacy", elicitation_callback=answering({"zone": "aisle"}, seen=seen)) as client:
        assert (await client.call_tool("seat", {})).content == [TextContent(text="aisle")]
    assert isinstance(seen[0], ElicitRequestFormParams)
    assert seen[0].requested_schema["properties"]["zone"] == {"enum": ["window", "aisle"], "title": "Zone",
                                                               "type": "string"}


async def test_url_mode_sends_the_url_and_gets_only_an_action_back() -> None:
    seen: list[ElicitRequestParams] = []
    async with Client(salon(), mode="legacy", elicitation_callback=answering(None, seen=seen)) as client:
        assert (await client.call_tool("pay", {})).content == [TextContent(text="url answer: accept")]
    (params,) = seen
    assert isinstance(params, ElicitRequestURLParams)
    assert (params.url, params.elicitation_id) == ("https://pay.test/d/7", "dep-7")


async def test_without_a_callback_the_call_fails_with_elicitation_not_supported() -> None:
    async with Client(salon(), mode="legacy") as client:
        with pytest.raises(MCPError, match="Elicitation not supported"):
            await client.call_tool("book", {"time": "18:00"})


async def test_ctx_elicit_fails_on_a_2026_connection() -> None:
    async with Client(salon(), elicitation_callback=answering({"take_it": True})) as client:
        assert client.protocol_version == "2026-07-28"
        with pytest.raises(MCPError, match="no back-channel"):
            await client.call_tool("book", {"time": "18:00"})


class Confirm(BaseModel):
    ok: bool


def sure(path: str) -> Confirm | Elicit[Confirm]:
    if path.endswith("/empty"):
        return Confirm(ok=True)
    return Elicit(f"Delete everything in {path}?", Confirm)


def cleaner() -> MCPServer:
    mcp = MCPServer("Cleaner")

    @mcp.tool()
    def wipe(path: str, confirm: Annotated[ElicitationResult[Confirm], Resolve(sure)]) -> str:
        """Delete a folder."""
        if confirm.action == "accept" and confirm.data.ok:
            return f"wiped {path}"
        return f"kept {path} ({confirm.action})"

    return mcp


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_resolver_asks_on_either_era_and_only_when_it_must(mode: str) -> None:
    seen: list[ElicitRequestParams] = []
    async with Client(cleaner(), mode=mode, elicitation_callback=answering({"ok": True}, seen=seen)) as client:
        (tool,) = (await client.list_tools()).tools
        assert set(tool.input_schema["properties"]) == {"path"}
        assert (await client.call_tool("wipe", {"path": "/tmp/empty"})).content == [TextContent(text="wiped /tmp/empty")]
        assert seen == []
        assert (await client.call_tool("wipe", {"path": "/tmp/full"})).content == [TextContent(text="wiped /tmp/full")]
    assert [params.message for params in seen] == ["Delete everything in /tmp/full?"]
