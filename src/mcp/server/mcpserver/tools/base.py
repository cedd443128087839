"""`Tool`: the official SDK's pydantic description of one tool, a view of a `RegisteredTool`.

`MCPServer` itself compiles functions into `RegisteredTool`s (no pydantic at registration); this
model is for code written against the official SDK's `Tool.from_function(...)` / `Tool.run(...)`,
and `MCPServer(tools=[Tool...])` accepts it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from mcp.server.mcpserver.tools.registered import RegisteredTool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.shared.exceptions import MCPError
from mcp.types import Icon, ToolAnnotations


class Tool(BaseModel):
    """One tool: its function, wire description and compiled call plan."""

    model_config = ConfigDict(arbitrary_types_allowed=True, ignored_types=(cached_property,))

    fn: Callable[..., Any] = Field(exclude=True)
    name: str = Field(description="Name of the tool")
    title: str | None = Field(None, description="Human-readable title of the tool")
    description: str = Field(description="Description of what the tool does")
    parameters: dict[str, Any] = Field(description="JSON schema for tool parameters")
    fn_metadata: FuncMetadata = Field(description="The function's arguments model and output plan")
    is_async: bool = Field(description="Whether the tool is async")
    context_kwarg: str | None = Field(None, description="Name of the kwarg that should receive context")
    resolved_params: dict[str, Any] = Field(default_factory=dict[str, Any], exclude=True,
                                            description="Parameters filled by resolvers")
    resolver_plans: dict[Hashable, Any] = Field(default_factory=dict[Hashable, Any], exclude=True,
                                                description="Static per-resolver parameter plans")
    annotations: ToolAnnotations | None = Field(None, description="Optional annotations for the tool")
    icons: list[Icon] | None = Field(default=None, description="Optional list of icons for this tool")
    meta: dict[str, Any] | None = Field(default=None, description="Optional metadata for this tool")
    _compiled: RegisteredTool | None = PrivateAttr(default=None)

    @cached_property
    def output_schema(self) -> dict[str, Any] | None:
        return self.fn_metadata.output_schema

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        context_kwarg: str | None = None,
        annotations: ToolAnnotations | None = None,
        icons: list[Icon] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> Tool:
        """Compile `fn` (as `MCPServer.add_tool` would) and describe it."""
        compiled = RegisteredTool(fn, name=name, title=title, description=description, annotations=annotations,
                                  icons=icons, meta=meta, structured_output=structured_output)
        return cls.from_registered(compiled, context_kwarg=context_kwarg)

    @classmethod
    def from_registered(cls, compiled: RegisteredTool, *, context_kwarg: str | None = None) -> Tool:
        """The model describing a tool `MCPServer` has already compiled."""
        sig = compiled.signature
        graph = sig.resolvers
        tool = cls(
            fn=compiled.fn, name=compiled.name, title=compiled.title, description=compiled.description or "",
            parameters=compiled.parameters, fn_metadata=FuncMetadata.from_plan(sig, compiled.output),
            is_async=sig.is_async, context_kwarg=context_kwarg or sig.context_param,
            resolved_params={} if graph is None else {param: fn for param, fn, _ in graph.targets},
            annotations=compiled.annotations, icons=compiled.icons, meta=compiled.meta,
        )
        tool._compiled = compiled
        return tool

    @property
    def compiled(self) -> RegisteredTool:
        """The compiled call plan this model describes."""
        compiled = self._compiled
        if compiled is None:  # built directly from fields: compile it now
            compiled = self._compiled = RegisteredTool(
                self.fn, name=self.name, title=self.title, description=self.description,
                annotations=self.annotations, icons=self.icons, meta=self.meta)
        return compiled

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        """Run the tool. Failures other than `MCPError` raise `ToolError` or `UnexpectedToolError`
        (message `Error executing tool <name>...`, as `MCPServer.call_tool` raises them);
        `convert_result=True` returns a `CallToolResult`."""
        compiled = self.compiled
        try:
            value = await compiled.run(arguments, context)
        except MCPError:
            raise
        except Exception as exc:
            raise compiled.tool_error(exc) from exc
        if not convert_result:
            return value
        try:
            return self.fn_metadata.convert_result(value)
        except MCPError:
            raise
        except Exception as exc:
            raise compiled.tool_error(exc, converting=True) from exc
