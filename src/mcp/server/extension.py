"""Server extensions (SEP-2133): opt-in bundles of tools, resources, vendor methods and one
`tools/call` interceptor behind an identifier advertised under `capabilities.extensions`.

An extension declares contributions as data; `MCPServer` consumes them at construction. It never
holds the server, cannot replace a spec method, and two extensions cannot bind the same method.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp._protocol.extension_ids import check_identifier
from mcp._protocol.extension_ids import validate_extension_identifier as validate_extension_identifier
from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY


def spec_methods() -> frozenset[str]:
    """Every method some MCP revision defines (extensions may not bind these)."""
    from mcp.types.methods import METHODS  # pyright: ignore[reportAttributeAccessIssue]

    return frozenset(METHODS)


@dataclass(frozen=True)
class ToolBinding:
    """A tool an extension contributes, with the `_meta` to stamp on it and `add_tool` keywords."""

    fn: Callable[..., Any]
    meta: dict[str, Any] | None = None
    kwargs: dict[str, Any] = field(default_factory=dict[str, Any])


@dataclass(frozen=True)
class ResourceBinding:
    """A pre-built resource an extension contributes."""

    resource: Any


@dataclass(frozen=True)
class MethodBinding:
    """A vendor request method an extension serves: `params_type` validates params before `handler`
    runs; `protocol_versions` (None: every version) restricts it to those wire versions. Bindings
    are immutable and hashed by value, as officially."""

    method: str
    params_type: Any
    handler: Callable[..., Awaitable[Any]]
    protocol_versions: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if self.method == "initialize" or self.method in _spec_methods_cached():
            raise ValueError(f"MethodBinding cannot bind spec method {self.method!r}; extension methods are additive — use "
                             "Extension.intercept_tool_call or Server.middleware to wrap core behaviour")
        if self.protocol_versions is not None and not self.protocol_versions:
            raise ValueError(f"MethodBinding for {self.method!r} has an empty protocol_versions set, so it could never be "
                             "served; use None to admit every version")


_spec_methods_cache: frozenset[str] | None = None


def _spec_methods_cached() -> frozenset[str]:
    global _spec_methods_cache
    if _spec_methods_cache is None:
        try:
            _spec_methods_cache = spec_methods()
        except Exception:  # pragma: no cover - the table is part of mcp.types
            _spec_methods_cache = frozenset()
    return _spec_methods_cache


class Extension:
    """Subclass, set `identifier`, override what you contribute (every method has a default).

    A class-level `identifier` is checked when the subclass is defined; one assigned in
    `__init__` (per-instance identifiers) is checked when the server applies the extension."""

    identifier: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "identifier" in cls.__dict__:
            check_identifier(cls.__name__, cls.__dict__["identifier"])

    def settings(self) -> dict[str, Any]:
        """Advertised at `capabilities.extensions[identifier]`."""
        return {}

    def tools(self) -> Sequence[ToolBinding]:
        return ()

    def resources(self) -> Sequence[ResourceBinding]:
        return ()

    def methods(self) -> Sequence[MethodBinding]:
        return ()

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        """Observe, replace or refuse a `tools/call` (default: pass through). `params` is the
        validated `CallToolRequestParams`; `call_next(ctx)` runs the rest of the chain and the
        tool, and returns its domain result (a `CallToolResult`, or an `InputRequiredResult`).
        What the interceptor returns is serialized like the handler's result."""
        return await call_next(ctx)


