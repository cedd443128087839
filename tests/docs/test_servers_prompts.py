"""docs/servers/prompts.md: a decorated function is a prompt; its arguments are a flat list of named
strings; a str is one user message, a list seeds a conversation; titles and descriptions reach the
client; content blocks and media ride in messages; prompts change at runtime with a notification.

A missing required argument fails the request as the official SDK answers it: -32603 "Internal
server error" on the 2026-07-28 wire, code 0 naming the argument on the handshake era."""

from __future__ import annotations

import base64
from contextlib import suppress
from pathlib import Path
from typing import Annotated, Any

import anyio
import pytest
from docskit import serve_http
from pydantic import Field

from mcp import Client, MCPError
from mcp.server import MCPServer
from mcp.server.mcpserver import Context, Image
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.mcpserver.prompts.base import AssistantMessage, Message, UserMessage
from mcp.types import (
    EmbeddedResource,
    ImageContent,
    PromptArgument,
    PromptListChangedNotification,
    PromptMessage,
    TextContent,
    TextResourceContents,
)

pytestmark = pytest.mark.anyio

PNG = b"\x89PNG\r\n\x1a\n"


def kitchen(folder: Path | None = None) -> MCPServer:
    mcp = MCPServer("Kitchen")

    @mcp.prompt()
    def plan_menu(guests: str) -> str:
        """Plan a dinner menu."""
        return f"Plan a menu for {guests} guests."

    @mcp.prompt()
    def fix_recipe(problem: str) -> list[Message]:
        """Talk through a failed recipe."""
        return [UserMessage("My bread did not rise:"), UserMessage(problem),
                AssistantMessage("Let us check the yeast first.")]

    @mcp.prompt(title="Menu planner")
    def titled_menu(
        guests: Annotated[str, Field(description="How many people eat.")],
        cuisine: Annotated[str, Field(description="Which kitchen.")] = "italian",
    ) -> str:
        """Plan a themed menu."""
        return f"{cuisine} for {guests}"

    @mcp.prompt()
    def with_card(dish: str) -> list[Message]:
        card = TextResourceContents(uri="cards://soup", mime_type="text/markdown", text="# Soup")
        return [UserMessage(EmbeddedResource(type="resource", resource=card)), UserMessage(f"Adapt {dish}.")]

    if folder is not None:
        (folder / "plate.png").write_bytes(PNG)

        @mcp.prompt()
        def with_photo(dish: str) -> list[Message]:
            return [UserMessage(Image(path=folder / "plate.png")), UserMessage(f"Plate {dish} like this.")]

    return mcp


async def test_name_description_and_required_arguments_are_listed_without_a_schema() -> None:
    async with Client(kitchen()) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        plan = prompts["plan_menu"]
        assert plan.description == "Plan a dinner menu."
        assert plan.arguments == [PromptArgument(name="guests", required=True)]


async def test_a_str_renders_as_one_user_message() -> None:
    async with Client(kitchen()) as client:
        result = await client.get_prompt("plan_menu", {"guests": "6"})
        assert result.description == "Plan a dinner menu."
        assert result.messages == [PromptMessage(role="user", content=TextContent(type="text",
                                                                                  text="Plan a menu for 6 guests."))]


async def test_a_missing_required_argument_fails_the_request_before_the_function_runs() -> None:
    ran: list[str] = []
    mcp = MCPServer("Kitchen")

    @mcp.prompt()
    def plan_menu(guests: str) -> str:
        ran.append(guests)
        return guests

    async with Client(mcp) as client:  # 2026-07-28: an opaque internal error, as officially
        with pytest.raises(MCPError) as raised:
            await client.get_prompt("plan_menu")
        assert (raised.value.error.code, raised.value.error.message) == (-32603, "Internal server error")
        assert (await client.get_prompt("plan_menu", {"guests": "2"})).messages  # still serving
    async with Client(mcp, mode="legacy") as client:  # the handshake era names the argument
        with pytest.raises(MCPError) as raised:
            await client.get_prompt("plan_menu")
        assert (raised.value.error.code, raised.value.error.message) == (0, "Missing required arguments: {'guests'}")
    assert ran == ["2"]


