"""Every claim of the seed page ("Structured Output"), checked through `Client(mcp)`."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Annotated, Any, Dict, TypedDict  # noqa: UP035 - typing.Dict is tested on purpose

import pytest
from pydantic import BaseModel, Field

from mcp import Client
from mcp.server import MCPServer
from mcp.shared.exceptions import InvalidSignature
from mcp.types import CallToolResult, TextContent

pytestmark = pytest.mark.anyio


async def _tool_schema(mcp: MCPServer, name: str) -> dict[str, Any] | None:
    async with Client(mcp) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        return tools[name].output_schema


async def _call(mcp: MCPServer, name: str, args: dict[str, Any]) -> Any:
    async with Client(mcp) as client:
        return await client.call_tool(name, args)


class WeatherModel(BaseModel):
    temperature: float = Field(description="Degrees Celsius.")
    humidity: float = Field(description="Relative humidity, 0 to 1.")
    conditions: str


class WeatherDict(TypedDict):
    temperature: float
    humidity: float
    conditions: str


@dataclass
class WeatherClass:
    temperature: float
    humidity: float
    conditions: str


class WeatherAnnotated:
    temperature: float
    humidity: float
    conditions: str

    def __init__(self, temperature: float, humidity: float, conditions: str) -> None:
        self.temperature = temperature
        self.humidity = humidity
        self.conditions = conditions


PLAIN_WEATHER_SCHEMA = {
    "properties": {
        "temperature": {"title": "Temperature", "type": "number"},
        "humidity": {"title": "Humidity", "type": "number"},
        "conditions": {"title": "Conditions", "type": "string"},
    },
    "required": ["temperature", "humidity", "conditions"],
    "title": "WeatherData",
    "type": "object",
}


async def test_an_int_return_is_wrapped_in_result_with_the_documented_schema() -> None:
    mcp = MCPServer("Weather")
    readings = {"London": 17}

    @mcp.tool()
    def get_temperature(city: str) -> int:
        """Current temperature in a city, in whole degrees Celsius."""
        return readings[city]

    assert await _tool_schema(mcp, "get_temperature") == {
        "properties": {"result": {"title": "Result", "type": "integer"}},
        "required": ["result"],
        "title": "get_temperatureOutput",
        "type": "object",
    }
    result = await _call(mcp, "get_temperature", {"city": "London"})
    assert result.content == [TextContent(text="17")]
    assert result.structured_content == {"result": 17}
    assert not result.is_error


@pytest.mark.parametrize(
    ("annotation", "value", "structured", "text"),
    [
        (str, "hi", {"result": "hi"}, "hi"),
        (int, 3, {"result": 3}, "3"),
        (float, 1.5, {"result": 1.5}, "1.5"),
        (bool, True, {"result": True}, "true"),
        (bytes, b"ab", {"result": "ab"}, '"ab"'),
        (type(None), None, {"result": None}, None),
    ],
)
async def test_every_scalar_type_gets_the_same_result_wrapping(annotation: Any, value: Any, structured: Any, text: str | None) -> None:
    mcp = MCPServer("Scalars")

    def scalar() -> Any:
        return value

    scalar.__annotations__["return"] = annotation
    mcp.add_tool(scalar)
    schema = await _tool_schema(mcp, "scalar")
    assert schema is not None and schema["title"] == "scalarOutput" and schema["required"] == ["result"]
    result = await _call(mcp, "scalar", {})
    assert result.structured_content == structured
    assert [c.text for c in result.content] == ([] if text is None else [text])


async def test_a_basemodel_return_is_its_own_schema_unwrapped_with_field_descriptions() -> None:
    mcp = MCPServer("Weather")

    @mcp.tool()
    def get_weather(city: str) -> WeatherModel:
        """Current weather for a city."""
        return WeatherModel(temperature=16.2, humidity=0.83, conditions="Overcast")

    assert await _tool_schema(mcp, "get_weather") == {
        "properties": {
            "temperature": {"description": "Degrees Celsius.", "title": "Temperature", "type": "number"},
            "humidity": {"description": "Relative humidity, 0 to 1.", "title": "Humidity", "type": "number"},
            "conditions": {"title": "Conditions", "type": "string"},
        },
        "required": ["temperature", "humidity", "conditions"],
        "title": "WeatherModel",
        "type": "object",
    }
    result = await _call(mcp, "get_weather", {"city": "London"})
    assert result.structured_content == {"temperature": 16.2, "humidity": 0.83, "conditions": "Overcast"}
    assert result.content[0].text == '{\n  "temperature": 16.2,\n  "humidity": 0.83,\n  "conditions": "Overcast"\n}'


@pytest.mark.parametrize("shape", ["typeddict", "dataclass", "annotated class"])
async def test_typeddict_dataclass_and_annotated_classes_give_the_same_schema_as_a_model(shape: str) -> None:
    cls: Any = {"typeddict": WeatherDict, "dataclass": WeatherClass, "annotated class": WeatherAnnotated}[shape]
    original_name = cls.__name__
    mcp = MCPServer("Weather")

    def get_weather(city: str) -> Any:
        """Current weather for a city."""
        return cls(temperature=16.2, humidity=0.83, conditions="Overcast")

    get_weather.__annotations__["return"] = cls
    mcp.add_tool(get_weather)
    schema = await _tool_schema(mcp, "get_weather")
    assert schema == {**PLAIN_WEATHER_SCHEMA, "title": original_name}
    result = await _call(mcp, "get_weather", {"city": "London"})
    assert result.structured_content == {"temperature": 16.2, "humidity": 0.83, "conditions": "Overcast"}
    assert not result.is_error


async def test_a_list_of_models_is_wrapped_with_defs_and_rendered_as_one_block_per_item() -> None:
    mcp = MCPServer("Weather")

    class WeatherData(BaseModel):
        temperature: float
        humidity: float
        conditions: str

    @mcp.tool()
    def get_forecast(city: str, days: int) -> list[WeatherData]:
        """Daily forecast for a city."""
        return [WeatherData(temperature=16.2 + day, humidity=0.83, conditions="Overcast") for day in range(days)]

    assert await _tool_schema(mcp, "get_forecast") == {
        "$defs": {"WeatherData": PLAIN_WEATHER_SCHEMA},
        "properties": {"result": {"items": {"$ref": "#/$defs/WeatherData"}, "title": "Result", "type": "array"}},
        "required": ["result"],
        "title": "get_forecastOutput",
        "type": "object",
    }
    result = await _call(mcp, "get_forecast", {"city": "London", "days": 2})
    assert result.structured_content == {"result": [
        {"temperature": 16.2, "humidity": 0.83, "conditions": "Overcast"},
        {"temperature": 17.2, "humidity": 0.83, "conditions": "Overcast"},
    ]}
    assert len(result.content) == 2
    assert all(isinstance(block, TextContent) for block in result.content)
    assert json.loads(result.content[1].text) == {"temperature": 17.2, "humidity": 0.83, "conditions": "Overcast"}


@pytest.mark.parametrize(
    ("annotation", "value", "structured"),
    [
        (tuple[int, str], (1, "a"), {"result": [1, "a"]}),
        (int | str, "a", {"result": "a"}),
        (int | None, None, {"result": None}),
        (dict[int, float], {1: 2.5}, {"result": {"1": 2.5}}),
    ],
)
async def test_tuples_unions_optionals_and_int_keyed_dicts_are_wrapped(annotation: Any, value: Any, structured: Any) -> None:
    mcp = MCPServer("Shapes")

    def shape() -> Any:
        return value

    shape.__annotations__["return"] = annotation
    mcp.add_tool(shape)
    schema = await _tool_schema(mcp, "shape")
    assert schema is not None and schema["title"] == "shapeOutput" and schema["required"] == ["result"]
    result = await _call(mcp, "shape", {})
    assert result.structured_content == structured


async def test_a_str_keyed_dict_is_an_object_schema_titled_dictoutput_and_not_wrapped() -> None:
    mcp = MCPServer("Weather")
    readings = {"London": 16.2, "Cairo": 34.1, "Reykjavik": 4.4}

    @mcp.tool()
    def get_temperatures(cities: list[str]) -> dict[str, float]:
        """Current temperature for each city, in degrees Celsius."""
        return {city: readings[city] for city in cities}

    assert await _tool_schema(mcp, "get_temperatures") == {
        "additionalProperties": {"type": "number"},
        "title": "get_temperaturesDictOutput",
        "type": "object",
    }
    result = await _call(mcp, "get_temperatures", {"cities": ["London", "Reykjavik"]})
    assert result.structured_content == {"London": 16.2, "Reykjavik": 4.4}


async def test_a_return_value_missing_a_field_fails_the_call_naming_the_field() -> None:
    mcp = MCPServer("Weather")
    upstream = {"London": '{"temperature": 16.2, "conditions": "Overcast"}'}

    class WeatherData(BaseModel):
        temperature: float
        humidity: float
        conditions: str

    @mcp.tool()
    def get_weather(city: str) -> WeatherData:
        """Current weather for a city."""
        return json.loads(upstream[city])

    result = await _call(mcp, "get_weather", {"city": "London"})
    assert result.is_error is True
    assert result.structured_content is None
    lines = result.content[0].text.splitlines()
    assert lines[:3] == [
        "Error executing tool get_weather: 1 validation error for WeatherData",
        "humidity",
        "  Field required [type=missing, input_value={'temperature': 16.2, 'conditions': 'Overcast'}, input_type=dict]",
    ]


async def test_a_plain_dict_is_accepted_for_a_model_return() -> None:
    mcp = MCPServer("Weather")

    @mcp.tool()
    def get_weather(city: str) -> WeatherModel:
        return json.loads('{"temperature": 16.2, "humidity": 0.5, "conditions": "Clear"}')

    result = await _call(mcp, "get_weather", {"city": "x"})
    assert not result.is_error
    assert result.structured_content == {"temperature": 16.2, "humidity": 0.5, "conditions": "Clear"}


class RoundedWeather(WeatherModel):
    """A model of the application's own that overrides `model_dump`."""

    def model_dump(self, **options: Any) -> dict[str, Any]:
        dumped = super().model_dump(**options)
        dumped["temperature"] = round(dumped["temperature"])
        return dumped


