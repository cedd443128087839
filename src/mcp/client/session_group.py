"""`ClientSessionGroup`: many server connections, one merged view of their tools, resources and
prompts; `call_tool` routes by name to the owning session. Every connection it opens does the
classic `initialize` handshake."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

import anyio
from pydantic import BaseModel, Field

from mcp.client.context import ElicitationFnT, ListRootsFnT, LoggingFnT, SamplingFnT
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import DEFAULT_MAX_SSE_EVENT_SIZE
from mcp.shared.exceptions import MCPError

if TYPE_CHECKING:
    from mcp.client.session import MessageHandlerFnT, ProgressCallback
    from mcp.types import Implementation


class SseServerParameters(BaseModel):
    """Where and how to reach a legacy HTTP+SSE server."""

    url: str
    headers: dict[str, Any] | None = None
    timeout: float = 5.0
    """Seconds for ordinary HTTP operations."""
    sse_read_timeout: float = 300.0
    """Seconds the event stream may stay silent."""


class StreamableHttpParameters(BaseModel):
    """Where and how to reach a Streamable HTTP server."""

    url: str
    headers: dict[str, Any] | None = None
    timeout: float = 30.0
    """Seconds for ordinary HTTP operations."""
    sse_read_timeout: float = 300.0
    """Seconds a response stream may stay silent."""
    terminate_on_close: bool = True
    """End the server's session (`DELETE`) when the connection closes."""
    max_sse_event_size: int | None = Field(default=DEFAULT_MAX_SSE_EVENT_SIZE, gt=0)
    """The most bytes one server-sent event may take (None: no limit)."""


ServerParameters: TypeAlias = StdioServerParameters | SseServerParameters | StreamableHttpParameters
"""What `connect_to_server` connects with."""


@dataclass
class ClientSessionParameters:
    """How each session the group opens is set up (its callbacks, timeouts, identity)."""

    read_timeout_seconds: float | None = None
    sampling_callback: SamplingFnT | None = None
    elicitation_callback: ElicitationFnT | None = None
    list_roots_callback: ListRootsFnT | None = None
    logging_callback: LoggingFnT | None = None
    message_handler: MessageHandlerFnT | None = None
    client_info: Implementation | None = None


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

    async def connect_to_server(self, server_params: ServerParameters,
                                session_params: ClientSessionParameters | None = None) -> Any:
        """Open a connection (stdio, Streamable HTTP or legacy SSE), handshake, aggregate; each
        session is set up as `session_params` says."""
        import httpx2

        from mcp.client.session import ClientSession
        from mcp.client.stdio import stdio_client

        options = session_params or ClientSessionParameters()
        stack = contextlib.AsyncExitStack()
        try:
            if isinstance(server_params, StdioServerParameters):
                transport: Any = stdio_client(server_params)
            elif isinstance(server_params, StreamableHttpParameters):
                from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

                http_client = create_mcp_http_client(
                    headers=server_params.headers,
                    timeout=httpx2.Timeout(server_params.timeout, read=server_params.sse_read_timeout))
                await stack.enter_async_context(http_client)
                transport = streamable_http_client(server_params.url, http_client=http_client,
                                                   terminate_on_close=server_params.terminate_on_close,
                                                   max_sse_event_size=server_params.max_sse_event_size)
            elif isinstance(server_params, SseServerParameters):
                from mcp.client.sse import sse_client

                transport = sse_client(server_params.url, headers=server_params.headers, timeout=server_params.timeout,
                                       sse_read_timeout=server_params.sse_read_timeout)
            else:
                raise TypeError(f"connect_to_server() takes server parameters, not {type(server_params).__name__}")
            read, write = await stack.enter_async_context(transport)
            tg = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(tg.cancel_scope.cancel)
            session = ClientSession(read, write, read_timeout_seconds=options.read_timeout_seconds,
                                    sampling_callback=options.sampling_callback,
                                    elicitation_callback=options.elicitation_callback,
                                    list_roots_callback=options.list_roots_callback,
                                    logging_callback=options.logging_callback,
                                    message_handler=options.message_handler, client_info=options.client_info)
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

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,
                        read_timeout_seconds: float | None = None, progress_callback: ProgressCallback | None = None,
                        *, input_responses: dict[str, Any] | None = None, request_state: str | None = None,
                        meta: dict[str, Any] | None = None, allow_input_required: bool = False) -> Any:
        """Call a tool of the group by its group name, on the session that owns it."""
        session = self._tool_owner.get(name)
        if session is None:
            raise MCPError(-32602, f"Unknown tool: {name}")
        return await session.call_tool(self._tools[name].name, arguments, read_timeout_seconds, progress_callback,
                                       input_responses=input_responses, request_state=request_state, meta=meta,
                                       allow_input_required=allow_input_required)

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
