"""Portable tool schemas: pydantic's JSON Schema rewritten into the shape strict consumers accept.

pydantic describes a model or enum argument with `$defs` and `$ref`. That is valid JSON Schema and
valid MCP, yet several widely used clients reject or mangle it: GitHub Copilot CLI does not
resolve `$ref` (github/copilot-cli#1876), Codex showed such arguments as a bare string
(openai/codex#3152), Moonshot/Kimi answers 400 to every turn ("$defs not found for reference",
"conflicting keywords found after $ref expansion"), and Gemini's function declarations (an
OpenAPI 3.0 subset) have no `$ref` and no `const`.

`make_portable` applies only rewrites that keep the set of accepted instances exactly the same
(each is listed in `docs/servers.md`, "Portable schemas"):

1. every local `$ref` into `$defs` (or `definitions`) is replaced by the definition it names, and
   `$defs` is dropped; keywords written beside a `$ref` are kept beside the inlined body (they
   apply together in JSON Schema 2020-12), the sibling winning for annotations such as
   `description`; a sibling that would contradict an assertion of the body wraps the body in
   `allOf` instead of merging. A recursive model cannot be inlined: its definition (and only it)
   stays in `$defs`, referenced by `$ref` (`recursive_definitions` names it and its cycle);
2. `const: X` becomes `enum: [X]` (Gemini and OpenAPI 3.0 have no `const`);
3. a `oneOf` carrying pydantic's `discriminator` becomes `anyOf` and the `discriminator` (an
   OpenAPI keyword whose `mapping` points into the dropped `$defs`) goes: the tags make the
   branches exclusive, so one match and at least one match are the same;
4. a schema with an `enum` but no `type` gets the type its values share, or, when they are of
   several types (`Literal["auto", 1]`), becomes an `anyOf` of one typed `enum` per type (Kimi
   requires a `type` on every schema, and in each `anyOf` branch rather than beside it);
5. `default: null` is dropped where the schema itself rejects null (pydantic writes it for
   `x: int = None`): a default is an annotation, and an invalid one is refused by strict checkers;
6. a property's `title` equal to the one pydantic generates from its name is dropped (noise).

Constraints (`pattern`, `minimum`, `format`...), `additionalProperties` and `anyOf` are kept:
removing them would accept what the tool rejects. `mcp check` reports the clients that reject
those.

Inlining can grow a schema exponentially (a model used twice by a model used twice...): the
output is built under a bound on its number of schema objects, and `SchemaPortabilityError`
names the definition being inlined when the bound is crossed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

MAX_PORTABLE_NODES = 5_000
"""The most schema objects (JSON objects in schema positions) a portable schema may have. OpenAI
strict mode allows 5,000 object properties in all; a tool schema near this size costs an LLM
tens of thousands of tokens on every turn."""

_DEF_KEYS = ("$defs", "definitions")
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"})
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_ONE = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "additionalItems",
    }
)
_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"}
)


class SchemaPortabilityError(ValueError):
    """A schema `make_portable` cannot rewrite: a `$ref` it cannot resolve locally, or one whose
    inlining would cross the size bound. The message names the reference and the reason."""


class SchemaPortabilityWarning(UserWarning):
    """A tool registered with `portable_schemas` whose schema could not be made wholly portable (a
    recursive model, or a schema the rewrite refuses): the message names the tool, the model and
    the reason. `warnings.simplefilter("error", SchemaPortabilityWarning)` makes it fatal."""


def make_portable(schema: Mapping[str, Any], *, max_nodes: int = MAX_PORTABLE_NODES) -> dict[str, Any]:
    """The portable form of `schema` (a new dict; `schema` is not changed). See the module
    docstring for the rewrites. Raises `SchemaPortabilityError` with the reason when the schema
    cannot be rewritten."""
    if not isinstance(schema, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise SchemaPortabilityError(f"a schema must be a JSON object, not {type(schema).__name__}")
    defs = _definitions(schema)
    cycles = _cycles(defs)
    return _Inliner(defs, set(cycles), max_nodes).root(schema)


def recursive_definitions(schema: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """The definitions of `schema` that refer back to themselves, each with one cycle that shows
    it (`("Node", "Node")`, or `("A", "B", "A")`): what `make_portable` keeps in `$defs`."""
    return _cycles(_definitions(schema))


# -- definitions and their reference graph ---------------------------------------------------


def _definitions(schema: Mapping[str, Any]) -> dict[str, tuple[str, str, Any]]:
    """`$ref` string -> (defs key, name, body) for every definition at the root of `schema`."""
    found: dict[str, tuple[str, str, Any]] = {}
    for key in _DEF_KEYS:
        block = schema.get(key)
        if isinstance(block, Mapping):
            for name, body in cast("Mapping[str, Any]", block).items():
                found[f"#/{key}/{_escape(name)}"] = (key, name, body)
    return found


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _refs_in(node: Any, out: set[str]) -> set[str]:
    """Every `$ref` string in schema positions of `node` (not inside `enum`, `default`, ...)."""
    if isinstance(node, Mapping):
        node = cast("Mapping[str, Any]", node)
        ref = node.get("$ref")
        if isinstance(ref, str):
            out.add(ref)
        for key, value in node.items():
            if key in _SCHEMA_MAPS and isinstance(value, Mapping):
                for sub in cast("Mapping[str, Any]", value).values():
                    _refs_in(sub, out)
            elif key in _SCHEMA_LISTS or (key == "items" and isinstance(value, list)):
                if isinstance(value, list):
                    for sub in cast("list[Any]", value):
                        _refs_in(sub, out)
            elif key in _SCHEMA_ONE:
                _refs_in(value, out)
    return out


def _cycles(defs: dict[str, tuple[str, str, Any]]) -> dict[str, tuple[str, ...]]:
    """Definition name -> a cycle through it, for each definition on a reference cycle."""
    edges = {ref: sorted(r for r in _refs_in(body, set()) if r in defs) for ref, (_, _, body) in defs.items()}
    found: dict[str, tuple[str, ...]] = {}
    for start in defs:
        path = _path_back(start, edges)
        if path is not None:
            found[defs[start][1]] = tuple(defs[ref][1] for ref in path)
    return found


def _path_back(start: str, edges: dict[str, list[str]]) -> list[str] | None:
    """The shortest reference path from `start` back to itself (breadth first), or None."""
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for ref in frontier:
            for nxt in edges.get(ref, ()):
                if nxt == start:
                    path = [ref]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [*reversed(path), start]
                if nxt not in parents:
                    parents[nxt] = ref
                    following.append(nxt)
        frontier = following
    return None


# -- the rewrite -------------------------------------------------------------------------------


class _Inliner:
    __slots__ = ("_count", "_defs", "_max", "_recursive", "_stack")

    def __init__(self, defs: dict[str, tuple[str, str, Any]], recursive: set[str], max_nodes: int) -> None:
        self._defs = defs
        self._recursive = recursive
        self._max = max_nodes
        self._count = 0
        self._stack: list[str] = []

    def root(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        body = {k: v for k, v in schema.items() if k not in _DEF_KEYS}
        # a root that is itself a `$ref` (pydantic's form for a recursive output model) is expanded once
        built = self._schema(body, expand=True)
        if not isinstance(built, dict):
            raise SchemaPortabilityError("a schema must be a JSON object")
        out = cast("dict[str, Any]", built)
        kept: dict[str, dict[str, Any]] = {}
        for key, name, definition in self._defs.values():
            if name in self._recursive:
                self._stack.append(name)
                kept.setdefault(key, {})[name] = self._schema(definition)
                self._stack.pop()
        out.update(kept)
        return out

    def _schema(self, node: Any, *, expand: bool = False, prop: str | None = None) -> Any:
        if not isinstance(node, Mapping):
            return _copy(node)  # true / false schemas (and anything odd, copied as data)
        node = cast("Mapping[str, Any]", node)
        self._count += 1
        if self._count > self._max:
            where = f" while inlining {self._stack[-1]!r}" if self._stack else ""
            raise SchemaPortabilityError(
                f"the inlined schema would have more than {self._max} schema objects{where}: a model "
                "used in many places of a deep model tree; keep this tool's schema as it is (portable_schemas=False)"
            )
        ref = node.get("$ref")
        if ref is None:
            return _finish(self._walk(node), prop)
        if not isinstance(ref, str) or ref not in self._defs:
            raise SchemaPortabilityError(
                f"$ref {ref!r} cannot be inlined: only references to this schema's own $defs can be "
                f"(known: {', '.join(sorted(self._defs)) or 'none'})"
            )
        _, name, definition = self._defs[ref]
        siblings = self._walk({k: v for k, v in node.items() if k != "$ref"})
        if name in self._recursive and not expand:
            return _finish({"$ref": ref, **siblings}, prop)
        self._stack.append(name)
        body = self._schema(definition)
        self._stack.pop()
        return _finish(_merge(body, siblings), prop)

    def _walk(self, node: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _SCHEMA_MAPS and isinstance(value, Mapping):
                mapped = cast("Mapping[str, Any]", value)
                is_props = key == "properties"
                out[key] = {
                    name: self._schema(sub, prop=name if is_props else None) for name, sub in mapped.items()
                }
            elif (key in _SCHEMA_LISTS or key == "items") and isinstance(value, list):
                out[key] = [self._schema(sub) for sub in cast("list[Any]", value)]
            elif key in _SCHEMA_ONE:
                out[key] = self._schema(value)
            else:
                out[key] = _copy(value)
        return out


def _merge(body: Any, siblings: dict[str, Any]) -> Any:
    """An inlined definition and the keywords written beside its `$ref`: merged when no assertion
    differs (a sibling annotation wins), else the body inside `allOf` next to the siblings."""
    if not siblings:
        return body
    if not isinstance(body, dict):
        return {"allOf": [body], **siblings}
    body = cast("dict[str, Any]", body)
    if any(k in body and k not in _ANNOTATIONS and body[k] != v for k, v in siblings.items()):
        return {"allOf": [body], **siblings}
    return {**body, **siblings}


def _finish(node: Any, prop: str | None) -> Any:
    """The keyword rewrites of one schema object (items 2-6 of the module docstring)."""
    if not isinstance(node, dict):
        return node
    node = cast("dict[str, Any]", node)
    if "const" in node and "enum" not in node:
        node = _replace(node, "const", "enum", [node["const"]])
    if "discriminator" in node and "oneOf" in node and "anyOf" not in node:
        node = _replace(node, "oneOf", "anyOf", node["oneOf"])
        del node["discriminator"]
    if "enum" in node and "type" not in node and isinstance(node["enum"], list):
        node = _typed_enum(node, cast("list[Any]", node["enum"]))
    if "default" in node and node["default"] is None and _rejects_null(node):
        del node["default"]
    if prop is not None and node.get("title") == prop.replace("_", " ").title():
        del node["title"]
    return node


def _typed_enum(node: dict[str, Any], values: list[Any]) -> dict[str, Any]:
    """An `enum` without `type`, typed: the type its values share, or (values of several types,
    as `Literal["auto", 1]`) one typed `anyOf` branch per type, when the node has no `anyOf`."""
    groups: dict[str, list[Any]] = {}
    for value in values:
        groups.setdefault(_json_type(value), []).append(value)
    if "integer" in groups and "number" in groups:
        groups["number"] = [*groups.pop("integer"), *groups["number"]]
    if len(groups) == 1:
        node["type"] = next(iter(groups))
        return node
    if "anyOf" in node or not groups:
        return node
    branches = [{"type": kind, "enum": members} for kind, members in groups.items()]
    return _replace(node, "enum", "anyOf", branches)


def _replace(node: dict[str, Any], old: str, new: str, value: Any) -> dict[str, Any]:
    """`node` with key `old` renamed to `new` (holding `value`), in the same place."""
    return {(new if key == old else key): (value if key == old else item) for key, item in node.items()}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _rejects_null(node: dict[str, Any]) -> bool:
    """Whether the schema surely rejects null: its `type` leaves null out, or its `enum` does."""
    kind = node.get("type")
    if isinstance(kind, str) and kind != "null":
        return True
    if isinstance(kind, list) and "null" not in kind:
        return True
    enum = node.get("enum")
    return isinstance(enum, list) and None not in enum


def _copy(value: Any) -> Any:
    """A copy of JSON data (so that the portable schema shares nothing with the original)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in cast("dict[str, Any]", value).items()}
    if isinstance(value, list):
        return [_copy(v) for v in cast("list[Any]", value)]
    return value
