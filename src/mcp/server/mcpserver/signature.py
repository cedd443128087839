"""From a Python function to an MCP handler: its arguments model (the input schema) and where a
`Context` goes. Built once, at registration; the call path only validates and calls."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from mcp.shared.exceptions import InvalidSignature


class ArgModelBase(BaseModel):
    """Base of generated `<fn>Arguments` models."""

    model_config = ConfigDict(arbitrary_types_allowed=True, validate_by_name=True, validate_by_alias=True)


@dataclass(slots=True)
class Signature:
    """What registration learned about a function."""

    fn: Callable[..., Any]
    arguments_model: type[ArgModelBase]
    context_param: str | None
    renamed: tuple[tuple[str, str], ...]
    """(field name, parameter name) where a parameter shadows a BaseModel attribute."""
    return_annotation: Any
    is_async: bool
    hints: dict[str, Any]
    resolvers: Any = None
    """The compiled `Resolve(...)` graph (`dependencies.ResolverGraph`), or None."""

    @property
    def needs_context(self) -> bool:
        return self.context_param is not None or self.resolvers is not None


def is_context_annotation(annotation: Any) -> bool:
    from mcp.server.mcpserver.context import Context

    target = get_origin(annotation) or annotation
    if target is Annotated:
        target = get_origin(get_args(annotation)[0]) or get_args(annotation)[0]
    return inspect.isclass(target) and issubclass(target, Context)


def resolve_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    target: Any = fn if inspect.isfunction(fn) or inspect.ismethod(fn) else getattr(fn, "__call__", fn)  # noqa: B004
    try:
        return get_type_hints(target, include_extras=True)
    except NameError as exc:
        # String annotations naming classes local to the function that registers the handler
        # (common in tests): look them up in the registering frames' locals.
        frame = sys._getframe(1)
        for _ in range(12):
            frame = frame.f_back  # type: ignore[assignment]
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


def inspect_function(fn: Callable[..., Any], name: str, *, skip: frozenset[str] = frozenset(),
                     free_form: bool = False) -> Signature:
    """Build the arguments model `<name>Arguments` from the signature of `fn`."""
    hints = resolve_hints(fn)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise InvalidSignature(f"Cannot inspect the signature of {name!r}: {exc}") from exc
    from mcp.server.mcpserver.dependencies import compile_graph, resolve_marker

    fields: dict[str, Any] = {}
    renamed: list[tuple[str, str]] = []
    resolved: dict[str, Any] = {}
    context_param: str | None = None
    for param in sig.parameters.values():
        if param.name in skip:
            continue
        annotation = hints.get(param.name, Any)
        if is_context_annotation(annotation):
            context_param = param.name
            continue
        marker = resolve_marker(annotation)
        if marker is not None:
            resolved[param.name] = marker
            continue
        if free_form and param.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise InvalidSignature(f"Function {name!r}: *args and **kwargs parameters are not supported")
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise InvalidSignature(f"Function {name!r}: positional-only parameter {param.name!r} is not supported")
        if param.name.startswith("_"):
            raise InvalidSignature(f"Function {name!r}: parameter {param.name!r} may not start with an underscore")
        default = ... if param.default is inspect.Parameter.empty else param.default
        field_name = param.name
        if hasattr(BaseModel, param.name):
            field_name = f"{param.name}__field"
            annotation = Annotated[annotation, Field(alias=param.name)]
            renamed.append((field_name, param.name))
        fields[field_name] = (annotation, default)
    model = create_model(f"{name}Arguments", __base__=ArgModelBase, **fields)
    graph = compile_graph(name, resolved, set(sig.parameters) - set(resolved)) if resolved else None
    return Signature(
        fn=fn,
        arguments_model=model,
        context_param=context_param,
        renamed=tuple(renamed),
        return_annotation=hints.get("return", inspect.Signature.empty)
        if "return" in hints or sig.return_annotation is inspect.Signature.empty
        else sig.return_annotation,
        is_async=is_async_callable(fn),
        hints=hints,
        resolvers=graph,
    )


def input_schema(signature: Signature) -> dict[str, Any]:
    return signature.arguments_model.model_json_schema(by_alias=True)
