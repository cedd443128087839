"""Walk a tool's JSON Schema as the client rules see it: every subschema with where it sits.

Pure standard library, on the wire JSON (`dict`s), so `mcp check` can judge any server's tools,
ours or not. A location reads like `properties.shape.anyOf[1]`, relative to the tool's
`inputSchema`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

Schema = dict[str, Any]

# Keywords whose value is one subschema, a list of them, or a map of name -> subschema.
_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
        "unevaluatedItems", "unevaluatedProperties", "additionalItems")
_LIST = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


@dataclass(frozen=True)
class Node:
    """One subschema: where it is, what it is, and whether it describes a value (a property,
    an array item, a union branch) or a definition."""

    location: str
    schema: Schema
    parent_keyword: str | None
    """The keyword it sits under (`properties`, `items`, `anyOf`, `$defs`, ...); None at the root."""


def join(location: str, key: str) -> str:
    return f"{location}.{key}" if location else key


def walk(schema: Schema, location: str = "", parent_keyword: str | None = None) -> Iterator[Node]:
    """Every subschema of `schema`, itself first (depth first, in document order)."""
    yield Node(location, schema, parent_keyword)
    for keyword, value in schema.items():
        if keyword in _ONE and isinstance(value, dict):
            yield from walk(cast(Schema, value), join(location, keyword), keyword)
        elif keyword in _LIST and isinstance(value, list):
            for index, item in enumerate(cast(list[Any], value)):
                if isinstance(item, dict):
                    yield from walk(cast(Schema, item), f"{join(location, keyword)}[{index}]", keyword)
        elif keyword in _MAP and isinstance(value, dict):
            for name, item in cast(Schema, value).items():
                if isinstance(item, dict):
                    yield from walk(cast(Schema, item), join(join(location, keyword), name), keyword)


def definitions(schema: Schema) -> Schema:
    """The root's `$defs` (or draft-07 `definitions`), by name."""
    found: Schema = {}
    for keyword in ("definitions", "$defs"):
        value = schema.get(keyword)
        if isinstance(value, dict):
            found.update(cast(Schema, value))
    return found


def resolve(schema: Schema, ref: str) -> Schema | None:
    """The local definition a `#/$defs/Name` (or `#/definitions/Name`) reference names."""
    for prefix in ("#/$defs/", "#/definitions/"):
        if ref.startswith(prefix):
            target = definitions(schema).get(ref[len(prefix):])
            return cast(Schema, target) if isinstance(target, dict) else None
    return None


def object_depth(root: Schema, node: Schema | None = None, seen: frozenset[str] = frozenset()) -> int:
    """How many object levels nest in `node` (the root by default), following local references
    once per path (a recursive model counts the levels it spells out, not an infinite chain)."""
    node = root if node is None else node
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = resolve(root, ref)
        return 0 if target is None or ref in seen else object_depth(root, target, seen | {ref})
    deepest = 0
    for keyword in ("items", "additionalProperties"):
        child = node.get(keyword)
        if isinstance(child, dict):
            deepest = max(deepest, object_depth(root, cast(Schema, child), seen))
    for keyword in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for child in cast(list[Any], node.get(keyword) or []):
            if isinstance(child, dict):
                deepest = max(deepest, object_depth(root, cast(Schema, child), seen))
    properties = node.get("properties")
    if isinstance(properties, dict):
        inner = [object_depth(root, cast(Schema, child), seen)
                 for child in cast(Schema, properties).values() if isinstance(child, dict)]
        return 1 + max(inner, default=0)
    return deepest


def types_of(schema: Schema) -> list[str]:
    """The schema's `type` as a list (empty when it has none)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in cast(list[Any], kind) if isinstance(k, str)]
    return []


def is_recursive(schema: Schema) -> bool:
    """Whether a local reference leads back to itself (a model that contains itself): such a
    schema cannot be fully inlined, so it keeps its `$defs` even when made portable."""
    edges: dict[str, set[str]] = {}
    for name, target in definitions(schema).items():
        if isinstance(target, dict):
            edges[name] = {_def_name(n.schema["$ref"]) for n in walk(cast(Schema, target))
                           if isinstance(n.schema.get("$ref"), str)}
    if any(isinstance(n.schema.get("$ref"), str) and n.schema["$ref"] == "#" for n in walk(schema)):
        return True
    visiting: set[str] = set()
    done: set[str] = set()

    def cycles(name: str) -> bool:
        if name in visiting:
            return True
        if name in done or name not in edges:
            return False
        visiting.add(name)
        found = any(cycles(child) for child in edges[name])
        visiting.discard(name)
        done.add(name)
        return found

    return any(cycles(name) for name in edges)


def _def_name(ref: str) -> str:
    return ref.rpartition("/")[2]
