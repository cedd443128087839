"""The method table agrees with every revision's schema and with the typed message classes."""

from __future__ import annotations

import json
import typing
from typing import Any

import pytest

import mcp.types as types
from mcp.types import methods
from mcp.types._method_maps import InputRequiredResult as SchemaInputRequiredResult
from mcp.types._method_maps import Result as SchemaResult
from mcp.types.version import SUPPORTED_PROTOCOL_VERSIONS
from schema_check import find_spec_dir

SPEC_DIR = find_spec_dir()


def _definitions(version: str) -> dict[str, Any]:
    path = SPEC_DIR / version / "schema.json"
    if not path.is_file():
        pytest.skip(f"no schema at {path}")
    schema = json.loads(path.read_text(encoding="utf-8"))
    return schema.get("$defs") or schema["definitions"]


def _union_methods(defs: dict[str, Any], union: str) -> set[str]:
    schema = defs.get(union)
    if schema is None:
        return set()
    members = (
        [ref["$ref"] for ref in schema["anyOf"]] if "anyOf" in schema else [schema.get("$ref", f"#/{union}")]
    )
    names = [member.rsplit("/", 1)[-1] for member in members]
    return {defs[name]["properties"]["method"]["const"] for name in names}


@pytest.mark.parametrize("version", SUPPORTED_PROTOCOL_VERSIONS)
@pytest.mark.parametrize(
    ("union", "sender", "kind"),
    [
        ("ClientRequest", "client", "request"),
        ("ServerRequest", "server", "request"),
        ("ClientNotification", "client", "notification"),
        ("ServerNotification", "server", "notification"),
    ],
)
def test_the_table_lists_exactly_the_methods_of_each_schema_union(
    version: str, union: str, sender: methods.Sender, kind: methods.Kind
) -> None:
    defs = _definitions(version)
    assert {info.name for info in methods.methods_for(version, sender, kind)} == _union_methods(defs, union)


def test_the_input_requests_of_2026_are_the_embedded_server_requests() -> None:
    defs = _definitions("2026-07-28")
    embedded = {
        defs[ref["$ref"].rsplit("/", 1)[-1]]["properties"]["method"]["const"]
        for ref in defs["InputRequest"]["anyOf"]
    }
    assert embedded == {info.name for info in methods.METHODS.values() if "2026-07-28" in info.input_request}


def test_the_requests_answered_with_input_required_are_those_the_schema_says() -> None:
    defs = _definitions("2026-07-28")
    dual: set[str] = set()
    for name, schema in defs.items():
        result = schema.get("properties", {}).get("result", {})
        refs = {ref["$ref"].rsplit("/", 1)[-1] for ref in result.get("anyOf", [])}
        if name.endswith("ResultResponse") and "InputRequiredResult" in refs:
            dual.add(name.removesuffix("Response"))
    assert dual == {info.result for info in methods.METHODS.values() if "2026-07-28" in info.input_required}


@pytest.mark.parametrize("info", list(methods.METHODS.values()), ids=lambda info: info.name)
def test_each_entry_resolves_to_models_that_agree_with_it(info: methods.MethodInfo) -> None:
    message = info.message_type()
    assert message.model_fields["method"].default == info.name
    if info.kind == "request":  # core methods: the transport's method table names the header
        assert message.name_param is None
    params_annotation = message.model_fields["params"].annotation
    params = info.params_type()
    accepted = {params} | set(typing.get_args(params_annotation)) | {params_annotation}
    assert params in accepted or any(
        isinstance(option, type) and isinstance(params, type) and issubclass(option, params)
        for option in accepted
    )
    if info.kind == "request":
        assert info.result_type() is not None
        assert info.revisions, info.name
    else:
        assert info.result_type() is None and info.result_types("2026-07-28") == ()


def test_a_vendor_method_is_not_in_the_table() -> None:
    assert methods.get("com.example/jobs.status") is None
    assert not methods.is_defined("com.example/jobs.status", "2026-07-28")


