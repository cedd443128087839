"""Every example of the 2026-07-28 schema validates into our models and comes back out unchanged.

Examples come in four shapes: a bare type (round trip through the model named like the folder),
a whole JSON-RPC request/notification (round trip through `JSONRPCRequest`/`JSONRPCNotification`;
the typed payload drops only the envelope), a `*ResultResponse` (round trip through
`JSONRPCResponse`, the result through the method's result model) and an error (through
`ErrorData` or `JSONRPCError`). The only other differences are asserted precisely below.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, cast

import pytest
from pydantic import TypeAdapter

import mcp.types as types
from mcp.types import methods
from schema_check import find_spec_dir

EXAMPLES_DIR = find_spec_dir() / "2026-07-28" / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*/*.json")) if EXAMPLES_DIR.is_dir() else []

pytestmark = pytest.mark.skipif(not EXAMPLES, reason=f"no spec examples at {EXAMPLES_DIR}")

ERROR_BODIES = {
    "ParseError",
    "InvalidRequestError",
    "MethodNotFoundError",
    "InvalidParamsError",
    "InternalError",
}
"""Examples of the `error` member alone."""

ERROR_RESPONSES: dict[str, type[types.MCPModel] | None] = {
    "HeaderMismatchError": None,
    "MissingRequiredClientCapabilityError": types.MissingRequiredClientCapabilityErrorData,
    "UnsupportedProtocolVersionError": types.UnsupportedProtocolVersionErrorData,
}
"""Whole error responses, with the model of their `error.data` (if any)."""

KNOWN_DIFFERENCES = {
    ("InputRequiredResult", "input-required-result-with-elicitation-and-sampling-and-request-state.json"),
    ("ListRootsRequest", "list-roots-request.json"),
}
"""Examples whose round trip is not the identity; each has its own test below."""


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _kind(path: Path) -> str:
    name, data = path.parent.name, _load(path)
    if name in ERROR_BODIES:
        return "error-body"
    if name in ERROR_RESPONSES:
        return "error-response"
    if name.endswith("ResultResponse"):
        return "result-response"
    if isinstance(data, dict) and {"jsonrpc", "method"} <= set(data):  # pyright: ignore[reportUnknownArgumentType]
        return "envelope"
    return "plain"


def _examples(kind: str) -> list[Any]:
    return [
        pytest.param(path, id=f"{path.parent.name}/{path.name}")
        for path in EXAMPLES
        if _kind(path) == kind and (path.parent.name, path.name) not in KNOWN_DIFFERENCES
    ]


MODEL_DEFAULTS = {"isError": False, "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}
"""Top-level members a result model sends even when the example leaves them out (their defaults)."""

SAME_NAMED_TARGET: dict[str, Any] = {"CreateMessageResult": types.InputResponse}
"""Folders whose examples span two of our models: the schema's one `CreateMessageResult` is our
`CreateMessageResult` (one plain block) or `CreateMessageResultWithTools` (lists, tool use)."""


def _as_sent(wire: Any, data: Any) -> Any:
    """`wire` without the defaulted members `data` leaves out (see `MODEL_DEFAULTS`)."""
    if not isinstance(wire, dict) or not isinstance(data, dict):
        return wire
    return {
        key: value
        for key, value in cast("dict[str, Any]", wire).items()
        if key in data or MODEL_DEFAULTS.get(key, ...) != value
    }


def _round_trip(target: Any, data: Any) -> tuple[Any, Any]:
    """Validate `data` into `target` (a model or a type alias) and dump it back to the wire."""
    if isinstance(target, type) and issubclass(target, types.MCPModel):
        model = target.model_validate(data)
        return model, model.to_wire()
    adapter: TypeAdapter[Any] = TypeAdapter(cast(Any, target))
    value = adapter.validate_python(data)
    return value, adapter.dump_python(value, mode="json", by_alias=True, exclude_none=True)


def _method_of_result(result_name: str) -> methods.MethodInfo:
    return next(info for info in methods.METHODS.values() if info.result == result_name)


def test_every_example_folder_names_a_type_we_model() -> None:
    unmodelled = sorted(
        {
            path.parent.name
            for path in EXAMPLES
            if _kind(path) == "plain" and not hasattr(types, path.parent.name)
        }
    )
    assert unmodelled == []


@pytest.mark.parametrize("path", _examples("plain"))
def test_a_bare_example_round_trips_through_the_model_of_the_same_name(path: Path) -> None:
    data = _load(path)
    target = SAME_NAMED_TARGET.get(path.parent.name) or getattr(types, path.parent.name)
    _, wire = _round_trip(target, copy.deepcopy(data))
    assert _as_sent(wire, data) == data


@pytest.mark.parametrize("path", _examples("envelope"))
def test_a_whole_message_example_round_trips_and_its_typed_payload_drops_only_the_envelope(
    path: Path,
) -> None:
    data = _load(path)
    message = types.jsonrpc_message_adapter.validate_python(copy.deepcopy(data))
    assert type(message) is (types.JSONRPCRequest if "id" in data else types.JSONRPCNotification)
    assert message.to_wire() == data

    typed_class = getattr(types, path.parent.name)
    typed = typed_class.model_validate(copy.deepcopy(data))
    payload = {key: value for key, value in data.items() if key not in ("jsonrpc", "id")}
    assert typed.to_wire() == payload

    info = methods.get(data["method"])
    assert info is not None and info.message == path.parent.name
    if info.kind == "request":
        adapter = types.client_request_adapter if info.client_sends else types.server_request_adapter
    else:
        adapter = (
            types.server_notification_adapter if info.server_sends else types.client_notification_adapter
        )
    assert type(adapter.validate_python(copy.deepcopy(data))) is typed_class


@pytest.mark.parametrize("path", _examples("result-response"))
def test_a_result_response_example_round_trips_and_its_result_parses_as_the_method_result(path: Path) -> None:
    data = _load(path)
    response = types.jsonrpc_message_adapter.validate_python(copy.deepcopy(data))
    assert type(response) is types.JSONRPCResponse
    assert response.to_wire() == data

    result_name = path.parent.name.removesuffix("Response")
    result, wire = _round_trip(getattr(types, result_name), copy.deepcopy(data["result"]))
    assert _as_sent(wire, data["result"]) == data["result"]
    info = _method_of_result(result_name)
    assert isinstance(result, info.result_types("2026-07-28"))
    parsed = types.server_result_adapter.validate_python(copy.deepcopy(data["result"]))
    assert type(parsed) is (type(result) if result_name != "SubscriptionsListenResult" else types.EmptyResult)


@pytest.mark.parametrize("path", _examples("error-body"))
def test_an_error_example_round_trips_through_error_data(path: Path) -> None:
    data = _load(path)
    assert types.ErrorData.model_validate(data).to_wire() == data


@pytest.mark.parametrize("path", _examples("error-response"))
def test_an_error_response_example_round_trips_and_its_data_parses(path: Path) -> None:
    data = _load(path)
    message = types.jsonrpc_message_adapter.validate_python(copy.deepcopy(data))
    assert type(message) is types.JSONRPCError
    assert message.to_wire() == data
    data_model = ERROR_RESPONSES[path.parent.name]
    if data_model is not None:
        assert data_model.model_validate(data["error"]["data"]).to_wire() == data["error"]["data"]


def test_an_elicitation_without_mode_gains_mode_form_on_the_way_out() -> None:
    """`mode` is optional on the wire for form elicitations; our model always sends it."""
    path = (
        EXAMPLES_DIR
        / "InputRequiredResult"
        / ("input-required-result-with-elicitation-and-sampling-and-request-state.json")
    )
    data = _load(path)
    assert "mode" not in data["inputRequests"]["github_login"]["params"]

    result = types.InputRequiredResult.model_validate(copy.deepcopy(data))
    assert isinstance(result.input_requests, dict)
    assert isinstance(result.input_requests["github_login"].params, types.ElicitRequestFormParams)
    assert isinstance(result.input_requests["capital_of_france"], types.CreateMessageRequest)

    expected = copy.deepcopy(data)
    expected["inputRequests"]["github_login"]["params"]["mode"] = "form"
    assert result.to_wire() == expected


def test_the_list_roots_request_example_loses_its_stray_id() -> None:
    """The example carries an `id` but no `jsonrpc`: not an envelope, so `id` is an unknown field."""
    data = _load(EXAMPLES_DIR / "ListRootsRequest" / "list-roots-request.json")
    assert data == {"id": "list-roots-example", "method": "roots/list"}
    assert types.ListRootsRequest.model_validate(data).to_wire() == {"method": "roots/list"}
