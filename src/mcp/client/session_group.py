"""`ClientSessionGroup`: many server connections, one merged view of their tools, resources and
prompts; `call_tool` routes by name to the owning session. Every connection it opens does the
classic `initialize` handshake."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from mcp.shared.exceptions import MCPError


@dataclass
class StreamableHttpParameters:
    url: str
    headers: dict[str, str] | None = None
    timeout: float = 30.0
    sse_read_timeout: float = 300.0
    terminate_on_close: bool = True


@dataclass
class SseServerParameters:
    url: str
    headers: dict[str, str] | None = None
    timeout: float = 5.0
    sse_read_timeout: float = 300.0


@dataclass
class _Owned:
    session: Any
    tools: list[str] = field(default_factory=list[str])
    resources: list[str] = field(default_factory=list[str])
    prompts: list[str] = field(default_factory=list[str])
    stack: contextlib.AsyncExitStack | None = None


class ClientSessionGroup:
    def __init__(self, exit_stack: contextlib.AsyncExitStack | None = None,
                 component_name_hook: Callable[[str, Any], str] | None = None) -> None:
        self._exit_stack = exit_stack or contextlib.AsyncExitStack()
        self._owns_stack = exit_stack is None
        self._hook = component_name_hook
        self._tools: dict[str, Any] = {}
        self._resources: dict[str, Any] = {}
        self._prompts: dict[str, Any] = {}
        self._tool_owner: dict[str, Any] = {}
        self._sessions: dict[int, _Owned] = {}

    async def __aenter__(self) -> ClientSessionGroup:
        if self._owns_stack:
            await self._exit_stack.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        for owned in list(self._sessions.values()):
            if owned.stack is not None:
                await owned.stack.aclose()
        self._sessions.clear()
        if self._owns_stack:
            return await self._exit_stack.__aexit__(*exc)
        return None

    @property
    def sessions(self) -> list[Any]:
        return [owned.session for owned in self._sessions.values()]

    @property
    def tools(self) -> dict[str, Any]:
        return dict(self._tools)

    @property
    def resources(self) -> dict[str, Any]:
        return dict(self._resources)

    @property
    def prompts(self) -> dict[str, Any]:
        return dict(self._prompts)

    async def connect_to_server(self, server_params: Any) -> Any:
        """Open a connection (stdio, Streamable HTTP or legacy SSE), handshake, aggregate."""
        from mcp.client.session import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        stack = contextlib.AsyncExitStack()
        try:
            if isinstance(server_params, StdioServerParameters):
                transport = stdio_client(server_params)
            elif isinstance(server_params, StreamableHttpParameters):
                from mcp.client.streamable_http import streamable_http_client

                transport = streamable_http_client(server_params.url, terminate_on_close=server_params.terminate_on_close)
            elif isinstance(server_params, SseServerParameters):
                from mcp.client.sse import sse_client

                transport = sse_client(server_params.url, headers=server_params.headers, timeout=server_params.timeout,
                                       sse_read_timeout=server_params.sse_read_timeout)
            else:
                raise TypeError(f"connect_to_server() takes server parameters, not {type(server_params).__name__}")
            read, write = await stack.enter_async_context(transport)
            tg = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(tg.cancel_scope.cancel)
            session = ClientSession(read, write)
            tg.start_soon(session.peer.run)
            result = await session.initialize()
            await self._aggregate(result.server_info, session, stack)
        except BaseException:
            await stack.aclose()
            raise
        return session

    async def connect_with_session(self, server_info: Any, session: Any) -> Any:
        """Aggregate a session opened elsewhere (the group never closes it)."""
        await self._aggregate(server_info, session, None)
        return session

    async def disconnect_from_server(self, session: Any) -> None:
        owned = self._sessions.pop(id(session), None)
        if owned is None:
            raise MCPError(-32602, "Provided session is not managed by this group")
        for name in owned.tools:
            self._tools.pop(name, None)
            self._tool_owner.pop(name, None)
        for name in owned.resources:
            self._resources.pop(name, None)
        for name in owned.prompts:
            self._prompts.pop(name, None)
        if owned.stack is not None:
            await owned.stack.aclose()

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        session = self._tool_owner.get(name)
        if session is None:
            raise MCPError(-32602, f"Unknown tool: {name}")
        return await session.call_tool(self._tools[name].name, arguments, **kwargs)

    def _key(self, name: str, server_info: Any) -> str:
        return self._hook(name, server_info) if self._hook is not None else name

    async def _aggregate(self, server_info: Any, session: Any, stack: contextlib.AsyncExitStack | None) -> None:
        caps = session.server_capabilities
        tools: dict[str, Any] = {}
        resources: dict[str, Any] = {}
        prompts: dict[str, Any] = {}
        if caps is None or caps.tools is not None:
            for tool in await _all(session.list_tools):
                tools[self._key(tool.name, server_info)] = tool
        if caps is None or caps.resources is not None:
            for resource in await _all(session.list_resources, "resources"):
                resources[self._key(resource.name, server_info)] = resource
        if caps is None or caps.prompts is not None:
            for prompt in await _all(session.list_prompts, "prompts"):
                prompts[self._key(prompt.name, server_info)] = prompt
        for kind, new, have in (("tools", tools, self._tools), ("resources", resources, self._resources),
                                ("prompts", prompts, self._prompts)):
            clash = set(new) & set(have)
            if clash:
                raise MCPError(-32602, f"{clash} already exist in group {kind}.")
        self._tools.update(tools)
        self._resources.update(resources)
        self._prompts.update(prompts)
        for name in tools:
            self._tool_owner[name] = session
        self._sessions[id(session)] = _Owned(session, list(tools), list(resources), list(prompts), stack)


async def _all(list_page: Any, field_name: str = "tools") -> list[Any]:
    items: list[Any] = []
    cursor: str | None = None
    while True:
        page = await list_page(cursor)
        items.extend(getattr(page, field_name))
        cursor = page.next_cursor
        if not cursor:
            return items