def test_revision_gates_follow_the_schemas() -> None:
    assert methods.is_defined("initialize", "2025-11-25", "client")
    assert not methods.is_defined("initialize", "2026-07-28")
    assert methods.is_defined("server/discover", "2026-07-28", "client")
    assert not methods.is_defined("elicitation/create", "2025-03-26")
    assert not methods.is_defined("elicitation/create", "2026-07-28")
    assert methods.METHODS["elicitation/create"].revisions == ("2025-06-18", "2025-11-25", "2026-07-28")
    assert methods.is_defined("notifications/progress", "2026-07-28", "server")
    assert not methods.is_defined("notifications/progress", "2026-07-28", "client")


def test_result_types_add_input_required_where_a_revision_allows_it() -> None:
    call = methods.METHODS["tools/call"]
    assert call.result_types("2026-07-28") == (types.CallToolResult, types.InputRequiredResult)
    assert call.result_types("2025-11-25") == (types.CallToolResult,)


def test_the_official_surface_maps_key_models_by_method_and_revision() -> None:
    assert methods.CLIENT_REQUESTS[("tools/call", "2026-07-28")] is types.CallToolRequest
    assert ("initialize", "2026-07-28") not in methods.CLIENT_REQUESTS
    assert methods.SERVER_REQUESTS[("elicitation/create", "2025-06-18")] is types.ElicitRequest
    assert methods.SERVER_RESULTS[("ping", "2024-11-05")] is SchemaResult  # the schema's EmptyResult is Result
    assert methods.SERVER_RESULTS[("tools/call", "2026-07-28")] == types.CallToolResult | SchemaInputRequiredResult
    assert methods.SERVER_RESULTS[("tools/call", "2025-11-25")] is types.CallToolResult
    assert methods.CLIENT_RESULTS[("roots/list", "2025-11-25")] is types.ListRootsResult
    assert methods.SERVER_NOTIFICATIONS[("notifications/subscriptions/acknowledged", "2026-07-28")] is (
        types.SubscriptionsAcknowledgedNotification
    )
    assert ("notifications/roots/list_changed", "2025-11-25") in methods.CLIENT_NOTIFICATIONS
    with pytest.raises(AttributeError):
        methods.NOT_A_MAP  # type: ignore[attr-defined]  # noqa: B018


FOLDED_DEFINITIONS = {
    "Annotated": "a 2024-11-05 mixin: its `annotations` member is on each content model",
    "Icons": "a mixin: its `icons` member is on each model that has icons",
    "Error": "ErrorData",
    "JSONRPCBatchRequest": "2025-03-26 batches: the protocol layer rejects them",
    "JSONRPCBatchResponse": "2025-03-26 batches: the protocol layer rejects them",
    "JSONValue": "typed Any",
    "JSONObject": "typed dict[str, Any]",
    "JSONArray": "typed list[Any]",
    "MetaObject": "Meta (a plain dict)",
    "NotificationMetaObject": "Meta (a plain dict)",
    "RequestMetaObject": "Meta (a plain dict); RequestParamsMeta types its keys",
    "ResultMetaObject": "Meta (a plain dict)",
    "SubscriptionsListenResultMetaObject": "Meta (a plain dict)",
    "URLElicitationRequiredError": "JSONRPCError, its data ElicitationRequiredErrorData",
    "HeaderMismatchError": "JSONRPCError",
    "MissingRequiredClientCapabilityError": "JSONRPCError, its data MissingRequiredClientCapabilityErrorData",
    "UnsupportedProtocolVersionError": "JSONRPCError, its data UnsupportedProtocolVersionErrorData",
    "ParseError": "ErrorData",
    "InvalidRequestError": "ErrorData",
    "MethodNotFoundError": "ErrorData",
    "InvalidParamsError": "ErrorData",
    "InternalError": "ErrorData",
}
"""Schema definitions with no model of their own name, and what stands for each."""


@pytest.mark.parametrize("version", SUPPORTED_PROTOCOL_VERSIONS)
def test_every_schema_definition_has_a_model_or_a_named_stand_in(version: str) -> None:
    missing = {name for name in _definitions(version) if not hasattr(types, name)}
    responses = {name for name in missing if name.endswith("ResultResponse")}  # JSONRPCResponse + the result
    assert missing - responses <= set(FOLDED_DEFINITIONS)
    assert all(hasattr(types, name.removesuffix("Response")) for name in responses)
