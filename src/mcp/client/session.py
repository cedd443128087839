"""`ClientSession`: the client side of one connection.

Typed methods for each request; incoming server->client requests answered by the registered
callbacks (a missing callback answers with an error, so the server never hangs). On the 2026-07-28
wire every request carries the protocol version and client capabilities in `_meta`.

This module is the official path of these names; the session's halves live in
`mcp.client.handshake`, `mcp.client.outgoing` and `mcp.client.incoming`.
"""

from __future__ import annotations

import collections
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, cast

import anyio
from anyio.abc import TaskGroup

from mcp._engine.loop_event import LoopEvent
from mcp._engine.peer import Peer, ReadStream, WriteStream
from mcp.client.context import ClientRequestContext as ClientRequestContext
from mcp.client.context import ElicitationFnT as ElicitationFnT
from mcp.client.context import ListRootsFnT as ListRootsFnT
from mcp.client.context import LoggingFnT as LoggingFnT
from mcp.client.context import SamplingFnT as SamplingFnT
from mcp.client.handshake import DISCOVER_TIMEOUT_SECONDS as DISCOVER_TIMEOUT_SECONDS
from mcp.client.handshake import model_types
from mcp.client.incoming import ClientIncoming
from mcp.client.outgoing import ClientOutgoing
from mcp.client.outgoing import ProgressCallback as ProgressCallback
from mcp.client.request_timeout import DEFAULT_REQUEST_TIMEOUT_SECONDS

if TYPE_CHECKING:
    from typing import TypeAlias

    from typing_extensions import Self

    from mcp.client.dispatcher_peer import DispatcherPeer
    from mcp.client.extensions import ClientExtension, NotificationBinding, ResultClaim
    from mcp.shared.dispatcher import Dispatcher
    from mcp.types import ErrorData, ServerNotification

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
        value = model_types().Implementation(name="mcp", version="0.1.0")
    elif name == "ClientResponse":
        from pydantic import TypeAdapter

        t = model_types()
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


class ClientSession(ClientIncoming, ClientOutgoing):
    """The client side of one connection: typed requests, and the callbacks that answer the
    server's requests. Enter it to run the connection, then `initialize()` (or `discover()`).

    Its halves live with their concepts: `ClientHandshake` (`mcp.client.handshake`: capabilities,
    era, what the server said), `ClientOutgoing` (`mcp.client.outgoing`: the requests and their
    results) and `ClientIncoming` (`mcp.client.incoming`: the server's requests and notifications).
    This class builds the connection's state and runs it."""

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
        dispatcher: Dispatcher[Any] | None = None,
        default_request_timeout_seconds: float | None = DEFAULT_REQUEST_TIMEOUT_SECONDS,
    ) -> None:
        self.read_timeout_seconds = read_timeout_seconds
        self.default_request_timeout_seconds = default_request_timeout_seconds
        """How long a request for which nobody set a timeout waits without an answer or a progress
        report (None: for ever); see `mcp.client.request_timeout`."""
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
        self._on_silence_clock: set[Any] = set()
        """Ids of the requests whose timeout bounds the server's silence (the default, or one the
        call asked to restart on progress):
        a progress report for one restarts its clock, and all stop while a callback of ours answers
        the server (a person filling in an elicitation form, a model sampling)."""
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
        self._x_mcp_header_maps: dict[str, dict[tuple[str, ...], str]] = {}
        """tool name -> (argument path -> `Mcp-Param-*` suffix) seeded by a caller (the official
        private; FastMCP's proxy writes it), mirrored by `call_tool`."""
        self.peer: Peer | DispatcherPeer
        if dispatcher is not None:
            if read_stream is not None or write_stream is not None:
                raise ValueError("pass read_stream/write_stream or dispatcher, not both")
            from mcp.client.dispatcher_peer import DispatcherPeer

            self.peer = DispatcherPeer(dispatcher, answer=self._answer, on_notification=self._on_notification,
                                       on_transport_error=self._on_transport_error,
                                       entered=lambda: self._task_group is not None)
        elif read_stream is None or write_stream is None:
            raise ValueError("read_stream and write_stream are required when no dispatcher is given")
        else:
            # A transport fault on the read stream goes to `message_handler`, not back as a parse error.
            self.peer = Peer(read_stream, write_stream, role="client", on_request=self._on_request,
                             on_notification=self._on_notification, on_unparsable=self._on_transport_error)

    @property
    def _session_read_timeout_seconds(self) -> float | None:
        """The official private name of `read_timeout_seconds` (FastMCP's tests read it)."""
        return self.read_timeout_seconds

    @property
    def _dispatcher(self) -> ConnectionEnd:
        """What FastMCP's stdio transport reads of the official private `_dispatcher`: whether the
        connection has ended (`_closed`), so a keep-alive transport reconnects to a server process
        that exited instead of reusing its dead session."""
        return ConnectionEnd(self.peer)

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


class ConnectionEnd:
    """Whether a session's connection has ended (its input reached end of stream or it was
    closed), read as the official dispatcher's `_closed`."""

    __slots__ = ("_peer",)

    def __init__(self, peer: Any) -> None:
        self._peer = peer

    @property
    def _closed(self) -> bool:
        closed = getattr(self._peer, "closed", None)
        return isinstance(closed, (anyio.Event, LoopEvent)) and closed.is_set()
