"""Checking structured tool output against the tool's declared output schema.

JSON Schema 2020-12 unless the schema's `$schema` names another dialect. `jsonschema` is imported
here only, the first time a tool with an output schema is called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast


def compile_validator(schema: dict[str, Any]) -> Callable[[Any], str | None]:
    """Return `check(instance) -> None | error message`, compiled once per schema."""
    import jsonschema
    import jsonschema.exceptions
    import jsonschema.validators

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
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
