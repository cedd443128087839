"""docs/handlers/dependencies.md: `Annotated[T, Resolve(fn)]` fills a parameter before the tool
runs (its own parameters matched by name), resolvers depend on resolvers and run once per call,
the graph is checked at registration (`InvalidSignature`), resolved parameters are hidden from the
schema, and a resolver may return `Elicit(...)`: asked only when needed, on either era; a declined
question fails the call with the documented text unless the tool takes `ElicitationResult`."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from mcp import Client
from mcp.client import ClientRequestContext
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import InvalidSignature
from mcp.types import ElicitRequestParams, ElicitResult, TextContent

pytestmark = pytest.mark.anyio

SEEDS = {"basil": 4, "chili": 0}


class Stock(BaseModel):
    seed: str
    packets: int


class Wait(BaseModel):
    ok: bool = Field(description="Wait for a restock?")


def nursery(lookups: list[str]) -> MCPServer:
    mcp = MCPServer("Nursery")

    async def stock_of(seed: str) -> Stock:
        lookups.append(seed)
        return Stock(seed=seed, packets=SEEDS.get(seed, 0))

    def days(stock: Annotated[Stock, Resolve(stock_of)]) -> int:
        return 1 if stock.packets else 21

    def wait(seed: str, stock: Annotated[Stock, Resolve(stock_of)]) -> Wait | Elicit[Wait]:
        if stock.packets:
            return Wait(ok=True)
        return Elicit(f"{seed} is sold out. Wait for a restock?", Wait)

    @mcp.tool()
    def order(seed: str, stock: Annotated[Stock, Resolve(stock_of)], eta: Annotated[int, Resolve(days)],
              agreed: Annotated[Wait, Resolve(wait)]) -> str:
        """Order seeds."""
        if not agreed.ok:
            return "Nothing ordered."
        return f"{seed}: {stock.packets} packets, ships in {eta} day(s)."

    return mcp


def answer(ok: bool | None, asked: list[str]) -> Any:
    async def callback(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        if ok is None:
            return ElicitResult(action="decline")
        return ElicitResult(action="accept", content={"ok": ok})

    return callback


async def test_resolved_parameters_are_hidden_and_the_shared_resolver_runs_once_per_call() -> None:
    lookups: list[str] = []
    async with Client(nursery(lookups)) as client:
        (tool,) = (await client.list_tools()).tools
        assert set(tool.input_schema["properties"]) == {"seed"}
        result = await client.call_tool("order", {"seed": "basil"})
    assert result.content == [TextContent(text="basil: 4 packets, ships in 1 day(s).")]
    assert lookups == ["basil"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_resolver_asks_only_when_its_answer_matters(mode: str) -> None:
    asked: list[str] = []
    async with Client(nursery([]), mode=mode, elicitation_callback=answer(True, asked)) as client:
        assert (await client.call_tool("order", {"seed": "basil"})).content == [
            TextContent(text="basil: 4 packets, ships in 1 day(s).")]
        assert asked == []
        assert (await client.call_tool("order", {"seed": "chili"})).content == [
            TextContent(text="chili: 0 packets, ships in 21 day(s).")]
    assert asked == ["chili is sold out. Wait for a restock?"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_answering_no_is_still_an_answer(mode: str) -> None:
    async with Client(nursery([]), mode=mode, elicitation_callback=answer(False, [])) as client:
        assert (await client.call_tool("order", {"seed": "chili"})).content == [TextContent(text="Nothing ordered.")]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_declined_question_fails_the_call_with_a_readable_error(mode: str) -> None:
    async with Client(nursery([]), mode=mode, elicitation_callback=answer(None, [])) as client:
        result = await client.call_tool("order", {"seed": "chili"})
    assert result.is_error
    assert result.content == [TextContent(text=(
        "Error executing tool order: Resolver for parameter 'agreed' could not resolve: elicitation was decline"))]


def test_the_graph_is_checked_at_registration() -> None:
    mcp = MCPServer("Broken")

    def needs_nothing_known(mystery: str) -> int:
        return 1

    with pytest.raises(InvalidSignature, match="mystery"):
        @mcp.tool()
        def bad(value: Annotated[int, Resolve(needs_nothing_known)]) -> int:
            return value

    def ping(value: Annotated[int, Resolve(lambda: 0)]) -> int:
        return value

    def pong(value: Annotated[int, Resolve(ping)]) -> int:
        return value

    ping.__annotations__["value"] = Annotated[int, Resolve(pong)]
    with pytest.raises(InvalidSignature):
        @mcp.tool()
        def loop(value: Annotated[int, Resolve(ping)]) -> int:
            return value


async def test_a_resolver_reaches_the_lifespan_through_its_context() -> None:
    mcp = MCPServer("Ctx")

    def locale(ctx: Context) -> str:
        return repr(ctx.request_context.lifespan_context)

    @mcp.tool()
    def greet(where: Annotated[str, Resolve(locale)]) -> str:
        return f"lifespan={where}"

    async with Client(mcp) as client:
        assert (await client.call_tool("greet", {})).content == [TextContent(text="lifespan={}")]
