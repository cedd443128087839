"""`ClientSession`: the client side of one connection.

Typed methods for each request; incoming server->client requests answered by the registered
callbacks (a missing callback answers with an error, so the server never hangs). On the 2026-07-28
wire every request carries the protocol version and client capabilities in `_meta`.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, cast

import anyio
from anyio.abc import TaskGroup

from mcp._engine.peer import Peer, ReadStream, WriteStream
from mcp._protocol import messages as m
from mcp.client import _deprecated
from mcp.client._deprecated import deprecated_verb
from mcp.client.context import ClientRequestContext as ClientRequestContext
from mcp.client.context import ElicitationFnT as ElicitationFnT
from mcp.client.context import ListRootsFnT as ListRootsFnT
from mcp.client.context import LoggingFnT as LoggingFnT
from mcp.client.context import SamplingFnT as SamplingFnT
from mcp.shared.exceptions import MCPError
from mcp.types import methods as _methods
from mcp.types.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND
from mcp.types.version import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    HANDSHAKE_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    LATEST_PROTOCOL_VERSION,
    LOG_LEVEL_META_KEY,
    MODERN_VERSIONS,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
)

if TYPE_CHECKING:
    from typing import TypeAlias

    from typing_extensions import Self

    from mcp.client.dispatcher_peer import Dispatcher, DispatcherPeer
    from mcp.client.extensions import ClientExtension, NotificationBinding, ResultClaim
    from mcp.types import ErrorData, ServerNotification

logger = logging.getLogger("mcp.client")

ProgressCallback = Callable[[float, "float | None", "str | None"], Awaitable[None]]

DISCOVER_TIMEOUT_SECONDS = 10.0
"""How long one `server/discover` probe (`send_discover`) waits for the server's answer."""

_FALLBACK_VERSION = "2025-11-25"
"""The revision incoming messages are read at before one is negotiated."""

_NEVER_SURFACED = frozenset({"notifications/cancelled", "notifications/tasks/status"})
"""Server notifications `message_handler` never sees: a cancel is applied by the connection itself,
and task status (2025-11-25) is not part of the surfaced notification union."""


if TYPE_CHECKING:
    IncomingMessage: TypeAlias = "ServerNotification | Exception"
    """What `message_handler` receives: typed server notifications and transport exceptions."""


class MessageHandlerFnT(Protocol):
    async def __call__(self, message: IncomingMessage) -> None: ...


def __getattr__(name: str) -> Any:
    # These name models, which would load every model module: built on first use so importing the
    # client stays cheap.
    if name == "IncomingMessage":
        from mcp.types import ServerNotification

        value: Any = ServerNotification | Exception
    elif name == "DEFAULT_CLIENT_INFO":
        value = _types().Implementation(name="mcp", version="0.1.0")
    elif name == "ClientResponse":
        from pydantic import TypeAdapter

        t = _types()
        value = TypeAdapter(t.ClientResult | t.ErrorData)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from mcp.types import ClientResult, Implementation

    DEFAULT_CLIENT_INFO: Implementation
    """The `clientInfo` a session sends when none is given."""
    ClientResponse: TypeAdapter[ClientResult | ErrorData]
    """Validates what a callback answered a server request with: a client result or an error."""


def _types() -> Any:
    import mcp.types

    return mcp.types


