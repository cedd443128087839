"""`x-mcp-header` declarations are checked when a tool is registered (SEP-2243, as the official SDK
does): a bad one fails at once with `InvalidSignature` naming the tool and the reason, instead of
producing a tool that 2026-07-28 clients must drop from `tools/list`."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import Field

from mcp.server import MCPServer
from mcp.shared.exceptions import InvalidSignature


def header(name: Any) -> Any:
    return Field(json_schema_extra={"x-mcp-header": name})


def test_a_header_on_a_string_integer_or_boolean_parameter_registers() -> None:
    mcp = MCPServer("h")

    @mcp.tool()
    def route(region: Annotated[str, header("Region")] = "<none>", shard: Annotated[int, header("Shard")] = 0,
              dry: Annotated[bool, header("Dry-Run")] = False) -> str:
        return region

    properties = mcp._tools["route"].parameters["properties"]
    assert [properties[name]["x-mcp-header"] for name in ("region", "shard", "dry")] == ["Region", "Shard", "Dry-Run"]


@pytest.mark.parametrize(("annotation", "reason"), [
    (list[str], "x-mcp-header is only permitted on integer/string/boolean properties (got 'array')"),
    (float, "x-mcp-header is only permitted on integer/string/boolean properties (got 'number')"),
    (str | None, "x-mcp-header is only permitted on integer/string/boolean properties "
                 "(the type keyword is NoneType, not a string)"),
])
def test_a_header_on_any_other_parameter_type_fails_registration(annotation: Any, reason: str) -> None:
    mcp = MCPServer("h")

    def search(region: Annotated[annotation, header("Region")] = None) -> str:  # type: ignore[valid-type]
        return ""

    with pytest.raises(InvalidSignature) as info:
        mcp.tool()(search)
    assert str(info.value) == f"Tool 'search' has an invalid x-mcp-header annotation: property 'region': {reason}"
    assert "search" not in mcp._tools


@pytest.mark.parametrize(("properties", "reason"), [
    ({"a": {"type": "string", "x-mcp-header": "Bad Name"}}, "property 'a': x-mcp-header 'Bad Name' is not an RFC 9110 token"),
    ({"a": {"type": "string", "x-mcp-header": 7}}, "property 'a': x-mcp-header must be a string, not int"),
    ({"a": {"type": "string", "x-mcp-header": "A"}, "b": {"type": "integer", "x-mcp-header": "a"}},
     "x-mcp-header 'A' on property 'a' duplicates property 'b'"),  # the official walk order
    ({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}},
     "x-mcp-header found at a schema position not reachable via a pure `properties` chain"),
])
def test_an_explicit_input_schema_is_checked_the_same_way(properties: dict[str, Any], reason: str) -> None:
    mcp = MCPServer("h")
    with pytest.raises(InvalidSignature, match=r"^Tool 'raw' has an invalid x-mcp-header annotation: ") as info:
        mcp.tool(name="raw", input_schema={"type": "object", "properties": properties})(lambda **kw: "")
    assert str(info.value).endswith(reason)


def test_a_nested_property_reached_through_properties_may_carry_a_header() -> None:
    mcp = MCPServer("h")
    schema = {"type": "object", "properties": {"where": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}}}}}
    mcp.tool(name="nested", input_schema=schema)(lambda **kw: "")
    assert "nested" in mcp._tools
