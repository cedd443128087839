"""On 2026-07-28 the per-version surface requires a result's envelope (`resultType`, and `ttlMs` and
`cacheScope` where the result has them), as the schema and the official per-version models do,
although the version-free models default them: a `server/discover` answer without them is refused
by `validate_server_result` (FastMCP then treats the server as handshake-era), while handshake-era
versions keep accepting results without them."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from mcp.types.methods import parse_server_result, validate_server_result

DISCOVER: dict[str, Any] = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}
ENVELOPE: dict[str, Any] = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private"}


@pytest.mark.parametrize("missing", [["resultType", "ttlMs", "cacheScope"], ["resultType"], ["ttlMs", "cacheScope"]])
def test_a_2026_discover_result_without_its_envelope_is_refused_naming_each_missing_field(missing: list[str]) -> None:
    data = {**DISCOVER, **{k: v for k, v in ENVELOPE.items() if k not in missing}}
    with pytest.raises(ValidationError) as info:
        validate_server_result("server/discover", "2026-07-28", data)
    assert [error["loc"][0] for error in info.value.errors()] == missing


def test_a_2026_discover_result_with_its_envelope_is_accepted_and_parsed() -> None:
    validate_server_result("server/discover", "2026-07-28", {**DISCOVER, **ENVELOPE})
    result: Any = parse_server_result("server/discover", "2026-07-28", {**DISCOVER, **ENVELOPE})
    assert result.supported_versions == ["2026-07-28"]


def test_a_2026_tool_call_result_needs_its_result_type_but_no_cache_fields() -> None:
    content = {"content": [{"type": "text", "text": "hi"}]}
    with pytest.raises(ValidationError, match="resultType"):
        validate_server_result("tools/call", "2026-07-28", content)
    validate_server_result("tools/call", "2026-07-28", {**content, "resultType": "complete"})


def test_handshake_era_results_need_no_envelope() -> None:
    validate_server_result("tools/list", "2025-11-25", {"tools": []})
