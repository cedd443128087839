"""A handler's result on its way to the wire: the serializer of its model (cached per class),
the checks a plain dict answer gets, and the revision's stamp (modern) or pruning (older).

`WireResult` is a result the framework's own handlers already built in wire form (the hot path).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from mcp._protocol.revisions import prune_result
from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS
from mcp.types.version import MODERN_VERSIONS, SERVER_INFO_META_KEY

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server

logger = logging.getLogger("mcp.server")


class WireResult:
    """A result already in wire form (spec names, no unset fields): the framework's own handlers
    return these on the hot path to skip building and dumping a model. Middleware never sees one:
    it gets the finished wire dict (`Server._dispatch_wire`)."""

    __slots__ = ("wire",)

    def __init__(self, wire: dict[str, Any]) -> None:
        self.wire = wire


_result_serializers: dict[type, Any] = {}
"""Result model class -> its pydantic serializer (what `model_dump` calls, minus the wrapper)."""


def own_answer(result: Any) -> dict[str, Any]:
    """What a middleware chain returned, as the JSON-RPC result: a dict as is (copied), a model
    dumped, None as `{}`."""
    if result is None:
        return {}
    if type(result) is WireResult:
        return result.wire
    if isinstance(result, Mapping):
        return dict(cast("Mapping[str, Any]", result))
    if hasattr(result, "model_dump"):
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)
    raise TypeError(f"middleware returned {type(result).__name__}; expected a result model, a dict or None")


def _result_serializer(method: str, result: Any, version: str) -> Any:
    """The serializer of a handler's result model, cached per class. A mapping (or None) is a
    result already in wire form: it gets a one-off serializer that checks it against the method's
    result type. Anything else is a clear `TypeError`."""
    cls: Any = result.__class__
    serializer = getattr(cls, "__pydantic_serializer__", None)
    if serializer is None or not hasattr(result, "model_dump") or not hasattr(cls, "model_fields"):
        if result is None or isinstance(result, Mapping):
            return _WireMapping(method, version)
        raise TypeError(
            f"Handler for {method!r} returned {cls.__name__}; expected a result model or a dict "
            f"(for example ListToolsResult(tools=[...]), not a bare list)"
        )
    from mcp.types._base import model_serializer

    serializer = _result_serializers[cls] = model_serializer(cls)
    return serializer


_CORE_RESULT_TYPES = frozenset({"complete", "input_required"})


class _WireMapping:
    """Stands in for the serializer of a result returned as a mapping (or None, an empty result).

    As in the official SDK, the result of a method MCP defines must validate as one of that
    method's result types (the answer is -32603 otherwise, the details go to the log), and goes on
    the wire as that type dumps it; a custom method's result, or one a 2026-07-28 extension claims
    with its own `resultType`, goes as returned (copied)."""

    __slots__ = ("method", "version")

    def __init__(self, method: str, version: str) -> None:
        self.method = method
        self.version = version

    def to_python(self, result: Mapping[str, Any] | None, **options: Any) -> dict[str, Any]:
        wire: dict[str, Any] = {} if result is None else dict(result)
        result_type = wire.get("resultType")
        if self.version in MODERN_VERSIONS and isinstance(result_type, str) and result_type not in _CORE_RESULT_TYPES:
            return wire  # a shape an extension claims: its own to define
        models = _result_models(self.method, self.version, result_type)
        if not models:
            return wire
        failure: Exception | None = None
        for model in models:
            try:
                return model.model_validate(wire).model_dump(**options)
            except ValueError as exc:  # pydantic's ValidationError
                failure = failure or exc
        logger.error("handler for %r returned an invalid result: %s", self.method, failure)
        raise MCPError(INTERNAL_ERROR, "Handler returned an invalid result")


def _result_models(method: str, version: str, result_type: Any) -> tuple[Any, ...]:
    """The result types a dict answering a request of a method MCP defines may be at `version`, by
    its `resultType` (empty for a custom method or a notification)."""
    from mcp.types import methods

    info = methods.get(method)
    if info is None or info.result is None:
        return ()
    own, *others = info.result_types(version)
    if result_type == "input_required":  # InputRequiredResult when the method may get one here
        return tuple(others) or (own,)
    import mcp.types
    from mcp._protocol._revision_shapes import RESULT_ALTERNATIVES

    # the task-augmented alternative of 2025-11-25 (CreateTaskResult), told apart by its fields
    alternatives = RESULT_ALTERNATIVES.get(version, {}).get(method, ())
    return (own, *(getattr(mcp.types, name) for name in alternatives if name != "InputRequiredResult"))


def _given_cache_fields(result: Any) -> frozenset[str]:
    """Which of `ttlMs`/`cacheScope` the handler chose itself: set on its result model (the model
    defaults, 0 and "private", are not a choice), or present in its wire dict / mapping."""
    if type(result) is WireResult:
        keys: Any = result.wire
    elif isinstance(result, Mapping):
        keys = cast("Mapping[str, Any]", result)
    else:
        chosen: set[str] = getattr(result, "model_fields_set", set())
        return frozenset(wire for field, wire in _CACHE_FIELDS if field in chosen)
    return frozenset(wire for field, wire in _CACHE_FIELDS if wire in keys or field in keys)


_CACHE_FIELDS = (("ttl_ms", "ttlMs"), ("cache_scope", "cacheScope"))

CACHEABLE_METHODS = frozenset(
    {"tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read", "server/discover"}
)


def result_to_wire(server: Server[Any], method: str, result: Any, version: str) -> dict[str, Any]:
    """A handler's result in the wire shape of `version`: dumped once (cached serializer per
    class), on the 2026-07-28 wire stamped with `resultType`, the server's identity and (for a
    cacheable list or read) its cache hints; on older revisions pruned of the fields they lack."""
    if type(result) is WireResult:
        wire = result.wire
    else:
        serializer = _result_serializers.get(result.__class__) or _result_serializer(method, result, version)
        wire = serializer.to_python(result, mode="json", by_alias=True, exclude_none=True)
    if method == "tools/list":
        _check_tool_schemas(wire)
    if version in MODERN_VERSIONS:
        wire = dict(wire)
        wire.setdefault("resultType", "complete")
        meta = wire.get("_meta")
        wire["_meta"] = {**meta, SERVER_INFO_META_KEY: server.server_info_wire} if meta else {
            SERVER_INFO_META_KEY: server.server_info_wire}
        if method in CACHEABLE_METHODS:
            given = _given_cache_fields(result)
            if len(given) < 2:
                ttl, scope = server.cache_hint_for(method)  # explicit result fields win, per field
                if "ttlMs" not in given:
                    wire["ttlMs"] = ttl
                if "cacheScope" not in given:
                    wire["cacheScope"] = scope
        return wire
    if wire.get("resultType") == "input_required":
        logger.error("%s returned an InputRequiredResult on a %s connection, which cannot carry one", method, version)
        raise MCPError(INTERNAL_ERROR, "Handler returned an invalid result")
    return prune_result(method, wire, version)


def validate_params(params_type: Any, params: dict[str, Any] | None) -> Any:
    """Validate raw params into a handler's params type; -32602 with pydantic's text on failure."""
    if params_type is None:
        return params
    try:
        return params_type.model_validate(params if params is not None else {})
    except ValueError as exc:  # pydantic's ValidationError
        raise MCPError(INVALID_PARAMS, f"Invalid params: {exc}") from None


def _check_tool_schemas(wire: Any) -> None:
    """Every listed tool's `inputSchema` (and `outputSchema`, when given) must be a JSON object
    schema of `"type": "object"`, as the spec requires in every revision: a hand-built
    `Tool(input_schema={})` is refused as officially (-32603 "Handler returned an invalid result",
    the reason in the log) rather than sent to clients that then reject the whole list."""
    tools: Any = cast("dict[str, Any]", wire).get("tools") if isinstance(wire, dict) else None
    for tool in cast("list[Any]", tools or []):
        entry = cast("dict[str, Any]", tool) if isinstance(tool, dict) else {}
        for key in ("inputSchema", "outputSchema"):
            schema: Any = entry.get(key)
            if key == "outputSchema" and schema is None:
                continue
            if not isinstance(schema, dict) or cast("dict[str, Any]", schema).get("type") != "object":
                logger.error("tools/list: tool %r has an %s without \"type\": \"object\"", entry.get("name"), key)
                raise MCPError(INTERNAL_ERROR, "Handler returned an invalid result")
