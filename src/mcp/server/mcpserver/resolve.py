"""The official SDK's module path for resolver markers (`Resolve`, `Elicit`, `Sample`,
`ListRoots`) and elicitation outcomes; they live in `dependencies` and `mcp.server.elicitation`.
Also the two registration-time questions about a function the official module answers."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, get_args, get_origin

from mcp.server.elicitation import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    ElicitationResult,
)
from mcp.server.mcpserver.dependencies import (
    Elicit,
    ListRoots,
    Resolve,
    Sample,
    _wants_full_elicitation,  # pyright: ignore[reportPrivateUsage]
    resolve_marker,
)
from mcp.server.mcpserver.hints import resolve_hints

__all__ = [
    "AcceptedElicitation",
    "CancelledElicitation",
    "DeclinedElicitation",
    "Elicit",
    "ElicitationResult",
    "ListRoots",
    "Resolve",
    "Sample",
    "find_resolved_parameters",
    "returns_input_required",
]


def find_resolved_parameters(fn: Callable[..., Any]) -> dict[str, tuple[Resolve, bool]]:
    """The parameters of `fn` annotated `Annotated[T, Resolve(...)]`: name -> (marker, whether the
    parameter wants the whole elicitation outcome rather than the accepted value)."""
    hints = resolve_hints(fn)
    found: dict[str, tuple[Resolve, bool]] = {}
    for name in inspect.signature(fn).parameters:
        marked = resolve_marker(hints.get(name))
        if marked is not None:
            inner, marker = marked
            found[name] = (marker, _wants_full_elicitation(inner))
    return found


def returns_input_required(fn: Callable[..., Any]) -> bool:
    """Whether `fn`'s return annotation has an `InputRequiredResult` arm."""
    return _has_input_required(resolve_hints(fn).get("return"))


def _has_input_required(annotation: Any) -> bool:
    if get_origin(annotation) is Annotated:
        return _has_input_required(get_args(annotation)[0])
    value = getattr(annotation, "__value__", None)  # a type alias
    if value is not None:
        return _has_input_required(value)
    if getattr(annotation, "__name__", None) == "InputRequiredResult":
        from mcp.types import InputRequiredResult

        return annotation is InputRequiredResult
    return any(_has_input_required(arg) for arg in get_args(annotation))