async def test_a_message_list_renders_in_order_with_roles_from_the_class() -> None:
    async with Client(kitchen()) as client:
        result = await client.get_prompt("fix_recipe", {"problem": "dense loaf"})
        assert [(m.role, m.content.text) for m in result.messages] == [  # type: ignore[union-attr]
            ("user", "My bread did not rise:"), ("user", "dense loaf"), ("assistant", "Let us check the yeast first.")]


async def test_title_and_field_descriptions_reach_the_listing_and_a_default_makes_an_argument_optional() -> None:
    async with Client(kitchen()) as client:
        entry = {p.name: p for p in (await client.list_prompts()).prompts}["titled_menu"]
        assert entry.title == "Menu planner"
        assert entry.arguments == [
            PromptArgument(name="guests", description="How many people eat.", required=True),
            PromptArgument(name="cuisine", description="Which kitchen.", required=False),
        ]
        rendered = await client.get_prompt("titled_menu", {"guests": "4"})
        assert rendered.messages[0].content == TextContent(type="text", text="italian for 4")


async def test_embedded_resources_and_images_ride_in_user_messages(tmp_path: Path) -> None:
    async with Client(kitchen(tmp_path)) as client:
        card = await client.get_prompt("with_card", {"dish": "stew"})
        first = card.messages[0].content
        assert isinstance(first, EmbeddedResource)
        assert first.resource == TextResourceContents(uri="cards://soup", mime_type="text/markdown", text="# Soup")
        photo = await client.get_prompt("with_photo", {"dish": "stew"})
        assert photo.messages[0].content == ImageContent(type="image", data=base64.b64encode(PNG).decode(),
                                                         mime_type="image/png")
        assert photo.messages[1].content == TextContent(type="text", text="Plate stew like this.")


def menu_with_saving() -> MCPServer:
    mcp = MCPServer("Kitchen")

    @mcp.tool()
    async def save_prompt(name: str, instruction: str, ctx: Context) -> str:
        def template(dish: str) -> str:
            return f"{instruction}: {dish}"

        with suppress(ValueError):
            mcp.remove_prompt(name)
        mcp.add_prompt(Prompt.from_function(template, name=name, description=instruction))
        await ctx.notify_prompts_changed()
        await ctx.session.send_prompt_list_changed()
        return f"saved {name}"

    return mcp


async def test_prompts_added_at_runtime_are_listed_and_listeners_are_told() -> None:
    async with Client(menu_with_saving()) as client:
        async with client.listen(prompts_list_changed=True) as stream:
            await client.call_tool("save_prompt", {"name": "spicy", "instruction": "Make it hot"})
            with anyio.fail_after(10):
                event = await stream.__anext__()
            assert type(event).__name__ == "PromptsListChanged"
        listed = {p.name: p for p in (await client.list_prompts()).prompts}
        assert listed["spicy"].description == "Make it hot"
        await client.call_tool("save_prompt", {"name": "spicy", "instruction": "Make it mild"})  # a replace
        assert (await client.get_prompt("spicy", {"dish": "curry"})).messages[0].content.text == "Make it mild: curry"  # type: ignore[union-attr]


async def test_a_legacy_client_gets_the_list_changed_notification_over_http() -> None:
    received: list[Any] = []
    got = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, PromptListChangedNotification):
            received.append(message)
            got.set()

    with serve_http(lambda: menu_with_saving().streamable_http_app()) as base:
        async with Client(f"{base}/mcp", mode="legacy", message_handler=on_message) as client:
            await client.call_tool("save_prompt", {"name": "quick", "instruction": "Make it fast"})
            with anyio.fail_after(10):
                await got.wait()
            assert "quick" in {p.name for p in (await client.list_prompts()).prompts}
    # The page's pair of calls: `send_prompt_list_changed()` tells this legacy caller; ours'
    # `notify_prompts_changed()` also tells it (the official SDK's only reaches listen streams),
    # and the two coalesce: it hears of the change once, as from the official SDK.
    assert len(received) == 1
