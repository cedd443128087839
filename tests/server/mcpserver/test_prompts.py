"""Prompts at the function and manager level: `Prompt.from_function`, rendering, `PromptManager`."""

from __future__ import annotations

import base64
import logging
import re
import threading
from collections.abc import Sequence
from typing import Annotated, Any

import pytest
from pydantic import Field

from mcp.server.mcpserver import Audio, Context, Image
from mcp.server.mcpserver.prompts import Prompt, PromptManager
from mcp.server.mcpserver.prompts.base import AssistantMessage, Message, PromptArgument, UserMessage
from mcp.shared.exceptions import InvalidSignature, MCPError
from mcp.types import (
    EmbeddedResource,
    GetPromptResult,
    ImageContent,
    InputRequiredResult,
    PromptMessage,
    TextContent,
    TextResourceContents,
)
from mcp.types import Prompt as WirePrompt

PNG = b"\x89PNG\r\n\x1a\nfake"


def review_code(code: str) -> str:
    """Review a piece of code."""
    return f"Please review this code:\n\n{code}"


def described(
    code: Annotated[str, Field(description="The code to review.")],
    language: str = Field("python", description="The language the code is written in."),
) -> str:
    return f"{language}: {code}"


def _texts(messages: Sequence[PromptMessage | Message]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for message in messages:
        assert isinstance(message.content, TextContent)
        out.append((message.role, message.content.text))
    return out


# --- messages ---------------------------------------------------------------------------------


def test_user_message_wraps_a_string_in_text_content_with_the_user_role():
    message = UserMessage("hello")
    assert message.role == "user"
    assert message.content == TextContent(text="hello")


def test_assistant_message_has_the_assistant_role():
    message = AssistantMessage(content="sure")
    assert message.role == "assistant"
    assert message.content == TextContent(text="sure")


def test_message_is_the_common_base_and_takes_an_explicit_role():
    message = Message(role="assistant", content="x")
    assert isinstance(UserMessage("a"), Message)
    assert isinstance(AssistantMessage("a"), Message)
    assert message.role == "assistant"


def test_message_rejects_an_unknown_role():
    with pytest.raises(ValueError):
        Message(role="system", content="x")


def test_message_accepts_content_blocks_as_they_are():
    resource = EmbeddedResource(
        resource=TextResourceContents(uri="test://r", mime_type="text/plain", text="body")
    )
    assert UserMessage(resource).content is resource


def test_message_turns_image_and_audio_helpers_into_content_blocks():
    image = UserMessage(Image(data=PNG, format="png")).content
    audio = AssistantMessage(Audio(data=b"RIFF", format="wav")).content
    assert isinstance(image, ImageContent)
    assert image.mime_type == "image/png"
    assert base64.b64decode(image.data) == PNG
    assert audio.type == "audio"
    assert audio.mime_type == "audio/wav"


def test_message_accepts_a_content_dict():
    message = UserMessage({"type": "image", "data": "aGk=", "mimeType": "image/png"})
    assert isinstance(message.content, ImageContent)


# --- from_function ----------------------------------------------------------------------------


def test_the_name_and_description_come_from_the_function_and_its_docstring():
    prompt = Prompt.from_function(review_code)
    assert prompt.name == "review_code"
    assert prompt.description == "Review a piece of code."
    assert prompt.arguments == [PromptArgument(name="code", required=True)]


def test_the_wire_prompt_matches_the_documented_prompts_list_entry():
    wire = Prompt.from_function(review_code).to_wire()
    assert isinstance(wire, WirePrompt)
    assert wire.to_wire() == {
        "name": "review_code",
        "description": "Review a piece of code.",
        "arguments": [{"name": "code", "required": True}],
    }


def test_explicit_name_title_description_and_icons_override_the_function():
    from mcp.types import Icon

    icons = [Icon(src="https://example.com/i.png")]
    prompt = Prompt.from_function(
        review_code, name="review", title="Code review", description="D", icons=icons
    )
    wire = prompt.to_wire()
    assert (wire.name, wire.title, wire.description, wire.icons) == ("review", "Code review", "D", icons)


def test_argument_descriptions_come_from_field_and_a_default_makes_an_argument_optional():
    prompt = Prompt.from_function(described)
    assert prompt.to_wire().to_wire()["arguments"] == [
        {"name": "code", "description": "The code to review.", "required": True},
        {"name": "language", "description": "The language the code is written in.", "required": False},
    ]


def test_a_function_without_parameters_has_an_empty_argument_list():
    prompt = Prompt.from_function(lambda: "hi", name="simple")
    assert prompt.arguments == []
    assert prompt.to_wire().arguments == []


def test_a_function_without_a_docstring_has_an_empty_description_as_officially():
    prompt = Prompt.from_function(described)
    assert prompt.description == ""
    assert prompt.to_wire().to_wire()["description"] == ""


def test_a_lambda_needs_an_explicit_name():
    with pytest.raises(ValueError, match="You must provide a name for lambda functions"):
        Prompt.from_function(lambda: "x")


def test_args_and_kwargs_parameters_are_rejected_at_registration():
    def bad(*args: str) -> str:
        return ""

    with pytest.raises(InvalidSignature):
        Prompt.from_function(bad)


def test_a_context_parameter_is_not_an_argument():
    def with_ctx(topic: str, ctx: Context) -> str:
        return topic

    prompt = Prompt.from_function(with_ctx)
    assert [a.name for a in prompt.arguments or []] == ["topic"]
    assert prompt.context_kwarg == "ctx"


def test_context_kwarg_names_the_context_parameter_without_an_annotation():
    def with_ctx(topic: str, c) -> str:  # type: ignore[no-untyped-def]
        return topic

    prompt = Prompt.from_function(with_ctx, context_kwarg="c")
    assert [a.name for a in prompt.arguments or []] == ["topic"]
    assert prompt.context_kwarg == "c"


def test_a_parameter_shadowing_a_model_attribute_keeps_its_name():
    def shadow(schema: str) -> str:
        return f"schema={schema}"

    prompt = Prompt.from_function(shadow)
    assert [a.name for a in prompt.arguments or []] == ["schema"]


# --- render -----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_returned_string_becomes_one_user_message():
    messages = await Prompt.from_function(review_code).render({"code": "def add(a, b): return a + b"})
    assert isinstance(messages, list)
    assert _texts(messages) == [("user", "Please review this code:\n\ndef add(a, b): return a + b")]


@pytest.mark.anyio
async def test_a_missing_required_argument_fails_before_the_function_runs():
    called: list[str] = []

    def topic_prompt(topic: str) -> str:
        called.append(topic)
        return topic

    with pytest.raises(ValueError) as exc_info:
        await Prompt.from_function(topic_prompt).render({})
    assert str(exc_info.value) == "Missing required arguments: {'topic'}"
    assert called == []


@pytest.mark.anyio
async def test_no_arguments_at_all_counts_as_missing_every_required_one():
    with pytest.raises(ValueError, match=re.escape("Missing required arguments: {'code'}")):
        await Prompt.from_function(review_code).render(None)


@pytest.mark.anyio
async def test_an_optional_argument_uses_its_default():
    messages = await Prompt.from_function(described).render({"code": "x"})
    assert _texts(messages) == [("user", "python: x")]


@pytest.mark.anyio
async def test_unknown_arguments_are_ignored():
    messages = await Prompt.from_function(review_code).render({"code": "x", "extra": "y"})
    assert len(messages) == 1


@pytest.mark.anyio
async def test_a_list_of_messages_renders_in_order_with_their_roles():
    def debug_error(error: str) -> list[Message]:
        return [
            UserMessage("I'm seeing this error:"),
            UserMessage(error),
            AssistantMessage("I'll help debug that. What have you tried so far?"),
        ]

    messages = await Prompt.from_function(debug_error).render({"error": "TypeError"})
    assert _texts(messages) == [
        ("user", "I'm seeing this error:"),
        ("user", "TypeError"),
        ("assistant", "I'll help debug that. What have you tried so far?"),
    ]


@pytest.mark.anyio
async def test_a_single_message_and_a_tuple_of_mixed_items_are_accepted():
    def single() -> Message:
        return AssistantMessage("one")

    def mixed() -> tuple[Any, ...]:
        return (
            "plain",
            {"role": "assistant", "content": "from a dict"},
            PromptMessage(role="user", content=TextContent(text="wire")),
        )

    assert _texts(await Prompt.from_function(single).render()) == [("assistant", "one")]
    assert _texts(await Prompt.from_function(mixed).render()) == [
        ("user", "plain"),
        ("assistant", "from a dict"),
        ("user", "wire"),
    ]


@pytest.mark.anyio
async def test_content_blocks_images_and_embedded_resources_become_user_messages():
    def rich(uri: str) -> list[Any]:
        return [
            EmbeddedResource(resource=TextResourceContents(uri=uri, mime_type="text/plain", text="content")),
            Image(data=PNG, format="png"),
            "Please process the embedded resource above.",
        ]

    messages = await Prompt.from_function(rich).render({"uri": "test://example-resource"})
    assert isinstance(messages, list)
    assert [m.role for m in messages] == ["user", "user", "user"]
    assert [m.content.type for m in messages] == ["resource", "image", "text"]
    first = messages[0].content
    assert isinstance(first, EmbeddedResource)
    assert first.resource.uri == "test://example-resource"


@pytest.mark.anyio
async def test_any_other_value_is_sent_as_json_text():
    def numbers() -> set[int]:
        return {1}

    messages = await Prompt.from_function(numbers).render()
    assert _texts(messages) == [("user", "[\n  1\n]")]


@pytest.mark.anyio
async def test_a_dict_that_is_not_a_message_fails_the_render():
    def numbers() -> dict[str, int]:
        return {"a": 1}

    with pytest.raises(ValueError, match=r"^Error rendering prompt numbers$"):
        await Prompt.from_function(numbers).render()


@pytest.mark.anyio
async def test_render_returns_user_and_assistant_message_objects():
    def chat() -> list[Any]:
        return ["hi", AssistantMessage("hello"), {"role": "assistant", "content": "again"}]

    messages = await Prompt.from_function(chat).render()
    assert [type(m) for m in messages] == [UserMessage, AssistantMessage, UserMessage]
    assert _texts(messages) == [("user", "hi"), ("assistant", "hello"), ("assistant", "again")]


@pytest.mark.anyio
async def test_an_async_function_is_awaited():
    async def greet(name: str) -> str:
        return f"Hello, {name}"

    assert _texts(await Prompt.from_function(greet).render({"name": "Ada"})) == [("user", "Hello, Ada")]


@pytest.mark.anyio
async def test_a_sync_function_runs_on_a_worker_thread():
    threads: list[threading.Thread] = []

    def where() -> str:
        threads.append(threading.current_thread())
        return "x"

    await Prompt.from_function(where).render()
    assert threads and threads[0] is not threading.current_thread()


@pytest.mark.anyio
async def test_the_context_is_passed_to_the_context_parameter():
    seen: list[Any] = []

    def with_ctx(topic: str, ctx: Context) -> str:
        seen.append(ctx)
        return topic

    sentinel = object()
    await Prompt.from_function(with_ctx).render({"topic": "t"}, sentinel)
    assert seen == [sentinel]


@pytest.mark.anyio
async def test_string_arguments_are_coerced_to_the_annotated_type():
    def count(n: int, tags: list[str]) -> str:
        return f"{n + 1} {tags}"

    messages = await Prompt.from_function(count).render({"n": "41", "tags": '["a", "b"]'})
    assert _texts(messages) == [("user", "42 ['a', 'b']")]


@pytest.mark.anyio
async def test_an_invalid_argument_fails_the_render_with_the_prompt_name():
    def count(n: int) -> str:
        return str(n)

    with pytest.raises(ValueError, match="Error rendering prompt count"):
        await Prompt.from_function(count).render({"n": "many"})


@pytest.mark.anyio
async def test_an_exception_in_the_function_becomes_a_value_error_naming_the_prompt():
    def broken() -> str:
        raise RuntimeError("boom")

    with pytest.raises(ValueError, match=r"^Error rendering prompt broken$") as exc_info:
        await Prompt.from_function(broken).render()
    assert str(exc_info.value.__cause__) == "boom"


@pytest.mark.anyio
async def test_an_mcp_error_from_the_function_propagates_unchanged():
    def refuses() -> str:
        raise MCPError(-32602, "nope")

    with pytest.raises(MCPError) as exc_info:
        await Prompt.from_function(refuses).render()
    assert exc_info.value.code == -32602


@pytest.mark.anyio
async def test_an_unconvertible_message_fails_the_render():
    def bad() -> dict[str, str]:
        return {"role": "system", "content": "x"}

    with pytest.raises(ValueError, match="Error rendering prompt bad"):
        await Prompt.from_function(bad).render()


@pytest.mark.anyio
async def test_an_input_required_result_is_returned_as_is():
    irr = InputRequiredResult(request_state="s1")

    async def asks() -> InputRequiredResult:
        return irr

    assert await Prompt.from_function(asks).render() is irr


# --- manager ----------------------------------------------------------------------------------


def test_prompts_are_listed_as_wire_prompts_in_registration_order():
    manager = PromptManager()
    manager.add_prompt(Prompt.from_function(review_code))
    manager.add_prompt(Prompt.from_function(described))
    listed = manager.list_prompts()
    assert [p.name for p in listed] == ["review_code", "described"]
    assert all(isinstance(p, WirePrompt) for p in listed)


def test_get_prompt_returns_the_registered_prompt_or_none():
    manager = PromptManager()
    prompt = manager.add_prompt(Prompt.from_function(review_code))
    assert manager.get_prompt("review_code") is prompt
    assert manager.get_prompt("missing") is None


def test_a_duplicate_name_keeps_the_first_prompt_and_logs_a_warning(caplog: pytest.LogCaptureFixture):
    manager = PromptManager()
    first = manager.add_prompt(Prompt.from_function(review_code))
    with caplog.at_level(logging.WARNING):
        kept = manager.add_prompt(Prompt.from_function(described, name="review_code"))
    assert kept is first
    assert manager.get_prompt("review_code") is first
    assert "Prompt already exists: review_code" in caplog.text


def test_the_duplicate_warning_can_be_turned_off(caplog: pytest.LogCaptureFixture):
    manager = PromptManager(warn_on_duplicate_prompts=False)
    manager.add_prompt(Prompt.from_function(review_code))
    with caplog.at_level(logging.WARNING):
        manager.add_prompt(Prompt.from_function(review_code))
    assert "already exists" not in caplog.text
    assert len(manager.list_prompts()) == 1


def test_remove_prompt_unregisters_it():
    manager = PromptManager()
    manager.add_prompt(Prompt.from_function(review_code))
    manager.remove_prompt("review_code")
    assert manager.list_prompts() == []
    assert manager.get_prompt("review_code") is None


def test_removing_an_unknown_prompt_raises_value_error():
    with pytest.raises(ValueError, match="Unknown prompt: missing"):
        PromptManager().remove_prompt("missing")


@pytest.mark.anyio
async def test_render_prompt_returns_the_messages():
    manager = PromptManager()
    manager.add_prompt(Prompt.from_function(review_code))
    messages = await manager.render_prompt("review_code", {"code": "x"})
    assert isinstance(messages, list)
    assert _texts(messages) == [("user", "Please review this code:\n\nx")]


@pytest.mark.anyio
async def test_mcpserver_get_prompt_returns_a_get_prompt_result_carrying_the_description():
    from mcp.server import MCPServer

    mcp = MCPServer("prompts")
    mcp.add_prompt(Prompt.from_function(review_code))
    result = await mcp.get_prompt("review_code", {"code": "x"})
    assert isinstance(result, GetPromptResult)
    assert result.description == "Review a piece of code."
    assert result.to_wire() == {
        "resultType": "complete",
        "description": "Review a piece of code.",
        "messages": [{"role": "user", "content": {"type": "text", "text": "Please review this code:\n\nx"}}],
    }


@pytest.mark.anyio
async def test_render_prompt_of_an_unknown_name_raises_value_error():
    with pytest.raises(ValueError, match="Unknown prompt: nope"):
        await PromptManager().render_prompt("nope", {})


@pytest.mark.anyio
async def test_render_prompt_reports_missing_required_arguments():
    manager = PromptManager()
    manager.add_prompt(Prompt.from_function(review_code))
    with pytest.raises(ValueError, match=re.escape("Missing required arguments: {'code'}")):
        await manager.render_prompt("review_code", {})


@pytest.mark.anyio
async def test_render_prompt_passes_the_context_and_an_input_required_result_through():
    irr = InputRequiredResult(request_state="again")

    def asks(ctx: Context) -> Any:
        return irr if ctx == "first" else "done"  # pyright: ignore[reportUnnecessaryComparison]

    manager = PromptManager()
    manager.add_prompt(Prompt.from_function(asks))
    assert await manager.render_prompt("asks", None, "first") is irr
    result = await manager.render_prompt("asks", None, "second")
    assert isinstance(result, list)
    assert _texts(result) == [("user", "done")]


@pytest.mark.anyio
async def test_a_prompt_that_crashes_is_answered_without_its_text_which_stays_in_the_server_log(
        caplog: pytest.LogCaptureFixture) -> None:
    from mcp import Client
    from mcp.server import MCPServer

    mcp = MCPServer("crashing prompts")

    @mcp.prompt()
    def leaky(topic: str) -> str:
        raise RuntimeError("db password=hunter2")

    @mcp.prompt()
    async def aleaky(topic: str) -> str:
        raise RuntimeError("db password=hunter2")

    for mode, answers in (("auto", lambda name: (-32603, "Internal server error")),
                          ("legacy", lambda name: (0, f"Error rendering prompt {name}"))):
        async with Client(mcp, mode=mode) as client:
            for name in ("leaky", "aleaky"):
                with pytest.raises(MCPError) as exc_info:
                    await client.get_prompt(name, {"topic": "x"})
                assert (exc_info.value.code, exc_info.value.message) == answers(name)
                assert "hunter2" not in str(exc_info.value.error)
    logged = [logging.Formatter().formatException(record.exc_info) for record in caplog.records if record.exc_info]
    assert any("hunter2" in text for text in logged)  # the cause, chained to the logged error