async def test_a_returned_model_that_overrides_model_dump_gets_its_structured_content_from_the_override() -> None:
    mcp = MCPServer("Weather")

    @mcp.tool()
    def get_weather(city: str) -> RoundedWeather:
        return RoundedWeather(temperature=16.2, humidity=0.5, conditions="Clear")

    result = await _call(mcp, "get_weather", {"city": "x"})
    assert result.structured_content == {"temperature": 16, "humidity": 0.5, "conditions": "Clear"}


async def test_structured_output_false_gives_text_only() -> None:
    mcp = MCPServer("Weather")

    @mcp.tool(structured_output=False)
    def weather_report(city: str) -> str:
        """A human-readable weather report for a city."""
        return f"{city}: 17 degrees, overcast, light rain easing by evening."

    assert await _tool_schema(mcp, "weather_report") is None
    result = await _call(mcp, "weather_report", {"city": "London"})
    assert result.structured_content is None
    assert result.content == [TextContent(text="London: 17 degrees, overcast, light rain easing by evening.")]


class Station:
    def __init__(self, name: str, online: bool):
        self.name = name
        self.online = online


def test_structured_output_true_on_an_unannotated_class_fails_at_registration_with_the_documented_text() -> None:
    mcp = MCPServer("Weather")
    with pytest.raises(InvalidSignature) as info:

        @mcp.tool(structured_output=True)
        def get_station(name: str) -> Station:
            return Station(name=name, online=True)

    assert str(info.value) == (
        f"Function get_station: return type <class '{__name__}.Station'> is not serializable for structured output"
    )


