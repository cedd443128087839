"""Checking JSON values from the other side against a JSON Schema, in work bounded by their size.

The one home of JSON Schema keyword evaluation on both sides: the client checks a tool's structured
output against the `outputSchema` the server declared (schema and value both from the peer), and
`MCPServer` checks a client's arguments against a tool's verbatim `input_schema=` (the value from
the peer). JSON Schema 2020-12 unless the schema's `$schema` names another dialect; `jsonschema` is
imported here only, the first time a schema is compiled. Every keyword is the dialect's own, error
texts included, except those whose stock implementation does work beyond linear in the value, or
runs a backtracking regex on it:

- `pattern`, `patternProperties` and `additionalProperties` (which consults `patternProperties`)
  match with the linear-time engine pydantic-core ships (Rust `regex`). A pattern that engine cannot
  compile (lookaround, backreferences) is never handed to Python's backtracking `re`: a schema that
  holds one is *not checkable*. A schema from the peer (`schema_from_peer=True`, the client) is then
  not checked at all, with a warning: a hostile server gains nothing it could not get by declaring
  no schema. A schema of our own (the server's `input_schema=`) fails closed: every value is refused
  with the reason, and a warning names the pattern, so a constraint the tool relies on is never
  silently dropped.
- `uniqueItems` compares canonical, hashable forms of the items (one pass, a set) where the stock
  keyword falls back to comparing every pair (objects: 100 000 of them took minutes).
- `unevaluatedProperties` / `unevaluatedItems` look members up in lists and re-run `re` on property
  names: they apply to at most `UNEVALUATED_LIMIT` members, and a schema where they meet
  `patternProperties` is not checkable (as above).
- `anyOf` / `oneOf` keep at most `MAX_ERRORS` errors of each branch (the stock ones list them all),
  and the check as a whole looks at the first `MAX_ERRORS` errors only: a million wrong items cost
  `MAX_ERRORS` error objects, not a million.

An error text longer than `MAX_MESSAGE_CHARS` (it quotes the value: a 4 MiB array would be quoted
whole) keeps its ends and says how much of its middle was left out; shorter ones are the dialect's own, unchanged.
"""

from __future__ import annotations

import functools
import itertools
import logging
from collections.abc import Callable, Iterator
from typing import Any, cast

logger = logging.getLogger("mcp.json_schema")

MAX_ERRORS = 100
"""Errors looked at per check (and per `anyOf`/`oneOf` branch) to choose the one reported."""
MAX_MESSAGE_CHARS = 16_384
"""Longest error text reported whole."""
UNEVALUATED_LIMIT = 1_000
"""Most members `unevaluatedProperties` / `unevaluatedItems` are applied to (their stock
implementation is quadratic in the member count)."""

Check = Callable[[Any], "str | None"]


def compile_validator(schema: dict[str, Any], *, schema_from_peer: bool = True) -> Check:
    """Return `check(instance) -> None | error message`, compiled once per schema.

    `schema_from_peer`: who wrote the schema. True (the client checking a server's output schema):
    a schema that cannot be checked in bounded work is not checked (warned once). False (a server
    checking arguments against its own schema): such a schema refuses every value, with the reason."""
    import jsonschema
    import jsonschema.exceptions
    import jsonschema.validators

    base = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    reason = not_checkable(schema)
    if reason is not None:
        if schema_from_peer:
            logger.warning("Not checking values against a schema from the peer: %s", reason)
            return _accept_all
        logger.warning("Every value will be refused: %s", reason)
        refusal = f"cannot be checked safely: {reason}"
        return lambda instance: refusal
    validator = _bounded_dialect(base, schema_from_peer)(schema)

    def check(instance: Any) -> str | None:
        try:
            error = cast(
                "jsonschema.exceptions.ValidationError | None",
                jsonschema.exceptions.best_match(  # pyright: ignore[reportUnknownMemberType]
                    itertools.islice(validator.iter_errors(instance), MAX_ERRORS)),  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
            )
        except RecursionError:
            return "the value is nested too deeply to be checked"
        if error is None:
            return None
        where = "/".join(str(p) for p in error.absolute_path)
        return bounded_text(f"{error.message}" + (f" (at /{where})" if where else ""))

    return check


OFF_LOOP_ABOVE = 10_000
"""Values holding more JSON values than this are checked on a worker thread (`check_off_loop`)."""


