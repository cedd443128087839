"""`Client`: the one-object MCP client, in memory, over stdio, or over HTTP.

`Client(server)` with an `MCPServer` or `Server` runs it in this process (no framing at all);
`Client(StdioServerParameters(...))` starts a subprocess; `Client("http://...")` speaks Streamable
HTTP; any transport (an async context manager yielding `(read, write)`) works too.

Eras: `mode="auto"` probes with `server/discover` and falls back to `initialize`; `mode="legacy"`
always does the handshake; `mode="2026-07-28"` pins the stateless wire.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

import anyio

from mcp.client import _deprecated
from mcp.client._deprecated import deprecated_verb
from mcp.client.header_mismatch import with_header_recovery
from mcp.client.outgoing import paginated
from mcp.client.request_timeout import DEFAULT_REQUEST_TIMEOUT_SECONDS, check_timeouts, total_deadline
from mcp.client.session import ClientSession
from mcp.client.transport_failure import innermost_group, is_transport_failure
from mcp.shared.exceptions import MCPError, single_leaf
from mcp.types.jsonrpc import INVALID_PARAMS
from mcp.types.version import HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_VERSIONS

if TYPE_CHECKING:
    from mcp.client.caching import CacheConfig, ClientResponseCache
    from mcp.client.context import ElicitationFnT, ListRootsFnT, LoggingFnT, SamplingFnT
    from mcp.client.extensions import ClientExtension
    from mcp.client.session import MessageHandlerFnT
    from mcp.types import DiscoverResult, Implementation, LoggingLevel, SamplingCapability



def _default_cache() -> CacheConfig:
    from mcp.client.caching import CacheConfig

    return CacheConfig()


class Transport(AbstractAsyncContextManager[tuple[Any, Any]], Protocol):
    """What `Client(...)` also takes: an async context manager yielding the `(read_stream,
    write_stream)` pair of a connection (`SessionMessage | Exception` in, `SessionMessage` out)."""


@dataclass(eq=False)
class Client:
    """One MCP connection, opened on entering `async with`: every constructor argument stays
    readable as an attribute of the same name."""

    server: Any
    """What to connect to: an `MCPServer`/`Server` (in process), a `StdioServerParameters`, a URL
    (Streamable HTTP), or any `Transport`."""
    _: KW_ONLY
    raise_exceptions: bool = False
    """In process: let a handler's exception propagate instead of answering with an error."""
    read_timeout_seconds: float | None = None
    """How long a request waits for its answer (None: not set, `default_request_timeout_seconds` applies)."""
    sampling_callback: SamplingFnT | None = None
    sampling_capabilities: SamplingCapability | None = None
    """Sampling sub-capabilities declared with `sampling_callback` (no effect without it)."""
    list_roots_callback: ListRootsFnT | None = None
    logging_callback: LoggingFnT | None = None
    log_level: LoggingLevel | None = None
    """On the stateless wire, the log level every request opts in to (None: no log messages)."""
    message_handler: MessageHandlerFnT | None = None
    client_info: Implementation | None = None
    mode: str = "auto"
    """"auto" (discover, then fall back to initialize), "legacy" (initialize), or a stateless-era
    protocol version to pin."""
    prior_discover: DiscoverResult | None = None
    """A `DiscoverResult` already in hand, adopted with no round trip."""
    elicitation_callback: ElicitationFnT | None = None
    input_required_max_rounds: int = 10
    """How many `InputRequiredResult` rounds `call_tool`/`get_prompt`/`read_resource` answer."""
    extensions: Sequence[ClientExtension] | None = None
    """Client extensions: their capability ads, result claims and notification bindings."""
    cache: CacheConfig | None = field(default_factory=_default_cache)
    """The response cache for the cacheable verbs (None: no cache)."""
    default_request_timeout_seconds: float | None = DEFAULT_REQUEST_TIMEOUT_SECONDS
    """How long a request with no timeout of its own (none per call, `read_timeout_seconds` None)
    waits without an answer or a progress report; None: for ever (see `mcp.client.request_timeout`)."""
    _session: ClientSession | None = field(init=False, default=None, repr=False)
    _stack: AsyncExitStack | None = field(init=False, default=None, repr=False)
    _used: bool = field(init=False, default=False, repr=False)
    _cache: ClientResponseCache | None = field(init=False, default=None, repr=False)
    _folded: list[Any] = field(init=False, default_factory=list[Any], repr=False)

    def __post_init__(self) -> None:
        mode = self.mode
        if mode not in ("legacy", "auto") and mode not in MODERN_VERSIONS:
            hint = f" ({mode!r} is a handshake-era version; use mode='legacy')" if mode in HANDSHAKE_VERSIONS else ""
            raise ValueError(f"mode must be 'legacy', 'auto', or one of {list(MODERN_VERSIONS)}; got {mode!r}{hint}")
        if self.extensions is not None:
            from mcp.client.extensions import fold_extensions

            self._folded = fold_extensions(self.extensions)
        if self.cache is not None:
            from mcp.client.caching import ClientResponseCache

            self._cache = ClientResponseCache.for_client(
                self.cache, self.server if isinstance(self.server, str) else None,
                lambda: self._session.protocol_version if self._session is not None else None)

    def _session_kwargs(self) -> dict[str, Any]:
        return {
            "read_timeout_seconds": self.read_timeout_seconds, "sampling_callback": self.sampling_callback,
            "sampling_capabilities": self.sampling_capabilities, "list_roots_callback": self.list_roots_callback,
            "logging_callback": self.logging_callback, "message_handler": self.message_handler,
            "client_info": self.client_info, "elicitation_callback": self.elicitation_callback,
            "log_level": self.log_level, "default_request_timeout_seconds": self.default_request_timeout_seconds,
        }

    # -- lifecycle ----------------------------------------------------------------------------

    async def __aenter__(self) -> Client:
        if self._used:
            raise RuntimeError("Client is already entered; cannot reenter")
        self._used = True
        stack = AsyncExitStack()
        await stack.__aenter__()
        try:
            read_stream, write_stream = await stack.enter_async_context(self._transport())
            tg = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(tg.cancel_scope.cancel)
            session = ClientSession(read_stream, write_stream, **self._session_kwargs())
            if self._folded:
                session.extensions = self._folded
            tg.start_soon(session.peer.run)
            self._session = session
            if self._cache is not None:
                session.notification_hooks.append(self._evict_on_notification)
            await self._connect(session)
        except BaseException as exc:
            self._session = None
            try:
                await stack.__aexit__(type(exc), exc, exc.__traceback__)
            except BaseException as group:
                leaf = single_leaf(group)
                if leaf is not group and is_transport_failure(leaf):
                    raise innermost_group(group) from None
                raise leaf from (None if leaf is not group else group.__cause__)
            leaf = single_leaf(exc)
            if leaf is exc:
                raise
            raise leaf from None
        self._stack = stack
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        stack, self._stack = self._stack, None
        self._session = None
        if stack is None:
            return None
        try:
            return await stack.__aexit__(*exc_info)
        except BaseException as group:
            leaf = single_leaf(group)
            if leaf is group:
                raise
            if is_transport_failure(leaf):
                raise innermost_group(group) from None
            raise leaf from None

    def _transport(self) -> Any:
        from mcp.client.transports import open_transport

        return open_transport(self.server, raise_exceptions=self.raise_exceptions)

    async def _connect(self, session: ClientSession) -> None:
        from mcp.client._probe import negotiate_auto

        mode = self.mode
        if mode == "legacy":
            await session.initialize(LATEST_HANDSHAKE_VERSION)
        elif mode == "auto":  # `prior_discover` plays no part: the server is asked
            await negotiate_auto(session)
        else:  # a pin sends nothing: it adopts what it was given (or knows nothing but the version)
            session.adopt(self.prior_discover or _synthesize_discover(mode))
            session.use_modern(mode)

    @property
    def session(self) -> ClientSession:
        if self._session is None:
            raise RuntimeError("Client must be used within an async context manager")
        return self._session

    @property
    def protocol_version(self) -> str | None:
        return self.session.protocol_version

    @property
    def server_info(self) -> Any:
        return self.session.server_info

    @property
    def server_capabilities(self) -> Any:
        return self.session.server_capabilities

    @property
    def instructions(self) -> str | None:
        return self.session.instructions

    # -- requests -----------------------------------------------------------------------------

    @deprecated_verb(_deprecated.PING)
    async def send_ping(self, *, meta: dict[str, Any] | None = None) -> Any:
        return await self.session.send_ping(meta=meta)

    async def list_tools(self, *, cursor: str | None = None, meta: dict[str, Any] | None = None,
                         cache_mode: str = "use") -> Any:
        result = await self._cached("tools/list", cursor, meta, cache_mode, "ListToolsResult")
        # A listing served from the cache never reached the session: it learns the schemas here.
        return self.session.absorb_tool_listing(result)

    async def _cached(self, method: str, cursor: str | None, meta: dict[str, Any] | None, cache_mode: str,
                      model_name: str, subject: str = "", params: dict[str, Any] | None = None) -> Any:
        """One cacheable request through the response cache: cursor-less calls only (a failing
        cursor, `INVALID_PARAMS`, evicts the listing), and a call with `meta` always reaches the
        server. An `input_required` answer comes back as its wire dict, never cached."""
        import mcp.types

        if cache_mode not in ("use", "refresh", "bypass"):
            raise ValueError(f"cache_mode must be 'use', 'refresh' or 'bypass'; got {cache_mode!r}")
        session = self.session
        model = getattr(mcp.types, model_name)
        if params is None:
            params = paginated(cursor, meta)
        elif meta:
            params = {**params, "_meta": dict(meta)}

        async def fetch() -> Any:
            raw = await session.send_request_raw(method, params)
            return raw if raw.get("resultType") == "input_required" else model.model_validate(raw)

        cache = self._cache
        if cache is None or cache_mode == "bypass":
            return await fetch()
        if cursor is not None:
            try:
                return await fetch()
            except MCPError as exc:
                if exc.code == INVALID_PARAMS:  # an expired cursor: the listing changed
                    await cache.evict_method(method)
                raise
        if meta:
            cache_mode = "refresh"
        if cache_mode == "use":
            hit = await cache.read(method, subject)
            if hit is not None:
                return hit
        generation = cache.capture(method, subject)
        result: Any = await fetch()
        if isinstance(result, dict):
            if cache_mode == "refresh":  # the refresh superseded the warm entry, which cannot stay
                await cache.evict_key(method, subject)
        else:
            await cache.write(method, subject, result, generation, "refresh" if cache_mode == "refresh" else "use")
        return cast("Any", result)

    async def _evict_on_notification(self, method: str, params: dict[str, Any]) -> None:
        if self._cache is not None:
            await self._cache.evict_for(method, params)

    def listen(self, *, tools_list_changed: bool = False, prompts_list_changed: bool = False,
               resources_list_changed: bool = False, resource_subscriptions: Any = (),
               timeout: float = 30.0) -> AbstractAsyncContextManager[Any]:
        """Open a `subscriptions/listen` stream (2026-07-28); entering waits for the server's
        acknowledgement, leaving cancels the stream (see `mcp.client.subscriptions.listen`)."""
        from mcp.client.subscriptions import listen

        return listen(self.session, tools_list_changed=tools_list_changed, prompts_list_changed=prompts_list_changed,
                      resources_list_changed=resources_list_changed, resource_subscriptions=resource_subscriptions,
                      timeout=timeout)

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,
                        read_timeout_seconds: float | None = None, progress_callback: Any = None, *,
                        input_responses: dict[str, Any] | None = None, request_state: str | None = None,
                        meta: dict[str, Any] | None = None, reset_timeout_on_progress: bool = False,
                        max_total_timeout: float | None = None, as_task: bool = False) -> Any:
        """Call a tool, answering any input the server asks for along the way (2026-07-28); a
        result whose `structured_content` breaks the tool's declared `output_schema` raises (never
        for `is_error` results). A 2026-07-28 call refused with `HEADER_MISMATCH` is sent once
        more after re-listing tools (see `mcp.client.header_mismatch`); `read_timeout_seconds`
        (default: the client's) bounds each round and the whole re-list.

        `reset_timeout_on_progress`: each progress report restarts `read_timeout_seconds` (a
        progress token is sent even without `progress_callback`); `max_total_timeout`: the whole
        call (every round, a task's polling) ends with `MCPError(REQUEST_TIMEOUT)` after that many
        seconds whatever progress says. Giving up tells the server (`notifications/cancelled`, or
        `tasks/cancel` for a task polled here); see `mcp.client.request_timeout`.

        With the tasks extension declared (`extensions=[mcp.client.tasks.Tasks()]`), a call the
        server turns into a task is polled to its end here; `as_task=True` returns a
        `mcp.client.tasks.TaskHandle` instead (see `mcp.client.tasks`)."""
        check_timeouts(read_timeout_seconds, max_total_timeout, reset_timeout_on_progress)
        if as_task:
            from mcp.client.tasks import tasks_of

            if tasks_of(self.session) is None:
                raise ValueError("call_tool(..., as_task=True) needs the tasks extension declared: "
                                 "Client(..., extensions=[mcp.client.tasks.Tasks()])")
        with total_deadline("tools/call", max_total_timeout):
            return await self._call_tool(name, arguments, read_timeout_seconds, progress_callback, input_responses,
                                         request_state, meta, reset_timeout_on_progress, as_task)

    async def _call_tool(self, name: str, arguments: dict[str, Any] | None, read_timeout_seconds: float | None,
                         progress_callback: Any, input_responses: dict[str, Any] | None, request_state: str | None,
                         meta: dict[str, Any] | None, reset_timeout_on_progress: bool, as_task: bool) -> Any:
        session = self.session
        relist_timeout = read_timeout_seconds if read_timeout_seconds is not None else self.read_timeout_seconds

        async def one_round(responses: dict[str, Any] | None, state: str | None) -> Any:
            def send() -> Any:
                return session.call_tool(name, arguments, read_timeout_seconds, progress_callback, meta=meta,
                                         input_responses=responses, request_state=state,
                                         allow_input_required=True, allow_claimed=bool(self._folded),
                                         reset_timeout_on_progress=reset_timeout_on_progress)

            return await with_header_recovery(self, name, relist_timeout, send)

        result = await self._drive(one_round, input_responses, request_state)
        if as_task:
            from mcp.client.tasks import handle_for

            return handle_for(session, name, result, read_timeout_seconds, progress_callback)
        if self._folded and type(result).__name__ != "CallToolResult":
            from mcp.client.extensions import ClaimContext

            claim = session.claim_for(getattr(result, "result_type", None) or "")
            if claim is not None:
                result = await claim.resolve(
                    result, ClaimContext(session=session, tool_name=name, read_timeout_seconds=read_timeout_seconds,
                                         progress_callback=progress_callback))
                if not result.is_error:  # the direct path's check, for the resolver's result
                    await session.validate_tool_result(name, result)
        return result

    async def get_task(self, task_id: str, *, tool_name: str = "", read_timeout_seconds: float | None = None) -> Any:
        """Take up a task by its id (one `tasks/get`): a `mcp.client.tasks.TaskHandle`;
        `TaskNotFoundError` when the server does not know the id. `tool_name` lets its result be
        checked against that tool's output schema."""
        from mcp.client.tasks import get_task

        return await get_task(self.session, task_id, tool_name, read_timeout_seconds)

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None, *,
                         input_responses: dict[str, Any] | None = None, request_state: str | None = None,
                         meta: dict[str, Any] | None = None) -> Any:
        session = self.session

        async def one_round(responses: dict[str, Any] | None, state: str | None) -> Any:
            return await session.get_prompt(name, arguments, meta=meta, input_responses=responses, request_state=state,
                                            allow_input_required=True)

        return await self._drive(one_round, input_responses, request_state)

    async def read_resource(self, uri: Any, *, input_responses: dict[str, Any] | None = None,
                            request_state: str | None = None, meta: dict[str, Any] | None = None,
                            cache_mode: str = "use") -> Any:
        session = self.session
        if input_responses is None and request_state is None:
            first = await self._cached("resources/read", None, meta, cache_mode, "ReadResourceResult", str(uri),
                                       {"uri": str(uri)})
            if not isinstance(first, dict):
                return first
            from mcp.types import InputRequiredResult

            irr = InputRequiredResult.model_validate(first)
            requests = irr.input_requests or {}
            input_responses = {key: await session.answer_input_request(r, key) for key, r in requests.items()}
            request_state = irr.request_state

        async def one_round(responses: dict[str, Any] | None, state: str | None) -> Any:
            return await session.read_resource(uri, meta=meta, input_responses=responses, request_state=state,
                                               allow_input_required=True)

        return await self._drive(one_round, input_responses, request_state)

    async def _drive(self, one_round: Any, responses: dict[str, Any] | None, state: str | None) -> Any:
        """One round, then retry with answers until the server returns a final result (bounded by
        `input_required_max_rounds`)."""
        from mcp.client._input_required import run_input_required_driver
        from mcp.client.context import ClientRequestContext

        session = self.session

        async def dispatch(key: str, request: Any) -> Any:
            meta = request.params.meta if request.params is not None else None
            return await session.dispatch_input_request(
                ClientRequestContext(session=session, request_id=key, meta=meta), request)

        first = await one_round(responses, state)
        return await run_input_required_driver(first, dispatch=dispatch, retry=one_round,
                                               max_rounds=self.input_required_max_rounds)

    async def list_resources(self, *, cursor: str | None = None, meta: dict[str, Any] | None = None,
                             cache_mode: str = "use") -> Any:
        return await self._cached("resources/list", cursor, meta, cache_mode, "ListResourcesResult")

    async def list_resource_templates(self, *, cursor: str | None = None, meta: dict[str, Any] | None = None,
                                      cache_mode: str = "use") -> Any:
        return await self._cached("resources/templates/list", cursor, meta, cache_mode, "ListResourceTemplatesResult")

    async def list_prompts(self, *, cursor: str | None = None, meta: dict[str, Any] | None = None,
                           cache_mode: str = "use") -> Any:
        return await self._cached("prompts/list", cursor, meta, cache_mode, "ListPromptsResult")

    async def complete(self, ref: Any, argument: dict[str, str], context_arguments: dict[str, str] | None = None) -> Any:
        return await self.session.complete(ref, argument, context_arguments)

    @deprecated_verb(_deprecated.SUBSCRIBE)
    async def subscribe_resource(self, uri: Any, *, meta: dict[str, Any] | None = None) -> Any:
        return await self.session.subscribe_resource(uri, meta=meta)

    @deprecated_verb(_deprecated.UNSUBSCRIBE)
    async def unsubscribe_resource(self, uri: Any, *, meta: dict[str, Any] | None = None) -> Any:
        return await self.session.unsubscribe_resource(uri, meta=meta)

    @deprecated_verb(_deprecated.LOGGING)
    async def set_logging_level(self, level: str, *, meta: dict[str, Any] | None = None) -> Any:
        return await self.session.set_logging_level(level, meta=meta)

    @deprecated_verb(_deprecated.ROOTS)
    async def send_roots_list_changed(self) -> None:
        if self.session.modern_meta is None:
            await self.session.send_roots_list_changed()

    @deprecated_verb(_deprecated.PROGRESS)
    async def send_progress_notification(self, progress_token: Any, progress: float, total: float | None = None,
                                         message: str | None = None) -> None:
        await self.session.send_progress_notification(progress_token, progress, total, message)


