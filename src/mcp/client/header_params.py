"""The client's reading of a tool's `x-mcp-header` declarations (2026-07-28, SEP-2243): which
arguments a `tools/call` mirrors as `Mcp-Param-*` headers, and whether the declarations are valid
(a tool whose declarations are not is dropped from `tools/list`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

_HEADER_KEY = "x-mcp-header"
_TOKEN_CHARS = frozenset("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
"""RFC 9110 `tchar`: what an `x-mcp-header` name may be made of."""
_HEADER_TYPES = frozenset({"string", "integer", "boolean"})
"""The parameter types `x-mcp-header` may be declared on (2026-07-28: not `number`); a parameter
may also admit null (the header is then omitted)."""
_JSON_TYPE_OF: dict[type, str] = {str: "string", bool: "boolean", int: "integer", float: "number",
                                  type(None): "null", list: "array", dict: "object"}


def _obj(value: Any) -> dict[str, Any] | None:
    return cast("dict[str, Any]", value) if isinstance(value, dict) else None


def _annotated_properties(schema: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """(argument path, property schema) of every property reachable through `properties` chains
    that carries `x-mcp-header`, whatever its value."""
    container = _obj(schema)
    properties = _obj(container.get("properties")) if container is not None else None
    if properties is None:
        return
    for key, value in properties.items():
        prop = _obj(value)
        if prop is None:
            continue
        if _HEADER_KEY in prop:
            yield (*path, key), prop
        yield from _annotated_properties(prop, (*path, key))


def header_params(schema: Any) -> list[tuple[tuple[str, ...], str]]:
    """(argument path, header suffix) of every `x-mcp-header` parameter of a tool's input schema."""
    return [(path, prop[_HEADER_KEY]) for path, prop in _annotated_properties(schema)
            if isinstance(prop[_HEADER_KEY], str) and prop[_HEADER_KEY]]


def invalid_header_declaration(schema: Any) -> str | None:
    """Why a tool's `x-mcp-header` declarations are invalid (2026-07-28), or None when they are
    fine: each must be a non-empty HTTP token, on a string, integer or boolean parameter, and
    unique (case-insensitively) within the input schema."""
    seen: dict[str, str] = {}
    for path, prop in _annotated_properties(schema):
        header = prop[_HEADER_KEY]
        where = ".".join(path)
        if not isinstance(header, str) or not header:
            return f"parameter {where!r}: the header name must be a non-empty string"
        if not all(ch in _TOKEN_CHARS for ch in header):
            return f"parameter {where!r}: {header!r} is not a valid HTTP header name"
        kinds = _declared_types(prop)
        if not kinds - {"null"} or not kinds <= _HEADER_TYPES | {"null"}:
            shown = ", ".join(sorted(kinds)) or "unknown"
            return (f"parameter {where!r}: x-mcp-header is allowed only on string, integer and boolean "
                    f"parameters, not on type {shown}")
        first = seen.setdefault(header.lower(), where)
        if first != where:
            return f"parameter {where!r}: header {header!r} is already used by parameter {first!r}"
    return None


def _declared_types(prop: dict[str, Any]) -> set[str]:
    """The JSON types a property schema admits, as far as `type`, `anyOf`/`oneOf` branches, `enum`
    or `const` say (empty when they say nothing)."""
    kind = prop.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {str(item) for item in cast("list[Any]", kind)}
    for key in ("anyOf", "oneOf"):
        branches = prop.get(key)
        if isinstance(branches, list):
            found: set[str] = set()
            for branch in map(_obj, cast("list[Any]", branches)):
                branch_types: set[str] = _declared_types(branch) if branch is not None else set()
                if not branch_types:
                    return set()  # a branch that admits anything
                found |= branch_types
            return found
    if isinstance(prop.get("enum"), list):
        return {_json_type(value) for value in cast("list[Any]", prop["enum"])}
    if "const" in prop:
        return {_json_type(prop["const"])}
    return set()


def _json_type(value: object) -> str:
    return _JSON_TYPE_OF.get(type(value), "unknown")