async def check_off_loop(check: Check, instance: Any) -> str | None:
    """`check(instance)`, on a worker thread when `instance` is large: the check is linear but
    pure Python (a million items take seconds), and the event loop must keep serving the other
    requests, and the caller's own timeouts (`read_timeout_seconds`, `fail_after`) must fire."""
    if not has_more_values_than(instance, OFF_LOOP_ABOVE):
        return check(instance)
    from mcp._engine.workers import run_sync

    return await run_sync(check, instance)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def has_more_values_than(value: Any, limit: int) -> bool:
    """Whether the JSON value `value` holds more than `limit` values (itself, items, members),
    in O(`limit`) steps (it runs on every typed tools/call: scalars cost one type lookup)."""
    stack: list[Any] = [value]
    count = 0
    while stack:
        node = stack.pop()
        count += 1
        kind: type[Any] = type(node)  # pyright: ignore[reportUnknownVariableType]
        if kind in _SCALARS:
            continue
        if count > limit:
            return True
        if kind is dict or isinstance(node, dict):
            members = cast("dict[Any, Any]", node)
            if len(members) > limit:
                return True
            stack.extend(members.values())
        elif kind is list or isinstance(node, list | tuple):
            items = cast("list[Any]", node)
            if len(items) > limit:
                return True
            stack.extend(items)
    return count > limit


def _accept_all(instance: Any) -> str | None:
    return None


