"""`ServerSession`: one client connection as the server sees it.

It decides each request's era (handshake or 2026-07-28, per request), enforces the lifecycle,
runs the request through the server's middleware and handler table, and puts the result on the
wire in the shape of the revision in force (serverInfo stamp and `resultType` on the modern wire,
fields a revision lacks pruned on older ones).

This module is the official path of these names; the session's halves live with their concepts:
`mcp.server._session_handshake` (what the client said, the era of each request),
`mcp.server._session_incoming` (requests and notifications received),
`mcp.server._session_outgoing` (what goes to the client), and the result's wire form in
`mcp.server._result_wire`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, cast

from mcp._engine.peer import DEFAULT_MAX_CONCURRENT_REQUESTS, Peer, ReadStream, WriteStream
from mcp.server._handler_errors import handler_failure as handler_failure
from mcp.server._handler_errors import raised_for as raised_for
from mcp.server._result_wire import CACHEABLE_METHODS as CACHEABLE_METHODS
from mcp.server._result_wire import WireResult as WireResult
from mcp.server._result_wire import own_answer as own_answer
from mcp.server._result_wire import validate_params as validate_params
from mcp.server._session_handshake import MODERN_ONLY as MODERN_ONLY
from mcp.server._session_handshake import REMOVED_ON_MODERN_WIRE as REMOVED_ON_MODERN_WIRE
from mcp.server._session_handshake import current_envelope as current_envelope
from mcp.server._session_handshake import current_log_levels as current_log_levels
from mcp.server._session_handshake import current_progress_token as current_progress_token
from mcp.server._session_incoming import LIST_CHANGED_FOR as LIST_CHANGED_FOR
from mcp.server._session_incoming import SessionIncoming
from mcp.server._session_incoming import request_meta as request_meta
from mcp.server._session_outgoing import OutboundPeer as OutboundPeer
from mcp.server._session_outgoing import RequestChannel, SessionOutgoing, StandaloneChannel
from mcp.server.connection import Connection, allowed_log_levels
from mcp.shared.message import ServerMessageMetadata as ServerMessageMetadata  # the official module has it
from mcp.types.version import LATEST_HANDSHAKE_VERSION

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server
    from mcp.shared.dispatcher import ProgressFnT

logger = logging.getLogger("mcp.server")


class ServerSession(SessionIncoming, SessionOutgoing):
    """See the module docstring.

    Two ways to build one. The framework builds one per connection, over a pair of streams
    (`server=`, `read_stream=`, `write_stream=`, keyword-only, and the `connection` it serves:
    a new one when not given); `run()` then serves it. The
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
        self.initialized = False
        self.log_level: str | None = None
        self.subscribed_uris: set[str] = set()
        """Handshake-era `resources/subscribe` targets of this connection."""
        self._progress_callbacks: dict[Any, ProgressFnT] = {}
        """Progress callbacks of this session's own requests to the client, by token."""
        self._told: dict[str, tuple[Any, bool]] = {}
        """list_changed method -> (the request turn that sent it, sent by `relay_list_changed`),
        while the client has not asked for that list again (see `relay_list_changed`)."""
        self.request_meta = request_meta
        if request_outbound is not None:
            if connection is None:
                raise TypeError("ServerSession(request_outbound, connection) needs both")
            self._connection = connection
            self._request_outbound = request_outbound
            self._standalone = self._about_request = connection.outbound
            self._allowed_log_levels: frozenset[str] | None = allowed_log_levels(connection.protocol_version,
                                                                                 request_meta)
            self.peer: Any = OutboundPeer(request_outbound)
            return
        if server is None or read_stream is None or write_stream is None:
            raise TypeError("ServerSession needs server=, read_stream= and write_stream= "
                            "(or the official form: ServerSession(request_outbound, connection))")
        self._request_outbound = self._about_request = RequestChannel(self)
        self._standalone = StandaloneChannel(self)
        if connection is None:
            connection = Connection(self._standalone, protocol_version=default_version or LATEST_HANDSHAKE_VERSION)
        self._connection = connection
        """Per connection (stdio, each stateful HTTP session, each stateless HTTP request): what
        the server keeps for it, closed with it (`aclose_shielded`)."""
        self._allowed_log_levels = None
        """The request being served says (`current_log_levels`)."""
        self.peer = Peer(read_stream, write_stream, role="server", on_request=self._on_request,
                         on_notification=self._on_notification, drop_when_full=drop_when_full,
                         track_ids=not stateless, max_concurrent_requests=max_concurrent_requests,
                         offload=self.plan_offload)

    async def run(self) -> None:
        await self.peer.run()
