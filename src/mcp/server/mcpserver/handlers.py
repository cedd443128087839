"""The protocol handlers `MCPServer` registers on its low-level `Server`.

Each turns one request into a call on the server's registries (tools, resources, prompts), wraps
the three multi-round-trip methods in the `requestState` seal, and pages list results. They are
methods of `ServerHandlers`, a part of `MCPServer` (the registries are its own state); the
completion handler lives with its registration (`mcp.server.mcpserver._registration`).
"""

from __future__ import annotations

import base64
import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver._registration import ServerRegistration
from mcp.server.mcpserver._registration import new_context as new_context
from mcp.server.session import WireResult
from mcp.shared.exceptions import (
    MCPError,
    ResourceError,
    ResourceNotFoundError,
    UnexpectedResourceError,
)
from mcp.types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS
from mcp.types.version import MODERN_VERSIONS

logger = logging.getLogger("mcp.server")

# -- paging ---------------------------------------------------------------------------------------


_MAX_CURSOR = 64
"""Longer than any cursor we mint (`o:<offset>` in base64): refused before it is decoded."""


def page(items: Sequence[Any], cursor: str | None, size: int | None) -> tuple[Sequence[Any], str | None]:
    """One page of `items` after `cursor` (an opaque offset); -32602 for a cursor we did not mint."""
    start = 0
    if cursor is not None:
        if len(cursor) > _MAX_CURSOR:
            raise MCPError(INVALID_PARAMS, "Invalid params: invalid cursor")
        try:
            start = int(base64.urlsafe_b64decode(cursor.encode() + b"==").decode().removeprefix("o:"))
        except (ValueError, UnicodeDecodeError):
            raise MCPError(INVALID_PARAMS, "Invalid params: invalid cursor") from None
        if start < 0 or start > len(items):
            raise MCPError(INVALID_PARAMS, "Invalid params: invalid cursor")
    if size is None:
        return (items[start:] if start else items), None
    end = start + size
    next_cursor = base64.urlsafe_b64encode(f"o:{end}".encode()).decode().rstrip("=") if end < len(items) else None
    return items[start:end], next_cursor


# -- helpers of the handlers --------------------------------------------------------------------------


def _private(ctx: ServerRequestContext[Any], result: Any) -> Any:
    """Mark a filtered list result `cacheScope: "private"` (on the wire that has cache hints)."""
    if ctx.protocol_version not in MODERN_VERSIONS:
        return result
    if isinstance(result, dict):
        return {**cast("dict[str, Any]", result), "cacheScope": "private"}
    return result.model_copy(update={"cache_scope": "private"})


def _call_params(params: Any) -> tuple[str, dict[str, Any] | None]:
    """tools/call params, checked by hand (no model on the hot path)."""
    if type(params) is not dict or type(cast("dict[str, Any]", params).get("name")) is not str:
        raise MCPError(INVALID_PARAMS, "Invalid params: tools/call needs a string 'name'")
    params = cast("dict[str, Any]", params)
    arguments = params.get("arguments")
    if arguments is not None and type(arguments) is not dict:
        raise MCPError(INVALID_PARAMS, "Invalid params: 'arguments' must be an object")
    if "inputResponses" in params:
        from mcp.types import CallToolRequestParams

        try:
            CallToolRequestParams.model_validate(params)
        except ValueError as exc:
            raise MCPError(INVALID_PARAMS, f"Invalid params: {exc}") from None
    return params["name"], cast("dict[str, Any] | None", arguments)


async def _value(value: Any) -> Any:
    return value


# -- resources ----------------------------------------------------------------------------------------


