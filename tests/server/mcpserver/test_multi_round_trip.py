"""Multi-round-trip requests: the same tool code on both eras, sealed requestState, the client loop."""

from __future__ import annotations

import os
from typing import Annotated, Any

import pytest
from pydantic import BaseModel

from mcp import Client, InputRequiredRoundsExceededError, MCPError
from mcp.client import ClientRequestContext
from mcp.server import MCPServer
from mcp.server.mcpserver import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.dependencies import Elicit, ListRoots, Resolve, Sample
from mcp.server.request_state import RequestStateSecurity
from mcp.shared.exceptions import InvalidSignature
from mcp.types import (
    CreateMessageResult,
    ElicitResult,
    InputRequiredResult,
    ListRootsResult,
    Root,
    SamplingMessage,
    TextContent,
)

pytestmark = pytest.mark.anyio


class Confirm(BaseModel):
    confirm: bool


def confirm_server(**kwargs: Any) -> MCPServer:
    mcp = MCPServer("shop", **kwargs)

    def ask_to_confirm(item: str) -> Any:
        return Elicit(f"Really delete {item}?", Confirm)

    @mcp.tool()
    def delete(item: str, answer: Annotated[Confirm, Resolve(ask_to_confirm)]) -> str:
        """Deletes an item after the user confirms."""
        return f"deleted {item}" if answer.confirm else f"kept {item}"

    return mcp


def elicitation_answering(action: str, content: dict[str, Any] | None = None) -> Any:
    async def callback(ctx: ClientRequestContext, params: Any) -> ElicitResult:
        return ElicitResult(action=action, content=content)  # type: ignore[arg-type]

    return callback


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_confirm_then_act_tool_works_unchanged_in_both_eras(mode: str) -> None:
    async with Client(confirm_server(), mode=mode,
                      elicitation_callback=elicitation_answering("accept", {"confirm": True})) as client:
        result = await client.call_tool("delete", {"item": "book"})
    assert result.content == [TextContent(text="deleted book")]


async def test_the_resolved_parameter_is_invisible_in_the_input_schema() -> None:
    async with Client(confirm_server()) as client:
        tool = (await client.list_tools()).tools[0]
    assert tool.input_schema["properties"] == {"item": {"title": "Item", "type": "string"}}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_declining_an_unwrapped_question_fails_the_call_with_the_documented_text(mode: str) -> None:
    async with Client(confirm_server(), mode=mode, elicitation_callback=elicitation_answering("decline")) as client:
        result = await client.call_tool("delete", {"item": "book"})
    assert result.is_error
    assert result.content[0].text == (
        "Error executing tool delete: Resolver for parameter 'answer' could not resolve: elicitation was decline"
    )


async def test_an_elicitation_result_annotation_lets_the_tool_branch_on_decline() -> None:
    mcp = MCPServer("shop")

    def ask(item: str) -> Any:
        return Elicit("Confirm?", Confirm)

    @mcp.tool()
    def delete(item: str, answer: Annotated[ElicitationResult[Confirm], Resolve(ask)]) -> str:
        return "yes" if isinstance(answer, AcceptedElicitation) else f"no: {answer.action}"

    async with Client(mcp, elicitation_callback=elicitation_answering("cancel")) as client:
        assert (await client.call_tool("delete", {"item": "x"})).structured_content == {"result": "no: cancel"}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_resolver_that_answers_itself_gives_an_elicitation_result_parameter_an_accepted_outcome(mode: str) -> None:
    mcp = MCPServer("shop")
    asked: list[str] = []

    def ask_unless_empty(item: str) -> Any:
        if item == "empty folder":
            return Confirm(confirm=True)  # nothing to lose: no question
        asked.append(item)
        return Elicit("Confirm?", Confirm)

    @mcp.tool()
    def delete(item: str, answer: Annotated[ElicitationResult[Confirm], Resolve(ask_unless_empty)]) -> str:
        if isinstance(answer, AcceptedElicitation):
            return f"deleted {item}" if answer.data.confirm else f"kept {item}"
        return f"no: {answer.action}"

    async with Client(mcp, mode=mode, elicitation_callback=elicitation_answering("decline")) as client:
        assert (await client.call_tool("delete", {"item": "empty folder"})).structured_content == {
            "result": "deleted empty folder"}
        assert (await client.call_tool("delete", {"item": "photos"})).structured_content == {"result": "no: decline"}
    assert asked[-1] == "photos" and "empty folder" not in asked


CAN_ELICIT = elicitation_answering("accept", {"confirm": True})


