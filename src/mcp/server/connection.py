"""`Connection`: one client connection's state, shared by every request on it.

What the official SDK's per-request `ServerSession(request_outbound, connection)` reads: the
negotiated protocol version, what the client declared (`client_params`, `client_capabilities`),
the connection's own outbound channel (`outbound`, for messages not tied to a request), plus
per-connection scratch `state` and an `exit_stack` for teardown.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, cast

import anyio

from mcp._engine.loop_event import LoopEvent
from mcp.shared.exceptions import NoBackChannelError, warn_deprecated
from mcp.types.version import LATEST_HANDSHAKE_VERSION, LOG_LEVEL_META_KEY, MODERN_VERSIONS

if TYPE_CHECKING:
    from mcp.shared.dispatcher import CallOptions, Outbound
    from mcp.types import ClientCapabilities, Implementation, InitializeRequestParams

__all__ = ["Connection"]

logger = logging.getLogger("mcp.server")

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
"""`LoggingLevel` values, least severe first (RFC 5424 order)."""


def allowed_log_levels(protocol_version: str, meta: Mapping[str, Any] | None) -> frozenset[str]:
    """The `notifications/message` levels one request may receive. Handshake-era revisions: all
    (filtering is `logging/setLevel`'s business). 2026-07-28: those at or above the level the
    request's `_meta` asked for, none when it asked for none."""
    if protocol_version not in MODERN_VERSIONS:
        return frozenset(LOG_LEVELS)
    requested = (meta or {}).get(LOG_LEVEL_META_KEY)
    if requested not in LOG_LEVELS:
        return frozenset()
    return frozenset(LOG_LEVELS[LOG_LEVELS.index(requested):])


def capabilities_cover(have: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    """True when the declared capabilities `have` (wire dicts) include everything in `wanted`:
    every capability, every sub-flag set to true, every `experimental` entry with its value, and
    every extension identifier (extension settings are negotiated, so presence is enough)."""
    for key, value in wanted.items():
        if value is None:
            continue
        declared = have.get(key)
        if declared is None:
            return False
        if key == "experimental":
            if any(name not in declared or declared[name] != setting for name, setting in value.items()):
                return False
        elif key == "extensions":
            if any(name not in declared for name in value):
                return False
        elif isinstance(value, Mapping):
            flags = cast("Mapping[str, Any]", value)
            present: Mapping[str, Any] = cast("Mapping[str, Any]", declared) if isinstance(declared, Mapping) else {}
            for flag, setting in flags.items():
                if setting is not None and setting is not False and present.get(flag) in (None, False):
                    return False
    return True


class _NoChannelOutbound:
    """The outbound channel of a connection that cannot reach its client: requests raise
    `NoBackChannelError`, notifications are dropped (debug-logged)."""

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None,
                               opts: CallOptions | None = None) -> dict[str, Any]:
        raise NoBackChannelError(method)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None) -> None:
        logger.debug("dropped %s: the connection has no channel to the client", method)


NO_CHANNEL = _NoChannelOutbound()


