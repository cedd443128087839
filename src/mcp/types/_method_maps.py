"""The method table as model maps, and the parse/validate/serialize functions built on them.

`mcp.types.methods` re-exports everything here on first access: this module imports the models
(and pydantic), the table does not.

Surface maps key `(method, version)` (a missing key is the version gate); monolith maps key
`method` to the version-free model user code receives. Both are read off the one method table
(`mcp.types.methods`), core protocol only (no tasks feature), in the official SDK's shape: rows
grouped by revision, methods in alphabetical order. A surface row is the schema's type for the
message, so an `EmptyResult` row is the schema's `Result` (the schema defines `EmptyResult` as a
reference to `Result`), and on 2026-07-28 a request that may need input has the two-arm union.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from types import MappingProxyType, UnionType
from typing import Any, Final, TypeGuard, TypeVar, cast, get_args

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

import mcp.types as types
from mcp.types.methods import Kind, MethodInfo, Sender, core_methods
from mcp.types.version import KNOWN_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_PROTOCOL_VERSIONS

__all__ = [
    "CLIENT_NOTIFICATIONS",
    "CLIENT_REQUESTS",
    "CLIENT_RESULTS",
    "MONOLITH_NOTIFICATIONS",
    "MONOLITH_REQUESTS",
    "MONOLITH_RESULTS",
    "SERVER_NOTIFICATIONS",
    "SERVER_REQUESTS",
    "SERVER_RESULTS",
    "is_input_required",
    "parse_client_notification",
    "parse_client_request",
    "parse_client_result",
    "parse_server_notification",
    "parse_server_request",
    "parse_server_result",
    "serialize_server_result",
    "validate_client_notification",
    "validate_client_request",
    "validate_client_result",
    "validate_server_result",
]

SurfaceRow = type[BaseModel] | UnionType
_CORE: Final = sorted(core_methods(), key=lambda info: info.name)


def _model(name: str) -> Any:
    return getattr(types, name)


def _rows(sender: Sender, kind: Kind) -> Iterable[tuple[str, MethodInfo]]:
    return (
        (version, info)
        for version in KNOWN_PROTOCOL_VERSIONS
        for info in _CORE
        if info.kind == kind and info.sent_by(sender, version)
    )


class InputRequiredResult(types.Result):
    """The 2026-07-28 schema's `InputRequiredResult`, the second arm of an input-required surface row.

    The schema types `resultType` as any string and requires nothing else, so this arm admits every
    result its method's own model does not: an extension's (a task's `resultType: "task"`) passes
    validation and is dumped to the schema's fields, its own fields dropped, as the official
    per-version surface does (FastMCP's task server widens this row to keep them). The monolith's
    `InputRequiredResult` (`"input_required"` only, one of its two fields present) stays what
    parsing returns.
    """

    model_config = ConfigDict(title="InputRequiredResult")

    result_type: str
    input_requests: types.InputRequests | None = None
    request_state: str | None = None


class Result(types.Result):
    """The schema's `Result`, the surface row of a method answered by an empty result (`ping`,
    `logging/setLevel`, ...): the schema lets it carry any field, so its fields are kept. Both
    classes carry the schema's names, so the surface maps name the types as the official's do."""

    model_config = ConfigDict(title="Result", extra="allow")


def _surface_result(info: MethodInfo, version: str) -> SurfaceRow:
    assert info.result is not None
    own = Result if info.result == "EmptyResult" else _model(info.result)
    if version in info.input_required and version in MODERN_PROTOCOL_VERSIONS:
        return own | InputRequiredResult
    return own


class ElicitationCompleteNotification(types.ElicitCompleteNotification):
    """The 2025-11-25 schema's name for `notifications/elicitation/complete`: its surface row, so the
    surface map names the schema's type as for every other row (parsing returns the monolith's
    `ElicitCompleteNotification`)."""


_SCHEMA_NAMED: Final[Mapping[str, type[BaseModel]]] = {
    "notifications/elicitation/complete": ElicitationCompleteNotification,
}
"""Surface rows whose schema name differs from the SDK's model name."""


