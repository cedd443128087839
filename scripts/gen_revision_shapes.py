#!/usr/bin/env python3
"""Generate `src/mcp/_protocol/_revision_shapes.py` from the MCP JSON Schemas of every supported revision.

Our wire objects are built in the newest shape; `mcp._protocol.revisions` prunes them for peers on an older
revision. It needs, per revision, the property names of each object we may send and how to recurse into
nested objects. Reading five large JSON Schemas at run time would be slow, so this script distils them into
a small data module once.

Usage: python scripts/gen_revision_shapes.py [--spec-dir DIR] [--out FILE]
DIR holds one `<revision>/schema.json` per revision (default: $MCP_SPEC_DIR, else ../shared/spec next to
the repository). Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, TypeAlias, cast

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
"""Oldest first; must match `mcp.types.version.SUPPORTED_PROTOCOL_VERSIONS`."""

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "src" / "mcp" / "_protocol" / "_revision_shapes.py"

FREE = "*"
"""Spec marker: leave the value alone (free-form JSON: never prune inside it)."""

JSON_SCHEMA_PROPERTIES = frozenset({"inputSchema", "outputSchema", "requestedSchema"})
"""Properties that hold a JSON Schema: the spec sketches some of their keywords, but they are free-form."""

REQUEST_UNIONS = {"ClientRequest": "server", "ServerRequest": "client", "InputRequest": "client"}
"""Unions listing requests, and which side answers them (2026-07-28 embeds server requests as InputRequest)."""

NOTIFICATION_UNIONS = ("ClientNotification", "ServerNotification")

Schema: TypeAlias = dict[str, Any]
Spec: TypeAlias = "str | list[Spec]"


def _ref_name(ref: str) -> str:
    """`#/$defs/Tool` or `#/definitions/Tool` -> `Tool`."""
    return ref.rsplit("/", 1)[-1]


def _branches(schema: Schema) -> list[Schema] | None:
    """The alternatives of an anyOf/oneOf schema, or None."""
    return schema.get("anyOf") or schema.get("oneOf")


def _types(schema: Schema) -> set[str]:
    kind = schema.get("type")
    if kind is None:
        return set()
    return {kind} if isinstance(kind, str) else set(kind)


class Revision:
    """Distils one revision's schema into OBJECTS / UNIONS entries and method maps."""

    def __init__(self, version: str, doc: Schema) -> None:
        self.version = version
        self.defs: dict[str, Schema] = doc.get("$defs") or doc["definitions"]
        self.objects: dict[str, tuple[str, dict[str, Spec]]] = {}
        self.unions: dict[str, dict[str, Any]] = {}
        self._ref_specs: dict[str, Spec | None] = {}
        self.server_results: dict[str, str] = {}
        self.client_results: dict[str, str] = {}
        self.params: dict[str, Spec] = {}
        self.alternatives: dict[str, list[str]] = {}

    # -- schema helpers ---------------------------------------------------------------------------

    def merged(self, schema: Schema) -> Schema | None:
        """The object schema `schema` denotes (following a pure $ref and merging allOf), if it has properties."""
        if "$ref" in schema and "properties" not in schema:
            return self.merged(self.defs[_ref_name(schema["$ref"])])
        if "allOf" in schema:
            properties: dict[str, Schema] = {}
            required: list[str] = []
            for part in schema["allOf"]:
                sub = self.merged(part)
                if sub is not None:
                    properties.update(sub["properties"])
                    required += [name for name in sub.get("required", []) if name not in required]
            return {"type": "object", "properties": properties, "required": required}
        if "properties" in schema and not _branches(schema):
            return schema
        return None

    def properties(self, name: str) -> dict[str, Schema]:
        """The properties of a named object definition ({} for an inline object)."""
        merged = self.merged(self.defs[name]) if name in self.defs else None
        return {} if merged is None else merged["properties"]

    # -- specs ------------------------------------------------------------------------------------

    def spec_for(self, schema: Schema, slot: str, prop: str = "") -> Spec | None:
        """How to recurse into a value of `schema` found at `slot` (None: a primitive, nothing to do)."""
        if prop == "_meta":
            return FREE
        if "$ref" in schema:
            return self.ref_spec(_ref_name(schema["$ref"]))
        if _branches(schema):
            return self.union_spec(slot, _branches(schema) or [])
        kinds = _types(schema)
        if "array" in kinds or "items" in schema:
            item = self.spec_for(schema.get("items", {}), slot + "[]")
            return [item] if item not in (None, FREE) else item
        if (
            kinds & {"object"}
            or "properties" in schema
            or "additionalProperties" in schema
            or "allOf" in schema
        ):
            extra = schema.get("additionalProperties")
            if prop in JSON_SCHEMA_PROPERTIES or (extra is not None and extra is not False):
                return FREE
            merged = self.merged(schema)
            if merged is None or not merged["properties"]:
                return FREE
            return self.object_spec(slot, merged)
        if not kinds and "const" not in schema and "enum" not in schema:
            return FREE  # any JSON value
        return None

    def ref_spec(self, name: str) -> Spec | None:
        """The spec of a named definition, emitting its entry the first time."""
        if name in self._ref_specs:
            return self._ref_specs[name]
        self._ref_specs[name] = name  # provisional, in case of a cycle
        schema = self.defs[name]
        spec: Spec | None
        if _branches(schema):
            spec = self.union_spec(name, _branches(schema) or [])
        elif (merged := self.merged(schema)) is not None:
            spec = self.object_spec(name, merged)
        elif _types(schema) & {"object"} or not _types(schema):
            spec = FREE
        else:
            spec = None
        self._ref_specs[name] = spec
        return spec

    def object_spec(self, name: str, schema: Schema) -> str:
        """Emit OBJECTS[name] for an object schema with properties."""
        if name in self.objects:
            return name
        sub: dict[str, Spec] = {}
        self.objects[name] = (" ".join(sorted(schema["properties"])), sub)
        for prop in sorted(schema["properties"]):
            spec = self.spec_for(schema["properties"][prop], f"{name}.{prop}", prop)
            if spec is not None:
                sub[prop] = spec
        return name

    def union_spec(self, name: str, branches: list[Schema]) -> Spec | None:
        """Emit UNIONS[name]: its object members, the const discriminator if any, and an array alternative."""
        members: list[str] = []
        array: Spec | None = None
        for index, branch in enumerate(branches):
            spec = self.spec_for(branch, f"{name}.{index}")
            if isinstance(spec, list):
                array = spec
            elif spec is not None and spec != FREE:
                members += self.unions[spec]["members"] if spec in self.unions else [spec]
        if not members and array is None:
            return None
        union: dict[str, Any] = {"members": members}
        props: list[dict[str, Schema]] = [self.properties(member) for member in members]
        shared = set(props[0]).intersection(*props[1:]) if props else set[str]()
        consts = sorted(key for key in shared if all("const" in p[key] for p in props))
        if consts:
            key = "type" if "type" in consts else consts[0]
            union["on"] = key
            union["by"] = {p[key]["const"]: member for p, member in zip(props, members, strict=True)}
        if array is not None:
            union["arr"] = array
        self.unions[name] = union
        return name

    # -- methods ----------------------------------------------------------------------------------

    def members(self, name: str) -> list[str]:
        """The message definitions a ClientRequest/ServerNotification/... union lists."""
        schema = self.defs.get(name)
        if schema is None:
            return []
        if _branches(schema):
            return [_ref_name(branch["$ref"]) for branch in _branches(schema) or [] if "$ref" in branch]
        return [name] if "method" in schema.get("properties", {}) else []

    def build(self) -> None:
        """Walk every request and notification to emit the shapes of params and results."""
        for base in ("Result", "EmptyResult"):  # the fields every result has, even where no method uses them
            if base in self.defs:
                self.ref_spec(base)
        for union, answerer in REQUEST_UNIONS.items():
            for request in self.members(union):
                method, params = self.message(request)
                results = self.results_for(request, params)
                if results:
                    (self.server_results if answerer == "server" else self.client_results)[method] = results[
                        0
                    ]
                    if len(results) > 1:
                        self.alternatives[method] = results[1:]
        for union in NOTIFICATION_UNIONS:
            for notification in self.members(union):
                self.message(notification)

    def message(self, name: str) -> tuple[str, Schema | None]:
        """Record PARAMS[method] for a request/notification definition; return its method and params."""
        properties = self.defs[name]["properties"]
        method: str = properties["method"]["const"]
        params_schema = properties.get("params")
        if params_schema is None:
            return method, None
        spec = self.spec_for(params_schema, f"{name}.params")
        if spec is not None:
            self.params[method] = spec
        return method, params_schema

    def has_property(self, schema: Schema, prop: str) -> bool:
        """Whether an object schema, or any alternative of a union schema, declares `prop`."""
        if "$ref" in schema and "properties" not in schema:
            return self.has_property(self.defs[_ref_name(schema["$ref"])], prop)
        if _branches(schema):
            return any(self.has_property(branch, prop) for branch in _branches(schema) or [])
        merged = self.merged(schema)
        return merged is not None and prop in merged["properties"]

    def results_for(self, request: str, params: Schema | None) -> list[str]:
        """The result definition answering `request`, then the alternative results it may get instead."""
        base = request.removesuffix("Request") + "Result"
        primary = base if base in self.defs else "EmptyResult"
        if self.ref_spec(primary) in (None, FREE):
            return []
        results = [primary]
        response = self.defs.get(base + "Response", {}).get("properties", {}).get("result", {})
        results += [_ref_name(branch["$ref"]) for branch in _branches(response) or []]
        if params is not None and self.has_property(params, "task") and "CreateTaskResult" in self.defs:
            results.append("CreateTaskResult")  # a task-augmented request may be answered with a task
        results = list(dict.fromkeys(results))
        return [name for name in results if self.ref_spec(name) not in (None, FREE)]