def _read_failed(uri: str, exc: ResourceError) -> MCPError:
    """The answer to a failed read, as the official SDK gives it: the error's own message with the
    URI as data; a missing resource is -32602 on every revision (SEP-2164), anything else -32603.
    A crash (`UnexpectedResourceError`) is logged with its traceback; its message names only the
    URI."""
    if isinstance(exc, UnexpectedResourceError):
        logger.error("Resource %r raised an unexpected exception", uri, exc_info=exc.__cause__ or exc)
    else:
        logger.info("Resource %r failed: %r", uri, str(exc))
    return MCPError(INVALID_PARAMS if isinstance(exc, ResourceNotFoundError) else INTERNAL_ERROR, str(exc), {"uri": uri})


def read_result_wire(uri: str, contents: Sequence[Any]) -> dict[str, Any]:
    """`ReadResourceContents` items -> a `ReadResourceResult` wire dict (bytes become base64 blobs)."""
    out: list[dict[str, Any]] = []
    for item in contents:
        content = item.content
        entry: dict[str, Any] = {"uri": uri}
        if item.mime_type is not None:
            entry["mimeType"] = item.mime_type
        if item.meta is not None:
            entry["_meta"] = item.meta
        if isinstance(content, bytes | bytearray):
            entry["blob"] = base64.b64encode(content).decode()
        else:
            entry["text"] = content
        out.append(entry)
    return {"contents": out}


# -- the handlers ---------------------------------------------------------------------------------------