def _messages(sender: Sender, kind: Kind) -> Mapping[tuple[str, str], type[BaseModel]]:
    return MappingProxyType(
        {
            (info.name, version): _SCHEMA_NAMED.get(info.name) or info.message_type()
            for version, info in _rows(sender, kind)
        }
    )


def _results(sender: Sender) -> Mapping[tuple[str, str], SurfaceRow]:
    return MappingProxyType(
        {(info.name, version): _surface_result(info, version) for version, info in _rows(sender, "request")}
    )


CLIENT_REQUESTS: Final[Mapping[tuple[str, str], type[BaseModel]]] = _messages("client", "request")
"""Requests a client sends, by `(method, version)`."""

CLIENT_NOTIFICATIONS: Final[Mapping[tuple[str, str], type[BaseModel]]] = _messages("client", "notification")
"""Notifications a client sends, by `(method, version)`."""

SERVER_REQUESTS: Final[Mapping[tuple[str, str], type[BaseModel]]] = _messages("server", "request")
"""Requests a server sends, by `(method, version)` (none on 2026-07-28)."""

SERVER_NOTIFICATIONS: Final[Mapping[tuple[str, str], type[BaseModel]]] = _messages("server", "notification")
"""Notifications a server sends, by `(method, version)`."""

SERVER_RESULTS: Final[Mapping[tuple[str, str], SurfaceRow]] = _results("client")
"""Results a server sends, by the `(method, version)` of the client request they answer."""

CLIENT_RESULTS: Final[Mapping[tuple[str, str], SurfaceRow]] = _results("server")
"""Results a client sends, by the `(method, version)` of the server request they answer."""


def _monolith_result(info: MethodInfo) -> type[types.Result] | UnionType:
    assert info.result is not None
    own = _model(info.result)
    if info.input_required:
        return own | _model("InputRequiredResult")
    if info.name == "sampling/createMessage":
        # Left arm first: a single-block reply satisfies both, and a tie resolves leftmost.
        return own | _model("CreateMessageResultWithTools")
    return own


MONOLITH_REQUESTS: Final[Mapping[str, type[types.Request[Any, Any]]]] = MappingProxyType(
    {info.name: info.message_type() for info in _CORE if info.kind == "request"}
)
"""The request model of each method, either direction."""

MONOLITH_NOTIFICATIONS: Final[Mapping[str, type[types.Notification[Any, Any]]]] = MappingProxyType(
    {info.name: info.message_type() for info in _CORE if info.kind == "notification"}
)
"""The notification model of each method, either direction."""

MONOLITH_RESULTS: Final[Mapping[str, type[types.Result] | UnionType]] = MappingProxyType(
    {info.name: _monolith_result(info) for info in _CORE if info.kind == "request"}
)
"""The result model (or two-arm union) of each request method."""


def is_input_required(result: object) -> TypeGuard[types.InputRequiredResult | dict[str, Any]]:
    """Whether `result` is an interim `input_required` result, as a model or as a wire dict."""
    if isinstance(result, types.InputRequiredResult):
        return True
    return isinstance(result, Mapping) and cast("Mapping[str, Any]", result).get("resultType") == "input_required"


# -- parsing --------------------------------------------------------------------------------------

# Surface rows may model whole JSON-RPC frames (a caller's extended map); ours ignore these keys.
_REQUEST_FRAME: Final[Mapping[str, Any]] = MappingProxyType({"jsonrpc": "2.0", "id": 0})
_NOTIFICATION_FRAME: Final[Mapping[str, Any]] = MappingProxyType({"jsonrpc": "2.0"})

_RowT = TypeVar("_RowT")


def _known(version: str) -> None:
    """A typo in `version` must fail loudly, not gate every method away."""
    if version not in KNOWN_PROTOCOL_VERSIONS:
        raise ValueError(f"version must be a known protocol version, got {version!r}")


