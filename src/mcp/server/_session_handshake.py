"""What a server session knows of its client: the era of each request (handshake or 2026-07-28,
decided per request), the negotiated version, and the client's info and capabilities (from
`initialize`, or from the `_meta` of the 2026-07-28 request being served).

`SessionHandshake` is that half of `ServerSession`; its state is set up by `ServerSession.__init__`.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, cast

from mcp._engine.calls import request_local
from mcp._protocol.lifecycle import HANDSHAKE_ERA, negotiate_version, request_era, unsupported_version_error
from mcp.server.connection import LOG_LEVELS
from mcp.server.unserved import unserved_request_error
from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import HEADER_MISMATCH, INVALID_PARAMS, METHOD_NOT_FOUND
from mcp.types.version import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    HANDSHAKE_VERSIONS,
    LOG_LEVEL_META_KEY,
    MODERN_VERSIONS,
    PROTOCOL_VERSION_META_KEY,
)

if TYPE_CHECKING:
    from mcp.server.connection import Connection
    from mcp.server.lowlevel.server import Server
    from mcp.shared.dispatcher import ProgressFnT
    from mcp.types import ClientCapabilities, Implementation

current_progress_token: ContextVar[Any] = request_local(ContextVar("mcp_current_progress_token", default=None), None)
"""The `_meta.progressToken` of the request being served in this task (set only when it has one),
for `ServerSession.report_progress`."""
current_log_levels: ContextVar[frozenset[str] | None] = request_local(
    ContextVar("mcp_current_log_levels", default=None), None)
"""The `notifications/message` levels the 2026-07-28 request being served in this task opted into
with its `_meta` (set only for such requests; handshake-era ones may receive every level)."""
current_envelope: ContextVar[dict[str, Any] | None] = request_local(
    ContextVar("mcp_current_envelope", default=None), None)
"""The `_meta` of the 2026-07-28 request being served in this task: its client info and capabilities
stand in for `initialize`'s (`ServerSession.client_params` and friends), as the official SDK's
per-request connection does."""

REMOVED_ON_MODERN_WIRE = frozenset(
    {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
)
MODERN_ONLY = frozenset({"server/discover"})
"""Requests that exist only on the 2026-07-28 wire: without its `_meta` they are invalid params."""


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


class SessionHandshake:
    """The half of `ServerSession` that knows the client (see the module docstring)."""

    server: Server[Any]
    lifespan_context: Any
    raise_exceptions: bool
    stateless: bool
    default_version: str | None
    initialized: bool
    log_level: str | None
    subscribed_uris: set[str]
    request_meta: Any
    peer: Any
    _protocol_version: str | None
    _progress_callbacks: dict[Any, ProgressFnT]
    _told: dict[str, tuple[Any, bool]]
    _connection: Connection
    _request_outbound: Any
    _standalone: Any
    _about_request: Any
    _allowed_log_levels: frozenset[str] | None

    @property
    def connection(self) -> Connection:
        """The connection this session serves: its negotiated version and client, its `state`
        and `exit_stack` (closed when the connection ends)."""
        return self._connection

    @property
    def protocol_version(self) -> str:
        """The protocol version this connection speaks: the negotiated one once `initialize` is
        done, before that the transport's hint or the newest handshake-era revision."""
        return self._connection.protocol_version

    @property
    def handshake_settled(self) -> bool:
        """Whether `initialize` settled this session's version (never, on stateless HTTP)."""
        return self._protocol_version is not None

    @property
    def progress_callbacks(self) -> dict[Any, ProgressFnT]:
        """The callbacks for progress the client reports on our requests to it, by progress token."""
        return self._progress_callbacks

    @property
    def can_send_request(self) -> bool:
        """Whether a server-initiated request can reach the client now."""
        return bool(self._request_outbound.can_send_request)

    has_back_channel = can_send_request

    @property
    def client_params(self) -> Any:
        """The client's `initialize` params: on a 2026-07-28 request, built from its `_meta` when
        that names the client; otherwise the connection's (None before `initialize`)."""
        envelope = current_envelope.get()
        if envelope is None:
            return self._connection.client_params
        version = envelope.get(PROTOCOL_VERSION_META_KEY)
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
        params = self._connection.client_params
        return None if params is None else params.client_info

    @property
    def client_capabilities(self) -> ClientCapabilities | None:
        envelope = current_envelope.get()
        if envelope is not None:
            return _typed("ClientCapabilities", envelope.get(CLIENT_CAPABILITIES_META_KEY))
        return self._connection.client_capabilities

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
        if request_era(header, requested) != HANDSHAKE_ERA:
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
        if not self.server.has_handler(method):
            raise unserved_request_error(method, self.protocol_version, params)
        raise MCPError(INVALID_PARAMS, "Invalid request parameters", "")

    @property
    def negotiated_version(self) -> str | None:
        """The revision `initialize` settled on; None before it (and on a session-less request).
        A door for the HTTP front door's session table and shared-session store."""
        return self._protocol_version

    def handshake_snapshot(self) -> tuple[str, Any, Any] | None:
        """(negotiated version, client info, client capabilities) as `initialize` left them (wire
        dicts or models); None before the handshake. What a shared session's record keeps."""
        if self._protocol_version is None:
            return None
        return (self._protocol_version, *self._connection.handshake_snapshot())

    def adopt_handshake(self, version: str, client_info: Any, capabilities: Any) -> None:
        """Take over a handshake another process completed (a shared session's replica), as if
        `initialize` had carried these."""
        self.complete_initialize(version, client_info, capabilities)

    def complete_initialize(self, requested: str, client_info: Any, capabilities: Any) -> str:
        """End the handshake: negotiate the version from the `requested` one and keep the
        client's identity and capabilities; returns the negotiated version. The door of the
        `initialize` built-in, and of a shared-session store restoring a session elsewhere."""
        self._protocol_version = version = negotiate_version(requested)
        self.peer.protocol_version = version
        self._connection.record_handshake(version, client_info, capabilities)
        return version

    def check_client_capability(self, capability: Any) -> bool:
        """True when the client declared every capability set in `capability` (on a 2026-07-28
        request, in its `_meta`)."""
        have = self.client_capabilities
        if have is None:
            return False
        from mcp.server.connection import capabilities_cover

        wanted = capability.model_dump(exclude_none=True) if hasattr(capability, "model_dump") else dict(capability)
        return capabilities_cover(have.model_dump(exclude_none=True), wanted)
