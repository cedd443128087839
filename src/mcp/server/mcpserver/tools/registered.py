"""Registered tools and their call plans.

A `RegisteredTool` is compiled once: arguments model, output plan, whether to inject a Context,
whether to hop to a worker thread. `call` is the tools/call hot path.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, get_origin

from mcp._engine.workers import run_sync
from mcp.server.mcpserver.results import OutputPlan, compile_output, to_wire_content
from mcp.server.mcpserver.signature import Signature, inspect_function
from mcp.shared.exceptions import (
    InvalidSignature,
    MCPError,
    ResourceError,
    ToolError,
    UnexpectedResourceError,
)
from mcp.shared.json_schema_check import OFF_LOOP_ABOVE, has_more_values_than

if TYPE_CHECKING:
    from mcp._protocol.http import ParamHeader
    from mcp.types import CallToolResult, Tool

logger = logging.getLogger("mcp.server.tools")


def _may_declare_headers(params: list[tuple[str, Any, Any]]) -> bool:
    """Whether a parameter carries metadata that could put `x-mcp-header` in the input schema
    (`Annotated[...]` or a `Field(...)` default): only then is the schema built at registration to
    check it (building every tool's schema up front would make registering many tools slow)."""
    return any(get_origin(annotation) is Annotated or type(default).__module__.startswith("pydantic")
               for _, annotation, default in params)


def _passes_through() -> tuple[type[Exception], ...]:
    """What a tool's failure handling re-raises: `MCPError` and a pending question (`NeedInput`).
    An except clause evaluates this only when an exception arrives, so a server whose tools never
    fail or ask loads no dependency machinery."""
    from mcp.server.mcpserver.dependencies import NeedInput

    return MCPError, NeedInput


class RegisteredTool:
    """One tool: its wire description and its compiled call plan."""

    __slots__ = ("_described", "_header_params", "_input_schema", "_published", "_schema_check", "_wire", "annotations",
                 "description", "fn", "icons", "mask_errors", "meta", "name", "output", "signature", "timeout", "title")

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
        input_schema: dict[str, Any] | None = None,
    ) -> None:
        self.name = name or getattr(fn, "__name__", None) or type(fn).__name__
        if self.name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        self.fn = fn
        self.title = title
        self.description = description if description is not None else _docstring(fn)
        self._described = description is not None
        """Whether the description was given (not the docstring): `parameter_docs` leaves it whole."""
        self._published: tuple[dict[str, Any], dict[str, Any] | None] | None = None
        """The input and output schemas as published under `publish_schemas` (None: as generated)."""
        self.annotations = annotations
        self.icons = icons
        self.meta = meta
        self.mask_errors = True
        """Whether an unexpected exception's text is kept out of the answer (set by the server's
        `mask_error_details`); invalid arguments and `ToolError`s always keep theirs."""
        self.timeout: float | None = None
        """Seconds a call may run (None: no bound). Set through registration, which compiles a
        timed tool into a `TimedTool` (`mcp.server.mcpserver.tools.timeout`)."""
        self._input_schema = input_schema
        self._schema_check: Callable[[Any], str | None] | None = None
        self.signature: Signature = inspect_function(fn, self.name, free_form=input_schema is not None)
        self.output: OutputPlan = compile_output(self.name, self.signature.return_annotation, structured_output)
        self._wire: Tool | None = None
        if input_schema is not None or _may_declare_headers(self.signature.params):
            from mcp._protocol.http import invalid_header_declaration

            reason = invalid_header_declaration(self.parameters)
            if reason is not None:
                raise InvalidSignature(f"Tool {self.name!r} has an invalid x-mcp-header annotation: {reason}")
        self._header_params: tuple[ParamHeader, ...] | None = None
        """This tool's `x-mcp-header` declarations, read from its schema on the first 2026-07-28 call."""

    @property
    def parameters(self) -> dict[str, Any]:
        """The input schema: generated from the signature, or the one given verbatim (as
        `publish_schemas` rewrote it, when it did)."""
        if self._published is not None:
            return self._published[0]
        if self._input_schema is not None:
            return self._input_schema
        return self.signature.input_schema()

    @property
    def output_schema(self) -> dict[str, Any] | None:
        if self._published is not None:
            return self._published[1]
        return self.output.output_schema

    def publish_schemas(self, *, portable_schemas: bool = False, parameter_docs: bool = False) -> None:
        """Rewrite the schemas tools/list publishes, once (at registration): `parameter_docs` puts
        the docstring's parameter descriptions into the input schema and keeps only its summary as
        the description; `portable_schemas` inlines `$ref`s and makes the other rewrites of
        `portable_schema`. Both off: the generated schemas, unchanged. A schema that cannot be
        made (wholly) portable is named in a `SchemaPortabilityWarning` and published as far as
        it could be rewritten. Arguments are still validated by the signature (or the verbatim
        schema), never by the published copy."""
        from mcp.server.mcpserver.tools.publishing import published_schemas

        self._published = None
        self._wire = None
        self._header_params = None
        if not self._described:
            self.description = _docstring(self.fn)
        if not (portable_schemas or parameter_docs):
            return
        summary, self._published = published_schemas(self, self._input_schema, portable_schemas=portable_schemas,
                                                      parameter_docs=parameter_docs)
        if parameter_docs and not self._described:
            self.description = summary

    def to_tool(self) -> Tool:
        """The `Tool` listed by tools/list, as a model (built once from `wire()`)."""
        if self._wire is None:
            from mcp.types import Tool

            self._wire = Tool.model_validate(self.wire())
        return self._wire

    def header_mismatch(self, arguments: Mapping[str, Any], header_lines: Iterable[tuple[str, str]]) -> str | None:
        """2026-07-28: arguments whose schema carries `x-mcp-header` must be mirrored, exactly, in an
        `Mcp-Param-<Name>` header (values may be `=?base64?...?=`-wrapped), and a header must not
        come without its argument. `header_lines`: the raw (lowercase name, value) lines, values
        trimmed as HTTP servers hand them over (RFC 9110 §5.5). Returns the reason (the official
        wording) or None."""
        from mcp._protocol.http import param_header_declarations, param_header_mismatch

        declarations = self._header_params
        if declarations is None:
            declarations = self._header_params = param_header_declarations(self.parameters)
        if not declarations:
            return None
        return param_header_mismatch(declarations, arguments, header_lines)

    @property
    def plain_sync(self) -> bool:
        """A sync function that needs nothing from the request (no Context, no resolvers): the whole
        call can run on a worker thread, start to finish (`call_wire_sync`)."""
        sig = self.signature
        return not sig.is_async and sig.context_param is None and sig.resolvers is None

    def _arguments(self, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """The function's keyword arguments from the client's; `ToolError` when they do not fit."""
        if self._input_schema is not None:
            return self._free_form_arguments(arguments or {})
        try:
            return self.signature.validate(arguments or {})
        except ValueError as exc:  # pydantic's ValidationError
            raise ToolError(str(exc)) from exc

    async def run(self, arguments: dict[str, Any] | None, context: Any) -> Any:
        """Validate arguments, call the function (sync ones on a worker thread), return its value.
        Raises `ToolError` for anything the model should see as a failed call."""
        if self._input_schema is not None and has_more_values_than(arguments, OFF_LOOP_ABOVE):
            kwargs = await run_sync(self._arguments, arguments)  # jsonschema is pure Python: linear, yet seconds
        else:
            kwargs = self._arguments(arguments)
        sig = self.signature
        if sig.resolvers is not None:
            from mcp.server.mcpserver.dependencies import run_graph

            recorded = context.request_context.extra.get("mrtr_state") if context is not None else None
            kwargs.update(await run_graph(sig.resolvers, kwargs, context, recorded))
        if sig.context_param is not None:
            kwargs[sig.context_param] = context
        if sig.is_async:
            return await self.fn(**kwargs)
        return await run_sync(functools.partial(self.fn, **kwargs))

    def _free_form_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Arguments checked against a verbatim JSON Schema (compiled once), passed through as given."""
        check = self._schema_check
        if check is None:
            from mcp.shared.json_schema_check import compile_validator

            assert self._input_schema is not None
            check = self._schema_check = compile_validator(self._input_schema, schema_from_peer=False)
        error = check(arguments)
        if error is not None:
            raise ToolError(f"Invalid arguments: {error}")
        import inspect

        params = inspect.signature(self.fn).parameters
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return dict(arguments)
        return {k: v for k, v in arguments.items() if k in params}

    async def call_wire(self, arguments: dict[str, Any] | None, context: Any) -> Any:
        """The whole tools/call for this tool: run, convert, validate output. Returns the result's
        wire dict, or the result model the function built itself. Tool failures become `is_error`
        results; `MCPError` (and a pending question) propagate."""
        try:
            value = await self.run(arguments, context)
        except _passes_through():
            raise
        except Exception as exc:
            return self._failure(exc)
        try:
            return self._to_wire(value)
        except MCPError:
            raise
        except Exception as exc:
            return self._failure(exc, converting=True)

    def call_wire_sync(self, arguments: dict[str, Any] | None) -> Any:
        """`call_wire` for a `plain_sync` tool, entirely in the calling (worker) thread."""
        try:
            value = self.fn(**self._arguments(arguments))
        except _passes_through():
            raise
        except Exception as exc:
            return self._failure(exc)
        try:
            return self._to_wire(value)
        except MCPError:
            raise
        except Exception as exc:
            return self._failure(exc, converting=True)

    async def call(self, arguments: dict[str, Any] | None, context: Any) -> Any:
        """The tool call as `MCPServer.call_tool` makes it: a `CallToolResult` (or the result model
        the function built). A failure raises the `ToolError` (an anticipated one: invalid
        arguments, a `ToolError`/`ResourceError` raised on purpose) or `UnexpectedToolError` (a
        crash, a nested crash, a value that fails conversion) whose text the wire result carries,
        the original as its `__cause__`; `MCPError` propagates."""
        try:
            value = await self.run(arguments, context)
        except _passes_through():
            raise
        except Exception as exc:
            raise self.tool_error(exc) from exc
        try:
            out = self._to_wire(value)
        except MCPError:
            raise
        except Exception as exc:
            raise self.tool_error(exc, converting=True) from exc
        if type(out) is dict:
            from mcp.types import CallToolResult

            return CallToolResult.model_validate(out)
        return out

    def _to_wire(self, value: Any) -> Any:
        """The function's value as a tools/call result (wire dict), or the result model it built
        (for `Annotated[CallToolResult, Model]`, its structured content checked first)."""
        if _is_result_model(value):
            if self.output.checks_results and type(value).__name__ == "CallToolResult" and not value.is_error:
                self.output.check(value.structured_content)
            return value
        plan = self.output
        if plan.structured:
            structured = plan.dump(value)
            return {"content": to_wire_content(value), "structuredContent": structured, "isError": False}
        return {"content": to_wire_content(value), "isError": False}

    def tool_error(self, exc: Exception, *, converting: bool = False) -> ToolError:
        """The `ToolError` a failure is reported as, named for the tool, as the official SDK
        classifies it. Invalid arguments and deliberate `ToolError`/`ResourceError`s keep their
        text; a nested crash keeps its (already generic) text as an `UnexpectedToolError`; anything
        else is a crash whose text may hold secrets or paths: `Error executing tool NAME` only
        (unless `mask_errors` is off). A value that fails its declared output schema keeps
        pydantic's detail (the model should learn which field was wrong), while a `CallToolResult`
        the tool built whose structured content breaks its own schema is a masked crash."""
        from mcp.server.mcpserver.exceptions import UnexpectedToolError

        prefix = f"Error executing tool {self.name}"
        if isinstance(exc, UnexpectedToolError | UnexpectedResourceError):
            return UnexpectedToolError(f"{prefix}: {exc}")
        if isinstance(exc, ToolError | ResourceError) or _shows_its_text(exc):
            return ToolError(f"{prefix}: {exc}")
        if converting and not self.output.checks_results:
            from pydantic_core import ValidationError

            if isinstance(exc, ValidationError):
                return UnexpectedToolError(f"{prefix}: {exc}")
        return UnexpectedToolError(prefix if self.mask_errors else f"{prefix}: {exc}")

    def _failure(self, exc: Exception, *, converting: bool = False) -> dict[str, Any]:
        """A failed call as the model sees it: an `is_error` result with the text of `_error`; a
        crash's traceback goes to the server log."""
        from mcp.server.mcpserver.exceptions import UnexpectedToolError

        error = self.tool_error(exc, converting=converting)
        if isinstance(error, UnexpectedToolError):
            logger.error("Error executing tool %s", self.name, exc_info=exc)
        else:
            logger.debug("tool %s failed", self.name, exc_info=exc)
        return error_wire(str(error))

    def wire(self) -> dict[str, Any]:
        """The tool as listed by tools/list, as a wire dict (key order as the model's)."""
        out: dict[str, Any] = {"name": self.name}
        if self.title is not None:
            out["title"] = self.title
        if self.description is not None:
            out["description"] = self.description
        out["inputSchema"] = self.parameters
        schema = self.output_schema
        if schema is not None:
            out["outputSchema"] = schema
        if self.annotations is not None:
            out["annotations"] = _wire_of(self.annotations)
        if self.icons:
            out["icons"] = [_wire_of(icon) for icon in self.icons]
        if self.meta is not None:
            out["_meta"] = self.meta
        return out


def _shows_its_text(exc: Exception) -> bool:
    """Failures the framework raises about the client's answers (a declined question a resolver
    needed, an elicitation answer that does not fit its schema): their text holds no server data."""
    from mcp.server.elicitation import InvalidElicitationAnswer
    from mcp.server.mcpserver.dependencies import ResolverDeclined

    return isinstance(exc, ResolverDeclined | InvalidElicitationAnswer)


def _wire_of(value: Any) -> Any:
    return value.to_wire() if hasattr(value, "to_wire") else value


def _is_result_model(value: Any) -> bool:
    """A protocol `Result` the function built itself (`CallToolResult`, `InputRequiredResult`, or an
    extension's claimed shape): passed through as is. No import: if `mcp.types._common` was never
    loaded, `value` cannot be one."""
    module = sys.modules.get("mcp.types._common")
    return module is not None and isinstance(value, module.Result)


def error_wire(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def error_result(text: str) -> CallToolResult:
    from mcp.types import CallToolResult, TextContent

    return CallToolResult.model_construct(content=[TextContent(text=text)], is_error=True)


def _docstring(fn: Any) -> str | None:
    import inspect

    doc = inspect.getdoc(fn)
    return doc or ""