# FastMCP 4.1.6 imports these private helpers of the official module.
@dataclass(frozen=True)
class _FoldedExtensions:
    """`Client(extensions=...)` in the shapes a session consumes."""

    ad: dict[str, dict[str, Any]] | None
    claims: dict[str, tuple[Any, ...]] | None
    bindings: tuple[Any, ...] | None
    by_model: dict[type, Any]


def _fold_extensions(extensions: Any) -> _FoldedExtensions:  # pyright: ignore[reportUnusedFunction]
    """Check `extensions` (as `Client` does) and fold them: capability ads by identifier, result
    claims by identifier, notification bindings, and each claim by its result model."""
    from mcp.client.extensions import fold_extensions

    folded = fold_extensions(extensions)
    if not folded:
        return _FoldedExtensions(ad=None, claims=None, bindings=None, by_model={})
    claims = {ext.identifier: tuple(ext.claims()) for ext in folded if ext.claims()}
    bindings = tuple(binding for ext in folded for binding in ext.notifications())
    return _FoldedExtensions(ad={ext.identifier: ext.settings() for ext in folded}, claims=claims or None,
                             bindings=bindings or None,
                             by_model={claim.model: claim for group in claims.values() for claim in group})


def _synthesize_discover(protocol_version: str) -> Any:
    """A minimal `DiscoverResult` for a server known to speak `protocol_version` (nothing else known)."""
    from mcp.types import DiscoverResult, ServerCapabilities

    return DiscoverResult(supported_versions=[protocol_version], capabilities=ServerCapabilities(),
                          result_type="complete", ttl_ms=0, cache_scope="public")


def _evicting_message_handler(  # pyright: ignore[reportUnusedFunction]
    cache: ClientResponseCache, user_handler: MessageHandlerFnT | None
) -> MessageHandlerFnT:
    """`user_handler`, preceded by the cache evictions each server notification calls for (a
    failing eviction is logged; the notification is still delivered)."""
    import logging

    async def handler(message: Any) -> None:
        if not isinstance(message, Exception):
            try:
                await cache.evict_for_notification(message)
            except Exception:
                logging.getLogger("mcp.client").exception("response cache eviction failed")
        if user_handler is not None:
            await user_handler(message)

    return handler
