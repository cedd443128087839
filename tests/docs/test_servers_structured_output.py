"""docs/servers/structured-output.md: the return annotation is the output schema; scalars, lists
and unions are wrapped in {"result": ...}, objects are not; results are validated; content blocks
and media opt out; `structured_output=` forces either way."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import TypedDict

import pytest
from pydantic import BaseModel, Field
from typing_extensions import NotRequired

from mcp import Client
from mcp.server import MCPServer
from mcp.server.mcpserver import Audio, Image
from mcp.server.mcpserver.exceptions import InvalidSignature
from mcp.types import AudioContent, EmbeddedResource, ImageContent, TextContent, TextResourceContents

pytestmark = pytest.mark.anyio


class Reading(BaseModel):
    level: float = Field(description="River level in metres.")
    rising: bool


class ReadingDict(TypedDict):
    level: float
    rising: bool
    note: NotRequired[str]


@dataclasses.dataclass
class ReadingData:
    level: float
    rising: bool


class Annotated_:
    level: float
    rising: bool

    def __init__(self, level: float, rising: bool) -> None:
        self.level, self.rising = level, rising


def gauges() -> MCPServer:
    mcp = MCPServer("Gauges")

    @mcp.tool()
    def count() -> int:
        return 4

    @mcp.tool()
    def as_model() -> Reading:
        return Reading(level=1.5, rising=True)

    @mcp.tool()
    def as_typeddict() -> ReadingDict:
        return {"level": 1.5, "rising": True}

    @mcp.tool()
    def as_dataclass() -> ReadingData:
        return ReadingData(level=1.5, rising=True)

    @mcp.tool()
    def as_class() -> Annotated_:
        return Annotated_(1.5, True)

    @mcp.tool()
    def history() -> list[Reading]:
        return [Reading(level=1.0, rising=False), Reading(level=1.2, rising=True)]

    @mcp.tool()
    def by_station() -> dict[str, float]:
        return {"north": 1.1, "south": 0.9}

    @mcp.tool()
    def by_number() -> dict[int, float]:
        return {1: 1.1}

    @mcp.tool()
    def maybe() -> int | None:
        return None

    @mcp.tool()
    def from_upstream() -> Reading:
        return json.loads('{"rising": true}')  # the upstream dropped `level`

    @mcp.tool()
    def plain_dict_ok() -> Reading:
        return {"level": 2.0, "rising": False}  # type: ignore[return-value]

    @mcp.tool(structured_output=False)
    def text_only() -> Reading:
        return "the river is high"  # type: ignore[return-value]

    return mcp


async def call(mcp: MCPServer, name: str):
    async with Client(mcp) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        return tools[name], await client.call_tool(name, {})


async def test_a_scalar_is_wrapped_and_fills_both_channels() -> None:
    tool, result = await call(gauges(), "count")
    assert tool.output_schema == {"properties": {"result": {"title": "Result", "type": "integer"}},
                                  "required": ["result"], "title": "countOutput", "type": "object"}
    assert result.content == [TextContent(type="text", text="4")]
    assert result.structured_content == {"result": 4}


async def test_a_model_is_the_schema_itself_and_the_text_is_its_indented_json() -> None:
    tool, result = await call(gauges(), "as_model")
    assert tool.output_schema["title"] == "Reading"
    assert tool.output_schema["properties"]["level"]["description"] == "River level in metres."
    assert "result" not in tool.output_schema["properties"]
    assert result.structured_content == {"level": 1.5, "rising": True}
    assert result.content == [TextContent(type="text", text='{\n  "level": 1.5,\n  "rising": true\n}')]


@pytest.mark.parametrize("name", ["as_typeddict", "as_dataclass", "as_class"])
async def test_typeddict_dataclass_and_annotated_class_give_the_same_object_schema(name: str) -> None:
    tool, result = await call(gauges(), name)
    properties = tool.output_schema["properties"]
    assert {key: properties[key] for key in ("level", "rising")} == {"level": {"title": "Level", "type": "number"},
                                                                      "rising": {"title": "Rising", "type": "boolean"}}
    assert set(tool.output_schema["required"]) == {"level", "rising"}  # a NotRequired key is not required
    assert result.structured_content == {"level": 1.5, "rising": True}  # and, left out, stays out


async def test_a_list_is_wrapped_with_a_defs_reference_and_flattened_into_one_block_per_item() -> None:
    tool, result = await call(gauges(), "history")
    assert tool.output_schema["properties"]["result"] == {"items": {"$ref": "#/$defs/Reading"}, "title": "Result",
                                                          "type": "array"}
    assert "Reading" in tool.output_schema["$defs"]
    assert result.structured_content == {"result": [{"level": 1.0, "rising": False}, {"level": 1.2, "rising": True}]}
    assert len(result.content) == 2


async def test_dict_with_str_keys_is_an_object_and_other_keys_fall_back_to_the_wrapper() -> None:
    tool, result = await call(gauges(), "by_station")
    assert tool.output_schema == {"additionalProperties": {"type": "number"}, "title": "by_stationDictOutput",
                                  "type": "object"}
    assert result.structured_content == {"north": 1.1, "south": 0.9}
    tool, _ = await call(gauges(), "by_number")
    assert tool.output_schema["required"] == ["result"]


async def test_optional_is_wrapped_like_other_unions() -> None:
    tool, result = await call(gauges(), "maybe")
    assert tool.output_schema["required"] == ["result"]
    assert result.structured_content == {"result": None}


async def test_a_result_that_misses_a_field_is_a_tool_error_naming_it() -> None:
    _, result = await call(gauges(), "from_upstream")
    assert result.is_error and result.structured_content is None
    assert isinstance(result.content[0], TextContent)
    text = result.content[0].text
    assert text.startswith("Error executing tool from_upstream: 1 validation error for Reading")
    assert "level\n  Field required" in text


async def test_a_plain_dict_matching_the_model_is_accepted() -> None:
    _, result = await call(gauges(), "plain_dict_ok")
    assert not result.is_error
    assert result.structured_content == {"level": 2.0, "rising": False}


async def test_structured_output_false_means_no_schema_no_wrapping_no_validation() -> None:
    tool, result = await call(gauges(), "text_only")
    assert tool.output_schema is None
    assert result.structured_content is None
    assert result.content == [TextContent(type="text", text="the river is high")]


def media() -> MCPServer:
    mcp = MCPServer("Media")
    doc = EmbeddedResource(type="resource", resource=TextResourceContents(uri="memo://1", mime_type="text/plain",
                                                                          text="memo"))

    @mcp.tool()
    def picture() -> Image:
        return Image(data=b"\x89PNG", format="png")

    @mcp.tool()
    def sound() -> Audio:
        return Audio(data=b"RIFF", format="wav")

    @mcp.tool()
    def block() -> TextContent:
        return TextContent(type="text", text="as given")

    @mcp.tool()
    def embedded() -> EmbeddedResource:
        return doc

    @mcp.tool()
    def mixed() -> list[str | Image]:
        return ["caption", Image(data=b"\x89PNG", format="png")]

    @mcp.tool()
    def pair() -> tuple[Image, Audio]:
        return Image(data=b"\x89PNG", format="png"), Audio(data=b"RIFF", format="wav")

    @mcp.tool()
    def blocks() -> Sequence[TextContent]:
        return [TextContent(type="text", text="one"), TextContent(type="text", text="two")]

    @mcp.tool()
    def either() -> str | Image:
        return "words"

    return mcp


async def test_content_blocks_and_media_derive_no_schema_and_come_back_as_given() -> None:
    png = ImageContent(type="image", data="iVBORw==", mime_type="image/png")
    wav = AudioContent(type="audio", data="UklGRg==", mime_type="audio/wav")
    expected = {
        "picture": [png],
        "sound": [wav],
        "block": [TextContent(type="text", text="as given")],
        "mixed": [TextContent(type="text", text="caption"), png],
        "pair": [png, wav],
        "blocks": [TextContent(type="text", text="one"), TextContent(type="text", text="two")],
        "either": [TextContent(type="text", text="words")],
    }
    async with Client(media()) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert {name: tool.output_schema for name, tool in tools.items()} == dict.fromkeys(tools)
        for name, content in expected.items():
            result = await client.call_tool(name, {})
            assert (result.content, result.structured_content, result.is_error) == (content, None, False), name
        embedded = await client.call_tool("embedded", {})
        assert embedded.structured_content is None and embedded.content[0].type == "resource"


async def test_structured_output_true_forces_a_schema_for_content_block_classes_only() -> None:
    mcp = MCPServer("Forced")

    @mcp.tool(structured_output=True)
    def forced() -> TextContent:
        return TextContent(type="text", text="x")

    def forced_picture() -> Image:
        return Image(data=b"\x89PNG", format="png")

    with pytest.raises(InvalidSignature, match="is not serializable for structured output"):
        mcp.add_tool(forced_picture, structured_output=True)
    tool, result = await call(mcp, "forced")
    assert tool.output_schema is not None and tool.output_schema["title"] == "TextContent"
    assert result.structured_content == {"type": "text", "text": "x", "annotations": None, "_meta": None}
    assert result.content == [TextContent(type="text", text="x")]


class Unhinted:
    def __init__(self) -> None:
        self.level = 1.0


async def test_a_class_without_annotations_is_unstructured_with_a_repr_for_text() -> None:
    mcp = MCPServer("Bare")
    with pytest.warns(UserWarning, match="no annotated fields"):  # ours also warns (README: beyond the official SDK)

        @mcp.tool()
        def station() -> Unhinted:
            return Unhinted()

    tool, result = await call(mcp, "station")
    assert tool.output_schema is None and result.structured_content is None and not result.is_error
    assert isinstance(result.content[0], TextContent)
    assert result.content[0].text.startswith(f'"<{__name__}.Unhinted object at 0x')


def test_structured_output_true_turns_the_silent_case_into_an_error_at_registration() -> None:
    def station() -> Unhinted:
        return Unhinted()

    with pytest.raises(InvalidSignature, match=r"Function station: return type .*Unhinted.* is not serializable "
                                               r"for structured output"):
        MCPServer("Strict").add_tool(station, structured_output=True)
