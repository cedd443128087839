"""`FuncMetadata` and `func_metadata()`: the official SDK's view of what registration learns about
a tool function (its arguments model and output plan), over `signature` and `results`."""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, PrivateAttr
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaWarningKind

from mcp._engine.workers import run_sync
from mcp.server.mcpserver.results import OutputPlan, compile_output, to_wire_content
from mcp.server.mcpserver.signature import Signature, inspect_function
from mcp.server.mcpserver.signature import _arg_model_base as _arg_model_base  # pyright: ignore[reportPrivateUsage]

if TYPE_CHECKING:
    from mcp.types import CallToolResult

ArgModelBase: type[BaseModel] = _arg_model_base()
"""Base of the generated `<fn>Arguments` models (`model_dump_one_level()` gives the kwargs)."""


class StrictJsonSchema(GenerateJsonSchema):
    """A JSON-schema generator that raises where pydantic would only warn (a type it cannot
    render), so an unserializable type fails where the schema is built."""

    def emit_warning(self, kind: JsonSchemaWarningKind, detail: str) -> None:
        raise ValueError(f"JSON schema warning: {kind} - {detail}")


class FuncMetadata(BaseModel):
    """A tool function's arguments model and, for structured output, its output schema."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    arg_model: Any
    output_schema: dict[str, Any] | None = None
    output_model: Any = None
    wrap_output: bool = False
    _signature: Signature | None = PrivateAttr(default=None)
    _plan: OutputPlan | None = PrivateAttr(default=None)

    @classmethod
    def from_plan(cls, signature: Signature, plan: OutputPlan) -> FuncMetadata:
        """The metadata of a function registration already compiled."""
        meta = cls(arg_model=signature.arguments_model, output_schema=plan.output_schema)
        meta._signature = signature
        meta._plan = plan
        return meta

    def validate_arguments(self, arguments_to_validate: dict[str, Any]) -> dict[str, Any]:
        """The keyword arguments for the function (raises pydantic's `ValidationError`)."""
        if self._signature is not None:
            return self._signature.validate(arguments_to_validate)
        validated = self.arg_model.model_validate(self.pre_parse_json(arguments_to_validate))
        return validated.model_dump_one_level()

    async def call_fn(self, fn: Callable[..., Any | Awaitable[Any]], fn_is_async: bool, arguments: dict[str, Any],
                      arguments_to_pass_directly: dict[str, Any] | None = None) -> Any:
        """Call `fn` with validated `arguments` plus `arguments_to_pass_directly` (a sync function on a
        worker thread)."""
        kwargs = arguments | (arguments_to_pass_directly or {})
        if fn_is_async:
            return await fn(**kwargs)  # type: ignore[misc]
        return await run_sync(functools.partial(fn, **kwargs))

    async def call_fn_with_arg_validation(self, fn: Callable[..., Any | Awaitable[Any]], fn_is_async: bool,
                                          arguments_to_validate: dict[str, Any],
                                          arguments_to_pass_directly: dict[str, Any] | None,
                                          pre_validated: dict[str, Any] | None = None) -> Any:
        """Deprecated upstream: `validate_arguments()` then `call_fn()`."""
        arguments = pre_validated if pre_validated is not None else self.validate_arguments(arguments_to_validate)
        return await self.call_fn(fn, fn_is_async, arguments, arguments_to_pass_directly)

    def convert_result(self, result: Any) -> CallToolResult:
        """The function's return value as a `CallToolResult` (a result model passes through)."""
        from mcp.types import CallToolResult
        from mcp.types._common import Result

        if isinstance(result, Result):
            return result  # type: ignore[return-value]
        wire: dict[str, Any] = {"content": to_wire_content(result)}
        plan = self._plan
        if plan is not None and plan.structured:
            wire["structuredContent"] = plan.dump(result)
        return CallToolResult.model_validate(wire)

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        """`data` with JSON-encoded strings decoded where the field is not a string (clients that
        send lists and objects as JSON text)."""
        fields: dict[str, Any] = {}
        for name, info in self.arg_model.model_fields.items():
            fields[name] = info
            if info.alias:
                fields[info.alias] = info
        out = dict(data)
        for key, value in data.items():
            info = fields.get(key)
            if info is None or not isinstance(value, str) or info.annotation is str:
                continue
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                continue
            if not isinstance(parsed, str | int | float):
                out[key] = parsed
        return out


def func_metadata(func: Callable[..., Any], skip_names: Sequence[str] = (),
                  structured_output: bool | None = None) -> FuncMetadata:
    """The arguments model and output plan of `func`, skipping the parameters in `skip_names`."""
    name = getattr(func, "__name__", None) or type(func).__name__
    signature = inspect_function(func, name, skip=frozenset(skip_names))
    return FuncMetadata.from_plan(signature, compile_output(name, signature.return_annotation, structured_output))
