"""Registered tools and their call plans.

A `RegisteredTool` is compiled once: arguments model, output plan, whether to inject a Context,
whether to hop to a worker thread. `call` is the tools/call hot path.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from pydantic import ValidationError

from mcp.server.mcpserver.results import OutputPlan, compile_output, to_content
from mcp.server.mcpserver.signature import Signature, input_schema, inspect_function
from mcp.shared.exceptions import MCPError, ToolError

if TYPE_CHECKING:
    from mcp.types import CallToolResult, Tool

logger = logging.getLogger("mcp.server.tools")


class RegisteredTool:
    """One tool: its wire description and its compiled call plan."""

    __slots__ = ("annotations", "description", "fn", "icons", "meta", "name", "output", "signature", "title", "_wire",
                 "_validate_args")

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Any = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> None:
        self.name = name or getattr(fn, "__name__", None) or type(fn).__name__
        if self.name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        self.fn = fn
        self.title = title
        self.description = description if description is not None else _docstring(fn)
        self.annotations = annotations
        self.icons = icons
        self.meta = meta
        self.signature: Signature = inspect_function(fn, self.name)
        self.output: OutputPlan = compile_output(self.name, self.signature.return_annotation, structured_output)
        self._validate_args = self.signature.arguments_model.__pydantic_validator__.validate_python
        self._wire: Tool | None = None

    @property
    def parameters(self) -> dict[str, Any]:
        return input_schema(self.signature)

    @property
    def output_schema(self) -> dict[str, Any] | None:
        return self.output.output_schema

    def to_tool(self) -> Tool:
        """The `Tool` listed by tools/list (built once)."""
        if self._wire is None:
            from mcp.types import Tool

            self._wire = Tool(
                name=self.name, title=self.title, description=self.description,
                input_schema=self.parameters, output_schema=self.output.output_schema,
                annotations=self.annotations, icons=self.icons, _meta=self.meta,
            )
        return self._wire

    async def run(self, arguments: dict[str, Any] | None, context: Any) -> Any:
        """Validate arguments, call the function (sync ones on a worker thread), return its value.
        Raises `ToolError` for anything the model should see as a failed call."""
        try:
            validated = self._validate_args(arguments or {})
        except ValidationError as exc:
            raise ToolError(str(exc)) from exc
        kwargs = dict(validated.__dict__)
        sig = self.signature
        for field_name, param_name in sig.renamed:
            kwargs[param_name] = kwargs.pop(field_name)
        if sig.context_param is not None:
            kwargs[sig.context_param] = context
        if sig.is_async:
            return await self.fn(**kwargs)
        return await anyio.to_thread.run_sync(functools.partial(self.fn, **kwargs))

    async def call(self, arguments: dict[str, Any] | None, context: Any) -> CallToolResult:
        """The whole tools/call for this tool: run, convert, validate output; tool failures become
        `is_error` results, `MCPError` propagates as a JSON-RPC error."""
        from mcp.types import CallToolResult

        try:
            value = await self.run(arguments, context)
            if isinstance(value, CallToolResult):
                return value
            dump = self.output.validate_and_dump
            structured = None if dump is None else dump(value)
            return CallToolResult.model_construct(content=to_content(value), structured_content=structured)
        except MCPError:
            raise
        except Exception as exc:
            cause = exc.__cause__ if isinstance(exc, ToolError) and isinstance(exc.__cause__, ValidationError) else exc
            logger.debug("tool %s failed", self.name, exc_info=True)
            return error_result(f"Error executing tool {self.name}: {cause}")


def error_result(text: str) -> CallToolResult:
    from mcp.types import CallToolResult, TextContent

    return CallToolResult.model_construct(content=[TextContent(text=text)], is_error=True)


def _docstring(fn: Any) -> str | None:
    import inspect

    doc = inspect.getdoc(fn)
    return doc or None