def bounded_text(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`text`, or its first and last `limit // 2` characters around how many were left out (the
    middle goes: a quoted value's bulk, where the verdict and the location are at the ends)."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}... ({len(text) - 2 * half} characters omitted) ...{text[-half:]}"


_LITERAL_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
"""Keywords whose values are data, not schemas: a `pattern` key inside them is not a keyword."""


def not_checkable(schema: Any) -> str | None:
    """Why `schema` cannot be checked in work bounded by the value's size, or None.

    A `pattern` or `patternProperties` key the linear engine cannot compile (the stock fallback is
    Python's backtracking `re`), or `patternProperties` in a schema that also uses
    `unevaluatedProperties` (whose stock implementation matches property names with `re`)."""
    stack: list[Any] = [schema]
    has_pattern_properties = has_unevaluated = False
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(cast("list[Any]", node))
            continue
        if not isinstance(node, dict):
            continue
        node = cast("dict[str, Any]", node)
        for key, value in node.items():
            if key in _LITERAL_KEYWORDS:
                continue
            if key == "pattern" and isinstance(value, str) and not linear_compiles(value):
                return f"the pattern {value!r} needs a backtracking regex engine"
            if key == "patternProperties" and isinstance(value, dict):
                has_pattern_properties = True
                for patrn in cast("dict[Any, Any]", value):
                    if isinstance(patrn, str) and not linear_compiles(patrn):
                        return f"the pattern {patrn!r} needs a backtracking regex engine"
            if key == "unevaluatedProperties":
                has_unevaluated = True
            stack.append(value)
    if has_pattern_properties and has_unevaluated:
        return "patternProperties with unevaluatedProperties match property names with a backtracking engine"
    return None


@functools.cache
def _bounded_dialect(base: Any, schema_from_peer: bool) -> Any:
    """`base` (a jsonschema validator class) with the keywords above replaced by bounded ones."""
    import jsonschema.exceptions
    import jsonschema.validators

    ValidationError = jsonschema.exceptions.ValidationError
    stock: dict[str, Any] = dict(base.VALIDATORS)
    validators: dict[str, Any] = {}

    def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "string") and not linear_search(patrn)(instance):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        for patrn, subschema in patterns.items():
            search = linear_search(patrn)
            for key, value in instance.items():
                if search(key):
                    yield from validator.descend(value, subschema, path=key, schema_path=patrn)

    def additional_properties(validator: Any, allowed: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        properties = schema.get("properties", {})
        searches = [linear_search(p) for p in schema.get("patternProperties", {})]
        extras = {key for key in instance
                  if key not in properties and not any(search(key) for search in searches)}
        if validator.is_type(allowed, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], allowed, path=extra)
        elif not allowed and extras:
            if "patternProperties" in schema:
                verb = "does" if len(extras) == 1 else "do"
                joined = ", ".join(repr(each) for each in sorted(extras))
                patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
                yield ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
            else:
                names = sorted(extras, key=str)
                verb = "was" if len(names) == 1 else "were"
                listed = ", ".join(repr(name) for name in names)
                yield ValidationError(f"Additional properties are not allowed ({listed} {verb} unexpected)")

    def unique_items(validator: Any, wanted: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if wanted and validator.is_type(instance, "array") and not all_unique(instance):
            yield ValidationError(f"{instance!r} has non-unique elements")

    def branch_errors(validator: Any, instance: Any, subschema: Any, index: int) -> list[Any]:
        return list(itertools.islice(validator.descend(instance, subschema, schema_path=index), MAX_ERRORS))

    def any_of(validator: Any, branches: list[Any], instance: Any, schema: Any) -> Iterator[Any]:
        all_errors: list[Any] = []
        for index, subschema in enumerate(branches):
            errors = branch_errors(validator, instance, subschema, index)
            if not errors:
                return
            all_errors.extend(errors)
        yield ValidationError(f"{instance!r} is not valid under any of the given schemas", context=all_errors)

    def one_of(validator: Any, branches: list[Any], instance: Any, schema: Any) -> Iterator[Any]:
        all_errors: list[Any] = []
        first_valid: Any = None
        rest = iter(enumerate(branches))
        for index, subschema in rest:
            errors = branch_errors(validator, instance, subschema, index)
            if not errors:
                first_valid = subschema
                break
            all_errors.extend(errors)
        else:
            yield ValidationError(f"{instance!r} is not valid under any of the given schemas", context=all_errors)
        more_valid = [each for _, each in rest if validator.evolve(schema=each).is_valid(instance)]
        if more_valid:
            more_valid.append(first_valid)
            reprs = ", ".join(repr(each) for each in more_valid)
            yield ValidationError(f"{instance!r} is valid under each of {reprs}")

    def bounded_unevaluated(keyword: str, kind: str) -> Any:
        original = stock[keyword]

        def unevaluated(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
            if validator.is_type(instance, kind) and len(instance) > UNEVALUATED_LIMIT:
                if not schema_from_peer:
                    yield ValidationError(f"{keyword} cannot be checked on more than {UNEVALUATED_LIMIT} members")
                return
            yield from original(validator, value, instance, schema)

        return unevaluated

    replacements: dict[str, Any] = {
        "pattern": pattern, "patternProperties": pattern_properties, "additionalProperties": additional_properties,
        "uniqueItems": unique_items, "anyOf": any_of, "oneOf": one_of,
        "unevaluatedProperties": bounded_unevaluated("unevaluatedProperties", "object")
        if "unevaluatedProperties" in stock else None,
        "unevaluatedItems": bounded_unevaluated("unevaluatedItems", "array") if "unevaluatedItems" in stock else None,
    }
    for keyword, replacement in replacements.items():
        if keyword in stock and replacement is not None:
            validators[keyword] = replacement
    extend: Any = jsonschema.validators.extend  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return extend(base, validators)


def all_unique(items: list[Any]) -> bool:
    """JSON Schema's `uniqueItems` in one pass: equal values (1 and 1.0 alike, true unlike 1,
    objects whatever their key order) have equal canonical forms, kept in a set."""
    seen: set[Any] = set()
    for item in items:
        form = canonical(item)
        if form in seen:
            return False
        seen.add(form)
    return True


class _Bool:
    """Tag keeping `true`/`false` apart from 1/0 in canonical forms (JSON Schema equality)."""

    __slots__ = ()


_TRUE = (_Bool, True)
_FALSE = (_Bool, False)


def canonical(value: Any) -> Any:
    """A hashable form of a JSON value, equal for values JSON Schema calls equal."""
    if value is True:
        return _TRUE
    if value is False:
        return _FALSE
    if isinstance(value, dict):
        return (dict, frozenset((key, canonical(item)) for key, item in cast("dict[Any, Any]", value).items()))
    if isinstance(value, list | tuple):
        return (list, tuple(canonical(item) for item in cast("list[Any]", value)))
    return value


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> Callable[[str], bool] | None:
    from pydantic_core import SchemaError, SchemaValidator, core_schema

    try:
        return SchemaValidator(core_schema.str_schema(pattern=pattern)).isinstance_python
    except SchemaError:
        return None


def linear_compiles(pattern: str) -> bool:
    """Whether the linear-time engine compiles `pattern`."""
    return _compiled(pattern) is not None


def linear_search(pattern: str) -> Callable[[str], bool]:
    """`text -> bool`: does `pattern` match somewhere in `text` (JSON Schema's unanchored
    semantics), in time linear in `text`. `ValueError` for a pattern the linear engine cannot
    compile: there is no backtracking fallback (`compile_validator` never gets here with one)."""
    search = _compiled(pattern)
    if search is None:
        raise ValueError(f"the pattern {pattern!r} needs a backtracking regex engine")
    return search
