"""`ServerSession`: one client connection as the server sees it.

It decides each request's era (handshake or 2026-07-28, per request), enforces the lifecycle,
runs the request through the server's middleware and handler table, and puts the result on the
wire in the shape of the revision in force (serverInfo stamp and `resultType` on the modern wire,
fields a revision lacks pruned on older ones).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, cast

from mcp._engine.peer import (
    DEFAULT_MAX_CONCURRENT_REQUESTS,
    Peer,
    RaisedException,
    ReadStream,
    WriteStream,
    current_cancellation,
)
from mcp._protocol import messages as m
from mcp._protocol.lifecycle import negotiate_version, unsupported_version_error
from mcp._protocol.revisions import prune_result
from mcp.server.connection import LOG_LEVELS, allowed_log_levels
from mcp.server.context import ServerRequestContext
from mcp.server.unserved import unserved_request_error
from mcp.shared.exceptions import MCPError, NoBackChannelError, warn_deprecated
from mcp.shared.message import ServerMessageMetadata
from mcp.types.jsonrpc import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
)
from mcp.types.version import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    HANDSHAKE_VERSIONS,
    LOG_LEVEL_META_KEY,
    MODERN_VERSIONS,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
)

if TYPE_CHECKING:
    from mcp.server.connection import Connection
    from mcp.server.lowlevel.server import Server
    from mcp.shared.dispatcher import ProgressFnT
    from mcp.types import ClientCapabilities, Implementation

logger = logging.getLogger("mcp.server")

_UNRELATED = ServerMessageMetadata()
"""The metadata of a notification related to no request: it names none, and no response channel."""

current_progress_token: ContextVar[Any] = ContextVar("mcp_current_progress_token", default=None)
"""The `_meta.progressToken` of the request being served in this task (set only when it has one),
for `ServerSession.report_progress`."""
current_log_levels: ContextVar[frozenset[str] | None] = ContextVar("mcp_current_log_levels", default=None)
"""The `notifications/message` levels the 2026-07-28 request being served in this task opted into
with its `_meta` (set only for such requests; handshake-era ones may receive every level)."""
current_envelope: ContextVar[dict[str, Any] | None] = ContextVar("mcp_current_envelope", default=None)
"""The `_meta` of the 2026-07-28 request being served in this task: its client info and capabilities
stand in for `initialize`'s (`ServerSession.client_params` and friends), as the official SDK's
per-request connection does."""

REMOVED_ON_MODERN_WIRE = frozenset(
    {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
)
LIST_CHANGED_FOR: dict[str, str] = {
    "tools/list": "notifications/tools/list_changed",
    "prompts/list": "notifications/prompts/list_changed",
    "resources/list": "notifications/resources/list_changed",
    "resources/templates/list": "notifications/resources/list_changed",
}
"""A list request -> the list_changed notification whose news it fetches (see `relay_list_changed`)."""
MODERN_ONLY = frozenset({"server/discover"})
"""Requests that exist only on the 2026-07-28 wire: without its `_meta` they are invalid params."""
def request_meta(wire: dict[str, Any]) -> dict[str, Any]:
    """A request's `_meta` as `ServerRequestContext.meta` holds it (the official `RequestParamsMeta`
    shape): the progress token under its Python name `progress_token`, every other key as sent.
    Only a `_meta` with a progress token is copied; the rest is the wire dict itself."""
    meta = dict(wire)
    meta["progress_token"] = meta.pop("progressToken")
    return meta


def _typed(model_name: str, raw: Any) -> Any:
    """`raw` (a request `_meta` value) as the `mcp.types` model named, or None when absent or
    mis-shaped (a bad value degrades to not supplied, as officially)."""
    if type(raw) is not dict:
        return None
    import mcp.types

    try:
        return getattr(mcp.types, model_name).model_validate(raw)
    except ValueError:
        return None


def handler_failure(exc: Exception, method: str, modern: bool) -> tuple[int, str, Any]:
    """The error answer (code, message, data) for a handler's exception that is not an `MCPError`,
    as the official SDK gives it: a pydantic `ValidationError` is -32602 "Invalid request
    parameters"; anything else is logged with its traceback and answered -32603 "Internal server
    error" on the 2026-07-28 wire, or code 0 with the exception's text on the handshake-era wire
    (the official dispatcher's pinned compatibility answer: the text a handler raises is its
    message to the caller, so a handler must not raise secrets)."""
    from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data

    error = handler_exception_to_error_data(exc)
    if error is not None:
        return error.code, error.message, error.data
    logger.exception("error handling %s", method)
    if modern:
        return INTERNAL_ERROR, "Internal server error", None
    return 0, str(exc), None


def raised_for(exc: Exception, modern: bool) -> BaseException | None:
    """What an in-memory client with `raise_exceptions=True` sees for a handler's exception, as
    officially: nothing special for one with a mapped answer (the error response), else the
    exception itself on the handshake-era wire and `MCPError(-32603, its text)` chained to it on
    the 2026-07-28 wire."""
    from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data

    if handler_exception_to_error_data(exc) is not None:
        return None
    if not modern:
        return exc
    revealed = MCPError(INTERNAL_ERROR, str(exc))
    revealed.__cause__ = exc
    return revealed


class WireResult:
    """A result already in wire form (spec names, no unset fields): the framework's own handlers
    return these on the hot path to skip building and dumping a model. Middleware never sees one:
    it gets the finished wire dict (`Server._dispatch_wire`)."""

    __slots__ = ("wire",)

    def __init__(self, wire: dict[str, Any]) -> None:
        self.wire = wire


_result_serializers: dict[type, Any] = {}
"""Result model class -> its pydantic serializer (what `model_dump` calls, minus the wrapper)."""


def own_answer(result: Any) -> dict[str, Any]:
    """What a middleware chain returned, as the JSON-RPC result: a dict as is (copied), a model
    dumped, None as `{}`."""
    if result is None:
        return {}
    if type(result) is WireResult:
        return result.wire
    if isinstance(result, Mapping):
        return dict(cast("Mapping[str, Any]", result))
    if hasattr(result, "model_dump"):
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)
    raise TypeError(f"middleware returned {type(result).__name__}; expected a result model, a dict or None")


def _result_serializer(method: str, result: Any, version: str) -> Any:
    """The serializer of a handler's result model, cached per class. A mapping (or None) is a
    result already in wire form: it gets a one-off serializer that checks it against the method's
    result type. Anything else is a clear `TypeError`."""
    cls: Any = result.__class__
    serializer = getattr(cls, "__pydantic_serializer__", None)
    if serializer is None or not hasattr(result, "model_dump") or not hasattr(cls, "model_fields"):
        if result is None or isinstance(result, Mapping):
            return _WireMapping(method, version)
        raise TypeError(
            f"Handler for {method!r} returned {cls.__name__}; expected a result model or a dict "
            f"(for example ListToolsResult(tools=[...]), not a bare list)"
        )
    from mcp.types._base import model_serializer

    serializer = _result_serializers[cls] = model_serializer(cls)
    return serializer


_CORE_RESULT_TYPES = frozenset({"complete", "input_required"})


class _WireMapping:
    """Stands in for the serializer of a result returned as a mapping (or None, an empty result).

    As in the official SDK, the result of a method MCP defines must validate as one of that
    method's result types (the answer is -32603 otherwise, the details go to the log), and goes on
    the wire as that type dumps it; a custom method's result, or one a 2026-07-28 extension claims
    with its own `resultType`, goes as returned (copied)."""

    __slots__ = ("method", "version")

    def __init__(self, method: str, version: str) -> None:
        self.method = method
        self.version = version

    def to_python(self, result: Mapping[str, Any] | None, **options: Any) -> dict[str, Any]:
        wire: dict[str, Any] = {} if result is None else dict(result)
        result_type = wire.get("resultType")
        if self.version in MODERN_VERSIONS and isinstance(result_type, str) and result_type not in _CORE_RESULT_TYPES:
            return wire  # a shape an extension claims: its own to define
        models = _result_models(self.method, self.version, result_type)
        if not models:
            return wire
        failure: Exception | None = None
        for model in models:
            try:
                return model.model_validate(wire).model_dump(**options)
            except ValueError as exc:  # pydantic's ValidationError
                failure = failure or exc
        logger.error("handler for %r returned an invalid result: %s", self.method, failure)
        raise MCPError(INTERNAL_ERROR, "Handler returned an invalid result")


def _result_models(method: str, version: str, result_type: Any) -> tuple[Any, ...]:
    """The result types a dict answering a request of a method MCP defines may be at `version`, by
    its `resultType` (empty for a custom method or a notification)."""
    from mcp.types import methods

    info = methods.get(method)
    if info is None or info.result is None:
        return ()
    own, *others = info.result_types(version)
    if result_type == "input_required":  # InputRequiredResult when the method may get one here
        return tuple(others) or (own,)
    import mcp.types
    from mcp._protocol._revision_shapes import RESULT_ALTERNATIVES

    # the task-augmented alternative of 2025-11-25 (CreateTaskResult), told apart by its fields
    alternatives = RESULT_ALTERNATIVES.get(version, {}).get(method, ())
    return (own, *(getattr(mcp.types, name) for name in alternatives if name != "InputRequiredResult"))


def _given_cache_fields(result: Any) -> frozenset[str]:
    """Which of `ttlMs`/`cacheScope` the handler chose itself: set on its result model (the model
    defaults, 0 and "private", are not a choice), or present in its wire dict / mapping."""
    if type(result) is WireResult:
        keys: Any = result.wire
    elif isinstance(result, Mapping):
        keys = cast("Mapping[str, Any]", result)
    else:
        chosen: set[str] = getattr(result, "model_fields_set", set())
        return frozenset(wire for field, wire in _CACHE_FIELDS if field in chosen)
    return frozenset(wire for field, wire in _CACHE_FIELDS if wire in keys or field in keys)


_CACHE_FIELDS = (("ttl_ms", "ttlMs"), ("cache_scope", "cacheScope"))

CACHEABLE_METHODS = frozenset(
    {"tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read", "server/discover"}
)


class ServerSession:
    """See the module docstring.

    Two ways to build one. The framework builds one per connection, over a pair of streams
    (`server=`, `read_stream=`, `write_stream=`, keyword-only); `run()` then serves it. The
    official SDK's form, `ServerSession(request_outbound, connection)`, builds a session over an
    outbound channel (anything with `send_raw_request`/`notify`/`progress`, see
    `mcp.shared.dispatcher.DispatchContext`) and a `mcp.server.connection.Connection`: its
    server-to-client helpers go out on that channel, and it reads the connection's state.
    """

    def __init__(
        self,
        request_outbound: Any = None,
        connection: Connection | None = None,
        *,
        request_meta: Any = None,
        server: Server[Any] | None = None,
        read_stream: ReadStream | None = None,
        write_stream: WriteStream | None = None,
        lifespan_context: Any = None,
        raise_exceptions: bool = False,
        stateless: bool = False,
        default_version: str | None = None,
        drop_when_full: bool = False,
        max_concurrent_requests: int = DEFAULT_MAX_CONCURRENT_REQUESTS,
    ) -> None:
        self.server = cast("Server[Any]", server)
        self.lifespan_context = lifespan_context
        self.raise_exceptions = raise_exceptions
        self.stateless = stateless
        """Stateless HTTP: no handshake needed; every request stands alone, no back-channel."""
        self.default_version = default_version
        self._protocol_version: str | None = None
        """The revision negotiated by `initialize` (None until then and on the modern wire)."""
        self._client_info: Any = None
        self._client_capabilities: Any = None
        self.initialized = False
        self.log_level: str | None = None
        self.subscribed_uris: set[str] = set()
        """Handshake-era `resources/subscribe` targets of this connection."""
        self._progress_callbacks: dict[Any, ProgressFnT] = {}
        """Progress callbacks of this session's own requests to the client, by token."""
        self._told: dict[str, tuple[Any, bool]] = {}
        """list_changed method -> (the request turn that sent it, sent by `relay_list_changed`),
        while the client has not asked for that list again (see `relay_list_changed`)."""
        self._connection = connection
        self._request_outbound = request_outbound
        self.request_meta = request_meta
        if connection is not None or request_outbound is not None:
            if connection is None or request_outbound is None:
                raise TypeError("ServerSession(request_outbound, connection) needs both")
            self._allowed_log_levels = allowed_log_levels(connection.protocol_version, request_meta)
            self.peer: Any = OutboundPeer(request_outbound)
            return
        if server is None or read_stream is None or write_stream is None:
            raise TypeError("ServerSession needs server=, read_stream= and write_stream= "
                            "(or the official form: ServerSession(request_outbound, connection))")
        self.peer = Peer(read_stream, write_stream, role="server", on_request=self._on_request,
                         on_notification=self._on_notification, drop_when_full=drop_when_full,
                         track_ids=not stateless, max_concurrent_requests=max_concurrent_requests,
                         offload=self.plan_offload)

    async def run(self) -> None:
        await self.peer.run()

    @property
    def connection(self) -> Connection | None:
        """The `Connection` this session was built over (official form); None for a framework one."""
        return self._connection

    @property
    def protocol_version(self) -> str:
        """The protocol version this connection speaks: the negotiated one once `initialize` is
        done, before that the transport's hint or the newest handshake-era revision."""
        if self._connection is not None:
            return self._connection.protocol_version
        return self._protocol_version or self.default_version or HANDSHAKE_VERSIONS[-1]

    @property
    def can_send_request(self) -> bool:
        """Whether a server-initiated request can reach the client now."""
        if self._request_outbound is not None:
            return bool(self._request_outbound.can_send_request)
        return self.has_back_channel

    @property
    def client_params(self) -> Any:
        """The client's `initialize` params (official form: the connection's; on a 2026-07-28
        request, built from its `_meta` when that names the client; otherwise built from what
        `initialize` carried, None before it)."""
        if self._connection is not None:
            return self._connection.client_params
        envelope = current_envelope.get()
        version = self._protocol_version if envelope is None else envelope.get(PROTOCOL_VERSION_META_KEY)
        info, caps = self.client_info, self.client_capabilities
        if info is None or caps is None or version is None:
            return None
        from mcp.types import InitializeRequestParams

        return InitializeRequestParams(protocol_version=version, capabilities=caps, client_info=info)

    @property
    def client_info(self) -> Implementation | None:
        envelope = current_envelope.get()
        if envelope is not None:
            return _typed("Implementation", envelope.get(CLIENT_INFO_META_KEY))
        if self._connection is not None:
            params = self._connection.client_params
            return None if params is None else params.client_info
        info = self._client_info
        if isinstance(info, dict):
            from mcp.types import Implementation

            info = self._client_info = Implementation.model_validate(info)
        return info

    @property
    def client_capabilities(self) -> ClientCapabilities | None:
        envelope = current_envelope.get()
        if envelope is not None:
            return _typed("ClientCapabilities", envelope.get(CLIENT_CAPABILITIES_META_KEY))
        if self._connection is not None:
            return self._connection.client_capabilities
        caps = self._client_capabilities
        if isinstance(caps, dict):
            from mcp.types import ClientCapabilities

            caps = self._client_capabilities = ClientCapabilities.model_validate(caps)
        return caps

    # -- requests ---------------------------------------------------------------------------

    def _era(self, method: str, params: dict[str, Any] | None, metadata: Any) -> tuple[str, Any]:
        """(protocol version, raw client capabilities) for one request, or an MCPError.

        A request is on the 2026-07-28 wire when its `_meta` (or the HTTP version header) names a
        revision that is not a handshake-era one; there `_meta` must carry the version and the
        client capabilities, and the header (when present) must agree with it.
        """
        raw_meta: Any = params.get("_meta") if params is not None else None
        if raw_meta is not None and type(raw_meta) is not dict:
            raise MCPError(INVALID_PARAMS, "Invalid params: _meta must be an object")
        meta = cast("dict[str, Any] | None", raw_meta)
        requested = meta.get(PROTOCOL_VERSION_META_KEY) if meta is not None else None
        if requested is not None and type(requested) is not str:
            raise MCPError(INVALID_PARAMS, f"Invalid params: _meta {PROTOCOL_VERSION_META_KEY!r} must be a string")
        header = getattr(metadata, "protocol_version", None) if metadata is not None else None
        if (requested is not None and requested not in HANDSHAKE_VERSIONS) or (
            header is not None and header not in HANDSHAKE_VERSIONS
        ):
            if requested is None:
                raise MCPError(INVALID_PARAMS, f"Invalid params: _meta must carry {PROTOCOL_VERSION_META_KEY!r}")
            if header is not None and header != requested:
                raise MCPError(HEADER_MISMATCH, f"MCP-Protocol-Version header {header!r} does not match _meta version {requested!r}")
            if requested not in MODERN_VERSIONS:
                raise unsupported_version_error(requested)
            caps = meta.get(CLIENT_CAPABILITIES_META_KEY) if meta is not None else None
            if type(caps) is not dict:
                raise MCPError(INVALID_PARAMS, f"Invalid params: _meta must carry {CLIENT_CAPABILITIES_META_KEY!r}")
            level = cast("dict[str, Any]", meta).get(LOG_LEVEL_META_KEY)
            if level is not None and level not in LOG_LEVELS:
                from mcp.types.methods import SPEC_CLIENT_METHODS

                if method in SPEC_CLIENT_METHODS:  # a custom method's unknown level reads as none asked
                    raise MCPError(INVALID_PARAMS, "Invalid request parameters", "")
            if method in REMOVED_ON_MODERN_WIRE:
                raise MCPError(METHOD_NOT_FOUND, "Method not found", method)
            return requested, cast("dict[str, Any]", caps)
        if method in MODERN_ONLY:
            raise MCPError(INVALID_PARAMS, f"Invalid params: _meta must carry {PROTOCOL_VERSION_META_KEY!r}")
        if method == "initialize" or self._protocol_version is not None:
            return self._protocol_version or "", None
        if self.stateless or method == "ping":
            return header or self.default_version or HANDSHAKE_VERSIONS[-1], None
        # Before the handshake, as the official SDK answers: a method the server does not serve is
        # -32601 whatever the state; one it serves is refused with its pinned -32602 shape.
        if method not in self.server._request_handlers:
            raise unserved_request_error(method, self.protocol_version, params)
        raise MCPError(INVALID_PARAMS, "Invalid request parameters", "")

    async def _on_request(self, message: dict[str, Any], metadata: Any) -> None:
        request_id = message["id"]
        method: str = message["method"]
        if self._told:  # the client fetches the list: what it was told before is now known to it
            self._told.pop(LIST_CHANGED_FOR.get(method, ""), None)
        params: dict[str, Any] | None = message.get("params")
        version = self._protocol_version
        meta: Any = params.get("_meta") if params is not None else None
        progress: Any = None
        levels: Any = None
        wanted: Any = meta
        if type(wanted) is dict and "progressToken" in wanted:  # any other `_meta` is refused by `_era`
            progress = current_progress_token.set(cast("dict[str, Any]", wanted)["progressToken"])
            meta = request_meta(cast("dict[str, Any]", wanted))
        envelope: Any = None
        try:
            version, caps = self._era(method, params, metadata)
            if caps is not None:  # a 2026-07-28 request: logs only at the level its `_meta` asks for
                levels = current_log_levels.set(allowed_log_levels(version, cast("dict[str, Any] | None", wanted)))
            if caps is not None:
                envelope = current_envelope.set(cast("dict[str, Any]", wanted))
            ctx: ServerRequestContext[Any] = ServerRequestContext(
                self, self.lifespan_context, version, method, params, request_id,
                getattr(metadata, "request", None) if metadata is not None else None, caps,
                meta, transport=metadata,
            )
            server = self.server
            if server.middleware:
                # The chain ends in the finished wire form; what the middleware returns goes out as
                # returned (never patched: an answer of its own carries no stamp it did not add).
                wire = own_answer(await server._chain(ctx))
                version = ctx.protocol_version or self._protocol_version or ""
            else:
                result = await server._dispatch(ctx)
                version = ctx.protocol_version or self._protocol_version or ""
                wire = self._result_to_wire(method, result, version)
            response = m.result_response(request_id, wire)
        except MCPError as exc:
            response = m.error_response(request_id, exc.code, exc.message, exc.data)
        except Exception as exc:
            modern = version in MODERN_VERSIONS
            code, text, data = handler_failure(exc, method, modern)
            response = m.error_response(request_id, code, text, data)
            if self.raise_exceptions and metadata is None:
                raised = raised_for(exc, modern)
                if raised is not None:
                    metadata = RaisedException(raised)
        if progress is not None:
            current_progress_token.reset(progress)
        if levels is not None:
            current_log_levels.reset(levels)
        if envelope is not None:
            current_envelope.reset(envelope)
        await self.peer.send(response, metadata, answers=method, version=version)

    def plan_offload(self, message: dict[str, Any]) -> Callable[[], dict[str, Any]] | None:
        """The whole request as one synchronous job producing its response, when the handler has a
        planner that accepts it and nothing needs the event loop: an initialized handshake-era
        connection, no middleware, no 2026-07-28 `_meta`. The peer may run it on a worker thread,
        which then writes the response itself (no hop back to the loop). None: serve as usual."""
        version = self._protocol_version
        server = self.server
        if version is None or server.middleware:
            return None
        method: str = message["method"]
        entry = server._request_handlers.get(method)
        if entry is None or entry.planner is None:
            return None
        params = message.get("params")
        if type(params) is dict and "_meta" in params:
            meta: Any = cast("dict[str, Any]", params)["_meta"]
            if type(meta) is not dict or PROTOCOL_VERSION_META_KEY in meta:
                return None
        job = entry.planner(params)
        if job is None:
            return None
        request_id = message["id"]

        def respond() -> dict[str, Any]:
            try:
                return m.result_response(request_id, self._result_to_wire(method, job(), version))
            except MCPError as exc:
                return m.error_response(request_id, exc.code, exc.message, exc.data)
            except Exception as exc:
                return m.error_response(request_id, *handler_failure(exc, method, False))

        return respond

    def _result_to_wire(self, method: str, result: Any, version: str) -> dict[str, Any]:
        if type(result) is WireResult:
            wire = result.wire
        else:
            serializer = _result_serializers.get(result.__class__) or _result_serializer(method, result, version)
            wire = serializer.to_python(result, mode="json", by_alias=True, exclude_none=True)
        if method == "tools/list":
            _check_tool_schemas(wire)
        if version in MODERN_VERSIONS:
            wire = dict(wire)
            wire.setdefault("resultType", "complete")
            meta = wire.get("_meta")
            wire["_meta"] = {**meta, SERVER_INFO_META_KEY: self.server.server_info_wire} if meta else {
                SERVER_INFO_META_KEY: self.server.server_info_wire}
            if method in CACHEABLE_METHODS:
                given = _given_cache_fields(result)
                if len(given) < 2:
                    ttl, scope = self.server.cache_hint_for(method)  # explicit result fields win, per field
                    if "ttlMs" not in given:
                        wire["ttlMs"] = ttl
                    if "cacheScope" not in given:
                        wire["cacheScope"] = scope
            return wire
        if wire.get("resultType") == "input_required":
            logger.error("%s returned an InputRequiredResult on a %s connection, which cannot carry one", method, version)
            raise MCPError(INTERNAL_ERROR, "Handler returned an invalid result")
        return prune_result(method, wire, version)

    def _complete_initialize(self, requested: str, client_info: Any, capabilities: Any) -> str:
        self._protocol_version = version = negotiate_version(requested)
        self.peer.protocol_version = version
        self._client_info = client_info
        self._client_capabilities = capabilities
        return version

    # -- notifications ----------------------------------------------------------------------

    async def _on_notification(self, message: dict[str, Any], metadata: Any) -> None:
        method: str = message["method"]
        if method == "notifications/initialized":
            self.initialized = True
        params = message.get("params")
        if self._progress_callbacks and method == "notifications/progress":
            await self._deliver_progress(params)
        server = self.server
        if server.middleware or method in server._notification_handlers:
            version = self._protocol_version or self.default_version or ""
            ctx: ServerRequestContext[Any] = ServerRequestContext(
                self, self.lifespan_context, version, method, params, None,
                getattr(metadata, "request", None),
            )
            tg = self.peer.task_group
            if tg is None:
                await self._handle_notification(ctx)
            else:
                # Spawned, as the official dispatcher does: a handler may send a request of its own
                # (`on_roots_list_changed` asks `roots/list`), whose answer this loop must read.
                tg.start_soon(self._handle_notification, ctx)

    async def _handle_notification(self, ctx: ServerRequestContext[Any]) -> None:
        server = self.server
        try:
            await (server._chain(ctx) if server.middleware else server._dispatch_notification(ctx))
        except Exception:
            logger.exception("notification handler for %s failed", ctx.method)
            if self.raise_exceptions:
                raise

    async def _deliver_progress(self, params: Any) -> None:
        """A client's progress on one of this session's own requests, to its callback."""
        if type(params) is not dict:
            return
        progress = cast("dict[str, Any]", params)
        callback = self._progress_callbacks.get(progress.get("progressToken"))
        if callback is not None:
            await callback(progress.get("progress", 0), progress.get("total"), progress.get("message"))

    # -- server -> client ---------------------------------------------------------------------

    @property
    def has_back_channel(self) -> bool:
        if self._request_outbound is not None:
            return bool(self._request_outbound.can_send_request)
        return not self.stateless and self._protocol_version is not None

    def _channel(self, related_request_id: Any) -> Any:
        """Official form: the request's channel when `related_request_id` is given, else the
        connection's standalone one. (A framework session routes by the request being served.)"""
        connection = self._connection
        assert connection is not None
        return self._request_outbound if related_request_id is not None else connection.outbound

    async def notify(self, method: str, params: dict[str, Any] | None = None, *,
                     related_request_id: Any = None) -> None:
        """Send a raw notification (`method`, wire `params`) to the client."""
        if self._connection is not None:
            await self._channel(related_request_id).notify(method, params)
            return
        if self._protocol_version is None and related_request_id is None:
            # no handshake-era connection to notify (modern clients listen for events, a stateless
            # one has no stream of its own); one tied to a request rides that request's stream
            return
        # Related to no request (as officially): not on the response of the request being served
        # (on Streamable HTTP it rides the session's GET stream)
        await self.peer.send_notification(method, params, None if related_request_id is not None else _UNRELATED)

    async def send_raw_request(self, method: str, params: dict[str, Any] | None = None, *,
                               timeout: float | None = None, progress_callback: ProgressFnT | None = None,
                               related_request_id: Any = None) -> dict[str, Any]:
        """Send a raw request to the client and return its raw result (an `MCPError` for an
        error answer, `NoBackChannelError` when no request can reach the client)."""
        if self._connection is not None:
            options: dict[str, Any] = {}
            if timeout is not None:
                options["timeout"] = timeout
            if progress_callback is not None:
                options["on_progress"] = progress_callback
            channel = self._channel(related_request_id)
            return await channel.send_raw_request(method, params, options or None)
        if not self.has_back_channel:
            raise NoBackChannelError(method)
        if progress_callback is None:
            return await self.peer.send_request(method, params, timeout=timeout)
        token = self.peer.next_request_id()  # the request's own id, as officially
        params = {**(params or {})}
        params["_meta"] = {**params.get("_meta", {}), "progressToken": token}
        self._progress_callbacks[token] = progress_callback
        try:
            return await self.peer.send_request(method, params, timeout=timeout, request_id=token)
        finally:
            self._progress_callbacks.pop(token, None)

    async def send_notification(self, notification: Any, related_request_id: Any = None, *,
                                params: dict[str, Any] | None = None) -> None:
        """Send a notification: a `ServerNotification` model, as in the official SDK, or a method
        name with its wire params (`params=`, or second by position: a request id is never a dict)."""
        if isinstance(notification, str):
            if params is None and isinstance(related_request_id, Mapping):  # (method, params) by position
                params, related_request_id = cast("dict[str, Any]", related_request_id), None
            await self.notify(notification, params, related_request_id=related_request_id)
            return
        wire = notification.model_dump(by_alias=True, mode="json", exclude_none=True)
        await self.notify(wire["method"], wire.get("params"), related_request_id=related_request_id)

    async def send_request(self, request: Any, result_type: Any = None,
                           request_read_timeout_seconds: float | None = None, metadata: Any = None,
                           progress_callback: ProgressFnT | None = None, *, timeout: float | None = None) -> Any:
        """Send a request and return its result: a `ServerRequest` model validated as
        `result_type` (the official form), or a method name and its wire params (the second
        argument) returning the raw result. `metadata` may carry `related_request_id`."""
        related = getattr(metadata, "related_request_id", None)
        if timeout is None:
            timeout = request_read_timeout_seconds
        if isinstance(request, str):
            return await self.send_raw_request(request, cast("dict[str, Any] | None", result_type), timeout=timeout,
                                               progress_callback=progress_callback, related_request_id=related)
        wire = request.model_dump(by_alias=True, mode="json", exclude_none=True)
        raw = await self.send_raw_request(wire["method"], wire.get("params"), timeout=timeout,
                                          progress_callback=progress_callback, related_request_id=related)
        return raw if result_type is None else result_type.model_validate(raw)

    async def send_tool_list_changed(self) -> None:
        await self._send_list_changed("notifications/tools/list_changed")

    async def send_resource_list_changed(self) -> None:
        await self._send_list_changed("notifications/resources/list_changed")

    async def send_prompt_list_changed(self) -> None:
        await self._send_list_changed("notifications/prompts/list_changed")

    async def _send_list_changed(self, method: str) -> None:
        """The official `send_*_list_changed`: always sent, except as the twin of what
        `relay_list_changed` already sent in this same turn (see there)."""
        turn = current_cancellation.get()
        told = self._told.get(method)
        if turn is not None:
            self._told[method] = (turn, False)
            if told is not None and told[0] is turn and told[1]:
                return  # the relay of this turn said it already; a later call is a later change
        await self.notify(method)

    async def relay_list_changed(self, method: str) -> None:
        """`ctx.notify_*_changed()`'s copy of a list_changed for the handshake-era caller (ours:
        officially it reaches `subscriptions/listen` streams only).

        The official docs tell such servers to call both `ctx.notify_*_changed()` and
        `ctx.session.send_*_list_changed()`; the two coalesce so the caller hears of the change
        once. The rule: within one request turn (the request being served, or a task it
        started), a list_changed this session already sent and the client has not acted on yet
        (no request for that list has arrived since) makes the other form redundant: the relay is
        skipped after any such notice, and one `send_*` call is skipped after the relay (a
        further `send_*` is a further change, sent as officially). A real later change is never
        lost: a notice is skipped only while the client still owes a re-list that happens after
        it and so sees it; a notice from another turn never suppresses one."""
        turn = current_cancellation.get()
        told = self._told.get(method)
        if turn is not None:
            if told is not None and told[0] is turn:
                return
            self._told[method] = (turn, True)
        await self.notify(method)

    async def send_resource_updated(self, uri: str) -> None:
        await self.notify("notifications/resources/updated", {"uri": str(uri)})

    async def send_ping(self) -> Any:
        from mcp.types import EmptyResult

        return EmptyResult.model_validate(await self.send_raw_request("ping"))

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Report progress on the request being served: `notifications/progress` against the
        caller's token, a no-op when the caller asked for none."""
        if self._request_outbound is not None:
            await self._request_outbound.progress(progress, total, message)
            return
        token = current_progress_token.get()
        if token is not None:
            await self.send_progress_notification(token, progress, total, message)

    async def send_progress_notification(self, progress_token: str | int, progress: float, total: float | None = None,
                                         message: str | None = None, related_request_id: str | None = None) -> None:
        """`notifications/progress` for the request that sent `progress_token`."""
        params: dict[str, Any] = {"progressToken": progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        if self._connection is not None:
            await self._channel(related_request_id).notify("notifications/progress", params)
        else:
            await self.peer.send_notification("notifications/progress", params)

    async def send_log_message(self, level: str, data: Any, logger: str | None = None,
                               related_request_id: Any = None) -> None:
        """`notifications/message` to the client (deprecated). On a 2026-07-28 request only at or
        above the level its `_meta` opted into (nothing without one); handshake-era: every level,
        filtering being the server's own `logging/setLevel` handler's business, as officially."""
        warn_deprecated("logging")
        if self._connection is not None:
            if level not in self._allowed_log_levels:
                return
        else:
            allowed = current_log_levels.get()
            if allowed is not None and level not in allowed:
                return
        if type(data) not in (str, int, float, bool, type(None)):
            # a dataclass or model (FastMCP sends its `LogData`): its JSON form, as the official
            # params model serializes it, on every transport (in-memory ones included)
            from pydantic_core import to_jsonable_python

            data = to_jsonable_python(data)
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        if self._connection is not None:
            await self._channel(related_request_id).notify("notifications/message", params)
        else:
            await self.peer.send_notification("notifications/message", params)

    async def create_message(self, messages: list[Any], *, max_tokens: int, system_prompt: str | None = None,
                             include_context: str | None = None, temperature: float | None = None,
                             stop_sequences: list[str] | None = None, metadata: dict[str, Any] | None = None,
                             model_preferences: Any = None, tools: list[Any] | None = None,
                             tool_choice: Any = None, related_request_id: Any = None) -> Any:
        """`sampling/createMessage` to the client (handshake-era back-channel only; deprecated).

        Checked before anything is sent, as officially: tools mode needs the client's
        `sampling.tools` (`MCPError` -32602), and tool results must answer the tool uses just
        before them (`ValueError`); both checks live in `mcp.server.validation`."""
        warn_deprecated("sampling")
        from mcp.server.validation import (
            validate_sampling_tools,
            validate_tool_use_result_messages,
            wants_sampling_tools,
        )
        from mcp.types import CreateMessageRequestParams, CreateMessageResult, CreateMessageResultWithTools

        validate_sampling_tools(self.client_capabilities, tools, tool_choice)
        params = CreateMessageRequestParams(
            messages=messages, max_tokens=max_tokens, system_prompt=system_prompt,
            include_context=cast("Any", include_context),
            temperature=temperature, stop_sequences=stop_sequences, metadata=metadata,
            model_preferences=model_preferences, tools=tools, tool_choice=tool_choice,
        )
        validate_tool_use_result_messages(params.messages)  # the models (messages may be given as dicts)
        raw = await self.send_raw_request("sampling/createMessage", params.to_wire(),
                                          related_request_id=related_request_id)
        # in tools mode the answer may be a list or hold tool-use blocks
        tools_mode = wants_sampling_tools(tools, tool_choice)
        return (CreateMessageResultWithTools if tools_mode else CreateMessageResult).model_validate(raw)

    async def elicit_form(self, message: str, requested_schema: dict[str, Any], related_request_id: Any = None) -> Any:
        from mcp.types import ElicitResult

        raw = await self.send_raw_request("elicitation/create", {"mode": "form", "message": message,
                                                                  "requestedSchema": requested_schema},
                                          related_request_id=related_request_id)
        return ElicitResult.model_validate(raw)

    elicit = elicit_form

    async def elicit_url(self, message: str, url: str, elicitation_id: str, related_request_id: Any = None) -> Any:
        from mcp.types import ElicitResult

        raw = await self.send_raw_request("elicitation/create", {"mode": "url", "message": message, "url": url,
                                                                  "elicitationId": elicitation_id},
                                          related_request_id=related_request_id)
        return ElicitResult.model_validate(raw)

    async def send_elicit_complete(self, elicitation_id: str, related_request_id: Any = None) -> None:
        """Tell the client a URL-mode elicitation finished out of band (it may retry)."""
        await self.notify("notifications/elicitation/complete", {"elicitationId": elicitation_id},
                          related_request_id=related_request_id)

    async def list_roots(self) -> Any:
        """`roots/list` to the client (handshake-era back-channel only; deprecated)."""
        from mcp.types import ListRootsResult

        warn_deprecated("roots")

        return ListRootsResult.model_validate(await self.send_raw_request("roots/list"))

    def check_client_capability(self, capability: Any) -> bool:
        """True when the client declared every capability set in `capability`."""
        if self._connection is not None:
            return self._connection.check_capability(capability)
        have = self.client_capabilities
        if have is None:
            return False
        from mcp.server.connection import capabilities_cover

        wanted = capability.model_dump(exclude_none=True) if hasattr(capability, "model_dump") else dict(capability)
        return capabilities_cover(have.model_dump(exclude_none=True), wanted)


class OutboundPeer:
    """The `peer` of an official-form session: what the framework's helpers call on a session's
    peer (`send_notification`, `send_request`), sent on the request's outbound channel."""

    __slots__ = ("_outbound",)

    def __init__(self, outbound: Any) -> None:
        self._outbound = outbound

    async def send_notification(self, method: str, params: dict[str, Any] | None = None, metadata: Any = None) -> None:
        await self._outbound.notify(method, params)

    async def send_request(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None,
                           metadata: Any = None, request_id: Any = None) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if timeout is not None:
            options["timeout"] = timeout
        if request_id is not None:
            options["request_id"] = request_id
        return await self._outbound.send_raw_request(method, params, options or None)


def validate_params(params_type: Any, params: dict[str, Any] | None) -> Any:
    """Validate raw params into a handler's params type; -32602 with pydantic's text on failure."""
    if params_type is None:
        return params
    try:
        return params_type.model_validate(params if params is not None else {})
    except ValueError as exc:  # pydantic's ValidationError
        raise MCPError(INVALID_PARAMS, f"Invalid params: {exc}") from None


def _check_tool_schemas(wire: Any) -> None:
    """Every listed tool's `inputSchema` (and `outputSchema`, when given) must be a JSON object
    schema of `"type": "object"`, as the spec requires in every revision: a hand-built
    `Tool(input_schema={})` is refused as officially (-32603 "Handler returned an invalid result",
    the reason in the log) rather than sent to clients that then reject the whole list."""
    tools: Any = cast("dict[str, Any]", wire).get("tools") if isinstance(wire, dict) else None
    for tool in cast("list[Any]", tools or []):
        entry = cast("dict[str, Any]", tool) if isinstance(tool, dict) else {}
        for key in ("inputSchema", "outputSchema"):
            schema: Any = entry.get(key)
            if key == "outputSchema" and schema is None:
                continue
            if not isinstance(schema, dict) or cast("dict[str, Any]", schema).get("type") != "object":
                logger.error("tools/list: tool %r has an %s without \"type\": \"object\"", entry.get("name"), key)
                raise MCPError(INTERNAL_ERROR, "Handler returned an invalid result")
