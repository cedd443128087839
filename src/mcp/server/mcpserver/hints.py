"""Reading what a function declares, for every kind of registered function (tools, resources,
prompts, resolvers, completion handlers): its type hints resolved (string annotations included),
whether a parameter is the `Context`, and whether calling it gives an awaitable. The bottom of the
`mcpserver` signature machinery: it imports none of it, so `signature` and `dependencies` both
build on it without importing each other."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from mcp.shared.exceptions import InvalidSignature

__all__ = ["is_async_callable", "is_context_annotation", "resolve_hints"]


def is_context_annotation(annotation: Any) -> bool:
    module = sys.modules.get("mcp.server.mcpserver.context")
    if module is None:  # nothing can be annotated with a class no one has imported
        return False
    Context = module.Context

    target = get_origin(annotation) or annotation
    if target is Annotated:
        target = get_origin(get_args(annotation)[0]) or get_args(annotation)[0]
    return inspect.isclass(target) and issubclass(target, Context)


class _AnnotationsOnly:
    """What `get_type_hints` needs of a function, minus its defaults: on Python 3.10 a parameter
    defaulting to None gets an implicit `Optional[...]` around its hint (3.11 dropped that), which
    moves `Annotated` metadata such as `json_schema_extra` one level down in the schema."""

    def __init__(self, fn: Any) -> None:
        self.__annotations__ = getattr(fn, "__annotations__", {})
        self.__wrapped__ = fn  # where get_type_hints finds the globals


def resolve_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    target: Any = fn if inspect.isfunction(fn) or inspect.ismethod(fn) else getattr(fn, "__call__", fn)  # noqa: B004
    if sys.version_info < (3, 11):
        target = _AnnotationsOnly(getattr(target, "__func__", target))
    try:
        return get_type_hints(target, include_extras=True)
    except NameError as exc:
        # String annotations naming classes local to the function that registers the handler
        # (common in tests): look them up in the registering frames' locals.
        frame = inspect.currentframe()
        frame = frame.f_back if frame is not None else None  # the caller's: the walk starts above it
        for _ in range(12):
            frame = frame.f_back if frame is not None else None
            if frame is None:
                break
            try:
                return get_type_hints(target, localns=dict(frame.f_locals), include_extras=True)
            except NameError:
                continue
        raise InvalidSignature(f"Cannot resolve the type hints of {getattr(fn, '__name__', fn)!r}: {exc}") from exc
    except Exception as exc:
        raise InvalidSignature(f"Cannot resolve the type hints of {getattr(fn, '__name__', fn)!r}: {exc}") from exc


def is_async_callable(fn: Any) -> bool:
    while hasattr(fn, "func") and not inspect.isfunction(fn):  # functools.partial
        fn = fn.func
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))  # noqa: B004
