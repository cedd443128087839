"""Parameter docs (`parameter_docs=True`): Google, NumPy and Sphinx docstrings give their parameter
descriptions to the input schema, an explicit `Field(description=...)` wins, and the tool's
description keeps only the summary; off by default."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from mcp import Client
from mcp.server import MCPServer
from mcp.server.mcpserver.tools.parameter_docs import parse_docstring

pytestmark = pytest.mark.anyio


def google(
    city: str, days: int = 3, units: Annotated[str, Field(description="Given explicitly.")] = "metric"
) -> str:
    """Forecast the weather.

    Uses the regional model when it can.

    Args:
        city (str): The city to forecast,
            by its English name.
        days: How many days ahead.
        units: Overridden by the Field description.

    Returns:
        The forecast as text.
    """
    return city


def numpy(city: str, days: int = 3) -> str:
    """Forecast the weather.

    Parameters
    ----------
    city : str
        The city to forecast,
        by its English name.
    days : int, optional
        How many days ahead.

    Returns
    -------
    str
        The forecast.
    """
    return city


def sphinx(city: str, days: int = 3) -> str:
    """Forecast the weather.

    :param str city: The city to forecast,
        by its English name.
    :param days: How many days ahead.
    :returns: The forecast.
    """
    return city


@pytest.mark.parametrize("fn", [google, numpy, sphinx], ids=["google", "numpy", "sphinx"])
def test_each_docstring_style_gives_its_parameter_descriptions_and_keeps_the_summary(fn: Any) -> None:
    server = MCPServer("docs", parameter_docs=True)
    server.add_tool(fn)
    wire = server._tools[fn.__name__].wire()  # pyright: ignore[reportPrivateUsage]
    props = wire["inputSchema"]["properties"]
    assert props["city"]["description"] == "The city to forecast, by its English name."
    assert props["days"]["description"] == "How many days ahead."
    expected = (
        "Forecast the weather.\n\nUses the regional model when it can."
        if fn is google
        else "Forecast the weather."
    )
    assert wire["description"] == expected


def test_an_explicit_field_description_wins_over_the_docstring() -> None:
    server = MCPServer("docs", parameter_docs=True)
    server.add_tool(google)
    props = server._tools["google"].wire()["inputSchema"]["properties"]  # pyright: ignore[reportPrivateUsage]
    assert props["units"]["description"] == "Given explicitly."


def test_a_description_given_to_the_decorator_is_kept_whole() -> None:
    server = MCPServer("docs")

    @server.tool(description="My own words.\n\nArgs:\n    kept: as written", parameter_docs=True)
    def forecast(city: str) -> str:
        """Forecast.

        Args:
            city: The city.
        """
        return city

    wire = server._tools["forecast"].wire()  # pyright: ignore[reportPrivateUsage]
    assert wire["description"] == "My own words.\n\nArgs:\n    kept: as written"
    assert wire["inputSchema"]["properties"]["city"]["description"] == "The city."


def test_with_the_switch_off_the_docstring_stays_the_description_and_the_schema_is_unchanged() -> None:
    plain, off = MCPServer("a"), MCPServer("b", parameter_docs=False)
    plain.add_tool(google)
    off.add_tool(google)
    wire = plain._tools["google"].wire()  # pyright: ignore[reportPrivateUsage]
    assert wire["description"].endswith("Returns:\n    The forecast as text.")
    assert "description" not in wire["inputSchema"]["properties"]["city"]
    assert json.dumps(wire) == json.dumps(off._tools["google"].wire())  # pyright: ignore[reportPrivateUsage]


def test_a_model_parameter_takes_the_docstring_text_over_the_models_own_docstring_when_inlined() -> None:
    class Place(BaseModel):
        """A place on Earth."""

        lat: float
        lon: float

    def locate(place: Place, note: str = "") -> str:
        """Locate a place.

        Args:
            place: Where to look.
        """
        return note

    server = MCPServer("docs", parameter_docs=True, portable_schemas=True)
    server.add_tool(locate)
    props = server._tools["locate"].wire()["inputSchema"]["properties"]  # pyright: ignore[reportPrivateUsage]
    assert props["place"]["description"] == "Where to look." and props["place"]["properties"]["lat"] == {
        "type": "number"
    }
    assert "description" not in props["note"]


def test_docstrings_without_a_parameter_section_or_with_odd_entries_are_read_safely() -> None:
    assert parse_docstring(None).summary == "" and parse_docstring("Just text.").params == {}
    doc = parse_docstring(
        "Sum.\n\nArgs:\n    *values: numbers\n    **options: extra\n    x: first\n\n        second paragraph"
    )
    assert doc.summary == "Sum." and doc.params == {
        "values": "numbers",
        "options": "extra",
        "x": "first\n\nsecond paragraph",
    }
    numpy_many = parse_docstring("Two.\n\nParameters\n----------\nx, y : float\n    Coordinates.\n")
    assert numpy_many.params == {"x": "Coordinates.", "y": "Coordinates."}
    google_then_text = parse_docstring("S.\n\nArgs:\n    a: one\nTrailing prose.")
    assert google_then_text.params == {"a": "one"}


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_real_client_sees_the_parameter_descriptions_on_both_eras(mode: str) -> None:
    server = MCPServer("docs", parameter_docs=True)
    server.add_tool(numpy)
    async with Client(server, mode=mode) as client:
        tool = (await client.list_tools()).tools[0]
        assert tool.description == "Forecast the weather."
        assert tool.input_schema["properties"]["days"]["description"] == "How many days ahead."
        assert (await client.call_tool("numpy", {"city": "Oslo"})).is_error is False