def install_extensions(server: Any, extensions: Sequence[Extension]) -> None:
    """Register every contribution of `extensions` on an `MCPServer` (construction time only);
    the `tools/call` interceptors, when any extension has one, wrap the `tools/call` handler."""
    lowlevel = server.lowlevel_server
    bound: dict[str, str] = {}
    interceptors: list[Extension] = []
    for extension in extensions:
        identifier = getattr(extension, "identifier", None)
        check_identifier(type(extension).__name__, identifier)
        assert isinstance(identifier, str)
        if identifier in lowlevel.extensions:
            raise ValueError(f"Extension {identifier!r} is already registered")
        lowlevel.extensions[identifier] = dict(extension.settings())
        for binding in extension.tools():
            server.add_tool(binding.fn, meta=binding.meta, **binding.kwargs)
        for binding in extension.resources():
            server.add_resource(binding.resource)
        for binding in extension.methods():
            if binding.method in bound:
                raise ValueError(f"Extension {identifier!r} binds method {binding.method!r}, which is already registered; "
                                 "extension methods are additive and cannot replace another handler")
            bound[binding.method] = identifier
            lowlevel.add_request_handler(binding.method, binding.params_type, _version_gated(binding))
        if type(extension).intercept_tool_call is not Extension.intercept_tool_call:
            interceptors.append(extension)
    if interceptors:
        entry = lowlevel.request_entry("tools/call")
        # every call must pass the interceptors, on the event loop: no planner
        lowlevel.replace_request_entry("tools/call", handler=_intercepted(interceptors, entry.handler), planner=None)


def _intercepted(extensions: list[Extension], handler: Callable[[Any, Any], Awaitable[Any]]) -> Callable[[Any, Any], Awaitable[Any]]:
    """The `tools/call` handler wrapped in the interceptors (first extension outermost). They see
    the validated params, and `call_next` hands back the tool's result as a model (never the
    hot path's wire form)."""
    from mcp.server.session import WireResult

    async def wrapped(ctx: Any, raw: Any) -> Any:
        from mcp.types import CallToolRequestParams

        try:
            params = CallToolRequestParams.model_validate(raw or {})
        except ValueError as exc:  # pydantic's ValidationError: the same answer as without extensions
            raise MCPError(INVALID_PARAMS, f"Invalid params: {exc}") from None

        async def innermost(inner_ctx: Any) -> Any:
            result = await handler(inner_ctx, raw)
            if type(result) is WireResult:
                from mcp.types import CallToolResult

                return CallToolResult.model_validate(result.wire)
            return result

        chain: Callable[[Any], Awaitable[Any]] = innermost
        for extension in reversed(extensions):
            chain = _bind(extension, params, chain)
        return await chain(ctx)

    return wrapped


def _version_gated(binding: MethodBinding) -> Callable[..., Awaitable[Any]]:
    versions = binding.protocol_versions
    if versions is None:
        return binding.handler

    async def handler(ctx: Any, params: Any) -> Any:
        if ctx.protocol_version not in versions:
            raise MCPError(METHOD_NOT_FOUND, "Method not found", binding.method)
        return await binding.handler(ctx, params)

    return handler


def compose_tool_call_handler(extensions: Sequence[Extension],
                              handler: Callable[[Any, Any], Awaitable[Any]]) -> Callable[[Any, Any], Awaitable[Any]]:
    """A `tools/call` handler that runs every extension's `intercept_tool_call` around `handler`
    (the first extension outermost); its params are the validated `CallToolRequestParams`."""
    chain_of = list(extensions)

    async def wrapped(ctx: Any, params: Any) -> Any:
        async def innermost(inner_ctx: Any) -> Any:
            return await handler(inner_ctx, params)

        chain: Callable[[Any], Awaitable[Any]] = innermost
        for extension in reversed(chain_of):
            chain = _bind(extension, params, chain)
        return await chain(ctx)

    return wrapped


def _bind(extension: Extension, params: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Callable[[Any], Awaitable[Any]]:
    async def call(ctx: Any) -> Any:
        return await extension.intercept_tool_call(params, ctx, call_next)

    return call


def require_client_extension(ctx: Any, identifier: str) -> None:
    """Raise -32021 unless the client declared `identifier` under `capabilities.extensions`."""
    caps = ctx.client_capabilities if hasattr(ctx, "client_capabilities") else None
    if caps is None and hasattr(ctx, "request_context"):
        caps = ctx.request_context.session.client_capabilities
    declared: dict[str, Any] = getattr(caps, "extensions", None) or {}
    if identifier not in declared:
        raise MCPError(MISSING_REQUIRED_CLIENT_CAPABILITY, f"Client did not declare required extension {identifier!r}",
                       {"requiredCapabilities": {"extensions": {identifier: {}}}})
