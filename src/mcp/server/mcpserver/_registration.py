"""What an `MCPServer` serves: its tools, resources, prompts and completion handler, registered
by decorator or by object, and the settings the registries consult (duplicate warnings).

`ServerRegistration` is that part of `MCPServer`; its state is set up by `MCPServer.__init__`.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from mcp.server.lowlevel.server import HandlerEntry, LazyParams, Server
from mcp.server.mcpserver.catalogue import ServerCatalogue, tag_set
from mcp.server.mcpserver.tools import RegisteredTool
from mcp.shared.exceptions import MCPError

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.mcpserver.context import Context
    from mcp.server.mcpserver.server import MCPServer

# The official logger name of the duplicate-tool warning, which the troubleshooting page quotes.
_duplicates_logger = logging.getLogger("mcp.server.mcpserver.tools.tool_manager")

F = TypeVar("F", bound=Callable[..., Any])


def _misuse(decorator: str, example: str) -> TypeError:
    return TypeError(
        f"The @{decorator} decorator was used incorrectly. Did you forget to call it? "
        f"Use @{example} instead of @{decorator}"
    )


class ServerRegistration(ServerCatalogue):
    """The registries of `MCPServer` (see the module docstring)."""

    _options: dict[str, Any]
    _settings: Any
    _lowlevel_server: Server[Any]
    _tools: dict[str, RegisteredTool]
    _tools_result: Any
    _mask_error_details: bool
    _tool_timeout: float | None
    _resource_security: Any
    _resource_manager: Any
    _prompt_manager: Any
    _completion: Any

    def _server(self) -> MCPServer[Any]:
        return cast("MCPServer[Any]", self)

    @property
    def _resources(self) -> Any:
        """The resource registry (built on first use: a tools-only server never loads it)."""
        manager = self._resource_manager
        if manager is None:
            from mcp.server.mcpserver.resources import DEFAULT_RESOURCE_SECURITY, ResourceManager

            security = self._resource_security
            manager = self._resource_manager = ResourceManager(
                warn_on_duplicate_resources=self._setting("warn_on_duplicate_resources"),
                resource_security=security if security is not None else DEFAULT_RESOURCE_SECURITY,
            )
        return manager

    @property
    def _prompts(self) -> Any:
        """The prompt registry (built on first use)."""
        manager = self._prompt_manager
        if manager is None:
            from mcp.server.mcpserver.prompts import PromptManager

            manager = self._prompt_manager = PromptManager(
                warn_on_duplicate_prompts=self._setting("warn_on_duplicate_prompts"))
        return manager

    @property
    def _tool_manager(self) -> _ToolRegistryView:
        """The official SDK's private `_tool_manager` name, as a view of our tool registry (test fixtures
        that snapshot and restore `_tool_manager._tools` keep working)."""
        return _ToolRegistryView(self)

    @property
    def settings(self) -> Any:
        """The constructor's settings as a `Settings` model (built on first use)."""
        settings = self._settings
        if settings is None:
            from mcp.server.mcpserver.settings import Settings

            settings = self._settings = Settings.model_validate(self._options)
        return settings

    def _setting(self, name: str) -> Any:
        """One setting, without building the `Settings` model when it was never asked for."""
        settings = self._settings
        return self._options[name] if settings is None else getattr(settings, name)

    def _header_params(self, name: str, arguments: Mapping[str, Any], header_lines: Iterable[tuple[str, str]]) -> str | None:
        """The 2026-07-28 `Mcp-Param-*` check of a call (`mcp.server.param_headers`) against this
        registry's tool, as the official `get_tool_input_schema` lookup: an unknown tool is dispatch's."""
        tool = self._tools.get(name)
        if tool is None or (self._catalogue is not None and self._hidden("tool", name, None)):
            return None
        return tool.header_mismatch(arguments, header_lines)

    # -- tools --------------------------------------------------------------------------------

    def tool(
        self,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Any = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
        input_schema: dict[str, Any] | None = None,
        required_scopes: list[str] | None = None,
        tags: set[str] | None = None,
        timeout: float | None = None,
        portable_schemas: bool | None = None,
        parameter_docs: bool | None = None,
    ) -> Callable[[F], F]:
        """Register a function as a tool: `@mcp.tool()` (the parentheses are required).

        Beyond the official API: `input_schema=` publishes a JSON Schema verbatim instead of the
        one generated from the signature (arguments are then checked against it);
        `required_scopes=` makes calls over authenticated HTTP need those token scopes (else
        `403 insufficient_scope`) and hides the tool from `tools/list` for tokens without them;
        `tags=` groups it for `enable()`/`disable()` (server-side only: not sent to clients);
        `timeout=` bounds each call to that many seconds (None: the server's `tool_timeout`;
        `math.inf`: no bound even then), past which the caller gets a tool error saying it timed
        out (`mcp.server.mcpserver.tools.timeout`). A timeout of zero or less is refused here.

        `portable_schemas=` and `parameter_docs=` override the server's switches for this tool
        (None: the server's)."""
        if callable(name):
            raise _misuse("tool", "tool()")

        def decorator(fn: F) -> F:
            self.add_tool(fn, name=name, title=title, description=description, annotations=annotations,
                          icons=icons, meta=meta, structured_output=structured_output, input_schema=input_schema,
                          required_scopes=required_scopes, tags=tags, timeout=timeout,
                          portable_schemas=portable_schemas, parameter_docs=parameter_docs)
            return fn

        return decorator

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Any = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
        input_schema: dict[str, Any] | None = None,
        required_scopes: list[str] | None = None,
        tags: set[str] | None = None,
        timeout: float | None = None,
        portable_schemas: bool | None = None,
        parameter_docs: bool | None = None,
    ) -> None:
        """Register `fn` (or an official `Tool` model) as a tool; see `tool()` for the options."""
        found = tag_set(tags)  # checked before anything is registered
        seconds = self._tool_timeout if timeout is None else timeout
        if seconds is not None:
            from mcp.server.mcpserver.tools.timeout import checked_timeout

            label = name or getattr(fn, "name", None) or getattr(fn, "__name__", None)
            seconds = checked_timeout(f"timeout of tool {label!r}", seconds)  # refused before anything is registered
        base = sys.modules.get("mcp.server.mcpserver.tools.base")
        if base is not None and isinstance(fn, base.Tool):  # an official-style `Tool` model
            tool = cast("Any", fn).compiled
        else:
            tool = RegisteredTool(fn, name=name, title=title, description=description, annotations=annotations,
                                  icons=icons, meta=meta, structured_output=structured_output,
                                  input_schema=input_schema)
        tool.mask_errors = self._mask_error_details
        if seconds is not None:
            from mcp.server.mcpserver.tools.timeout import bounded

            tool = bounded(tool, seconds)
        if tool.name in self._tools:
            if self._setting("warn_on_duplicate_tools"):
                _duplicates_logger.warning("Tool already exists: %s", tool.name)
            return
        from mcp.shared.tool_name_validation import validate_and_warn_tool_name

        validate_and_warn_tool_name(tool.name)  # a non-SEP-986 name is registered, with a warning
        self._tag("tool", tool.name, found)
        portable = self._setting("portable_schemas") if portable_schemas is None else portable_schemas
        documented = self._setting("parameter_docs") if parameter_docs is None else parameter_docs
        if portable or documented:  # rewritten once, here: tools/list serves the result
            tool.publish_schemas(portable_schemas=portable, parameter_docs=documented)
        self._tools[tool.name] = tool
        self._tools_result = None
        if required_scopes:
            self._scope_requirements().require("tool", tool.name, required_scopes)

    def _scope_requirements(self) -> Any:
        """The server's `ScopeRequirements` (made on first use; the HTTP gate and lists read it)."""
        if self._lowlevel_server.scope_requirements is None:
            from mcp.server.auth.scopes import ScopeRequirements

            self._lowlevel_server.scope_requirements = ScopeRequirements()
        return self._lowlevel_server.scope_requirements

    def remove_tool(self, name: str) -> None:
        if name not in self._tools:
            from mcp.shared.exceptions import ToolError

            raise ToolError(f"Unknown tool: {name}")
        del self._tools[name]
        self._tools_result = None
        self._tag("tool", name, None)

    async def list_tools(self) -> list[Any]:
        """The tools every client sees (what `disable()` hid is left out)."""
        shown = self._shown("tool", None)
        return [t.to_tool() for t in self._tools.values() if shown is None or shown(t.name, None)]

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, context: Context | None = None) -> Any:
        """Call the tool `name`: its `CallToolResult` (or the `InputRequiredResult` it answered with).

        Raises `ToolError` for an unknown tool, arguments that fail validation, or a `ToolError` /
        `ResourceError` the tool raised; `UnexpectedToolError` for anything else it raised or a
        return value that fails conversion (`__cause__` is the original); `MCPError` unchanged.
        (tools/call answers the same failures as `is_error` results carrying the error's text.)"""
        tool = self._tools.get(name)
        if tool is None or (self._catalogue is not None and self._hidden("tool", name, _session_of(context))):
            from mcp.shared.exceptions import ToolError

            raise ToolError(f"Unknown tool: {name}")
        return await tool.call(arguments, context if context is not None else new_context(None, self._server()))

    # -- resources ----------------------------------------------------------------------------

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        icons: list[Any] | None = None,
        annotations: Any = None,
        meta: dict[str, Any] | None = None,
        security: Any = None,
        required_scopes: list[str] | None = None,
        tags: set[str] | None = None,
    ) -> Callable[[F], F]:
        """Register a function as a resource (`@mcp.resource("data://x")`) or, when the URI has
        variables, as a resource template (`@mcp.resource("users://{id}")`). `required_scopes=`
        (beyond the official API): see `tool()`; for a template it covers every URI it expands to.
        `tags=`: see `tool()`."""
        if callable(uri):
            raise _misuse("resource", "resource('uri')")

        def decorator(fn: F) -> F:
            found = tag_set(tags)  # checked before anything is registered
            self._resources.resource_decorator_target(
                fn, uri, name=name, title=title, description=description, mime_type=mime_type, icons=icons,
                annotations=annotations, meta=meta, security=security,
            )
            if found:
                self._tag("template" if self._resources.get_static(uri) is None else "resource", uri, found)
            if required_scopes:
                self._scope_requirements().require("resource", uri, required_scopes)
            return fn

        return decorator

    def add_resource(self, resource: Any, *, tags: set[str] | None = None) -> None:
        found = tag_set(tags)
        added = self._resources.add_resource(resource)
        if found and added is resource:
            self._tag("resource", str(resource.uri), found)

    async def list_resources(self) -> list[Any]:
        shown = self._shown("resource", None)
        return [r for r in self._resources.list_resources() if shown is None or shown(str(r.uri), r.name)]

    async def list_resource_templates(self) -> list[Any]:
        shown = self._shown("template", None)
        return [t for t in self._resources.list_templates() if shown is None or shown(t.uri_template, t.name)]

    async def read_resource(self, uri: str, context: Context | None = None) -> Any:
        return await self._resources.read(str(uri), context if context is not None else new_context(None, self._server()))

    # -- prompts and completions --------------------------------------------------------------

    def prompt(self, name: str | None = None, title: str | None = None, description: str | None = None,
               icons: list[Any] | None = None, *, required_scopes: list[str] | None = None,
               tags: set[str] | None = None) -> Callable[[F], F]:
        """Register a function as a prompt: `@mcp.prompt()`. `required_scopes=` and `tags=` (beyond
        the official API): see `tool()`."""
        if callable(name):
            raise _misuse("prompt", "prompt()")

        def decorator(fn: F) -> F:
            from mcp.server.mcpserver.prompts import Prompt

            prompt = Prompt.from_function(fn, name=name, title=title, description=description, icons=icons)
            self.add_prompt(prompt, tags=tags)
            if required_scopes:
                self._scope_requirements().require("prompt", prompt.name, required_scopes)
            return fn

        return decorator

    def add_prompt(self, prompt: Any, *, tags: set[str] | None = None) -> None:
        found = tag_set(tags)
        if self._prompts.add_prompt(prompt) is prompt:
            self._tag("prompt", prompt.name, found)

    def remove_prompt(self, name: str) -> None:
        self._prompts.remove_prompt(name)
        self._tag("prompt", name, None)

    async def list_prompts(self) -> list[Any]:
        shown = self._shown("prompt", None)
        return [p for p in self._prompts.list_prompts() if shown is None or shown(p.name, None)]

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context: Context | None = None) -> Any:
        """The `GetPromptResult` of the prompt called `name` (an `InputRequiredResult` from its
        function as is). Any failure but an `MCPError` is raised as `ValueError` with the
        original's text: "Unknown prompt: NAME", "Missing required arguments: {...}" or "Error
        rendering prompt NAME" (the prompts/get answer's message, as officially)."""
        from mcp.server.mcpserver.prompts.base import prompt_result
        from mcp.types import InputRequiredResult

        try:
            prompt = self._prompts.get_prompt(name)
            if prompt is None or (self._catalogue is not None and self._hidden("prompt", name, _session_of(context))):
                raise ValueError(f"Unknown prompt: {name}")
            rendered = await prompt.render(arguments, context if context is not None else new_context(None, self._server()))
            if isinstance(rendered, InputRequiredResult):
                return rendered
            return prompt_result(prompt.description, rendered)
        except MCPError:
            raise
        except Exception as exc:
            raise ValueError(str(exc)) from exc

    def completion(self) -> Callable[[F], F]:
        """Register the one completion handler: `async (ref, argument, context) -> Completion | None`."""

        def decorator(fn: F) -> F:
            from mcp.server.mcpserver.completions import RegisteredCompletion

            self._completion = RegisteredCompletion(fn)
            self._lowlevel_server.set_request_entry(
                "completion/complete", HandlerEntry(LazyParams("CompleteRequestParams"), self._on_complete))
            return fn

        return decorator

    async def _on_complete(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        """completion/complete, answered by the one handler `completion()` registered."""
        handler = self._completion
        assert handler is not None
        if self._catalogue is not None and self._hidden_reference(params.ref, ctx.session):
            from mcp.server.mcpserver.completions import to_complete_result

            return to_complete_result(None)  # what an unknown name gets from most handlers: no values
        return await handler.complete(params.ref, params.argument, params.context)

    def _hidden_reference(self, ref: Any, session: Any) -> bool:
        """Whether the prompt or resource template a completion `ref` names is hidden from
        `session`: then its argument values are not offered, so that completion does not reveal it."""
        if isinstance(ref, dict):
            ref = cast("dict[str, Any]", ref)
            kind, key = ref.get("type"), ref.get("name") or ref.get("uri")
        else:
            kind, key = getattr(ref, "type", None), getattr(ref, "name", None) or getattr(ref, "uri", None)
        if not isinstance(key, str):
            return False
        if kind == "ref/prompt":
            return self._hidden("prompt", key, session)
        return self._hidden("template", key, session) or self._hidden_resource(key, session)


_context_class: Any = None


def _session_of(context: Any) -> Any:
    """The session a `Context` serves (None: an unbound context, a direct call from Python)."""
    binding = None if context is None else context.binding
    return None if binding is None or binding[0] is None else binding[0].session


def new_context(ctx: ServerRequestContext[Any] | None, server: MCPServer[Any]) -> Context[Any]:
    """The `Context` handed to a function; its class (a pydantic model) is imported on first use,
    so that serving tools which take no Context never loads pydantic for it."""
    global _context_class
    cls = _context_class
    if cls is None:
        from mcp.server.mcpserver.context import Context

        cls = _context_class = Context
    return cls(ctx, server)


class _ToolRegistryView:
    """`MCPServer._tool_manager`: `_tools` is the server's own registry. Handing it out drops the cached
    `tools/list` result, since whoever asked for the dict may change it."""

    __slots__ = ("_server",)

    def __init__(self, server: ServerRegistration) -> None:
        self._server = server

    @property
    def _tools(self) -> dict[str, RegisteredTool]:
        self._server._tools_result = None
        return self._server._tools
