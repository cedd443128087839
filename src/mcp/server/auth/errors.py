"""Turning a pydantic `ValidationError` into the one-line-per-problem text that OAuth error
responses carry in `error_description`."""

from __future__ import annotations

from pydantic import ValidationError


def stringify_pydantic_error(validation_error: ValidationError) -> str:
    """`"<dotted.location>: <message>"` for each error, newline-separated."""
    lines: list[str] = []
    for problem in validation_error.errors():
        location = ".".join(str(part) for part in problem["loc"])
        lines.append(f"{location}: {problem['msg']}")
    return "\n".join(lines)


__all__ = ["stringify_pydantic_error"]
