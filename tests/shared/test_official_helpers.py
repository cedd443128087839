"""Small helpers at their official paths: tool-name checks (SEP-986), the extension-identifier
rule, and the `x-mcp-header` map of a tool's input schema."""

import logging

import pytest

from mcp.shared.extension import validate_extension_identifier
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER, decode_header_value, x_mcp_header_map
from mcp.shared.tool_name_validation import validate_and_warn_tool_name, validate_tool_name


def test_a_conforming_tool_name_is_valid_without_warnings(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert validate_and_warn_tool_name("get_weather.v2-beta") is True
    assert caplog.records == []


def test_a_tool_name_with_spaces_is_invalid_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert validate_and_warn_tool_name("get weather") is False
    assert "Tool name contains spaces, which may cause parsing issues" in caplog.text
    assert "invalid characters: ' '" in caplog.text


def test_tool_names_must_be_1_to_128_characters() -> None:
    assert validate_tool_name("").warnings == ["Tool name cannot be empty"]
    assert not validate_tool_name("x" * 129).is_valid
    assert validate_tool_name("x" * 128).is_valid
    assert validate_tool_name("-edge").warnings == [
        "Tool name starts or ends with a dash, which may cause parsing issues in some contexts"]


def test_an_extension_identifier_needs_a_vendor_prefix() -> None:
    validate_extension_identifier("com.example/search", owner="MyExtension")
    with pytest.raises(TypeError, match=r"MyExtension.identifier must be a `vendor-prefix/name` string"):
        validate_extension_identifier("search", owner="MyExtension")


def test_the_header_map_keys_each_annotated_property_by_its_path() -> None:
    schema = {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "nested": {"type": "object", "properties": {"depth": {"type": "integer", "x-mcp-header": "Depth"}}},
        "plain": {"type": "string"},
    }}
    assert x_mcp_header_map(schema) == {("region",): "Region", ("nested", "depth"): "Depth"}


def test_header_values_decode_from_their_base64_form() -> None:
    assert MCP_PROTOCOL_VERSION_HEADER == "mcp-protocol-version"
    assert decode_header_value("=?base64?aMOp?=") == "hé"
    assert decode_header_value("plain") == "plain"
    assert decode_header_value(None) is None
    assert decode_header_value("=?base64?!!!?=") is None
