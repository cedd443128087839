"""The official SDK's method maps and parse/validate/serialize helpers, on our method table."""

from __future__ import annotations

import typing
from types import UnionType

import pytest
from pydantic import ValidationError

import mcp.types as types
from mcp.types import methods


def test_the_surface_maps_leave_the_tasks_feature_out() -> None:
    assert ("tasks/get", "2025-11-25") not in methods.CLIENT_REQUESTS
    assert ("notifications/tasks/status", "2025-11-25") not in methods.SERVER_NOTIFICATIONS
    assert "tasks/get" not in methods.MONOLITH_REQUESTS
    assert "tasks/get" in methods.METHODS  # the table itself still knows it


def test_surface_rows_are_grouped_by_revision_with_methods_in_alphabetical_order() -> None:
    keys = list(methods.CLIENT_REQUESTS)
    assert keys[:2] == [("completion/complete", "2024-11-05"), ("initialize", "2024-11-05")]
    versions = [version for _, version in keys]
    assert versions == sorted(versions)


def test_monolith_results_pair_input_required_methods_with_input_required_result() -> None:
    assert methods.MONOLITH_RESULTS["tools/call"] == types.CallToolResult | types.InputRequiredResult
    assert methods.MONOLITH_RESULTS["sampling/createMessage"] == (
        types.CreateMessageResult | types.CreateMessageResultWithTools
    )
    assert methods.MONOLITH_RESULTS["ping"] is types.EmptyResult
    assert {"tools/call", "resources/read", "prompts/get"} == methods.INPUT_REQUIRED_METHODS


def test_cacheable_methods_are_those_whose_result_is_a_cacheable_result() -> None:
    def arms(row: object) -> tuple[object, ...]:
        return typing.get_args(row) if isinstance(row, UnionType) else (row,)

    cacheable = {
        method
        for method, row in methods.MONOLITH_RESULTS.items()
        if any(isinstance(arm, type) and issubclass(arm, types.CacheableResult) for arm in arms(row))
    }
    assert methods.CACHEABLE_METHODS == cacheable == set(typing.get_args(methods.CacheableMethod))


def test_spec_client_method_sets_hold_what_a_client_may_send() -> None:
    assert "tools/call" in methods.SPEC_CLIENT_METHODS
    assert "sampling/createMessage" not in methods.SPEC_CLIENT_METHODS
    assert {
        "notifications/cancelled",
        "notifications/initialized",
        "notifications/progress",
        "notifications/roots/list_changed",
    } == methods.SPEC_CLIENT_NOTIFICATION_METHODS


def test_parse_client_request_returns_the_typed_request() -> None:
    request = methods.parse_client_request("tools/call", "2025-11-25", {"name": "t", "arguments": {"a": 1}})
    assert isinstance(request, types.CallToolRequest)
    assert request.params.arguments == {"a": 1}
    assert isinstance(methods.parse_client_request("ping", "2025-11-25", None), types.PingRequest)


def test_parse_gates_on_the_revision_and_rejects_unknown_revisions() -> None:
    with pytest.raises(KeyError):
        methods.parse_client_request("initialize", "2026-07-28", {})
    with pytest.raises(ValueError, match="known protocol version"):
        methods.parse_client_request("tools/call", "2099-01-01", {"name": "t"})
    with pytest.raises(ValidationError):
        methods.parse_client_request("tools/call", "2025-11-25", {})


def test_params_are_read_by_their_wire_names_only() -> None:
    with pytest.raises(ValidationError):
        methods.parse_server_request(
            "sampling/createMessage", "2025-11-25", {"messages": [], "max_tokens": 1}
        )


def test_a_surface_without_a_monolith_row_is_a_runtime_error() -> None:
    surface = {**methods.CLIENT_REQUESTS, ("x/y", "2025-11-25"): types.JSONRPCRequest}  # a whole frame
    with pytest.raises(RuntimeError, match="inconsistent extension maps"):
        methods.parse_client_request("x/y", "2025-11-25", None, surface=surface)


def test_notifications_parse_in_both_directions() -> None:
    note = methods.parse_server_notification("notifications/message", "2025-06-18", {"level": "info", "data": 1})
    assert isinstance(note, types.LoggingMessageNotification)
    assert isinstance(
        methods.parse_client_notification("notifications/initialized", "2025-06-18", None),
        types.InitializedNotification,
    )
    with pytest.raises(KeyError):
        methods.validate_client_notification("notifications/initialized", "2026-07-28", None)


def test_results_validate_serialize_and_parse() -> None:
    wire = methods.serialize_server_result("tools/call", "2025-11-25", {"content": [{"type": "text", "text": "x"}]})
    assert wire["content"] == [{"type": "text", "text": "x"}]
    with pytest.raises(ValidationError):
        methods.validate_server_result("tools/call", "2025-11-25", {"content": "bad"})
    assert isinstance(methods.parse_server_result("ping", "2025-11-25", {}), types.EmptyResult)
    elicit = methods.parse_client_result("elicitation/create", "2025-11-25", {"action": "accept", "content": {"a": 1}})
    assert isinstance(elicit, types.ElicitResult)
    with pytest.raises(KeyError):
        methods.validate_client_result("roots/list", "2026-07-28", {"roots": []})


def test_is_input_required_accepts_models_and_wire_dicts() -> None:
    assert methods.is_input_required({"resultType": "input_required"})
    assert methods.is_input_required(types.InputRequiredResult(request_state="s"))
    assert not methods.is_input_required({"content": []})
    assert not methods.is_input_required(None)


def test_mcp_types_methods_mirrors_every_name() -> None:
    import mcp_types.methods as mirror

    assert mirror is not methods
    for name in methods.__all__:
        assert getattr(mirror, name) is getattr(methods, name)


def test_the_elicitation_complete_row_is_the_schema_type_and_parses_to_the_sdk_model() -> None:
    row = methods.SERVER_NOTIFICATIONS[("notifications/elicitation/complete", "2025-11-25")]
    assert row.__name__ == "ElicitationCompleteNotification"
    note = methods.parse_server_notification(
        "notifications/elicitation/complete", "2025-11-25", {"elicitationId": "e"}
    )
    assert type(note) is types.ElicitCompleteNotification
    assert note.params.elicitation_id == "e"
