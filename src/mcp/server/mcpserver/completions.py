"""Argument completion (`@mcp.completion()`): the server's one completion handler.

The handler is `async (ref, argument, context) -> Completion | None`; `RegisteredCompletion`
wraps it into what `completion/complete` answers: a `CompleteResult`, with `None` meaning "no
suggestions" (an empty list, never an error) and at most 100 values, as the spec allows.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeAlias, cast

from mcp._engine.workers import run_sync
from mcp.server.mcpserver.hints import is_async_callable
from mcp.types import (
    CompleteResult,
    Completion,
    CompletionArgument,
    CompletionContext,
    PromptReference,
    ResourceTemplateReference,
)

__all__ = ["MAX_COMPLETION_VALUES", "CompletionHandler", "RegisteredCompletion", "to_complete_result"]

MAX_COMPLETION_VALUES = 100
"""The spec's cap on `completion.values` per response."""

CompletionHandler: TypeAlias = Callable[
    [PromptReference | ResourceTemplateReference, CompletionArgument, CompletionContext | None],
    Awaitable[Completion | None],
]
"""What `@mcp.completion()` decorates."""


class RegisteredCompletion:
    """The registered completion handler, callable as the `completion/complete` handler body."""

    __slots__ = ("_is_async", "fn")

    def __init__(self, fn: CompletionHandler | Callable[..., Any]) -> None:
        self.fn = fn
        self._is_async = is_async_callable(fn)

    async def complete(
        self,
        ref: PromptReference | ResourceTemplateReference | dict[str, Any],
        argument: CompletionArgument | dict[str, Any],
        context: CompletionContext | dict[str, Any] | None = None,
    ) -> CompleteResult:
        """Call the handler and return its answer as a `CompleteResult`.

        `ref`, `argument` and `context` may also be given as plain dicts; the handler always
        receives the models. Exceptions raised by the handler propagate.
        """
        ref = _ref(ref)
        if isinstance(argument, dict):
            argument = CompletionArgument.model_validate(argument)
        if isinstance(context, dict):
            context = CompletionContext.model_validate(context)
        value: Any
        if self._is_async:
            value = await self.fn(ref, argument, context)
        else:
            value = await run_sync(functools.partial(self.fn, ref, argument, context))
        if inspect.isawaitable(value):
            value = await value
        return to_complete_result(value)

    __call__ = complete


def _ref(ref: Any) -> PromptReference | ResourceTemplateReference:
    if not isinstance(ref, dict):
        return ref
    ref = cast("dict[str, Any]", ref)
    if ref.get("type") == "ref/resource":
        return ResourceTemplateReference.model_validate(ref)
    return PromptReference.model_validate(ref)


def to_complete_result(value: Any) -> CompleteResult:
    """What a completion handler returned, as a `CompleteResult`.

    `None` -> no values; a `Completion` as is; a `CompleteResult` as is; an iterable of strings ->
    those values. More than 100 values are cut to the first 100 with `has_more=True` and `total`
    set to the full count (unless the handler set `total` itself).
    """
    if isinstance(value, CompleteResult):
        if len(value.completion.values) <= MAX_COMPLETION_VALUES:
            return value
        completion = value.completion
    elif value is None:
        completion = Completion.model_construct(values=[])
    elif isinstance(value, Completion):
        completion = value
    elif isinstance(value, dict):
        data = cast("dict[str, Any]", value)
        completion = Completion.model_construct(
            values=list(data.get("values") or ()),
            total=data.get("total"),
            has_more=data.get("has_more", data.get("hasMore")),
        )
    elif isinstance(value, Iterable) and not isinstance(value, str | bytes):
        completion = Completion.model_construct(values=list(cast("Iterable[Any]", value)))
    else:
        raise TypeError(f"A completion handler must return a Completion or None, not {type(value).__name__}")
    values = [str(v) for v in completion.values]
    total, has_more = completion.total, completion.has_more
    if len(values) > MAX_COMPLETION_VALUES:
        total = total if total is not None else len(values)
        values, has_more = values[:MAX_COMPLETION_VALUES], True
    return CompleteResult(completion=Completion(values=values, total=total, has_more=has_more))
