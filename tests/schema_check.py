"""Validate JSON-RPC messages against the MCP JSON Schema of the negotiated protocol revision.

`WireChecker.check(sender, message, version, request_method)` validates one message the way the
engine's wire taps (`mcp._engine.tap.TAPS`) report it; `check_lines` validates a raw transcript,
e.g. what a stdio server subprocess wrote to its stdout.

What is checked, per message kind:

- requests / notifications: the JSON-RPC envelope and the typed definition for `method` in the
  sender's direction (`ClientRequest`, `ServerRequest`, `ClientNotification`, `ServerNotification`).
  A method the revision defines only for the other direction (or only as a notification, or only
  as a request) is an error; a method the revision does not define at all (custom/vendor) gets
  the envelope check only;
- results: the envelope and the typed result of the answered method (`tools/call` ->
  `CallToolResult`, `ping` -> `EmptyResult`, ...; `resultType: "input_required"` ->
  `InputRequiredResult` where the revision's `...ResultResponse` allows it);
- errors: the envelope, plus the typed error definition for codes that have one.

The method -> definition tables are derived from the schema files (`method.const`, the direction
unions, `XRequest` -> `XResult` / `XResultResponse` names, typed errors' `code.const`); only the
methods answered by an empty result are hard-coded.

When no usable revision is known (before negotiation, or an unknown version string), the message
is accepted if it validates under any revision that defines its method (all revisions when none
does).

Schemas live in `<repo root>/../shared/spec/<version>/schema.json`; `MCP_SPEC_DIR` overrides the
directory.
"""

from __future__ import annotations

import json
import numbers
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from jsonschema import validators
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator
from referencing import Registry, Resource

Sender = Literal["server", "client"]

