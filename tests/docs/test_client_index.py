"""docs/client/index.md: one `Client`, one lifecycle, and every protocol verb as a typed method,
in memory (as the page connects) and over a real Streamable HTTP server."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from pydantic import BaseModel

from mcp import Client, MCPDeprecationWarning, MCPError
from mcp.server import MCPServer
from mcp.shared.metadata_utils import get_display_name
from mcp.types import (
    Completion,
    CompletionArgument,
    CompletionContext,
    PromptArgument,
    PromptReference,
    ResourceTemplateReference,
    TextContent,
    TextResourceContents,
    Tool,
)

sys.path.insert(0, str(Path(__file__).parent))
from client_pages_kit import serving

pytestmark = pytest.mark.anyio


class Novel(BaseModel):
    title: str
    author: str
    year: int


def library() -> MCPServer:
    mcp = MCPServer("Library", instructions="Look a title up before lending it.")

    @mcp.tool(title="Find a title")
    def find_title(query: str, limit: int = 5) -> str:
        """Find titles by author or name."""
        return f"{limit} titles for {query!r}."

    @mcp.tool()
    def novel(title: str) -> Novel:
        """One novel by its exact title."""
        if title != "Emma":
            raise ValueError(f"No novel titled {title!r} on the shelves.")
        return Novel(title="Emma", author="Jane Austen", year=1815)

    @mcp.resource("shelf://sections")
    def sections() -> list[str]:
        """The sections of the library."""
        return ["drama", "history", "verse"]

    @mcp.resource("shelf://sections/{section}")
    def section(section: str) -> str:
        """What one section holds."""
        return f"12 titles in {section}."

    @mcp.prompt(title="Suggest a title")
    def suggest(section: str) -> str:
        """Ask for a suggestion from one section."""
        return f"Suggest one title from {section} and say why."

    @mcp.completion()
    async def complete(ref: PromptReference | ResourceTemplateReference, argument: CompletionArgument,
                       context: CompletionContext | None) -> Completion | None:
        return Completion(values=[s for s in ("drama", "history", "verse") if s.startswith(argument.value)])

    return mcp


async def test_the_connection_facts_are_properties_once_inside_the_block() -> None:
    async with Client(library()) as client:
        assert client.server_info is not None and client.server_info.name == "Library"
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.prompts is not None
        assert client.protocol_version == "2026-07-28"
        assert client.instructions == "Look a title up before lending it."
        assert client.session is not None  # the low-level escape hatch


async def test_a_client_cannot_be_reused_after_its_block() -> None:
    client = Client(library())
    async with client:
        pass
    with pytest.raises(RuntimeError, match=r"^Client must be used within an async context manager$"):
        await client.list_tools()
    with pytest.raises(RuntimeError, match=r"^Client is already entered; cannot reenter$"):
        async with client:
            pass


async def test_list_tools_gives_name_title_description_and_the_derived_input_schema() -> None:
    async with Client(library()) as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == "find_title")
        assert (tool.title, tool.description) == ("Find a title", "Find titles by author or name.")
        assert tool.input_schema == {
            "type": "object",
            "properties": {"query": {"title": "Query", "type": "string"},
                           "limit": {"default": 5, "title": "Limit", "type": "integer"}},
            "required": ["query"],
            "title": "find_titleArguments",
        }


def test_get_display_name_prefers_the_title() -> None:
    assert get_display_name(Tool(name="find_title", title="Find a title", input_schema={"type": "object"})) \
        == "Find a title"
    assert get_display_name(Tool(name="find_title", input_schema={"type": "object"})) == "find_title"


async def test_a_call_returns_content_for_the_model_and_structured_content_for_code() -> None:
    async with Client(library()) as client:
        result = await client.call_tool("novel", {"title": "Emma"})
        assert result.is_error is False
        (block,) = result.content
        assert isinstance(block, TextContent)
        assert block.text == '{\n  "title": "Emma",\n  "author": "Jane Austen",\n  "year": 1815\n}'
        assert result.structured_content == {"title": "Emma", "author": "Jane Austen", "year": 1815}


async def test_a_raising_tool_and_an_unknown_tool_are_results_not_exceptions() -> None:
    async with Client(library()) as client:
        failed = await client.call_tool("novel", {"title": "Ulysses"})
        assert failed.is_error is True
        assert failed.structured_content is None
        # Ours masks an unexpected exception's text (README, beyond the official SDK); the official
        # SDK puts the exception's message after the colon.
        assert isinstance(failed.content[0], TextContent)
        assert failed.content[0].text.startswith("Error executing tool novel")
        unknown = await client.call_tool("does_not_exist", {})
        assert unknown.is_error is True
        assert isinstance(unknown.content[0], TextContent)
        assert "Unknown tool: does_not_exist" in unknown.content[0].text


async def test_resources_list_in_two_lists_and_read_by_plain_string_uri() -> None:
    async with Client(library()) as client:
        assert [str(r.uri) for r in (await client.list_resources()).resources] == ["shelf://sections"]
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == ["shelf://sections/{section}"]
        read = await client.read_resource("shelf://sections/verse")
        (contents,) = read.contents
        assert isinstance(contents, TextResourceContents) and contents.text == "12 titles in verse."
        assert client.server_capabilities.resources is not None
        assert client.server_capabilities.resources.subscribe is True


async def test_the_legacy_subscribe_pair_warns_and_is_method_not_found_on_the_modern_wire() -> None:
    async with Client(library()) as client:
        for verb, method in ((client.subscribe_resource, "subscribe"), (client.unsubscribe_resource, "unsubscribe")):
            with pytest.warns(MCPDeprecationWarning,
                              match=rf"^resources/{method} is removed as of 2026-07-28; use Client\.listen\(\) instead\.$"), \
                    pytest.raises(MCPError) as refused:
                await verb("shelf://sections")
            assert refused.value.code == -32601


async def test_prompts_list_their_arguments_and_render_messages() -> None:
    async with Client(library()) as client:
        (prompt,) = (await client.list_prompts()).prompts
        assert (prompt.name, prompt.title) == ("suggest", "Suggest a title")
        assert prompt.arguments == [PromptArgument(name="section", required=True)]
        (message,) = (await client.get_prompt("suggest", {"section": "drama"})).messages
        assert message.role == "user"
        assert message.content == TextContent(type="text", text="Suggest one title from drama and say why.")


async def test_completions_answer_what_the_user_typed_so_far() -> None:
    async with Client(library()) as client:
        result = await client.complete(ref=PromptReference(type="ref/prompt", name="suggest"),
                                       argument={"name": "section", "value": "v"})
        assert result.completion.values == ["verse"]


async def test_the_cursor_loop_runs_once_against_a_server_that_does_not_page() -> None:
    async with Client(library()) as client:
        pages = 0
        cursor: str | None = None
        names: list[str] = []
        while True:
            page = await client.list_tools(cursor=cursor)
            pages += 1
            names.extend(tool.name for tool in page.tools)
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        assert (pages, sorted(names)) == (1, ["find_title", "novel"])


async def test_the_same_verbs_over_streamable_http() -> None:
    mcp = library()
    with serving(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(30):
        async with Client(f"{base}/mcp") as client:
            assert client.protocol_version == "2026-07-28"
            assert (await client.call_tool("novel", {"title": "Emma"})).structured_content["year"] == 1815  # type: ignore[index]
            assert (await client.call_tool("novel", {"title": "Ulysses"})).is_error is True
            assert (await client.complete(ref=PromptReference(type="ref/prompt", name="suggest"),
                                          argument={"name": "section", "value": "d"})).completion.values == ["drama"]