class ClientSession:
    """The client side of one connection: typed requests, and the callbacks that answer the
    server's requests. Enter it to run the connection, then `initialize()` (or `discover()`)."""

    def __init__(
        self,
        read_stream: ReadStream | None = None,
        write_stream: WriteStream | None = None,
        read_timeout_seconds: float | None = None,
        sampling_callback: SamplingFnT | None = None,
        elicitation_callback: ElicitationFnT | None = None,
        list_roots_callback: ListRootsFnT | None = None,
        logging_callback: LoggingFnT | None = None,
        message_handler: MessageHandlerFnT | None = None,
        client_info: Implementation | None = None,
        sampling_capabilities: Any = None,
        *,
        log_level: str | None = None,
        extensions: Mapping[str, dict[str, Any]] | None = None,
        result_claims: Mapping[str, Sequence[ResultClaim[Any]]] | None = None,
        notification_bindings: Sequence[NotificationBinding[Any]] | None = None,
        dispatcher: Dispatcher | None = None,
    ) -> None:
        self.read_timeout_seconds = read_timeout_seconds
        self._sampling = sampling_callback
        self._elicitation = elicitation_callback
        self._roots = list_roots_callback
        self._logging = logging_callback
        self._log_level = log_level
        """On the stateless wire, the log level every request opts in to unless its `_meta` names one."""
        self._message_handler = message_handler
        self._sampling_capabilities = sampling_capabilities
        self.client_info = client_info or cast("Implementation", __getattr__("DEFAULT_CLIENT_INFO"))
        self._protocol_version: str | None = None
        self._initialize_result: Any = None
        self._discover_result: Any = None
        self._server_info: Any = None
        self._modern_meta: dict[str, Any] | None = None
        self._progress: dict[Any, ProgressCallback] = {}
        self._subscriptions: dict[str, Any] = {}
        self._extra_bindings: tuple[NotificationBinding[Any], ...] = tuple(notification_bindings or ())
        self._bindings: dict[str, NotificationBinding[Any]] = {}
        self._extensions: list[ClientExtension] = []
        if extensions is not None or result_claims is not None or self._extra_bindings:
            from mcp.client.extensions import session_extensions

            self.extensions = session_extensions(extensions, result_claims)
        self._deliveries: collections.deque[tuple[Callable[[Any], Awaitable[None]], Any]] = collections.deque()
        self._delivering = False
        self._task_group: TaskGroup | None = None
        self.notification_hooks: list[Callable[[str, dict[str, Any]], Awaitable[None]]] = []
        """Called for every server notification before it is dispatched (the response cache evicts here)."""
        self._progress_tokens = iter(range(1, 1 << 62))
        self._tool_output_schemas: dict[str, Any] = {}
        """The `output_schema` of every tool the last listings named (None: the tool declares none)."""
        self._validators: dict[str, tuple[Any, Callable[[Any], str | None]]] = {}
        self.peer: Peer | DispatcherPeer
        if dispatcher is not None:
            if read_stream is not None or write_stream is not None:
                raise ValueError("pass read_stream/write_stream or dispatcher, not both")
            from mcp.client.dispatcher_peer import DispatcherPeer

            self.peer = DispatcherPeer(dispatcher, self)
        elif read_stream is None or write_stream is None:
            raise ValueError("read_stream and write_stream are required when no dispatcher is given")
        else:
            # A transport fault on the read stream goes to `message_handler`, not back as a parse error.
            self.peer = Peer(read_stream, write_stream, role="client", on_request=self._on_request,
                             on_notification=self._on_notification, on_unparsable=self._on_transport_error)

    # -- what the handshake learnt ------------------------------------------------------------

    @property
    def initialize_result(self) -> Any:
        """The server's `InitializeResult`; None unless `initialize()` ran (or one was adopted)."""
        return self._initialize_result

    @property
    def discover_result(self) -> Any:
        """The server's `DiscoverResult`, kept whole; None unless `discover()` ran (or one was adopted)."""
        return self._discover_result

    @property
    def _session_read_timeout_seconds(self) -> float | None:
        """The official private name of `read_timeout_seconds` (FastMCP's tests read it)."""
        return self.read_timeout_seconds

    @property
    def protocol_version(self) -> str | None:
        """The negotiated protocol version; None before `initialize()`, `discover()` or `adopt()`."""
        return self._protocol_version

    @property
    def server_info(self) -> Any:
        """The server's `Implementation`; on the stateless wire the optional `serverInfo` stamp of
        its discover result (None when absent or malformed)."""
        return self._server_info

    @property
    def server_capabilities(self) -> Any:
        """The server's capabilities; None before the handshake."""
        result = self._discover_result or self._initialize_result
        return None if result is None else result.capabilities

    @property
    def instructions(self) -> str | None:
        """The server's instructions text, if any."""
        result = self._discover_result or self._initialize_result
        return None if result is None else result.instructions

    # -- lifecycle ----------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        """Run the connection (its receive loop) until the block ends; then call `initialize()`."""
        task_group = anyio.create_task_group()
        await task_group.__aenter__()
        task_group.start_soon(self.peer.run)
        self._task_group = task_group
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        task_group, self._task_group = self._task_group, None
        if task_group is None:
            return None
        task_group.cancel_scope.cancel()
        try:
            return await task_group.__aexit__(exc_type, exc, tb)
        finally:
            if isinstance(self.peer, Peer):
                self.peer.close_output()

    # -- extensions ---------------------------------------------------------------------------

    @property
    def extensions(self) -> list[ClientExtension]:
        """`ClientExtension`s this session declares (capabilities, claims, notifications)."""
        return self._extensions

    @extensions.setter
    def extensions(self, extensions: Sequence[ClientExtension]) -> None:
        from mcp.client.extensions import index_bindings

        self._bindings = index_bindings(extensions, self._extra_bindings)
        self._extensions = list(extensions)

    # -- capabilities and era -----------------------------------------------------------------

    def capabilities(self, modern: bool = False, version: str | None = None) -> Any:
        t = _types()
        caps = t.ClientCapabilities()
        if self.extensions:
            from mcp.client.extensions import capability_map

            if modern and version is None:
                version = self.protocol_version if self._modern_meta is not None else LATEST_PROTOCOL_VERSION
            caps.extensions = capability_map(self.extensions, version if modern else None) or None
        if self._sampling is not None:
            caps.sampling = self._sampling_capabilities or t.SamplingCapability()
        if self._elicitation is not None:
            caps.elicitation = t.ElicitationCapability(form=t.FormElicitationCapability(), url=t.UrlElicitationCapability())
        if self._roots is not None:
            caps.roots = t.RootsCapability(list_changed=True)
        return caps

    def use_modern(self, version: str = LATEST_PROTOCOL_VERSION) -> None:
        """Speak the stateless wire: stamp version, capabilities and client info on every request."""
        self._protocol_version = version
        self.peer.protocol_version = version
        self._modern_meta = self._modern_stamp(version)

    def _modern_stamp(self, version: str) -> dict[str, Any]:
        """The `_meta` every stateless-wire request carries at `version`."""
        return {
            PROTOCOL_VERSION_META_KEY: version,
            CLIENT_CAPABILITIES_META_KEY: self.capabilities(modern=True, version=version).to_wire(),
            CLIENT_INFO_META_KEY: self.client_info.to_wire(),
        }

    async def initialize(self, protocol_version: str = LATEST_HANDSHAKE_VERSION) -> Any:
        """The handshake: `initialize`, then `notifications/initialized`. Once done, calling it
        again returns the same result with no wire traffic."""
        if self._initialize_result is not None:
            return self._initialize_result
        t = _types()
        raw = await self.peer.send_request("initialize", {
            "protocolVersion": protocol_version,
            "capabilities": self.capabilities(modern=False).to_wire(),
            "clientInfo": self.client_info.to_wire(),
        }, timeout=self.read_timeout_seconds)
        result = t.InitializeResult.model_validate(raw)
        if result.protocol_version not in HANDSHAKE_VERSIONS:
            raise RuntimeError(f"Unsupported protocol version from the server: {result.protocol_version}")
        self.adopt(result)
        await self.peer.send_notification("notifications/initialized")
        return result

    def adopt(self, result: Any) -> None:
        """Install what a handshake would have learnt from a result already in hand, with no wire
        traffic: an `InitializeResult` (the handshake era), or a `DiscoverResult` (the stateless
        wire, at the newest version both sides speak; `RuntimeError` when they share none)."""
        t = _types()
        if isinstance(result, t.InitializeResult):
            self._initialize_result, self._discover_result = result, None
            self._modern_meta = None
            self._protocol_version = result.protocol_version
            self.peer.protocol_version = result.protocol_version
            self._server_info = result.server_info
            return
        result = t.DiscoverResult.model_validate(result)
        mutual = [version for version in MODERN_VERSIONS if version in result.supported_versions]
        if not mutual:
            raise RuntimeError(f"No mutually supported modern protocol version (server: "
                               f"{result.supported_versions}, client: {list(MODERN_VERSIONS)})")
        self._install_discover(result, mutual[-1])

    def _install_discover(self, result: Any, version: str) -> None:
        """Speak the stateless wire at `version` with what `result` (a `DiscoverResult`) says."""
        from pydantic import ValidationError

        self.use_modern(version)
        self._discover_result, self._initialize_result = result, None
        meta: dict[str, Any] = result.meta or {}
        info = meta.get(SERVER_INFO_META_KEY)
        try:  # the stamp is display-only: a malformed one reads as absent
            self._server_info = _types().Implementation.model_validate(info) if info is not None else None
        except ValidationError:
            self._server_info = None

    async def send_discover(self, version: str) -> dict[str, Any]:
        """One `server/discover` stamped at `version`; returns the raw result and adopts nothing.
        Waits `DISCOVER_TIMEOUT_SECONDS`; `MCPError` when the server (or the transport) refuses."""
        return await self.peer.send_request("server/discover", {"_meta": self._modern_stamp(version)},
                                            timeout=DISCOVER_TIMEOUT_SECONDS)

    async def discover(self, protocol_version: str = LATEST_PROTOCOL_VERSION) -> Any:
        """`server/discover` on the stateless wire; adopts that wire when the server answers."""
        t = _types()
        previous = self.peer.protocol_version
        self.peer.protocol_version = protocol_version
        try:
            raw = await self.send_discover(protocol_version)
        except BaseException:
            self.peer.protocol_version = previous
            raise
        result = t.DiscoverResult.model_validate(raw)
        self._install_discover(result, protocol_version)
        return result

    # -- requests -----------------------------------------------------------------------------

    async def send_request_raw(self, method: str, params: dict[str, Any] | None, *, timeout: float | None = None,
                               progress_callback: ProgressCallback | None = None,
                               metadata: Any = None) -> dict[str, Any]:
        modern = self._modern_meta
        if modern is not None or progress_callback is not None:
            params = dict(params) if params else {}
            meta = dict(params.get("_meta") or {})
            if modern is not None:
                meta.update(modern)
                if self._log_level is not None:
                    meta.setdefault(LOG_LEVEL_META_KEY, self._log_level)
            token = request_id = None
            if progress_callback is not None:
                # the token is the request's own id, as officially (over a dispatcher, a counter)
                peer = self.peer
                if isinstance(peer, Peer):
                    token = request_id = peer.next_request_id()
                else:
                    token = next(self._progress_tokens)
                meta["progressToken"] = token
                self._progress[token] = progress_callback
            params["_meta"] = meta
            try:
                return await self.peer.send_request(method, params, timeout=timeout or self.read_timeout_seconds,
                                                    metadata=metadata, request_id=request_id)
            finally:
                if token is not None:
                    self._progress.pop(token, None)
        return await self.peer.send_request(method, params, timeout=timeout or self.read_timeout_seconds,
                                            metadata=metadata)

    async def send_request(self, request: Any, result_type: Any, request_read_timeout_seconds: float | None = None,
                           metadata: Any = None, progress_callback: ProgressCallback | None = None) -> Any:
        """Send a typed request model (anything with `method` and `params`) and validate the result
        with `result_type` (a model class or a `TypeAdapter`). `metadata` travels with the message
        to the transport (e.g. HTTP resumption hints)."""
        params = request.params
        wire = params.model_dump(mode="json", by_alias=True, exclude_none=True) if params is not None else None
        request_class: Any = request.__class__
        key: str | None = getattr(request_class, "name_param", None)
        if key is not None:  # a vendor verb naming its subject: mirrored into `Mcp-Name`, never left out
            name: Any = cast("dict[str, Any]", wire or {}).get(key)
            if not isinstance(name, str):
                raise ValueError(f"{request.method} requires params[{key!r}] for Mcp-Name")
            metadata = _with_name_header(metadata, name)
        raw = await self.send_request_raw(request.method, wire, timeout=request_read_timeout_seconds,
                                          progress_callback=progress_callback, metadata=metadata)
        validate = getattr(result_type, "validate_python", None)
        return validate(raw) if validate is not None else result_type.model_validate(raw)

    async def send_notification(self, notification: Any, params: dict[str, Any] | None = None) -> None:
        """Send a one-way notification: a typed notification model, or a method name and its params."""
        if isinstance(notification, str):
            await self.peer.send_notification(notification, params)
            return
        body = notification.params
        wire = body.model_dump(mode="json", by_alias=True, exclude_none=True) if body is not None else None
        await self.peer.send_notification(notification.method, wire)

    async def send_ping(self, *, meta: dict[str, Any] | None = None) -> Any:
        return _types().EmptyResult.model_validate(await self.send_request_raw("ping", _with_meta({}, meta) or None))

    async def list_tools(self, cursor: str | None = None, *, meta: dict[str, Any] | None = None,
                         params: Any = None) -> Any:
        """One `tools/list` page (`params`: a `PaginatedRequestParams`, or `cursor`/`meta`); the
        session remembers each listed tool's output schema to check `call_tool` results against."""
        request = _paginated(cursor, meta, params)
        raw = await self.send_request_raw("tools/list", request)
        result = _types().ListToolsResult.model_validate(raw)
        first_page = not (request or {}).get("cursor")
        return self._absorb_tool_listing(result, complete=first_page and result.next_cursor is None)

    def _absorb_tool_listing(self, result: Any, *, complete: bool = False) -> Any:
        """Remember the output schema of every tool in a listing (also a listing served from cache;
        FastMCP's client cache calls this too, by its official name). A `complete` listing (one page,
        the whole set) forgets the tools it no longer has."""
        for tool in result.tools:
            self._tool_output_schemas[tool.name] = tool.output_schema
        if complete:
            names = {tool.name for tool in result.tools}
            self._tool_output_schemas = {k: v for k, v in self._tool_output_schemas.items() if k in names}
            self._validators = {k: v for k, v in self._validators.items() if k in names}
        return result

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,
                        read_timeout_seconds: float | None = None, progress_callback: ProgressCallback | None = None,
                        *, meta: dict[str, Any] | None = None, input_responses: dict[str, Any] | None = None,
                        request_state: str | None = None, allow_input_required: bool = False,
                        allow_claimed: bool = False) -> Any:
        """One `tools/call` round: a `CallToolResult` (checked against the tool's output schema
        unless it is an error), or (2026-07-28) an `InputRequiredResult` when
        `allow_input_required` (without it, `RuntimeError`)."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        result = await self._round("tools/call", params, "CallToolResult", meta, input_responses, request_state,
                                   allow_input_required, timeout=read_timeout_seconds,
                                   progress_callback=progress_callback, allow_claimed=allow_claimed)
        if isinstance(result, _types().CallToolResult) and not result.is_error:
            await self.validate_tool_result(name, result)
        return result

    async def validate_tool_result(self, name: str, result: Any) -> None:
        """Check a `CallToolResult` against the tool's declared output schema (listing the tools
        first when this one is not known yet). `RuntimeError` when it does not conform."""
        if name not in self._tool_output_schemas:
            cursor: str | None = None
            while True:
                try:
                    page = await self.list_tools(cursor)
                except MCPError as exc:
                    if exc.code != METHOD_NOT_FOUND:
                        raise
                    break  # a server with no tools/list: nothing declares a schema
                cursor = page.next_cursor
                if not cursor or name in self._tool_output_schemas:
                    break
        if name not in self._tool_output_schemas:
            logger.warning("Tool %s not listed by server, cannot validate any structured content", name)
            return
        schema = self._tool_output_schemas[name]
        if schema is None:
            return
        if result.structured_content is None and "structured_content" not in result.model_fields_set:
            raise RuntimeError(f"Tool {name} has an output schema but did not return structured content")
        cached = self._validators.get(name)
        if cached is None or cached[0] is not schema:
            from mcp.client.output_validation import compile_validator

            try:
                cached = (schema, compile_validator(schema))
            except Exception as exc:
                raise RuntimeError(f"Invalid schema for tool {name}: {exc}") from exc
            self._validators[name] = cached
        from mcp.shared.json_schema_check import check_off_loop

        error = await check_off_loop(cached[1], result.structured_content)
        if error is not None:
            raise RuntimeError(f"Invalid structured content returned by tool {name}: {error}")

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None, *, meta: dict[str, Any] | None = None,
                         input_responses: dict[str, Any] | None = None, request_state: str | None = None,
                         allow_input_required: bool = False) -> Any:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return await self._round("prompts/get", params, "GetPromptResult", meta, input_responses, request_state,
                                 allow_input_required)

    async def read_resource(self, uri: Any, *, meta: dict[str, Any] | None = None,
                            input_responses: dict[str, Any] | None = None, request_state: str | None = None,
                            allow_input_required: bool = False) -> Any:
        return await self._round("resources/read", {"uri": str(uri)}, "ReadResourceResult", meta, input_responses,
                                 request_state, allow_input_required)

    def _claim_for(self, result_type: str) -> Any:
        if self._modern_meta is None:
            return None
        for extension in self.extensions:
            for claim in extension.claims():
                if claim.result_type == result_type and claim.active_at(self.protocol_version):
                    return claim
        return None

    async def _round(self, method: str, params: dict[str, Any], result_name: str, meta: dict[str, Any] | None,
                     input_responses: dict[str, Any] | None, request_state: str | None, allow_input_required: bool,
                     *, timeout: float | None = None, progress_callback: ProgressCallback | None = None,
                     allow_claimed: bool = False) -> Any:
        if meta:
            params["_meta"] = dict(meta)
        if input_responses is not None:
            params["inputResponses"] = {key: _wire(response) for key, response in input_responses.items()}
        if request_state is not None:
            params["requestState"] = request_state
        raw = await self.send_request_raw(method, params, timeout=timeout, progress_callback=progress_callback)
        t = _types()
        result_type = raw.get("resultType")
        claim = None if result_type in (None, "complete", "input_required") else self._claim_for(result_type)
        if claim is not None:  # an unclaimed resultType meets the core model's validation, as officially
            claimed = claim.model.model_validate(raw)
            if not allow_claimed:
                from mcp.client.extensions import UnexpectedClaimedResult

                raise UnexpectedClaimedResult(claimed)
            return claimed
        if result_type == "input_required":
            if not allow_input_required:
                verb = {"tools/call": "call_tool", "prompts/get": "get_prompt"}.get(method, "read_resource")
                raise RuntimeError(
                    "Server returned InputRequiredResult; pass allow_input_required=True to receive it "
                    f"and retry {verb}(..., input_responses=..., request_state=result.request_state).")
            return t.InputRequiredResult.model_validate(raw)
        return getattr(t, result_name).model_validate(raw)

    async def dispatch_input_request(self, ctx: ClientRequestContext, request: Any) -> Any:
        """Answer one input request (`CreateMessageRequest`, `ElicitRequest`, `ListRootsRequest`)
        with its callback: the callback's result, or `ErrorData` when it declines or none is
        registered. Shared by server-to-client requests and `InputRequiredResult.input_requests`."""
        t = _types()
        method = request.method
        if method == "sampling/createMessage":
            if self._sampling is None:
                return t.ErrorData(code=INVALID_REQUEST, message="Sampling not supported")
            return await self._sampling(ctx, request.params)
        if method == "elicitation/create":
            if self._elicitation is None:
                return t.ErrorData(code=INVALID_REQUEST, message="Elicitation not supported")
            return await self._elicitation(ctx, request.params)
        if method == "roots/list":
            if self._roots is None:
                return t.ErrorData(code=INVALID_REQUEST, message="List roots not supported")
            return await self._roots(ctx)
        raise MCPError(METHOD_NOT_FOUND, "Method not found", method)

    async def answer_input_request(self, request: Any, key: Any = None) -> dict[str, Any]:
        """Answer one `inputRequests` entry (a model or its wire dict) as the same request pushed
        over the handshake-era back-channel would be; returns the wire `InputResponse`."""
        wire = request.to_wire() if hasattr(request, "to_wire") else request
        return await self._answer(wire["method"], wire.get("params") or {}, key)

    async def list_resources(self, cursor: str | None = None, *, meta: dict[str, Any] | None = None,
                             params: Any = None) -> Any:
        return _types().ListResourcesResult.model_validate(
            await self.send_request_raw("resources/list", _paginated(cursor, meta, params)))

    async def list_resource_templates(self, cursor: str | None = None, *, meta: dict[str, Any] | None = None,
                                      params: Any = None) -> Any:
        return _types().ListResourceTemplatesResult.model_validate(
            await self.send_request_raw("resources/templates/list", _paginated(cursor, meta, params)))

    async def list_prompts(self, cursor: str | None = None, *, meta: dict[str, Any] | None = None,
                           params: Any = None) -> Any:
        return _types().ListPromptsResult.model_validate(
            await self.send_request_raw("prompts/list", _paginated(cursor, meta, params)))

    @deprecated_verb(_deprecated.SUBSCRIBE)
    async def subscribe_resource(self, uri: Any, *, meta: dict[str, Any] | None = None) -> Any:
        return _types().EmptyResult.model_validate(
            await self.send_request_raw("resources/subscribe", _with_meta({"uri": str(uri)}, meta)))

    @deprecated_verb(_deprecated.UNSUBSCRIBE)
    async def unsubscribe_resource(self, uri: Any, *, meta: dict[str, Any] | None = None) -> Any:
        return _types().EmptyResult.model_validate(
            await self.send_request_raw("resources/unsubscribe", _with_meta({"uri": str(uri)}, meta)))

    @deprecated_verb(_deprecated.LOGGING)
    async def set_logging_level(self, level: str, *, meta: dict[str, Any] | None = None) -> Any:
        return _types().EmptyResult.model_validate(
            await self.send_request_raw("logging/setLevel", _with_meta({"level": level}, meta)))

    async def complete(self, ref: Any, argument: dict[str, str], context_arguments: dict[str, str] | None = None) -> Any:
        params: dict[str, Any] = {"ref": ref.to_wire() if hasattr(ref, "to_wire") else ref, "argument": argument}
        if context_arguments is not None:
            params["context"] = {"arguments": context_arguments}
        return _types().CompleteResult.model_validate(await self.send_request_raw("completion/complete", params))

    @deprecated_verb(_deprecated.ROOTS)
    async def send_roots_list_changed(self) -> None:
        await self.peer.send_notification("notifications/roots/list_changed")

    @deprecated_verb(_deprecated.PROGRESS)
    async def send_progress_notification(self, progress_token: Any, progress: float, total: float | None = None,
                                         message: str | None = None, *, meta: dict[str, Any] | None = None) -> None:
        params: dict[str, Any] = {"progressToken": progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self.peer.send_notification("notifications/progress", _with_meta(params, meta))

    # -- incoming -----------------------------------------------------------------------------

    async def _on_request(self, message: dict[str, Any], metadata: Any) -> None:
        request_id = message["id"]
        method = message["method"]
        params: dict[str, Any] = message.get("params") or {}
        try:
            result = await self._answer(method, params, request_id)
            response = m.result_response(request_id, result)
        except MCPError as exc:
            response = m.error_response(request_id, exc.code, exc.message, exc.data)
        except Exception as exc:
            logger.exception("client callback for %s failed", method)
            response = m.error_response(request_id, -32603, f"Client error: {exc}")
        peer = self.peer
        assert isinstance(peer, Peer)  # a dispatcher answers requests itself
        await peer.send(response, answers=method)

    async def _answer(self, method: str, params: dict[str, Any], request_id: Any) -> dict[str, Any]:
        t = _types()
        if method == "ping":
            return {}
        # Without a callback the request is refused as invalid (-32600), not as an unknown method.
        if method == "elicitation/create":
            request: Any = t.ElicitRequest.model_construct(method=method,
                                                           params=_validate(t.ElicitRequestParams, params))
        elif method == "sampling/createMessage":
            request = t.CreateMessageRequest.model_construct(method=method,
                                                             params=_validate(t.CreateMessageRequestParams, params))
        elif method == "roots/list":
            request = t.ListRootsRequest.model_construct(method=method, params=None)
        else:
            raise MCPError(METHOD_NOT_FOUND, "Method not found", method)
        ctx = ClientRequestContext(session=self, request_id=request_id, meta=params.get("_meta"))
        out = await self.dispatch_input_request(ctx, request)
        if isinstance(out, t.ErrorData):
            raise MCPError(out.code, out.message, out.data)
        return out.to_wire()

    async def _on_notification(self, message: dict[str, Any], metadata: Any) -> None:
        """Runs on the receive loop, in wire order: internal bookkeeping happens here; whatever user
        code sees the notification (`message_handler`, `logging_callback`, extension bindings) runs
        later, one at a time and in order, off the loop, so it may itself talk to the server."""
        method = message["method"]
        params: dict[str, Any] = message.get("params") or {}
        for hook in self.notification_hooks:
            await hook(method, params)
        meta = params.get("_meta")
        if self._subscriptions and type(meta) is dict:
            from mcp.client.subscriptions import SUBSCRIPTION_ID_META_KEY, event_for

            subscription_id: Any = cast("dict[str, Any]", meta).get(SUBSCRIPTION_ID_META_KEY)
            subscription = self._subscriptions.get(subscription_id)
            if subscription is not None:
                if method == "notifications/subscriptions/acknowledged":
                    from mcp.types import SubscriptionFilter

                    subscription.set_acked(SubscriptionFilter.model_validate(params.get("notifications") or {}))
                    return  # the stream's own handshake, never surfaced
                event = event_for(method, params)
                if event is not None:
                    subscription.deliver(event)
        if method == "notifications/progress":
            callback = self._progress.get(params.get("progressToken"))
            if callback is not None:
                # Off the receive loop (in order, with the other deliveries): a slow callback must
                # not hold up the result.
                update = (params.get("progress", 0), params.get("total"), params.get("message"))
                await self._deliver_later(_report_progress, (callback, update))
        if method in _NEVER_SURFACED:
            return
        version = self.protocol_version or _FALLBACK_VERSION
        info = _methods.get(method)
        if info is None or info.kind != "notification" or not info.sent_by("server", version):
            binding = self._bindings.get(method)
            if binding is not None:
                await self._deliver_later(self._run_binding, (binding, params))
            else:
                logger.debug("dropped %r: not a server notification at %s", method, version)
            return
        if self._message_handler is None and (self._logging is None or method != "notifications/message"):
            return  # nobody would look at it: skip validation
        body: dict[str, Any] = {"method": method}
        if "params" in message:
            body["params"] = message["params"]
        await self._deliver_later(self._surface, (getattr(_types(), info.message), body))

    async def _on_transport_error(self, exc: Exception) -> None:
        await self._deliver_later(self._surface_transport_error, exc)

    async def _deliver_later(self, deliver: Callable[[Any], Awaitable[None]], item: Any) -> None:
        """Queue one delivery; a single drainer task (started on demand in the connection's task
        group) runs them in order. Without a running group, deliver in place."""
        self._deliveries.append((deliver, item))
        if self._delivering:
            return
        self._delivering = True
        task_group = self.peer.task_group
        if task_group is None:
            await self._drain_deliveries()
        else:
            task_group.start_soon(self._drain_deliveries)

    async def _drain_deliveries(self) -> None:
        try:
            while self._deliveries:
                deliver, item = self._deliveries.popleft()
                await deliver(item)
        finally:
            self._delivering = False

    async def _surface(self, item: tuple[Any, dict[str, Any]]) -> None:
        from pydantic import ValidationError

        model, body = item
        method = body["method"]
        try:
            notification = model.model_validate(body)
        except ValidationError:
            logger.warning("dropped an invalid %s notification", method, exc_info=True)
            return
        try:
            # A raising logging_callback skips message_handler for that notification.
            if self._logging is not None and method == "notifications/message":
                await self._logging(notification.params)
            if self._message_handler is not None:
                await self._message_handler(notification)
        except Exception:
            logger.exception("a notification callback for %s raised", method)

    async def _surface_transport_error(self, exc: Exception) -> None:
        if self._message_handler is None:
            logger.debug("transport error with no message_handler: %r", exc)
            return
        try:
            await self._message_handler(exc)
        except Exception:
            logger.exception("message_handler raised on a transport error")

    async def _run_binding(self, item: tuple[NotificationBinding[Any], dict[str, Any]]) -> None:
        from pydantic import ValidationError

        binding, params = item
        try:
            value = binding.params_type.model_validate(params)
        except ValidationError:
            logger.warning("dropped an invalid %s notification", binding.method, exc_info=True)
            return
        try:
            await binding.handler(value)
        except Exception:
            logger.exception("the notification binding for %s raised", binding.method)


async def _report_progress(item: tuple[ProgressCallback, tuple[Any, Any, Any]]) -> None:
    callback, update = item
    try:
        await callback(*update)
    except Exception:
        logger.exception("a progress callback raised")


def _validate(model: Any, params: dict[str, Any]) -> Any:
    from pydantic import TypeAdapter, ValidationError

    try:
        return TypeAdapter(model).validate_python(params)
    except ValidationError as exc:
        raise MCPError(INVALID_PARAMS, f"Invalid params: {exc}") from None


def _paginated(cursor: str | None, meta: dict[str, Any] | None, params: Any = None) -> dict[str, Any] | None:
    """The params of a list request: a `PaginatedRequestParams` as given, else `cursor`/`meta`."""
    if params is not None:
        return _wire(params) or None
    if cursor is None and not meta:
        return None
    wire: dict[str, Any] = {}
    if cursor is not None:
        wire["cursor"] = cursor
    if meta:
        wire["_meta"] = dict(meta)
    return wire


def _with_meta(params: dict[str, Any], meta: dict[str, Any] | None) -> dict[str, Any]:
    if meta:
        params["_meta"] = dict(meta)
    return params


def _wire(value: Any) -> Any:
    """A model's wire form (a dict passes through)."""
    return value.to_wire() if hasattr(value, "to_wire") else value


def _with_name_header(metadata: Any, name: str) -> Any:
    """`metadata` with the `Mcp-Name` header (encoded as the transport encodes it) added to its headers."""
    from dataclasses import replace

    from mcp._protocol.http import NAME_HEADER, encode_header_value
    from mcp.shared.message import ClientMessageMetadata

    if metadata is None:
        metadata = ClientMessageMetadata()
    if not isinstance(metadata, ClientMessageMetadata):
        return metadata
    headers = dict(metadata.headers or {})
    headers.setdefault(NAME_HEADER, encode_header_value(name))
    return replace(metadata, headers=headers)
