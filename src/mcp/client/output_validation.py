"""Checking structured tool output against the tool's declared output schema.

JSON Schema 2020-12 unless the schema's `$schema` names another dialect. `jsonschema` is imported
here only, the first time a tool with an output schema is called.

The server writes both the schema and the output, so a hostile or careless one could hand its
client a `pattern` that backtracks catastrophically (`^(a+)+$` against a long string takes Python's
`re` longer than the age of the universe). `pattern` and `patternProperties` are therefore matched
by the linear-time engine pydantic-core ships (Rust `regex`: time linear in the string); a pattern
that engine cannot compile (lookaround, backreferences) falls back to Python's `re`, as before.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any, cast


def compile_validator(schema: dict[str, Any]) -> Callable[[Any], str | None]:
    """Return `check(instance) -> None | error message`, compiled once per schema."""
    import jsonschema
    import jsonschema.exceptions
    import jsonschema.validators

    base = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls = _linear_dialect(base)
    validator = cls(schema)

    def check(instance: Any) -> str | None:
        error = cast(
            "jsonschema.exceptions.ValidationError | None",
            jsonschema.exceptions.best_match(validator.iter_errors(instance)),  # pyright: ignore[reportUnknownMemberType]
        )
        if error is None:
            return None
        where = "/".join(str(p) for p in error.absolute_path)
        return f"{error.message}" + (f" (at /{where})" if where else "")

    return check


@functools.cache
def _linear_dialect(base: Any) -> Any:
    """`base` (a jsonschema validator class) with `pattern` / `patternProperties` matched by
    `linear_search`; other keywords, error texts included, are the dialect's own."""
    import jsonschema.exceptions
    import jsonschema.validators

    validators: dict[str, Any] = dict(base.VALIDATORS)

    def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "string") and not linear_search(patrn)(instance):
            yield jsonschema.exceptions.ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        for patrn, subschema in patterns.items():
            search = linear_search(patrn)
            for key, value in instance.items():
                if search(key):
                    yield from validator.descend(value, subschema, path=key, schema_path=patrn)

    if "pattern" in validators:
        validators["pattern"] = pattern
    if "patternProperties" in validators:
        validators["patternProperties"] = pattern_properties
    extend: Any = jsonschema.validators.extend  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return extend(base, validators)


@functools.lru_cache(maxsize=256)
def linear_search(pattern: str) -> Callable[[str], bool]:
    """`text -> bool`: does `pattern` match somewhere in `text` (JSON Schema's unanchored
    semantics), in time linear in `text` when the linear engine compiles `pattern`."""
    from pydantic_core import SchemaError, SchemaValidator, core_schema

    try:
        return SchemaValidator(core_schema.str_schema(pattern=pattern)).isinstance_python
    except SchemaError:
        compiled = re.compile(pattern)
        return lambda text: compiled.search(text) is not None
