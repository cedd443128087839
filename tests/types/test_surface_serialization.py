"""`serialize_server_result` dumps a result as its surface row's schema has it, as the official
per-version surface does: only the fields the caller gave that the era's schema defines, no model
defaults, and on a 2026-07-28 input-required row an extension's result (a task) reduced to its
`resultType` (FastMCP's task server widens the row to keep the rest, and checks this baseline)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from mcp.types.methods import parse_server_result, serialize_server_result

MODERN = "2026-07-28"
TASK: dict[str, Any] = {
    "resultType": "task",
    "taskId": "abc123",
    "status": "working",
    "createdAt": "2026-07-21T12:00:00+00:00",
    "ttlMs": 900000,
}


@pytest.mark.parametrize("method", ["tools/call", "prompts/get", "resources/read"])
def test_a_task_result_on_a_2026_input_required_row_keeps_only_its_result_type(method: str) -> None:
    assert serialize_server_result(method, MODERN, dict(TASK)) == {"resultType": "task"}


def test_the_input_required_arm_takes_any_result_type_and_keeps_its_own_fields() -> None:
    wire = serialize_server_result("tools/call", MODERN, {"resultType": "other", "requestState": "s", "x": 1})
    assert wire == {"resultType": "other", "requestState": "s"}


def test_a_task_result_still_needs_its_result_type_and_does_not_parse_as_a_tool_result() -> None:
    with pytest.raises(ValidationError, match="resultType"):
        serialize_server_result("tools/call", MODERN, {"taskId": "abc123"})
    with pytest.raises(ValidationError):
        parse_server_result("tools/call", MODERN, dict(TASK))


def test_a_complete_tool_result_gets_no_defaults_and_loses_unknown_fields() -> None:
    data = {"resultType": "complete", "content": [{"type": "text", "text": "hi"}], "x": 1}
    assert serialize_server_result("tools/call", MODERN, data) == {
        "resultType": "complete",
        "content": [{"type": "text", "text": "hi"}],
    }


@pytest.mark.parametrize("version", ["2024-11-05", "2025-11-25"])
def test_handshake_era_rows_have_the_2025_11_25_shape(version: str) -> None:
    tool = {"name": "t", "title": "T", "inputSchema": {"type": "object"}}
    wire = serialize_server_result("tools/list", version, {"tools": [tool], "resultType": "complete"})
    assert wire == {"tools": [tool]}  # title kept on 2024-11-05 too; resultType is not of the era


def test_an_empty_result_row_keeps_every_field_the_schema_lets_it_carry() -> None:
    assert serialize_server_result("ping", "2025-11-25", {"x": 1}) == {"x": 1}
    assert serialize_server_result("ping", "2025-11-25", {}) == {}