async def test_an_unannotated_class_falls_back_to_its_repr_with_a_registration_warning_naming_the_fix() -> None:
    mcp = MCPServer("Weather")
    with pytest.warns(UserWarning, match=r"get_station.*structured_output=False"):

        @mcp.tool()
        def get_station(name: str) -> Station:
            """Look up a weather station by name."""
            return Station(name=name, online=True)

    assert await _tool_schema(mcp, "get_station") is None
    result = await _call(mcp, "get_station", {"name": "Heathrow"})
    assert result.structured_content is None
    assert result.content[0].text.startswith(f'"<{__name__}.Station object at 0x')


async def test_structured_output_false_silences_the_unannotated_class_warning() -> None:
    mcp = MCPServer("Weather")

    @mcp.tool(structured_output=False)
    def get_station(name: str) -> Station:
        return Station(name=name, online=True)

    assert await _tool_schema(mcp, "get_station") is None


@pytest.mark.parametrize("annotation", [dict, list, set, object])
async def test_a_bare_builtin_class_gets_no_output_schema_and_text_only(annotation: Any) -> None:
    mcp = MCPServer("bare")
    value = {"dict": {"a": 1}, "list": [1, "x"], "set": {1}, "object": {"a": 1}}[annotation.__name__]

    def fetch() -> Any:
        return value

    fetch.__annotations__["return"] = annotation
    mcp.add_tool(fetch)
    async with Client(mcp) as client:
        (tool,) = (await client.list_tools()).tools
        result = await client.call_tool("fetch", {})
    assert tool.output_schema is None
    assert result.structured_content is None and not result.is_error