# -- rendering ------------------------------------------------------------------------------------


def _lit(value: object) -> str:
    """A compact Python literal with double-quoted strings (stable across runs: insertion order kept)."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_lit(item) for item in cast("list[object]", value)) + "]"
    if isinstance(value, tuple):
        items = [_lit(item) for item in cast("tuple[object, ...]", value)]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, dict):
        pairs = cast("dict[object, object]", value).items()
        return "{" + ", ".join(f"{_lit(key)}: {_lit(item)}" for key, item in pairs) + "}"
    raise TypeError(f"cannot render {value!r}")


HEADER = '''\
# Generated by scripts/gen_revision_shapes.py from the MCP JSON Schemas -- DO NOT EDIT.
# Regenerate: python scripts/gen_revision_shapes.py [--spec-dir DIR]
"""Per-revision wire shapes of the MCP messages we send: data read by `mcp._protocol.revisions`.

OBJECTS[revision][name] = (property names joined by spaces, {property: spec}) for each object; spec says
how to recurse into the property's value: "*" leave it alone (free-form JSON), "Name" an OBJECTS or UNIONS
entry, [spec] an array of spec. Properties without a spec hold primitives.
UNIONS[revision][name] = {"members": object names, "on": discriminator property, "by": {const: name},
"arr": spec of an array alternative}; "on"/"by" and "arr" are optional. A value without the discriminator
is matched to the member sharing most of its property names.
SERVER_RESULTS / CLIENT_RESULTS[revision][method] = result name (the server / the client sends it);
RESULT_ALTERNATIVES[revision][method] = other results the method may get (a task, an input request);
PARAMS[revision][method] = spec of the params of a request or notification.
KNOWN[name] = every key any revision defines for that shape, joined by spaces (`revisions.known_keys`).
"""

from __future__ import annotations

from typing import Final, TypeAlias, TypedDict

Spec: TypeAlias = "str | list[Spec]"


class UnionShape(TypedDict, total=False):
    """How to pick the alternative of a union value."""

    members: list[str]
    on: str
    by: dict[str, str]
    arr: Spec


# fmt: off
'''


def render(spec_dir: Path) -> str:
    """The source of the generated module."""
    revisions: list[Revision] = []
    for version in REVISIONS:
        revision = Revision(version, json.loads((spec_dir / version / "schema.json").read_text("utf-8")))
        revision.build()
        revisions.append(revision)
    out = [HEADER]
    tables = (
        ("OBJECTS", "objects", "dict[str, dict[str, tuple[str, dict[str, Spec]]]]"),
        ("UNIONS", "unions", "dict[str, dict[str, UnionShape]]"),
        ("SERVER_RESULTS", "server_results", "dict[str, dict[str, str]]"),
        ("CLIENT_RESULTS", "client_results", "dict[str, dict[str, str]]"),
        ("RESULT_ALTERNATIVES", "alternatives", "dict[str, dict[str, list[str]]]"),
        ("PARAMS", "params", "dict[str, dict[str, Spec]]"),
    )
    for table, attribute, annotation in tables:
        out.append(f"{table}: Final[{annotation}] = {{\n")
        for revision in revisions:
            entries = cast("dict[str, object]", getattr(revision, attribute))
            if not entries:
                out.append(f"    {_lit(revision.version)}: {{}},\n")
                continue
            out.append(f"    {_lit(revision.version)}: {{\n")
            for key in sorted(entries):
                out.append(f"        {_lit(key)}: {_lit(entries[key])},\n")
            out.append("    },\n")
        out.append("}\n\n")
    out.append("KNOWN: Final[dict[str, str]] = {\n")
    for name, keys in sorted(_known(revisions).items()):
        out.append(f"    {_lit(name)}: {_lit(' '.join(sorted(keys)))},\n")
    out.append("}\n")
    return "".join(out).rstrip("\n") + "\n"


def _known(revisions: list[Revision]) -> dict[str, frozenset[str]]:
    """`mcp._protocol.revisions.known_keys` of these tables: slow enough to do here, not at run time."""
    from types import SimpleNamespace

    sys.path.insert(0, str(REPO / "src"))
    from mcp._protocol.revisions import known_keys

    tables = SimpleNamespace(**{
        table: {revision.version: getattr(revision, attribute) for revision in revisions}
        for table, attribute in (("OBJECTS", "objects"), ("UNIONS", "unions"), ("SERVER_RESULTS", "server_results"),
                                 ("CLIENT_RESULTS", "client_results"), ("RESULT_ALTERNATIVES", "alternatives"),
                                 ("PARAMS", "params"))})
    return known_keys(tables)


def default_spec_dir() -> Path:
    """Where the schemas are unless told: $MCP_SPEC_DIR, else ../shared/spec next to the repository."""
    return Path(os.environ.get("MCP_SPEC_DIR") or REPO.parent / "shared" / "spec")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--spec-dir", type=Path, default=default_spec_dir())
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    args.out.write_text(render(args.spec_dir), "utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