async def test_the_modern_wire_returns_input_required_then_completes_with_sealed_state() -> None:
    async with Client(confirm_server(), elicitation_callback=CAN_ELICIT) as client:
        first = await client.session.call_tool("delete", {"item": "book"}, allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        assert list(first.input_requests or {}) == ["answer"]
        assert first.request_state and "Really" not in first.request_state  # opaque, encrypted
        answer = {"answer": {"action": "accept", "content": {"confirm": False}}}
        final = await client.session.call_tool("delete", {"item": "book"}, input_responses=answer,
                                               request_state=first.request_state)
    assert final.content == [TextContent(text="kept book")]


async def test_tampered_expired_or_replayed_state_gets_the_same_frozen_error() -> None:
    async with Client(confirm_server(), elicitation_callback=CAN_ELICIT) as client:
        first = await client.session.call_tool("delete", {"item": "book"}, allow_input_required=True)
        state = first.request_state
        answer = {"answer": {"action": "accept", "content": {"confirm": True}}}
        for bad_state, arguments in ((state[:-4] + "AAAA", {"item": "book"}), (state, {"item": "other"}),
                                     ("not-a-token", {"item": "book"})):
            with pytest.raises(MCPError) as info:
                await client.session.call_tool("delete", arguments, input_responses=answer, request_state=bad_state)
            assert (info.value.code, info.value.message) == (-32602, "Invalid or expired requestState")
            assert info.value.data == {"reason": "invalid_request_state"}


async def test_state_from_one_instance_verifies_on_another_with_the_same_keys_and_name() -> None:
    key = os.urandom(32)
    one = confirm_server(request_state_security=RequestStateSecurity(keys=[key]))
    two = confirm_server(request_state_security=RequestStateSecurity(keys=[os.urandom(32), key]))
    stranger = confirm_server(request_state_security=RequestStateSecurity(keys=[os.urandom(32)]))
    answer = {"answer": {"action": "accept", "content": {"confirm": True}}}
    async with Client(one, elicitation_callback=CAN_ELICIT) as client:
        first = await client.session.call_tool("delete", {"item": "book"}, allow_input_required=True)
    async with Client(two, elicitation_callback=CAN_ELICIT) as client:
        final = await client.session.call_tool("delete", {"item": "book"}, input_responses=answer,
                                               request_state=first.request_state)
        assert final.content[0].text == "deleted book"
    async with Client(stranger, elicitation_callback=CAN_ELICIT) as client:
        with pytest.raises(MCPError, match="Invalid or expired requestState"):
            await client.session.call_tool("delete", {"item": "book"}, input_responses=answer,
                                           request_state=first.request_state)


async def test_a_server_with_another_name_rejects_state_sealed_under_the_same_key() -> None:
    key = os.urandom(32)
    one = confirm_server(request_state_security=RequestStateSecurity(keys=[key]))
    other = MCPServer("other-service", request_state_security=RequestStateSecurity(keys=[key]))
    other._tools = one._tools
    async with Client(one, elicitation_callback=CAN_ELICIT) as client:
        first = await client.session.call_tool("delete", {"item": "book"}, allow_input_required=True)
    async with Client(other, elicitation_callback=CAN_ELICIT) as client:
        with pytest.raises(MCPError, match="Invalid or expired requestState"):
            await client.session.call_tool("delete", {"item": "book"}, request_state=first.request_state,
                                           input_responses={"answer": {"action": "accept", "content": {"confirm": True}}})


def test_an_explicit_policy_on_an_unnamed_server_needs_an_audience() -> None:
    with pytest.raises(ValueError, match="audience"):
        MCPServer(request_state_security=RequestStateSecurity(keys=[os.urandom(32)]))


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_a_tool_needing_two_rounds_and_every_question_kind() -> None:
    mcp = MCPServer("multi")

    def ask_name() -> Any:
        return Elicit("Name?", Confirm)

    def ask_model(confirmed: Annotated[Confirm, Resolve(ask_name)]) -> Any:
        return Sample(messages=[SamplingMessage(role="user", content=TextContent(type="text", text="hi"))], max_tokens=5)

    def roots() -> Any:
        return ListRoots()

    @mcp.tool()
    def combo(sample: Annotated[CreateMessageResult, Resolve(ask_model)],
              found: Annotated[ListRootsResult, Resolve(roots)]) -> str:
        return f"{sample.content.text} / {found.roots[0].uri}"  # type: ignore[union-attr]

    asked: list[str] = []

    async def on_elicit(ctx: Any, params: Any) -> ElicitResult:
        asked.append("elicit")
        return ElicitResult(action="accept", content={"confirm": True})

    async def on_sample(ctx: Any, params: Any) -> CreateMessageResult:
        asked.append("sample")
        return CreateMessageResult(role="assistant", content=TextContent(text="model says hi"), model="m")

    async def on_roots(ctx: Any) -> ListRootsResult:
        asked.append("roots")
        return ListRootsResult(roots=[Root(uri="file:///r", name="r")])

    for mode in ("auto", "legacy"):
        asked.clear()
        async with Client(mcp, mode=mode, elicitation_callback=on_elicit, sampling_callback=on_sample,
                          list_roots_callback=on_roots) as client:
            result = await client.call_tool("combo", {})
        assert result.content[0].text == "model says hi / file:///r", mode
        assert asked == ["elicit", "sample", "roots"], mode


async def test_a_question_the_client_has_no_capability_for_is_refused_with_32021() -> None:
    async with Client(confirm_server()) as client:
        with pytest.raises(MCPError) as info:
            await client.call_tool("delete", {"item": "x"})
    assert info.value.code == -32021
    assert info.value.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}
    assert info.value.message == (
        f"Client did not declare the form elicitation capability required by resolver '{__name__}:confirm_server.<locals>.ask_to_confirm'")