@pytest.mark.skipif(sys.version_info < (3, 11), reason="typing.Any is a class from 3.11 (on 3.10 it is wrapped)")
async def test_an_any_return_gets_no_output_schema_on_311_and_later() -> None:
    mcp = MCPServer("any")

    @mcp.tool()
    def fetch() -> Any:
        return {"a": 1}

    async with Client(mcp) as client:
        (tool,) = (await client.list_tools()).tools
        result = await client.call_tool("fetch", {})
    assert tool.output_schema is None and result.structured_content is None
    assert result.content == [TextContent(text='{\n  "a": 1\n}')]


async def test_a_str_keyed_dict_of_any_stays_structured_and_typing_dict_is_wrapped() -> None:
    mcp = MCPServer("dicts")

    @mcp.tool()
    def loose() -> dict[str, Any]:
        return {"a": 1}

    @mcp.tool()
    def legacy() -> Dict[str, int]:  # noqa: UP006 - the typing alias is the point
        return {"a": 1}

    async with Client(mcp) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert tools["loose"].output_schema == {"additionalProperties": True, "title": "looseDictOutput", "type": "object"}
        assert (await client.call_tool("loose", {})).structured_content == {"a": 1}
        assert tools["legacy"].output_schema is not None and tools["legacy"].output_schema["title"] == "legacyOutput"
        assert (await client.call_tool("legacy", {})).structured_content == {"result": {"a": 1}}


async def test_an_annotated_call_tool_result_publishes_the_model_and_checks_what_the_tool_built() -> None:
    mcp = MCPServer("built")

    class Weather(BaseModel):
        temperature: float

    @mcp.tool()
    def good() -> Annotated[CallToolResult, Weather]:
        return CallToolResult(content=[TextContent(text="ok")], structured_content={"temperature": 1.5})

    @mcp.tool()
    def bad() -> Annotated[CallToolResult, Weather]:
        return CallToolResult(content=[TextContent(text="oops")], structured_content={"nope": True})

    @mcp.tool()
    def failed() -> Annotated[CallToolResult, Weather]:
        return CallToolResult(content=[TextContent(text="down")], is_error=True)

    async with Client(mcp, mode="legacy") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert tools["good"].output_schema == Weather.model_json_schema()
        assert (await client.call_tool("good", {})).structured_content == {"temperature": 1.5}
        assert (await client.call_tool("bad", {})).content == [TextContent(text="Error executing tool bad")]
        assert (await client.call_tool("failed", {})).content == [TextContent(text="down")]  # is_error: unchecked