def _message(method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    message: dict[str, Any] = {"method": method}
    if params is not None:
        message["params"] = params
    return message


@cache
def _adapter(target: Any) -> TypeAdapter[Any]:
    return TypeAdapter(target)


def _monolith(monolith: Mapping[str, _RowT], method: str) -> _RowT:
    """The monolith row of a method the surface admitted; a miss means the two maps disagree, which
    is `RuntimeError` (not `KeyError`, which callers read as "method not available")."""
    try:
        return monolith[method]
    except KeyError:
        raise RuntimeError(f"inconsistent extension maps: surface defines {method!r} but monolith does not") from None


def _check_frame(
    surface: Mapping[tuple[str, str], type[BaseModel]],
    frame: Mapping[str, Any],
    method: str,
    version: str,
    params: Mapping[str, Any] | None,
) -> None:
    _known(version)
    surface[(method, version)].model_validate({**frame, **_message(method, params)}, by_name=False)


def validate_client_request(
    method: str,
    version: str,
    params: Mapping[str, Any] | None,
    *,
    surface: Mapping[tuple[str, str], type[BaseModel]] = CLIENT_REQUESTS,
) -> None:
    """Check a client request against `surface` only.

    Raises `ValueError` for an unknown `version`, `KeyError` when `(method, version)` is not in
    `surface`, `pydantic.ValidationError` when the message does not fit.
    """
    _check_frame(surface, _REQUEST_FRAME, method, version, params)


def parse_client_request(
    method: str,
    version: str,
    params: Mapping[str, Any] | None,
    *,
    surface: Mapping[tuple[str, str], type[BaseModel]] = CLIENT_REQUESTS,
    monolith: Mapping[str, type[types.Request[Any, Any]]] = MONOLITH_REQUESTS,
) -> types.Request[Any, Any]:
    """Check a client request against `surface`, then return it as its `monolith` model.

    Pass extended maps to admit vendor methods; `monolith` must cover every method `surface`
    admits (`RuntimeError` otherwise). Raises as `validate_client_request` does.
    """
    _check_frame(surface, _REQUEST_FRAME, method, version, params)
    return _monolith(monolith, method).model_validate(_message(method, params), by_name=False)


def parse_server_request(
    method: str,
    version: str,
    params: Mapping[str, Any] | None,
    *,
    surface: Mapping[tuple[str, str], type[BaseModel]] = SERVER_REQUESTS,
    monolith: Mapping[str, type[types.Request[Any, Any]]] = MONOLITH_REQUESTS,
) -> types.Request[Any, Any]:
    """Check a server request against `surface`, then return it as its `monolith` model."""
    _check_frame(surface, _REQUEST_FRAME, method, version, params)
    return _monolith(monolith, method).model_validate(_message(method, params), by_name=False)


def validate_client_notification(
    method: str,
    version: str,
    params: Mapping[str, Any] | None,
    *,
    surface: Mapping[tuple[str, str], type[BaseModel]] = CLIENT_NOTIFICATIONS,
) -> None:
    """Check a client notification against `surface` only (raises as `validate_client_request`)."""
    _check_frame(surface, _NOTIFICATION_FRAME, method, version, params)


def parse_client_notification(
    method: str,
    version: str,
    params: Mapping[str, Any] | None,
    *,
    surface: Mapping[tuple[str, str], type[BaseModel]] = CLIENT_NOTIFICATIONS,
    monolith: Mapping[str, type[types.Notification[Any, Any]]] = MONOLITH_NOTIFICATIONS,
) -> types.Notification[Any, Any]:
    """Check a client notification against `surface`, then return it as its `monolith` model."""
    _check_frame(surface, _NOTIFICATION_FRAME, method, version, params)
    return _monolith(monolith, method).model_validate(_message(method, params), by_name=False)


def parse_server_notification(
    method: str,
    version: str,
    params: Mapping[str, Any] | None,
    *,
    surface: Mapping[tuple[str, str], type[BaseModel]] = SERVER_NOTIFICATIONS,
    monolith: Mapping[str, type[types.Notification[Any, Any]]] = MONOLITH_NOTIFICATIONS,
) -> types.Notification[Any, Any]:
    """Check a server notification against `surface`, then return it as its `monolith` model."""
    _check_frame(surface, _NOTIFICATION_FRAME, method, version, params)
    return _monolith(monolith, method).model_validate(_message(method, params), by_name=False)


def serialize_server_result(
    method: str,
    version: str,
    data: Mapping[str, Any],
    *,
    surface: Mapping[tuple[str, str], type[BaseModel] | UnionType] = SERVER_RESULTS,
) -> dict[str, Any]:
    """Validate a server result against `surface` and return it as the wire dict of that row:
    spec names, only the fields `data` carried that the row's schema has (an extension result on a
    2026-07-28 input-required row keeps just its `resultType`), nothing defaulted in.

    Raises `ValueError` for an unknown `version`, `KeyError` when `(method, version)` is not in
    `surface`, `pydantic.ValidationError` when the result does not fit.
    """
    _known(version)
    row = surface[(method, version)]
    _require_envelope(row, version, data)
    adapter = _adapter(row)
    value = adapter.validate_python(data, by_name=False)
    # Only what `data` carried, in the shape of `version`'s era (every handshake-era row is the
    # 2025-11-25 schema's, as officially): a model's defaults (`isError: false`) and the fields the
    # era lacks (`resultType` before 2026-07-28) are not the surface's to add.
    wire = adapter.dump_python(value, by_alias=True, mode="json", exclude_none=True, exclude_unset=True)
    from mcp._protocol.revisions import prune_result  # the per-revision shapes (stdlib-only, on use)

    return prune_result(method, wire, version if version in MODERN_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION)


_ENVELOPE: Final = (("result_type", "resultType"), ("ttl_ms", "ttlMs"), ("cache_scope", "cacheScope"))
"""The 2026-07-28 result envelope: the SDK's models default these fields, the schema requires them."""


def _require_envelope(row: SurfaceRow, version: str, data: Mapping[str, Any]) -> None:
    """On a stateless-era `version`, a result must carry every envelope field its row's models
    have (as the schema, and the official per-version models, require): a `ValidationError`
    naming the missing ones otherwise. A `server/discover` answer without them is no evidence of
    a 2026-07-28 server."""
    if version not in MODERN_PROTOCOL_VERSIONS or not isinstance(data, Mapping):
        return
    models = cast("tuple[type[BaseModel], ...]", get_args(row) or (row,))
    missing = [wire for field, wire in _ENVELOPE
               if wire not in data and all(field in model.model_fields for model in models)]
    if missing:
        raise ValidationError.from_exception_data(
            models[0].__name__, [{"type": "missing", "loc": (wire,), "input": data} for wire in missing])


def validate_server_result(
    method: str,
    version: str,
    data: Mapping[str, Any],
    *,
    surface: Mapping[tuple[str, str], type[BaseModel] | UnionType] = SERVER_RESULTS,
) -> None:
    """Check a server result against `surface` only (raises as `serialize_server_result`)."""
    serialize_server_result(method, version, data, surface=surface)


def parse_server_result(
    method: str,
    version: str,
    data: Mapping[str, Any],
    *,
    surface: Mapping[tuple[str, str], type[BaseModel] | UnionType] = SERVER_RESULTS,
    monolith: Mapping[str, type[types.Result] | UnionType] = MONOLITH_RESULTS,
) -> types.Result:
    """Check a server result against `surface`, then return it as its `monolith` model."""
    validate_server_result(method, version, data, surface=surface)
    result: types.Result = _adapter(_monolith(monolith, method)).validate_python(data, by_name=False)
    return result


def validate_client_result(
    method: str,
    version: str,
    data: Mapping[str, Any],
    *,
    surface: Mapping[tuple[str, str], type[BaseModel] | UnionType] = CLIENT_RESULTS,
) -> None:
    """Check a client result against `surface` only (raises as `serialize_server_result`)."""
    _known(version)
    _adapter(surface[(method, version)]).validate_python(data, by_name=False)


def parse_client_result(
    method: str,
    version: str,
    data: Mapping[str, Any],
    *,
    surface: Mapping[tuple[str, str], type[BaseModel] | UnionType] = CLIENT_RESULTS,
    monolith: Mapping[str, type[types.Result] | UnionType] = MONOLITH_RESULTS,
) -> types.Result:
    """Check a client result against `surface`, then return it as its `monolith` model."""
    validate_client_result(method, version, data, surface=surface)
    result: types.Result = _adapter(_monolith(monolith, method)).validate_python(data, by_name=False)
    return result