async def test_a_server_that_never_stops_asking_hits_the_round_cap() -> None:
    mcp = MCPServer("nag")

    @mcp.tool()
    def nag(ctx: Context) -> Any:
        return InputRequiredResult(input_requests={}, request_state="again")

    async with Client(mcp, input_required_max_rounds=3) as client:
        with pytest.raises(InputRequiredRoundsExceededError):
            await client.call_tool("nag", {})


async def test_hand_built_state_is_sealed_on_the_wire_and_plaintext_in_the_handler() -> None:
    mcp = MCPServer("manual")
    seen: list[Any] = []

    @mcp.tool()
    def step(ctx: Context) -> Any:
        seen.append(ctx.request_state)
        if ctx.request_state is None:
            return InputRequiredResult(input_requests={}, request_state="step-1")
        return f"resumed from {ctx.request_state}"

    async with Client(mcp) as client:
        first = await client.session.call_tool("step", {}, allow_input_required=True)
        assert first.request_state != "step-1"
        result = await client.call_tool("step", {})
    assert result.content[0].text == "resumed from step-1"
    assert seen[-2:] == [None, "step-1"]


async def test_a_hand_built_round_reads_its_answers_as_result_models() -> None:
    from mcp.types import ElicitRequest, ElicitRequestFormParams

    mcp = MCPServer("manual")
    seen: list[Any] = []

    @mcp.tool()
    def rename(ctx: Context) -> Any:
        answer = (ctx.input_responses or {}).get("name")
        seen.append(answer)
        if isinstance(answer, ElicitResult) and answer.action == "accept" and answer.content:
            return f"renamed to {answer.content['name']}"
        return InputRequiredResult(input_requests={"name": ElicitRequest(params=ElicitRequestFormParams(
            message="New name?", requested_schema={"type": "object", "properties": {"name": {"type": "string"}}}))},
            request_state="asked")

    async with Client(mcp, elicitation_callback=elicitation_answering("accept", {"name": "Dune"})) as client:
        result = await client.call_tool("rename", {})
    assert result.content[0].text == "renamed to Dune"
    assert seen[0] is None and isinstance(seen[-1], ElicitResult)


@pytest.mark.wire_invalid_ok({"params": {"inputResponses": {"name": {"action": "maybe"}}}}, reason="the bad answer under test")
async def test_answers_that_fit_no_result_kind_are_invalid_params() -> None:
    mcp = MCPServer("manual")

    @mcp.tool()
    def rename(ctx: Context) -> str:
        return str(ctx.input_responses)

    async with Client(mcp) as client:
        with pytest.raises(MCPError) as info:
            await client.session.call_tool("rename", {}, input_responses={"name": {"action": "maybe"}}, request_state=None)
    assert info.value.code == -32602 and "inputResponses" in info.value.message


def test_a_resolver_parameter_that_is_not_an_argument_context_or_resolver_fails_at_registration() -> None:
    mcp = MCPServer("bad")

    def needs_mystery(mystery: str) -> str:
        return mystery

    with pytest.raises(InvalidSignature, match="mystery"):

        @mcp.tool()
        def tool(x: Annotated[str, Resolve(needs_mystery)]) -> str:
            return x


def test_a_resolver_cycle_fails_at_registration() -> None:
    mcp = MCPServer("cycle")

    def a(value: Annotated[str, Resolve(lambda: "")]) -> str:
        return value

    def b(value: Annotated[str, Resolve(a)]) -> str:
        return value

    a.__annotations__["value"] = Annotated[str, Resolve(b)]
    with pytest.raises(InvalidSignature, match="cycle"):

        @mcp.tool()
        def tool(x: Annotated[str, Resolve(a)]) -> str:
            return x


async def test_input_required_on_a_legacy_connection_is_an_invalid_result_error() -> None:
    mcp = MCPServer("manual")

    @mcp.tool()
    def step() -> Any:
        return InputRequiredResult(input_requests={}, request_state="s")

    async with Client(mcp, mode="legacy") as client:
        with pytest.raises(MCPError) as info:
            await client.call_tool("step", {})
    assert info.value.code == -32603