class ServerHandlers(ServerRegistration):
    """The protocol handlers of `MCPServer` (see the module docstring): each a method bound on the
    low-level `Server`'s table when the server is built."""

    _page_size: int | None
    _boundary: Any
    _subscribed_sessions: Any

    async def _with_request_state(self, ctx: ServerRequestContext[Any],
                                 run: Callable[[], Awaitable[Any]]) -> Any:
        """Open the echoed `requestState`, run the handler, seal the state of an input-required result."""
        from mcp.server.mcpserver.dependencies import NeedInput
        from mcp.types import InputRequiredResult

        raw = ctx.params or {}
        framework_state = None
        if "requestState" in raw:
            user_state, framework_state = self._boundary.open(ctx, ctx.method, raw)
            ctx.extra["request_state"] = user_state
            ctx.extra["mrtr_state"] = framework_state
        try:
            result = await run()
        except NeedInput as need:
            result = InputRequiredResult.model_validate({"inputRequests": {need.key: need.request}})
            framework_state = need.state
            sealed = self._boundary.seal(ctx, ctx.method, raw, None, framework_state)
            return result.model_copy(update={"request_state": sealed})
        if isinstance(result, InputRequiredResult) and result.request_state is not None:  # no state: nothing to seal
            sealed = self._boundary.seal(ctx, ctx.method, raw, result.request_state, None)
            result = result.model_copy(update={"request_state": sealed})
        elif type(result) is dict:
            return self._wire_or_model(cast("dict[str, Any]", result), "CallToolResult")
        return result

    def _wire_or_model(self, wire: dict[str, Any], model_name: str) -> Any:
        """A wire result as the hot path returns it, or as a model when middleware will see it."""
        if not self._lowlevel_server.middleware:
            return WireResult(wire)
        import mcp.types

        return getattr(mcp.types, model_name).model_validate(wire)

    def _scope_filter(self, kind: str) -> Callable[[str], bool] | None:
        """With scoped items and an authenticated caller: whether the caller may see an item (its
        list is then private to its authorization context). `None`: show everything."""
        requirements = self._lowlevel_server.scope_requirements
        if not requirements:
            return None
        from mcp.server.auth.scopes import granted_scopes

        granted = granted_scopes()
        if granted is None:
            return None
        return lambda name: requirements.visible(kind, name, granted)  # type: ignore[arg-type]

    async def _on_list_tools(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        cursor = params.cursor if params is not None else None
        visible = self._scope_filter("tool")
        if self._catalogue is not None:
            shown = self._shown("tool", ctx.session)
            if shown is not None:
                return self._list_shown_tools(ctx, cursor, visible, shown)
        if visible is not None:
            allowed, next_cursor = page([t.wire() for t in self._tools.values() if visible(t.name)], cursor,
                                        self._page_size)
            filtered: dict[str, Any] = {"tools": list(allowed)}
            if next_cursor is not None:
                filtered["nextCursor"] = next_cursor
            return self._wire_or_model(_private(ctx, filtered), "ListToolsResult")
        if cursor is None and self._page_size is None:
            wire = self._tools_result
            if wire is None:
                wire = self._tools_result = {"tools": [t.wire() for t in self._tools.values()]}
            return self._wire_or_model(wire, "ListToolsResult")
        tools, next_cursor = page([t.wire() for t in self._tools.values()], cursor, self._page_size)
        paged: dict[str, Any] = {"tools": list(tools)}
        if next_cursor is not None:
            paged["nextCursor"] = next_cursor
        return self._wire_or_model(paged, "ListToolsResult")

    def _list_shown_tools(self, ctx: ServerRequestContext[Any], cursor: str | None,
                          visible: Callable[[str], bool] | None, shown: Callable[[str, str | None], bool]) -> Any:
        """tools/list while the catalogue hides something from this caller (never cached: the
        list may be this session's own)."""
        tools = [t.wire() for t in self._tools.values() if shown(t.name, None) and (visible is None or visible(t.name))]
        listed, next_cursor = page(tools, cursor, self._page_size)
        result: dict[str, Any] = {"tools": list(listed)}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return self._wire_or_model(result if visible is None else _private(ctx, result), "ListToolsResult")

    async def _on_call_tool(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        from mcp.server.mcpserver.tools import error_wire

        name, arguments = _call_params(params)
        tool = self._tools.get(name)
        if tool is None or (self._catalogue is not None and self._hidden("tool", name, ctx.session)):
            return self._wire_or_model(error_wire(f"Unknown tool: {name}"), "CallToolResult")
        if "requestState" not in params and not tool.signature.resolvers:
            out = await tool.call_wire(arguments, new_context(ctx, self._server()) if tool.signature.needs_context else None)
            if type(out) is dict:
                return self._wire_or_model(cast("dict[str, Any]", out), "CallToolResult")
            if getattr(out, "result_type", None) != "input_required":
                return out
            return await self._with_request_state(ctx, functools.partial(_value, out))
        return await self._with_request_state(ctx, lambda: tool.call_wire(arguments, new_context(ctx, self._server())))

    def _plan_call_tool(self, params: Any) -> Callable[[], Any] | None:
        """tools/call as one synchronous job, when the tool is `plain_sync` and nothing on the server
        needs to see the call on the event loop: the transport may then run the whole request on a
        worker thread (see `Peer`). None means "serve it the usual way"."""
        if type(params) is not dict or "requestState" in params:
            return None
        raw = cast("dict[str, Any]", params)
        name: Any = raw.get("name")
        arguments: Any = raw.get("arguments")
        if type(name) is not str or (arguments is not None and type(arguments) is not dict):
            return None  # the usual path answers with the precise error
        tool = self._tools.get(name)
        if tool is None or not tool.plain_sync or (self._catalogue is not None and self._unplannable("tool", name)):
            return None

        def job() -> Any:
            out: Any = tool.call_wire_sync(cast("dict[str, Any] | None", arguments))
            return WireResult(cast("dict[str, Any]", out)) if type(out) is dict else out

        return job

    async def _on_list_resources(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        from mcp.types import ListResourcesResult

        resources = self._resources.list_resources()
        shown = self._shown("resource", ctx.session)
        if shown is not None:
            resources = [resource for resource in resources if shown(str(resource.uri), resource.name)]
        visible = self._scope_filter("resource")
        if visible is not None:
            resources = [resource for resource in resources if visible(str(resource.uri))]
        items, next_cursor = page(resources, params.cursor if params else None, self._page_size)
        result = ListResourcesResult(resources=list(items), next_cursor=next_cursor)
        return _private(ctx, result) if visible is not None else result

    async def _on_list_resource_templates(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        from mcp.types import ListResourceTemplatesResult

        templates = self._resources.list_templates()
        shown = self._shown("template", ctx.session)
        if shown is not None:
            templates = [template for template in templates if shown(template.uri_template, template.name)]
        visible = self._scope_filter("resource")
        if visible is not None:
            templates = [template for template in templates if visible(template.uri_template)]
        items, next_cursor = page(templates, params.cursor if params else None, self._page_size)
        result = ListResourceTemplatesResult(resource_templates=list(items), next_cursor=next_cursor)
        return _private(ctx, result) if visible is not None else result

    async def _on_read_resource(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        uri = str(params.uri)

        async def run() -> Any:
            try:
                if self._catalogue is not None and self._hidden_resource(uri, ctx.session):
                    raise ResourceNotFoundError(f"Unknown resource: {uri}")  # as if it did not exist
                contents = await self._resources.read(uri, new_context(ctx, self._server()))
            except ResourceError as exc:
                raise _read_failed(uri, exc) from None
            if getattr(contents, "result_type", None) == "input_required":
                return contents
            return self._wire_or_model(read_result_wire(uri, contents), "ReadResourceResult")

        return await self._with_request_state(ctx, run)

    def _plan_read_resource(self, params: Any) -> Callable[[], Any] | None:
        """resources/read as one synchronous job, for a static resource with a plain sync function
        (see `plan_call_tool`); None otherwise."""
        if type(params) is not dict or "requestState" in params:
            return None
        uri: Any = cast("dict[str, Any]", params).get("uri")
        if type(uri) is not str or (self._catalogue is not None and self._catalogue.filtering):
            return None
        reader = self._resources.plain_sync_reader(uri)
        if reader is None:
            return None

        def job() -> Any:
            try:
                contents = reader()
            except ResourceError as exc:
                raise _read_failed(uri, exc) from None
            return self._wire_or_model(read_result_wire(uri, contents), "ReadResourceResult")

        return job

    async def _on_subscribe_resource(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        from mcp.types import EmptyResult

        ctx.session.subscribed_uris.add(str(params.uri))
        self._subscribed_sessions.add(ctx.session)
        return EmptyResult()

    async def _on_unsubscribe_resource(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        from mcp.types import EmptyResult

        ctx.session.subscribed_uris.discard(str(params.uri))
        return EmptyResult()

    async def _on_list_prompts(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        from mcp.types import ListPromptsResult

        prompts = self._prompts.list_prompts()
        shown = self._shown("prompt", ctx.session)
        if shown is not None:
            prompts = [prompt for prompt in prompts if shown(prompt.name, None)]
        visible = self._scope_filter("prompt")
        if visible is not None:
            prompts = [prompt for prompt in prompts if visible(prompt.name)]
        items, next_cursor = page(prompts, params.cursor if params else None, self._page_size)
        result = ListPromptsResult(prompts=list(items), next_cursor=next_cursor)
        return _private(ctx, result) if visible is not None else result

    async def _on_get_prompt(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        """prompts/get through `MCPServer.get_prompt`: its `ValueError`s become the answer as the
        session maps a handler's exception (code 0 with the text on the handshake-era wire)."""
        return await self._with_request_state(
            ctx, lambda: self.get_prompt(params.name, params.arguments, new_context(ctx, self._server())))

    def _plan_get_prompt(self, params: Any) -> Callable[[], Any] | None:
        """prompts/get as one synchronous job, for a prompt with a plain sync function (see
        `plan_call_tool`); None otherwise (including anything the usual path must reject)."""
        if type(params) is not dict or "requestState" in params:
            return None
        raw = cast("dict[str, Any]", params)
        name: Any = raw.get("name")
        arguments: Any = raw.get("arguments")
        if self._catalogue is not None and self._unplannable("prompt", name):
            return None
        if type(name) is not str or (arguments is not None and (
                type(arguments) is not dict or not all(type(v) is str for v in cast("dict[str, Any]", arguments).values()))):
            return None
        return self._prompts.plain_sync_renderer(name, arguments)