class Connection:
    """See the module docstring. Build it with `from_envelope` (a self-contained 2026-07-28
    request: ready at once) or `for_loop` (a handshake-era connection)."""

    def __init__(self, outbound: Outbound, *, protocol_version: str, session_id: str | None = None,
                 client_params: InitializeRequestParams | None = None) -> None:
        self.outbound = outbound
        """The channel for server-initiated messages not tied to one request."""
        self.protocol_version = protocol_version
        self.session_id = session_id
        self._client_params: InitializeRequestParams | None = client_params
        self._client_capabilities: ClientCapabilities | None = (None if client_params is None
                                                                else client_params.capabilities)
        self._handshake: tuple[Any, Any] | None = None
        """(client info, capabilities) as `initialize` carried them (wire dicts or models), kept
        until first read: a session that never asks pays no validation."""
        self._initialized: LoopEvent | None = None
        self._state: dict[str, Any] | None = None
        self._exit_stack: AsyncExitStack | None = None

    # `initialized`, `state` and `exit_stack` are made on first use: a stateless HTTP request has a
    # connection of its own, and most never touch them.

    @property
    def initialized(self) -> LoopEvent:
        """Set once the client sent `notifications/initialized` (at once for `from_envelope`)."""
        event = self._initialized
        if event is None:
            event = self._initialized = LoopEvent()
        return event

    @property
    def state(self) -> dict[str, Any]:
        """Scratch state that lasts as long as the connection."""
        state = self._state
        if state is None:
            state = self._state = {}
        return state

    @property
    def exit_stack(self) -> AsyncExitStack:
        """Teardown run when the connection closes (LIFO, shielded; see `aclose_shielded`)."""
        stack = self._exit_stack
        if stack is None:
            stack = self._exit_stack = AsyncExitStack()
        return stack

    @property
    def has_teardown(self) -> bool:
        """Whether anything may be waiting on `exit_stack` (False while it was never asked for)."""
        return self._exit_stack is not None

    @property
    def client_params(self) -> InitializeRequestParams | None:
        """The client's `initialize` params (None when it gave no client info)."""
        if self._handshake is not None:
            self._settle_handshake()
        return self._client_params

    @client_params.setter
    def client_params(self, value: InitializeRequestParams | None) -> None:
        self._handshake = None
        self._client_params = value
        if value is not None:
            self._client_capabilities = value.capabilities  # the two never disagree

    @property
    def client_capabilities(self) -> ClientCapabilities | None:
        """The capabilities the client declared (None when it declared none)."""
        if self._handshake is not None:
            self._settle_handshake()
        return self._client_capabilities

    @client_capabilities.setter
    def client_capabilities(self, value: ClientCapabilities | None) -> None:
        if self._handshake is not None:
            self._settle_handshake()
        self._client_capabilities = value

    def record_handshake(self, protocol_version: str, client_info: Any, capabilities: Any) -> None:
        """What `initialize` settled: the negotiated version, and the client's info and
        capabilities (wire dicts or models, validated when first read)."""
        self.protocol_version = protocol_version
        self._client_params = None
        self._client_capabilities = None
        self._handshake = (client_info, capabilities)

    def handshake_snapshot(self) -> tuple[Any, Any]:
        """(client info, capabilities) as `initialize` carried them, or as models once read."""
        if self._handshake is not None:
            return self._handshake
        params = self._client_params
        return (None if params is None else params.client_info), self._client_capabilities

    def _settle_handshake(self) -> None:
        from mcp.types import ClientCapabilities, Implementation, InitializeRequestParams

        handshake = self._handshake
        assert handshake is not None
        info, caps = handshake
        self._handshake = None
        if isinstance(caps, dict):
            caps = ClientCapabilities.model_validate(caps)
        if isinstance(info, dict):
            info = Implementation.model_validate(info)
        self._client_capabilities = cast("ClientCapabilities | None", caps)
        if info is not None and caps is not None:
            self._client_params = InitializeRequestParams(protocol_version=self.protocol_version,
                                                          capabilities=cast("ClientCapabilities", caps),
                                                          client_info=cast("Implementation", info))

    @classmethod
    def from_envelope(cls, protocol_version: str, client_info: Any, client_capabilities: Any, *,
                      outbound: Outbound = NO_CHANNEL) -> Connection:
        """A ready connection for one 2026-07-28 request, from its `_meta` envelope. A malformed
        client info or capabilities value counts as not given."""
        from pydantic import ValidationError

        from mcp.types import ClientCapabilities, Implementation, InitializeRequestParams

        def typed(model: Any, raw: Any) -> Any:
            try:
                return model.model_validate(raw)
            except ValidationError:
                return None

        info = typed(Implementation, client_info)
        capabilities = typed(ClientCapabilities, client_capabilities)
        params = None
        if info is not None and capabilities is not None:
            params = InitializeRequestParams(protocol_version=protocol_version, capabilities=capabilities,
                                             client_info=info)
        connection = cls(outbound, protocol_version=protocol_version, client_params=params)
        connection.client_capabilities = capabilities
        connection.initialized.set()
        return connection

    @classmethod
    def for_loop(cls, outbound: Outbound, *, session_id: str | None = None,
                 protocol_version_hint: str | None = None) -> Connection:
        """A handshake-era connection: its version is the hint (or the newest handshake-era
        revision) until `initialize` settles it."""
        version = protocol_version_hint if protocol_version_hint is not None else LATEST_HANDSHAKE_VERSION
        return cls(outbound, protocol_version=version, session_id=session_id)

    @property
    def has_standalone_channel(self) -> bool:
        """Whether the connection has a channel to the client at all."""
        return self.outbound is not NO_CHANNEL

    @property
    def initialize_accepted(self) -> bool:
        """Whether `initialize` was accepted (or the connection is ready without one)."""
        return self.client_params is not None or (self._initialized is not None and self._initialized.is_set())

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None,
                               opts: CallOptions | None = None) -> dict[str, Any]:
        """A raw request on the connection's channel (`NoBackChannelError` when there is none)."""
        return await self.outbound.send_raw_request(method, params, opts)

    async def send_request(self, req: Any, *, result_type: Any = None, opts: CallOptions | None = None) -> Any:
        """A request model on the connection's channel, its result validated as `result_type`
        (inferred for the spec's server-to-client requests)."""
        wire = req.model_dump(by_alias=True, mode="json", exclude_none=True)
        raw = await self.send_raw_request(wire["method"], wire.get("params"), opts)
        if result_type is None:
            import mcp.types as t

            results: dict[str, Any] = {"sampling/createMessage": t.CreateMessageResult,
                                       "elicitation/create": t.ElicitResult, "roots/list": t.ListRootsResult,
                                       "ping": t.EmptyResult}
            result_type = results[wire["method"]]
        return result_type.model_validate(raw)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None) -> None:
        """A notification on the connection's channel; dropped when the channel is closed."""
        try:
            await self.outbound.notify(method, params, opts)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            logger.debug("dropped %s: the connection's stream is closed", method)

    async def ping(self, *, meta: dict[str, Any] | None = None, opts: CallOptions | None = None) -> None:
        await self.send_raw_request("ping", _with_meta(None, meta), opts)

    async def log(self, level: str, data: Any, logger: str | None = None, *,
                  meta: dict[str, Any] | None = None) -> None:
        """`notifications/message` to the client, not tied to a request (never on 2026-07-28,
        where logs ride the stream of the request that asked for them)."""
        warn_deprecated("logging")
        if level not in allowed_log_levels(self.protocol_version, None):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self.notify("notifications/message", _with_meta(params, meta))

    async def send_tool_list_changed(self, *, meta: dict[str, Any] | None = None) -> None:
        await self.notify("notifications/tools/list_changed", _with_meta(None, meta))

    async def send_prompt_list_changed(self, *, meta: dict[str, Any] | None = None) -> None:
        await self.notify("notifications/prompts/list_changed", _with_meta(None, meta))

    async def send_resource_list_changed(self, *, meta: dict[str, Any] | None = None) -> None:
        await self.notify("notifications/resources/list_changed", _with_meta(None, meta))

    async def send_resource_updated(self, uri: str, *, meta: dict[str, Any] | None = None) -> None:
        await self.notify("notifications/resources/updated", _with_meta({"uri": str(uri)}, meta))

    def check_capability(self, capability: ClientCapabilities) -> bool:
        """Whether the client declared everything `capability` asks for (False before it declared)."""
        if self.client_capabilities is None:
            return False
        return capabilities_cover(self.client_capabilities.model_dump(exclude_none=True),
                                  capability.model_dump(exclude_none=True))


def _with_meta(params: dict[str, Any] | None, meta: dict[str, Any] | None) -> dict[str, Any] | None:
    if not meta:
        return params
    return {**(params or {}), "_meta": meta}


EXIT_STACK_CLOSE_TIMEOUT = 5.0
"""Seconds a connection's teardown may take: a hung callback must not wedge shutdown."""


async def aclose_shielded(connection: Connection) -> None:
    """Run the connection's teardown (`exit_stack`), shielded from cancellation and bounded by
    `EXIT_STACK_CLOSE_TIMEOUT`; a callback that raises is logged, never propagated (it must not
    mask why the connection ended). Free when nothing was ever pushed."""
    if not connection.has_teardown:
        return
    with anyio.move_on_after(EXIT_STACK_CLOSE_TIMEOUT, shield=True) as scope:
        try:
            await connection.exit_stack.aclose()
        except Exception:
            logger.exception("connection exit_stack cleanup raised")
    if scope.cancelled_caught:
        logger.warning("connection exit_stack cleanup exceeded %s seconds; abandoning the remaining callbacks",
                       EXIT_STACK_CLOSE_TIMEOUT)
