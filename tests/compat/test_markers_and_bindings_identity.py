"""Markers, bindings and options behave as the official objects do as dict keys and set members:
plain objects compare and hash by identity, bindings are frozen dataclasses hashed by value."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from mcp import UriTemplate
from mcp.server import NotificationOptions
from mcp.server.lowlevel.server import HandlerEntry
from mcp.server.mcpserver import (
    Elicit,
    ListRoots,
    MethodBinding,
    RequestStateSecurity,
    ResourceBinding,
    Sample,
    ToolBinding,
)
from mcp.types import (
    CreateMessageRequestParams,
    SamplingMessage,
    TextContent,
    ToolResultContent,
    ToolUseContent,
)


class Answer(BaseModel):
    ok: bool


def _text(role: Any, text: str) -> SamplingMessage:
    return SamplingMessage(role=role, content=TextContent(type="text", text=text))


def _plain_objects() -> list[tuple[Any, Any]]:
    """Pairs of equal-looking instances of the classes that compare by identity."""
    return [
        (NotificationOptions(tools_changed=True), NotificationOptions(tools_changed=True)),
        (Elicit("Name?", Answer), Elicit("Name?", Answer)),
        (ListRoots(), ListRoots()),
        (Sample([_text("user", "hi")], max_tokens=5), Sample([_text("user", "hi")], max_tokens=5)),
        (RequestStateSecurity(keys=[b"k" * 32]), RequestStateSecurity(keys=[b"k" * 32])),
    ]


@pytest.mark.parametrize(("first", "second"), _plain_objects(), ids=lambda o: type(o).__name__)
def test_markers_and_options_are_hashable_and_compare_by_identity(first: Any, second: Any) -> None:
    assert first == first
    assert first != second
    assert {first: 1}[first] == 1
    assert len({first, second, first}) == 2
    assert not dataclasses.is_dataclass(first)


async def _handler(*_: Any) -> dict[str, Any]:
    return {}


def _fn() -> str:
    return "ok"


def _frozen_objects() -> list[tuple[Any, Any]]:
    """Pairs of equal instances of the frozen dataclasses whose fields all hash."""
    return [
        (ResourceBinding("resource"), ResourceBinding("resource")),
        (MethodBinding("com.example/get", None, _handler), MethodBinding("com.example/get", None, _handler)),
        (HandlerEntry(None, _handler), HandlerEntry(None, _handler)),
    ]


@pytest.mark.parametrize(("first", "second"), _frozen_objects(), ids=lambda o: type(o).__name__)
def test_bindings_and_handler_entries_are_frozen_and_hashed_by_value(first: Any, second: Any) -> None:
    assert first == second
    assert hash(first) == hash(second)
    assert len({first, second}) == 1
    name = dataclasses.fields(first)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(first, name, None)


def test_a_tool_binding_is_frozen_and_equal_by_value_but_its_kwargs_dict_makes_hashing_fail_as_officially() -> None:
    binding = ToolBinding(_fn, meta={"k": 1})
    assert binding == ToolBinding(_fn, meta={"k": 1})
    assert type(binding).__hash__ is not None
    with pytest.raises(TypeError, match="unhashable"):
        hash(binding)
    with pytest.raises(dataclasses.FrozenInstanceError):
        binding.fn = _fn  # type: ignore[misc]


def test_uri_templates_are_frozen_and_equal_by_their_template_string() -> None:
    template = UriTemplate.parse("books://{isbn}{?format}")
    assert dataclasses.fields(template)[0].name == "template"
    assert template == UriTemplate.parse("books://{isbn}{?format}")
    assert hash(template) == hash(UriTemplate.parse("books://{isbn}{?format}"))
    assert template != "books://{isbn}{?format}"
    assert repr(template) == "UriTemplate(template='books://{isbn}{?format}')"
    with pytest.raises(dataclasses.FrozenInstanceError):
        template.template = "other"  # type: ignore[misc]
    assert template.match("books://1?format=pdf") == {"isbn": "1", "format": "pdf"}


def test_is_template_needs_a_closing_brace_after_an_opening_one() -> None:
    assert UriTemplate.is_template("books://{isbn}")
    assert UriTemplate.is_template("{}")
    assert not UriTemplate.is_template("books://{isbn")
    assert not UriTemplate.is_template("books://}{")


def test_sample_carries_its_request_as_create_message_params() -> None:
    sample = Sample([_text("user", "hi")], max_tokens=5, system_prompt="be brief", temperature=0.5)
    assert isinstance(sample.params, CreateMessageRequestParams)
    assert sample.params.max_tokens == 5
    assert sample.params.system_prompt == "be brief"
    assert sample.params.temperature == 0.5
    assert sample.params.messages[0].content == TextContent(type="text", text="hi")
    assert sample.params.tools is None


def test_sample_validates_its_params_like_the_request_model() -> None:
    with pytest.raises(ValidationError):
        Sample([_text("user", "hi")], max_tokens="many")  # type: ignore[arg-type]


def _use(tool_id: str) -> SamplingMessage:
    return SamplingMessage(role="assistant", content=[ToolUseContent(type="tool_use", id=tool_id, name="t", input={})])


def _result(tool_id: str) -> SamplingMessage:
    return SamplingMessage(role="user", content=[ToolResultContent(type="tool_result", tool_use_id=tool_id)])


def test_sample_accepts_tool_results_that_answer_the_previous_tool_uses() -> None:
    sample = Sample([_text("user", "go"), _use("a"), _result("a")], max_tokens=5)
    assert len(sample.params.messages) == 3


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        (lambda: [_result("a")], "tool_result requires a previous message containing tool_use"),
        (lambda: [_text("user", "go"), _result("a")], "tool_result blocks do not match any tool_use in the previous message"),
        (lambda: [_use("a"), _result("b")], "ids of tool_result blocks and tool_use blocks from previous message do not match"),
        (lambda: [_use("a"), _text("user", "no result")],
         "ids of tool_result blocks and tool_use blocks from previous message do not match"),
        (
            lambda: [_use("a"), SamplingMessage(role="user", content=[
                ToolResultContent(type="tool_result", tool_use_id="a"), TextContent(type="text", text="and")])],
            "The last message must contain only tool_result content if any is present",
        ),
    ],
    ids=["result-first", "result-after-text", "ids-differ", "use-unanswered", "mixed-content"],
)
def test_sample_refuses_tool_results_that_do_not_answer_the_previous_tool_uses(messages: Any, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        Sample(messages(), max_tokens=5)
