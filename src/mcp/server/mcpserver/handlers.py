"""The protocol handlers `MCPServer` registers on its low-level `Server`.

Each turns one request into a call on the server's registries (tools, resources, prompts), wraps
the three multi-round-trip methods in the `requestState` seal, and pages list results.
"""

from __future__ import annotations

import base64
import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.dependencies import NeedInput
from mcp.server.mcpserver.tools import error_result
from mcp.shared.exceptions import MCPError, ResourceError, ResourceNotFoundError
from mcp.types import InputRequiredResult
from mcp.types.jsonrpc import INVALID_PARAMS, RESOURCE_NOT_FOUND
from mcp.types.version import MODERN_VERSIONS

if TYPE_CHECKING:
    from mcp.server.mcpserver.server import MCPServer

logger = logging.getLogger("mcp.server")

# -- paging ---------------------------------------------------------------------------------------


def page(items: Sequence[Any], cursor: str | None, size: int | None) -> tuple[Sequence[Any], str | None]:
    """One page of `items` after `cursor` (an opaque offset); -32602 for a cursor we did not mint."""
    start = 0
    if cursor is not None:
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


# -- multi-round-trip -------------------------------------------------------------------------------


async def with_request_state(server: MCPServer, ctx: ServerRequestContext[Any],
                             run: Callable[[], Awaitable[Any]]) -> Any:
    """Open the echoed `requestState`, run the handler, seal the state of an input-required result."""
    raw = ctx.params or {}
    framework_state = None
    if "requestState" in raw:
        user_state, framework_state = server._boundary.open(ctx, ctx.method, raw)
        ctx.extra["request_state"] = user_state
        ctx.extra["mrtr_state"] = framework_state
    try:
        result = await run()
    except NeedInput as need:
        result = InputRequiredResult.model_validate({"inputRequests": {need.key: need.request}})
        framework_state = need.state
        sealed = server._boundary.seal(ctx, ctx.method, raw, None, framework_state)
        return result.model_copy(update={"request_state": sealed})
    if isinstance(result, InputRequiredResult):
        sealed = server._boundary.seal(ctx, ctx.method, raw, result.request_state, None)
        result = result.model_copy(update={"request_state": sealed})
    return result


def _context(server: MCPServer, ctx: ServerRequestContext[Any]) -> Context:
    return Context(ctx, server)


# -- tools --------------------------------------------------------------------------------------------


async def list_tools(server: MCPServer, ctx: ServerRequestContext[Any], params: Any) -> Any:
    from mcp.types import ListToolsResult

    cursor = params.cursor if params is not None else None
    if cursor is None and server._page_size is None:
        cached = server._tools_result
        if cached is None:
            cached = server._tools_result = ListToolsResult(tools=[t.to_tool() for t in server._tools.values()])
        return cached
    tools, next_cursor = page([t.to_tool() for t in server._tools.values()], cursor, server._page_size)
    return ListToolsResult(tools=list(tools), next_cursor=next_cursor)


async def call_tool(server: MCPServer, ctx: ServerRequestContext[Any], params: Any) -> Any:
    tool = server._tools.get(params.name)
    if tool is None:
        return error_result(f"Unknown tool: {params.name}")
    raw = ctx.params
    if raw is None or ("requestState" not in raw and not tool.signature.resolvers):
        result = await tool.call(params.arguments, Context(ctx, server) if tool.signature.needs_context else None)
        if type(result) is not InputRequiredResult:
            return result
        return await with_request_state(server, ctx, functools.partial(_value, result))
    return await with_request_state(server, ctx, lambda: tool.call(params.arguments, Context(ctx, server)))


async def _value(value: Any) -> Any:
    return value


# -- resources ----------------------------------------------------------------------------------------


async def list_resources(server: MCPServer, ctx: ServerRequestContext[Any], params: Any) -> Any:
    from mcp.types import ListResourcesResult

    items, next_cursor = page(server._resources.list_resources(), params.cursor if params else None, server._page_size)
    return ListResourcesResult(resources=list(items), next_cursor=next_cursor)


async def list_resource_templates(server: MCPServer, ctx: ServerRequestContext[Any], params: Any) -> Any:
    from mcp.types import ListResourceTemplatesResult

    items, next_cursor = page(server._resources.list_templates(), params.cursor if params else None, server._page_size)
    return ListResourceTemplatesResult(resource_templates=list(items), next_cursor=next_cursor)


async def read_resource(server: MCPServer, ctx: ServerRequestContext[Any], params: Any) -> Any:
    uri = str(params.uri)

    async def run() -> Any:
        try:
            contents = await server._resources.read(uri, Context(ctx, server))
        except ResourceNotFoundError:
            if ctx.protocol_version in MODERN_VERSIONS:
                raise MCPError(INVALID_PARAMS, f"Resource not found: {uri}", {"uri": uri}) from None
            raise MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri}) from None
        except ResourceError as exc:
            logger.warning("reading %s failed: %s", uri, exc)
            raise MCPError(-32603, f"Error reading resource {uri}: {exc}") from None
        if isinstance(contents, InputRequiredResult):
            return contents
        return read_result(uri, contents)

    return await with_request_state(server, ctx, run)


def read_result(uri: str, contents: Sequence[Any]) -> Any:
    """`ReadResourceContents` items -> a `ReadResourceResult` (bytes become base64 blobs)."""
    from mcp.types import BlobResourceContents, ReadResourceResult, TextResourceContents

    out: list[Any] = []
    for item in contents:
        content = item.content
        if isinstance(content, bytes | bytearray):
            out.append(BlobResourceContents(uri=uri, blob=base64.b64encode(content).decode(), mime_type=item.mime_type,
                                            _meta=item.meta))
        else:
            out.append(TextResourceContents(uri=uri, text=content, mime_type=item.mime_type, _meta=item.meta))
    return ReadResourceResult(contents=out)


async def subscribe_resource(server: MCPServer, ctx: ServerRequestContext[Any], params: Any) -> Any:
    from mcp.types import EmptyResult

    ctx.session.subscribed_uris.add(str(params.uri))
    server._subscribed_sessions.add(ctx.session)
    return EmptyResult()


async def unsubscribe_resource(server: MCPServer, ctx: ServerRequestContext[Any], params: Any) -> Any:
    from mcp.types import EmptyResult

    ctx.session.subscribed_uris.discard(str(params.uri))
    return EmptyResult()


# -- prompts and completions ----------------------------------------------------------------------------


async def list_prompts(server: MCPServer, ctx: ServerRequestContext[Any], params: Any) -> Any:
    from mcp.types import ListPromptsResult

    items, next_cursor = page(server._prompts.list_prompts(), params.cursor if params else None, server._page_size)
    return ListPromptsResult(prompts=list(items), next_cursor=next_cursor)


async def get_prompt(server: MCPServer, ctx: ServerRequestContext[Any], params: Any) -> Any:
    if server._prompts.get_prompt(params.name) is None:
        raise MCPError(INVALID_PARAMS, f"Unknown prompt: {params.name}", {"name": params.name})

    async def run() -> Any:
        try:
            return await server._prompts.render_prompt(params.name, params.arguments, Context(ctx, server))
        except ValueError as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from None

    return await with_request_state(server, ctx, run)


async def complete(server: MCPServer, ctx: ServerRequestContext[Any], params: Any) -> Any:
    handler = server._completion
    assert handler is not None
    return await handler.complete(params.ref, params.argument, params.context)


async def set_logging_level(server: MCPServer, ctx: ServerRequestContext[Any], params: Any) -> Any:
    from mcp.types import EmptyResult

    ctx.session.log_level = params.level
    return EmptyResult()
