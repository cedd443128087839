"""Finding and filling a function's `Context` parameter (the rule registration uses)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args

from mcp.server.mcpserver.hints import is_context_annotation, resolve_hints


def find_context_parameter(fn: Callable[..., Any]) -> str | None:
    """The name of the parameter annotated with `Context` (or `Context | None`, ...), or None."""
    try:
        hints = resolve_hints(fn)
    except Exception:
        return None
    for name, annotation in hints.items():
        if name == "return":
            continue
        if is_context_annotation(annotation) or any(is_context_annotation(arg) for arg in get_args(annotation)):
            return name
    return None


def inject_context(fn: Callable[..., Any], kwargs: dict[str, Any], context: Any | None,
                   context_kwarg: str | None) -> dict[str, Any]:
    """`kwargs` plus the context under `context_kwarg` (unchanged when either is None)."""
    if context_kwarg is not None and context is not None:
        return {**kwargs, context_kwarg: context}
    return kwargs
