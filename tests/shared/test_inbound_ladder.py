"""`mcp.shared.inbound`'s public ladder, as proxies and gateways use it: classify a 2026-07-28
request, spot a repeated routing header, mirror and check `Mcp-Param-*` headers, decode values."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    InboundLadderRejection,
    InboundModernRoute,
    classify_inbound_request,
    decode_header_value,
    encode_header_value,
    find_duplicated_routing_header,
    mcp_param_headers,
    unsupported_protocol_version_rejection,
    validate_mcp_param_headers,
    x_mcp_header_map,
)
from mcp.types.jsonrpc import HEADER_MISMATCH, INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPS_KEY = "io.modelcontextprotocol/clientCapabilities"
INFO_KEY = "io.modelcontextprotocol/clientInfo"
ENVELOPE: dict[str, Any] = {VERSION_KEY: "2026-07-28", CAPS_KEY: {"sampling": {}}, INFO_KEY: {"name": "c", "version": "1"}}
HEADERS = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "search"}


def call(meta: Any = ENVELOPE, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search", "_meta": meta, **params}}


def test_a_request_with_its_envelope_and_matching_headers_is_routed() -> None:
    route = classify_inbound_request(call(), headers=HEADERS)
    assert route == InboundModernRoute("2026-07-28", ENVELOPE[INFO_KEY], ENVELOPE[CAPS_KEY])
    assert classify_inbound_request(call()) == route  # no headers: the header rung is skipped
    assert classify_inbound_request(call({VERSION_KEY: "2026-07-28", CAPS_KEY: {}})).client_info is None  # type: ignore[union-attr]


def test_routes_and_rejections_are_frozen_values() -> None:
    rejection = InboundLadderRejection(code=HEADER_MISMATCH, message="m")
    assert rejection.data is None
    assert {rejection, InboundLadderRejection(HEADER_MISMATCH, "m")} == {rejection}
    with pytest.raises(dataclasses.FrozenInstanceError):
        rejection.code = 0  # type: ignore[misc]
    assert ERROR_CODE_HTTP_STATUS[rejection.code] == 400


@pytest.mark.parametrize(("body", "message"), [
    ({"method": "tools/call"}, "params._meta must be an object carrying the required "
                               f"{VERSION_KEY!r} and {CAPS_KEY!r} envelope keys"),
    (call(meta=[1]), "params._meta must be an object"),
    (call(meta={CAPS_KEY: {}}), f"params._meta is missing the required envelope key(s): {VERSION_KEY}"),
    (call(meta={}), f"params._meta is missing the required envelope key(s): {VERSION_KEY}, {CAPS_KEY}"),
    (call(meta={VERSION_KEY: 7, CAPS_KEY: {}}), "the protocol-version envelope value must be a string"),
])
def test_a_missing_or_malformed_envelope_is_invalid_params(body: dict[str, Any], message: str) -> None:
    rejection = classify_inbound_request(body)
    assert isinstance(rejection, InboundLadderRejection)
    assert rejection.code == INVALID_PARAMS
    assert rejection.message.startswith(message)


@pytest.mark.parametrize(("headers", "message"), [
    ({**HEADERS, "mcp-protocol-version": "2025-11-25"},
     "mcp-protocol-version header does not match the request envelope's protocol version"),
    ({"mcp-method": "tools/call", "mcp-name": "search"},
     "mcp-protocol-version header does not match the request envelope's protocol version"),
    ({**HEADERS, "mcp-method": "tools/list"}, "mcp-method header does not match the request body's method"),
    ({**HEADERS, "mcp-name": "other"}, "mcp-name header does not match the request body's 'name' parameter"),
    ({**HEADERS, "mcp-name": "=?base64?!!?="}, "mcp-name header does not match the request body's 'name' parameter"),
])
def test_headers_that_disagree_with_the_body_are_a_header_mismatch(headers: dict[str, str], message: str) -> None:
    assert classify_inbound_request(call(), headers=headers) == InboundLadderRejection(HEADER_MISMATCH, message)


def test_a_base64_wrapped_name_header_matches_its_decoded_name() -> None:
    headers = {**HEADERS, "mcp-name": encode_header_value("Zürich")}
    assert isinstance(classify_inbound_request(call(name="Zürich"), headers=headers), InboundModernRoute)


def test_an_unsupported_version_is_refused_naming_the_supported_ones() -> None:
    rejection = classify_inbound_request(call({**ENVELOPE, VERSION_KEY: "2099-01-01"}))
    expected = InboundLadderRejection(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                                      {"supported": ["2026-07-28"], "requested": "2099-01-01"})
    assert rejection == expected
    assert unsupported_protocol_version_rejection("2099-01-01") == expected
    assert unsupported_protocol_version_rejection("2026-07-28") is None
    assert unsupported_protocol_version_rejection("2099-01-01", ["2099-01-01"]) is None


def test_a_routing_header_sent_twice_is_found_in_the_raw_header_lines() -> None:
    assert find_duplicated_routing_header([("Mcp-Method", "a"), ("accept", "x"), ("mcp-method", "b")]) == "mcp-method"
    assert find_duplicated_routing_header([("mcp-param-a", "1"), ("mcp-param-a", "1")]) is None
    assert find_duplicated_routing_header(HEADERS.items()) is None


SCHEMA = {"type": "object", "properties": {
    "region": {"type": "string", "x-mcp-header": "Region"},
    "size": {"type": "integer", "x-mcp-header": "Size"},
    "opts": {"type": "object", "properties": {"fast": {"type": "boolean", "x-mcp-header": "Fast"}}},
}}


def test_arguments_are_mirrored_into_mcp_param_headers() -> None:
    header_map = x_mcp_header_map(SCHEMA)
    assert header_map == {("opts", "fast"): "Fast", ("size",): "Size", ("region",): "Region"}
    headers = mcp_param_headers(header_map, {"region": "Zürich", "size": 3.0, "opts": {"fast": True}})
    assert headers == {"Mcp-Param-Fast": "true", "Mcp-Param-Size": "3.0", "Mcp-Param-Region": encode_header_value("Zürich")}
    assert mcp_param_headers(header_map, {"region": None, "size": [1], "opts": "x"}) == {}


@pytest.mark.parametrize(("arguments", "headers", "message"), [
    ({"region": "eu"}, {"mcp-param-region": "eu"}, None),
    ({"size": 42}, {"mcp-param-size": "42.00"}, None),  # integers compare numerically
    ({"opts": {"fast": False}}, {"mcp-param-fast": "false"}, None),
    ({"region": "Zürich"}, {"Mcp-Param-Region": encode_header_value("Zürich")}, None),
    ({}, {}, None),
    ({"size": 42}, {"mcp-param-size": "42.5"}, "Mcp-Param-Size header does not match the request body's 'size' argument"),
    ({"region": "eu"}, {}, "Mcp-Param-Region header is missing but the request body's 'region' argument is present"),
    ({}, {"mcp-param-region": "eu"}, "Mcp-Param-Region header is present but the request body's 'region' argument is absent"),
    ({"region": "eu"}, {"mcp-param-region": "=?base64?ZXU?="},
     "Mcp-Param-Region header carries a malformed base64 sentinel value"),
    ({"region": {"a": 1}}, {"mcp-param-region": "x"}, "Mcp-Param-Region header does not match the request body's 'region' argument"),
])
def test_mcp_param_headers_must_agree_with_their_arguments(
    arguments: dict[str, Any], headers: dict[str, str], message: str | None
) -> None:
    rejection = validate_mcp_param_headers(SCHEMA, arguments, headers)
    assert rejection == (None if message is None else InboundLadderRejection(HEADER_MISMATCH, message))


def test_a_schema_with_invalid_declarations_checks_no_header() -> None:
    schema = {"properties": {"n": {"type": "number", "x-mcp-header": "N"}}}
    assert validate_mcp_param_headers(schema, {"n": 1}, {}) is None


def test_header_values_decode_only_from_canonical_base64() -> None:
    assert decode_header_value(None) is None
    assert decode_header_value("plain") == "plain"
    assert decode_header_value("=?base64?YQ==?=") == "a"
    assert decode_header_value("=?base64?YR==?=") is None  # non-zero trailing bits
    assert decode_header_value("=?base64?/w==?=") is None  # not UTF-8
    assert encode_header_value("") == ""
