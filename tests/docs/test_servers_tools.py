"""docs/servers/tools.md: a decorated function is a tool; its name, docstring and type hints are
the listing; defaults, `Field` and `Literal` shape the schema; bad arguments never reach the code."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated, Literal

import anyio
import pytest
from docskit import stdio_script
from pydantic import BaseModel, Field

from mcp import Client
from mcp.server import MCPServer
from mcp.types import TextContent, ToolAnnotations

pytestmark = pytest.mark.anyio


def library() -> MCPServer:
    mcp = MCPServer("Library")

    @mcp.tool()
    def find_titles(text: str, count: int) -> str:
        """Look up loans by borrower or title."""
        return f"{count} hits for {text}"

    @mcp.tool()
    def find_with_default(text: str, count: int = 7) -> str:
        return f"{count} hits for {text}"

    @mcp.tool()
    def find_constrained(
        text: Annotated[str, Field(description="What to look for.")],
        count: Annotated[int, Field(ge=1, le=20, description="At most this many.")] = 5,
        shelf: Literal["red", "blue"] | None = None,
    ) -> str:
        return f"{count} on {shelf}"

    class Loan(BaseModel):
        borrower: str
        title: str
        days: int = Field(ge=1, description="Loan length.")

    @mcp.tool()
    def record_loan(loan: Loan) -> str:
        return f"{type(loan).__name__}:{loan.borrower}/{loan.title}/{loan.days}"

    @mcp.tool(title="Find a title", annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def titled(text: str) -> str:
        return text

    @mcp.tool(name="renamed", description="Explicit description.")
    def original_name() -> str:
        """Docstring that is not used."""
        return "ok"

    @mcp.tool()
    async def awaited(text: str) -> str:
        await anyio.sleep(0)
        return text.upper()

    @mcp.tool()
    def threaded() -> bool:
        return threading.current_thread() is not threading.main_thread()

    return mcp


async def tools_by_name(client: Client) -> dict[str, object]:
    return {tool.name: tool for tool in (await client.list_tools()).tools}


async def test_name_description_and_arguments_come_from_the_function() -> None:
    async with Client(library()) as client:
        tool = (await tools_by_name(client))["find_titles"]
        assert tool.description == "Look up loans by borrower or title."  # type: ignore[attr-defined]
        assert tool.input_schema == {  # type: ignore[attr-defined]
            "type": "object",
            "properties": {"text": {"title": "Text", "type": "string"}, "count": {"title": "Count", "type": "integer"}},
            "required": ["text", "count"],
            "title": "find_titlesArguments",
        }
        assert "$schema" not in tool.input_schema  # type: ignore[attr-defined]


async def test_a_str_result_fills_content_and_structured_content() -> None:
    async with Client(library()) as client:
        result = await client.call_tool("find_titles", {"text": "moby", "count": 3})
        assert result.content == [TextContent(type="text", text="3 hits for moby")]
        assert result.structured_content == {"result": "3 hits for moby"}


async def test_a_wrongly_typed_argument_is_a_tool_error_before_the_function_runs() -> None:
    async with Client(library()) as client:
        result = await client.call_tool("find_titles", {"text": "moby", "count": "three"})
        assert result.is_error
        assert isinstance(result.content[0], TextContent) and "count" in result.content[0].text


async def test_a_default_makes_an_argument_optional_and_is_used_when_omitted() -> None:
    async with Client(library()) as client:
        schema = (await tools_by_name(client))["find_with_default"].input_schema  # type: ignore[attr-defined]
        assert schema["required"] == ["text"]
        assert schema["properties"]["count"] == {"default": 7, "title": "Count", "type": "integer"}
        result = await client.call_tool("find_with_default", {"text": "x"})
        assert result.structured_content == {"result": "7 hits for x"}


async def test_field_and_literal_land_in_the_schema_and_bounds_are_enforced() -> None:
    async with Client(library()) as client:
        props = (await tools_by_name(client))["find_constrained"].input_schema["properties"]  # type: ignore[attr-defined]
        assert props["text"]["description"] == "What to look for."
        assert (props["count"]["minimum"], props["count"]["maximum"]) == (1, 20)
        assert props["count"]["description"] == "At most this many."
        assert {"enum": ["red", "blue"], "type": "string"} in props["shelf"]["anyOf"]

        too_many = await client.call_tool("find_constrained", {"text": "x", "count": 999})
        assert too_many.is_error
        assert isinstance(too_many.content[0], TextContent)
        assert "Input should be less than or equal to 20" in too_many.content[0].text
        bad_shelf = await client.call_tool("find_constrained", {"text": "x", "shelf": "green"})
        assert bad_shelf.is_error


async def test_a_model_parameter_is_a_nested_definition_and_arrives_as_an_instance() -> None:
    async with Client(library()) as client:
        schema = (await tools_by_name(client))["record_loan"].input_schema  # type: ignore[attr-defined]
        assert schema["properties"]["loan"] == {"$ref": "#/$defs/Loan"}
        assert schema["$defs"]["Loan"]["properties"]["days"]["minimum"] == 1
        result = await client.call_tool("record_loan", {"loan": {"borrower": "ann", "title": "Emma", "days": 14}})
        assert result.structured_content == {"result": "Loan:ann/Emma/14"}
        refused = await client.call_tool("record_loan", {"loan": {"borrower": "ann", "title": "Emma", "days": 0}})
        assert refused.is_error


async def test_title_annotations_name_and_description_can_be_set_in_the_decorator() -> None:
    async with Client(library()) as client:
        tools = await tools_by_name(client)
        titled = tools["titled"]
        assert titled.title == "Find a title"  # type: ignore[attr-defined]
        assert titled.annotations == ToolAnnotations(read_only_hint=True, open_world_hint=False)  # type: ignore[attr-defined]
        assert "original_name" not in tools
        assert tools["renamed"].description == "Explicit description."  # type: ignore[attr-defined]


async def test_async_tools_are_awaited_and_plain_ones_run_off_the_event_loop_thread() -> None:
    async with Client(library()) as client:
        assert (await client.call_tool("awaited", {"text": "hi"})).structured_content == {"result": "HI"}
        assert (await client.call_tool("threaded", {})).structured_content == {"result": True}


async def test_the_same_tool_over_a_stdio_subprocess(tmp_path: Path) -> None:
    params = stdio_script(tmp_path, '''
        from typing import Annotated
        from pydantic import Field
        from mcp.server import MCPServer

        mcp = MCPServer("Library")

        @mcp.tool()
        def find_titles(text: str, count: Annotated[int, Field(le=20)] = 5) -> str:
            """Look up loans by borrower or title."""
            return f"{count} hits for {text}"

        if __name__ == "__main__":
            mcp.run()
    ''')
    with anyio.fail_after(30):
        async with Client(params) as client:
            (tool,) = (await client.list_tools()).tools
            assert (tool.name, tool.description) == ("find_titles", "Look up loans by borrower or title.")
            assert tool.input_schema["required"] == ["text"]
            ok = await client.call_tool("find_titles", {"text": "emma"})
            assert ok.structured_content == {"result": "5 hits for emma"}
            refused = await client.call_tool("find_titles", {"text": "emma", "count": 99})
            assert refused.is_error