_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
_EMPTY_RESULT_METHODS = frozenset(
    {"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
)
"""Requests the schemas answer with `EmptyResult` (no `XResult` definition to derive it from)."""
_TASK_AUGMENTABLE = frozenset({"tools/call", "sampling/createMessage", "elicitation/create"})
"""Requests that may be answered by `CreateTaskResult` (2025-11-25 tasks)."""
_MAX_SHOWN = 2000


def find_spec_dir() -> Path:
    """The directory holding `<version>/schema.json`: `$MCP_SPEC_DIR`, else `<repo>/../shared/spec`."""
    override = os.environ.get("MCP_SPEC_DIR")
    if override:
        return Path(override)
    return Path(__file__).resolve().parent.parent.parent / "shared" / "spec"


def _ref_target(schema: Any) -> str | None:
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _method_const(definition: Any) -> str | None:
    if not isinstance(definition, dict):
        return None
    method = definition.get("properties", {}).get("method", {})
    const = method.get("const") if isinstance(method, dict) else None
    return const if isinstance(const, str) else None


# -- fast path --------------------------------------------------------------------------------
#
# `jsonschema` costs ~150 µs for a typical MCP message (it re-resolves `$ref`s and builds a child
# validator at every step); the suite sends many thousands. The schemas use a small keyword subset
# (type, const, enum, properties, required, additionalProperties, items, anyOf, allOf, minimum,
# maximum, maxItems, $ref), so each check is also compiled into plain closures (~5 µs) that decide
# valid/invalid. `jsonschema` stays the reference: every rejection is re-validated by it, which
# explains the error (and wins if it accepts), and tests/test_schema_check.py proves both agree on
# thousands of mutated spec examples. A schema using any other keyword is checked by `jsonschema`
# alone; `MCP_WIRE_CHECK_ENGINE=jsonschema` turns the fast path off.

Check = Callable[[Any], bool]

_ANNOTATIONS = frozenset(
    {
        "description",
        "title",
        "default",
        "examples",
        "format",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)
"""Keywords that never reject (`format` is an annotation: jsonschema asserts it only with a checker)."""


class _Unsupported(Exception):
    """A schema keyword the fast path does not implement."""


def _is_integer(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    return isinstance(x, int) or (isinstance(x, float) and x.is_integer())


_TYPE_TESTS: dict[str, Check] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "integer": _is_integer,
    "number": lambda x: isinstance(x, numbers.Number) and not isinstance(x, bool),
}


def _equal(one: Any, two: Any) -> bool:
    """JSON equality as jsonschema defines it (booleans are not numbers)."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return one.keys() == two.keys() and all(_equal(one[k], two[k]) for k in one)
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    return bool(one == two)


def _always(_: Any) -> bool:
    return True


def _conjunction(checks: list[Check]) -> Check:
    if len(checks) == 2:
        first, second = checks
        return lambda x: first(x) and second(x)

    def check(x: Any) -> bool:
        for c in checks:  # noqa: SIM110 - a plain loop is much faster than all(<generator>)
            if not c(x):
                return False
        return True

    return check


def _each(item: Check) -> Check:
    def check(x: Any) -> bool:
        if isinstance(x, list):
            for value in x:
                if not item(value):
                    return False
        return True

    return check


def _disjunction(checks: list[Check]) -> Check:
    def check(x: Any) -> bool:
        for c in checks:  # noqa: SIM110 - a plain loop is much faster than any(<generator>)
            if c(x):
                return True
        return False

    return check


class _Compiler:
    """Compiles one schema document's definitions into closures (see the section comment)."""

    def __init__(self, defs: dict[str, Any], uri: str, defs_key: str, ref_overrides_siblings: bool) -> None:
        self._defs = defs
        self._prefixes = (f"{uri}#/{defs_key}/", f"#/{defs_key}/")
        self._ref_only = ref_overrides_siblings
        self._done: dict[str, Check] = {}

    def definition(self, name: str) -> Check:
        done = self._done.get(name)
        if done is None:
            if name not in self._defs:
                raise _Unsupported(f"unknown definition {name}")
            cell: list[Check] = []
            self._done[name] = lambda x: cell[0](x)  # recursion: bound once compiled
            try:
                cell.append(self.compile(self._defs[name]))
            except _Unsupported:
                del self._done[name]
                raise
            done = self._done[name] = cell[0]
        return done

    def compile(self, schema: Any) -> Check:
        if schema is True or schema == {}:
            return _always
        if not isinstance(schema, dict):
            raise _Unsupported(f"schema {schema!r}")
        checks: list[Check] = []
        ref = schema.get("$ref")
        if ref is not None:
            name = next(
                (ref[len(p) :] for p in self._prefixes if isinstance(ref, str) and ref.startswith(p)), None
            )
            if name is None or "/" in name:
                raise _Unsupported(f"$ref {ref!r}")
            target = self.definition(name)
            if self._ref_only:
                return target
            checks.append(target)
        unknown = set(schema) - _ANNOTATIONS - {
            "$ref", "type", "const", "enum", "properties", "required", "additionalProperties",
            "items", "anyOf", "allOf", "minimum", "maximum", "maxItems",
        }  # fmt: skip
        if unknown:
            raise _Unsupported(", ".join(sorted(unknown)))
        if "type" in schema:
            names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            unknown_types = [n for n in names if n not in _TYPE_TESTS]
            if unknown_types:
                raise _Unsupported(f"type {unknown_types}")
            tests = [_TYPE_TESTS[n] for n in names]
            checks.append(tests[0] if len(tests) == 1 else _disjunction(tests))
        if "const" in schema:
            const = schema["const"]
            if isinstance(const, str):
                checks.append(lambda x: isinstance(x, str) and x == const)
            else:
                checks.append(lambda x: _equal(x, const))
        if "enum" in schema:
            options = list(schema["enum"])
            checks.append(lambda x: any(_equal(x, o) for o in options))
        if {"properties", "required", "additionalProperties"} & schema.keys():
            checks.append(self._object(schema))
        if "items" in schema:
            if not isinstance(schema["items"], (dict, bool)):
                raise _Unsupported("tuple items")
            item = self.compile(schema["items"])
            if item is not _always:
                checks.append(_each(item))
        if "maxItems" in schema:
            most = schema["maxItems"]
            checks.append(lambda x: not isinstance(x, list) or len(x) <= most)
        for bound, holds in (("minimum", lambda x, b: x >= b), ("maximum", lambda x, b: x <= b)):
            if bound in schema:
                checks.append(
                    lambda x, b=schema[bound], holds=holds: (
                        not isinstance(x, numbers.Number) or isinstance(x, bool) or holds(x, b)
                    )
                )
        if "anyOf" in schema:
            options_any = [self.compile(s) for s in schema["anyOf"]]
            checks.append(_disjunction(options_any))
        if "allOf" in schema:
            checks.extend(self.compile(s) for s in schema["allOf"])
        if not checks:
            return _always
        if len(checks) == 1:
            return checks[0]
        return _conjunction(checks)

    def _object(self, schema: dict[str, Any]) -> Check:
        props = {k: self.compile(v) for k, v in schema.get("properties", {}).items()}
        props = {k: v for k, v in props.items() if v is not _always}
        required = tuple(schema.get("required", ()))
        extra_schema = schema.get("additionalProperties", True)
        if extra_schema is False:
            extra: Check | None = None
            closed = True
        else:
            extra = self.compile(extra_schema)
            closed = False
            if extra is _always:
                extra = None
        known = frozenset(schema.get("properties", {}))

        def check(x: Any) -> bool:
            if not isinstance(x, dict):
                return True
            for key in required:
                if key not in x:
                    return False
            for key, value in x.items():
                prop = props.get(key)
                if prop is not None:
                    if not prop(value):
                        return False
                elif key not in known and (closed or (extra is not None and not extra(value))):
                    return False
            return True

        return check


@dataclass
class _Plan:
    """One check of a whole message: a label, the reference validator and its fast path."""

    label: str
    validator: Validator
    fast: Check | None


@dataclass
class _Revision:
    """One protocol revision's schema, its derived tables and its compiled validators."""

    version: str
    doc: dict[str, Any]
    defs_key: str = field(init=False)
    defs: dict[str, Any] = field(init=False)
    registry: Registry[Any] = field(init=False)
    validator_class: Any = field(init=False)
    methods: dict[tuple[str, str], str] = field(init=False)
    """(sender + kind, method) -> typed definition, e.g. ("client request", "tools/call")."""
    known_methods: frozenset[str] = field(init=False)
    results: dict[str, tuple[str, ...]] = field(init=False)
    """Answered method -> allowed typed result definitions."""
    errors: dict[int, tuple[str, bool]] = field(init=False)
    """Error code -> (definition, whether it describes the whole message rather than `error`)."""
    plans: dict[tuple[Any, ...], _Plan] = field(init=False, default_factory=dict)
    compiler: _Compiler = field(init=False)

    def __post_init__(self) -> None:
        self.defs_key = "$defs" if "$defs" in self.doc else "definitions"
        self.defs = self.doc[self.defs_key]
        self.validator_class = validators.validator_for(self.doc)
        self.registry = Registry().with_resource(self._uri, Resource.from_contents(self.doc))
        self.compiler = _Compiler(
            self.defs, self._uri, self.defs_key, ref_overrides_siblings=self.defs_key == "definitions"
        )
        self._derive_tables()

    @property
    def _uri(self) -> str:
        return f"urn:mcp-schema:{self.version}"

    def ref(self, name: str) -> dict[str, str]:
        return {"$ref": f"{self._uri}#/{self.defs_key}/{name}"}

    # -- derived tables -----------------------------------------------------------------------

    def _union_members(self, union: str) -> list[str]:
        definition = self.defs.get(union)
        if definition is None:
            return []
        if "anyOf" in definition:
            return [name for name in map(_ref_target, definition["anyOf"]) if name]
        target = _ref_target(definition)
        if target:
            return [target]
        return [union] if _method_const(definition) else []

    def _derive_tables(self) -> None:
        self.methods = {}
        for sender in ("client", "server"):
            for kind in ("Request", "Notification"):
                for name in self._union_members(f"{sender.capitalize()}{kind}"):
                    method = _method_const(self.defs.get(name))
                    if method:
                        self.methods[(f"{sender} {kind.lower()}", method)] = name
        request_defs = {
            name: method
            for name, definition in self.defs.items()
            if name.endswith(("Request", "Notification")) and (method := _method_const(definition))
        }
        self.known_methods = frozenset(request_defs.values())

        self.results = {}
        for name, method in request_defs.items():
            if not name.endswith("Request"):
                continue
            base = name[: -len("Request")]
            response = self.defs.get(f"{base}ResultResponse")
            if response is not None:
                result_schema = response.get("properties", {}).get("result", {})
                members = [_ref_target(s) for s in result_schema.get("anyOf", [result_schema])]
                self.results[method] = tuple(m for m in members if m)
            elif f"{base}Result" in self.defs:
                self.results[method] = (f"{base}Result",)
            elif method in _EMPTY_RESULT_METHODS:
                self.results[method] = ("EmptyResult" if "EmptyResult" in self.defs else "Result",)

        self.errors = {}
        for name, definition in self.defs.items():
            props = definition.get("properties", {}) if isinstance(definition, dict) else {}
            error = props.get("error")
            if isinstance(error, dict):
                for part in error.get("allOf", []):
                    code = part.get("properties", {}).get("code", {}).get("const")
                    if isinstance(code, int):
                        self.errors[code] = (name, True)
            elif name != "Error" and "message" in props:
                code = props.get("code", {}).get("const")
                if isinstance(code, int):
                    self.errors.setdefault(code, (name, False))

    def envelope(self, kind: str) -> str:
        if kind == "request":
            return "JSONRPCRequest"
        if kind == "notification":
            return "JSONRPCNotification"
        if kind == "result":
            return "JSONRPCResultResponse" if "JSONRPCResultResponse" in self.defs else "JSONRPCResponse"
        if kind == "error":
            return "JSONRPCErrorResponse" if "JSONRPCErrorResponse" in self.defs else "JSONRPCError"
        return "JSONRPCMessage"

    # -- plans --------------------------------------------------------------------------------

    def compile(self, key: tuple[Any, ...], label: str, parts: list[dict[str, Any]]) -> _Plan:
        schema: dict[str, Any] = parts[0] if len(parts) == 1 else {"allOf": parts}
        fast: Check | None = None
        if os.environ.get("MCP_WIRE_CHECK_ENGINE", "fast") != "jsonschema":
            try:
                fast = self.compiler.compile(schema)
            except _Unsupported:
                fast = None
        plan = _Plan(label, self.validator_class(schema, registry=self.registry), fast)
        self.plans[key] = plan
        return plan

    def plan(self, sender: Sender, message: dict[str, Any], kind: str, answered: str | None) -> _Plan | str:
        """The check for `message`, or a string describing why it cannot be valid at all."""
        envelope = self.envelope(kind)
        if kind in ("request", "notification"):
            method = message.get("method")
            if not isinstance(method, str):
                method = None
            key: tuple[Any, ...] = (sender, kind, method)
            cached = self.plans.get(key)
            if cached is not None:
                return cached
            typed = self.methods.get((f"{sender} {kind}", method)) if method else None
            if typed is None:
                if method in self.known_methods:
                    return self._wrong_direction(sender, kind, method)
                return self.compile(key, envelope, [self.ref(envelope)])
            return self.compile(key, f"{envelope} + {typed}", [self.ref(envelope), self.ref(typed)])
        if kind == "result":
            result = message.get("result")
            result_type = result.get("resultType") if isinstance(result, dict) else None
            has_task = isinstance(result, dict) and "task" in result
            key = ("result", answered, result_type == "input_required", has_task)
            cached = self.plans.get(key)
            if cached is not None:
                return cached
            typed = self._result_definition(answered, result_type, has_task)
            if typed is None:
                return self.compile(key, envelope, [self.ref(envelope)])
            return self.compile(
                key,
                f"{envelope} + result: {typed}",
                [self.ref(envelope), {"properties": {"result": self.ref(typed)}}],
            )
        if kind == "error":
            error = message.get("error")
            code = error.get("code") if isinstance(error, dict) else None
            key = ("error", code if type(code) is int else None)
            cached = self.plans.get(key)
            if cached is not None:
                return cached
            typed_error = self.errors.get(code) if type(code) is int else None
            if typed_error is None:
                return self.compile(key, envelope, [self.ref(envelope)])
            name, whole = typed_error
            typed_part = self.ref(name) if whole else {"properties": {"error": self.ref(name)}}
            label = f"{envelope} + {name}" if whole else f"{envelope} + error: {name}"
            return self.compile(key, label, [self.ref(envelope), typed_part])
        if "result" in message and "error" in message:
            return "a response carries both `result` and `error`"
        key = ("invalid",)
        return self.plans.get(key) or self.compile(key, "JSONRPCMessage", [self.ref("JSONRPCMessage")])

    def _result_definition(self, answered: str | None, result_type: Any, has_task: bool) -> str | None:
        if answered is None:
            return None
        allowed = self.results.get(answered)
        if not allowed:
            return None
        if has_task and answered in _TASK_AUGMENTABLE and "CreateTaskResult" in self.defs:
            return "CreateTaskResult"
        if "InputRequiredResult" in allowed and len(allowed) > 1:
            if result_type == "input_required":
                return "InputRequiredResult"
            return next(name for name in allowed if name != "InputRequiredResult")
        return next(iter(allowed))

    def _wrong_direction(self, sender: Sender, kind: str, method: str) -> str:
        where = sorted(k for (k, m) in self.methods if m == method)
        return (
            f"{method!r} is not a {sender} {kind} in {self.version}"
            f" (the schema defines it as: {', '.join(where) or 'an embedded object only'})"
        )

    def knows(self, method: str | None) -> bool:
        return method in self.known_methods


def _kind(message: dict[str, Any]) -> str:
    if "method" in message:
        return "request" if "id" in message else "notification"
    if "result" in message and "error" not in message:
        return "result"
    if "error" in message and "result" not in message:
        return "error"
    return "invalid"


def _describe(error: ValidationError) -> str:
    return f"at {error.json_path}: {error.message}"


def _shown(message: Any) -> str:
    text = json.dumps(message, default=repr, ensure_ascii=False)
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "...(truncated)"


class WireChecker:
    """Validates MCP messages against the schema of their protocol revision (see module docs)."""

    def __init__(self, spec_dir: Path | None = None) -> None:
        self.spec_dir = spec_dir or find_spec_dir()
        if not self.spec_dir.is_dir():
            raise FileNotFoundError(
                f"MCP schema directory {self.spec_dir} not found: put the spec next to the repository"
                " (../shared/spec) or set MCP_SPEC_DIR"
            )
        self.versions: tuple[str, ...] = tuple(
            sorted((p.parent.name for p in self.spec_dir.glob("*/schema.json")), reverse=True)
        )
        if not self.versions:
            raise FileNotFoundError(f"no <version>/schema.json under {self.spec_dir}")
        self._revisions: dict[str, _Revision] = {}

    def revision(self, version: str) -> _Revision:
        revision = self._revisions.get(version)
        if revision is None:
            doc = json.loads((self.spec_dir / version / "schema.json").read_text(encoding="utf-8"))
            revision = self._revisions[version] = _Revision(version, doc)
        return revision

    # -- one message --------------------------------------------------------------------------

    def check(
        self, sender: Sender, message: Any, version: str | None, request_method: str | None = None
    ) -> None:
        """Raise `AssertionError` if `message` (sent by `sender`) is invalid for `version`.

        `request_method` is the method a response answers. `version` may be None or "" before
        negotiation; see the module docstring for how the revision is then chosen."""
        if type(message) is not dict:
            raise AssertionError(f"{sender} sent a non-object JSON-RPC message: {_shown(message)}")
        kind = _kind(message)
        version = self._effective_version(message, kind, version, request_method)
        if version is not None:
            problem = self._check_in(self.revision(version), sender, message, kind, request_method)
            if problem is not None:
                raise AssertionError(
                    f"invalid {sender} message for MCP {version}: {problem}\n  message: {_shown(message)}"
                )
            return
        method = message.get("method") if kind in ("request", "notification") else request_method
        candidates = [self.revision(v) for v in self.versions]
        knowing = [r for r in candidates if r.knows(method)]
        problems: list[str] = []
        for revision in knowing or candidates:
            problem = self._check_in(revision, sender, message, kind, request_method)
            if problem is None:
                return
            problems.append(f"{revision.version}: {problem}")
        raise AssertionError(
            f"invalid {sender} message under every candidate MCP revision (none negotiated):\n    "
            + "\n    ".join(problems)
            + f"\n  message: {_shown(message)}"
        )

    def _effective_version(
        self, message: dict[str, Any], kind: str, version: str | None, request_method: str | None
    ) -> str | None:
        if kind == "request" and message.get("method") == "initialize":
            params = message.get("params")
            version = params.get("protocolVersion") if isinstance(params, dict) else None
        elif kind == "result" and request_method == "initialize":
            result = message.get("result")
            version = result.get("protocolVersion") if isinstance(result, dict) else None
        elif not version and kind in ("request", "notification"):
            params = message.get("params")
            meta = params.get("_meta") if isinstance(params, dict) else None
            version = meta.get(_VERSION_META_KEY) if isinstance(meta, dict) else None
        return version if isinstance(version, str) and version in self.versions else None

    def _check_in(
        self, revision: _Revision, sender: Sender, message: dict[str, Any], kind: str, answered: str | None
    ) -> str | None:
        plan = revision.plan(sender, message, kind, answered)
        if isinstance(plan, str):
            return plan
        if plan.fast(message) if plan.fast is not None else plan.validator.is_valid(message):
            return None
        errors = list(plan.validator.iter_errors(message))
        best = best_match(errors)
        if best is None:
            return None  # the reference validator accepts it
        details = [_describe(best)]
        for error in errors:
            text = _describe(error)
            if text not in details and len(details) < 5:
                details.append(text)
        return f"{plan.label}: " + "; ".join(details)

    # -- transcripts --------------------------------------------------------------------------

    def check_lines(
        self,
        lines: Iterable[bytes | str],
        sender: Sender,
        version: str | None = None,
        *,
        peer_lines: Iterable[bytes | str | dict[str, Any]] = (),
    ) -> list[Any]:
        """Validate a newline-delimited transcript that `sender` wrote; return the parsed messages.

        Responses in `lines` are matched to the requests that `peer_lines` (what the other side
        sent, e.g. the test's writes to the subprocess's stdin) carry; a response to an id not
        seen there gets the envelope check only. Without `version`, the `protocolVersion` of an
        `initialize` result in `lines` is used from then on. Blank lines are skipped; any
        other line must be one JSON-RPC message. All problems are raised together."""
        answered: dict[Any, str] = {}
        for item in peer_lines:
            for peer_message in _parse_items(item):
                if (
                    isinstance(peer_message, dict)
                    and isinstance(peer_message.get("method"), str)
                    and "id" in peer_message
                ):
                    answered[_id_key(peer_message["id"])] = peer_message["method"]
        parsed: list[Any] = []
        problems: list[str] = []
        for number, line in enumerate(lines, 1):
            text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
            if not text.strip():
                continue
            try:
                value = json.loads(text)
            except ValueError as exc:
                problems.append(f"line {number}: not JSON ({exc}): {text[:200]!r}")
                continue
            parsed.append(value)
            if isinstance(value, list):
                if version is not None and "JSONRPCBatchRequest" not in self.revision(version).defs:
                    problems.append(f"line {number}: batches are not allowed in MCP {version}")
                batch: list[Any] = value
            else:
                batch = [value]
            for message in batch:
                method = None
                if isinstance(message, dict) and "method" not in message:
                    method = answered.get(_id_key(message.get("id")))
                try:
                    self.check(sender, message, version, method)
                except AssertionError as exc:
                    problems.append(f"line {number}: {exc}")
                if version is None and method == "initialize" and isinstance(message.get("result"), dict):
                    negotiated = message["result"].get("protocolVersion")
                    if negotiated in self.versions:
                        version = negotiated
        if problems:
            raise AssertionError(f"{len(problems)} invalid {sender} line(s):\n" + "\n".join(problems))
        return parsed


def _id_key(request_id: Any) -> Any:
    return (type(request_id).__name__, request_id) if isinstance(request_id, (str, int)) else None


def _parse_items(item: bytes | str | dict[str, Any]) -> Iterator[Any]:
    if isinstance(item, dict):
        yield item
        return
    text = item.decode("utf-8", "replace") if isinstance(item, bytes) else item
    for line in re.split(r"\r\n|\r|\n", text):  # not splitlines(): JSON may carry U+2028 etc.
        if line.strip():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            yield from value if isinstance(value, list) else [value]


@lru_cache(maxsize=1)
def default_checker() -> WireChecker:
    """The process-wide checker (its compiled validators are shared by all tests)."""
    return WireChecker()


def check_message(
    sender: Sender, message: Any, version: str | None, request_method: str | None = None
) -> None:
    """`WireChecker.check` on the default checker."""
    default_checker().check(sender, message, version, request_method)


def check_lines(
    lines: Iterable[bytes | str],
    sender: Sender,
    version: str | None = None,
    *,
    peer_lines: Iterable[bytes | str | dict[str, Any]] = (),
) -> list[Any]:
    """`WireChecker.check_lines` on the default checker."""
    return default_checker().check_lines(lines, sender, version, peer_lines=peer_lines)
