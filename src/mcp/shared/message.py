"""`SessionMessage`: what travels on a transport's streams: one JSON-RPC message plus transport
metadata (the HTTP request it came in on, a resumption token, ...). The message is a
`JSONRPCMessage` model wherever a user reads or writes a stream; our engine and our transports'
own ends carry it as the dict it is on the wire (see `mcp._engine.seam`).

`ClientMessageMetadata` / `ServerMessageMetadata` are the official SDK's metadata shapes; the
server helpers read `related_request_id` from the latter (`ServerSession.send_request(...,
metadata=)`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["ClientMessageMetadata", "CloseSSEStreamCallback", "MessageMetadata", "ResumptionToken",
           "ResumptionTokenUpdateCallback", "ServerMessageMetadata", "SessionMessage"]

ResumptionToken = str
ResumptionTokenUpdateCallback = Callable[[ResumptionToken], Awaitable[None]]
CloseSSEStreamCallback = Callable[[], Awaitable[None]]
"""Ends an SSE stream without ending the session (the client reconnects and resumes)."""


@dataclass
class ClientMessageMetadata:
    """Hints a client attaches to an outgoing message."""

    resumption_token: ResumptionToken | None = None
    on_resumption_token_update: ResumptionTokenUpdateCallback | None = None
    headers: dict[str, str] | None = None
    """HTTP headers the transport should set for this message."""


@dataclass
class ServerMessageMetadata:
    """Hints attached to a server's message: the request it relates to, and the transport's own
    per-request facts."""

    related_request_id: str | int | None = None
    request_context: Any = None
    """The transport's request object (a Starlette `Request` on HTTP, None on stdio)."""
    close_sse_stream: CloseSSEStreamCallback | None = None
    close_standalone_sse_stream: CloseSSEStreamCallback | None = None
    on_request_unanswered: Callable[[], Awaitable[None]] | None = None
    can_send_request: bool = True


MessageMetadata = ClientMessageMetadata | ServerMessageMetadata | None


@dataclass(slots=True)
class SessionMessage:
    """One message on a transport's stream, with its transport metadata."""

    message: Any
    """A `JSONRPCMessage` model on a stream's official face, the wire dict on its wire face
    (typed `Any` as the two meet here)."""
    metadata: Any = None
