"""Sharing handshake-era Streamable HTTP sessions between server processes: the `SessionStore`
interface the session manager talks to, and the `SessionRecord` it keeps there.

Without a store (the default) a session lives in one process's memory only. With one, what a
session needs to be served by any worker (its id, negotiated version, client info and
capabilities, log level, resource subscriptions) is written to the store when `initialize`
succeeds, read back (and its idle TTL renewed) on every request, and deleted by `DELETE`; each
worker keeps a live replica of the sessions it serves, rebuilt from the record whenever needed.
`mcp.redis.RedisSessionStore` is the implementation for several processes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import INTERNAL_ERROR

if TYPE_CHECKING:
    from mcp.server.session import ServerSession

__all__ = ["SessionRecord", "SessionStore", "StoreUnavailable", "record_of", "restore", "state_of"]


class StoreUnavailable(MCPError):
    """A shared store (Redis) could not be reached: the request that needed it fails with this
    JSON-RPC error (-32603) instead of hanging; the reason and the store's address go to the log."""

    def __init__(self, message: str = "Service unavailable: the shared state store cannot be reached") -> None:
        super().__init__(INTERNAL_ERROR, message)


@dataclass(slots=True)
class SessionRecord:
    """What any worker needs to serve a handshake-era session."""

    session_id: str
    protocol_version: str
    client_info: dict[str, Any] | None = None
    client_capabilities: dict[str, Any] | None = None
    log_level: str | None = None
    subscriptions: list[str] = field(default_factory=list[str])
    owner: dict[str, str | None] | None = None
    """The principal that opened the session (client id, issuer, subject), None without a token:
    every worker answers it alone."""

    def state(self) -> tuple[Any, ...]:
        """The parts a request may change (compared to decide whether to write back)."""
        return state_of_record(self)


class SessionStore(Protocol):
    """Where shared sessions live. Every method may raise `StoreUnavailable`."""

    async def create(self, record: SessionRecord, ttl: float) -> None:
        """Store a new session, to expire after `ttl` seconds without use."""
        ...

    async def load(self, session_id: str, ttl: float) -> SessionRecord | None:
        """The session (its idle TTL renewed to `ttl`), or None when unknown, deleted or expired.
        One round trip: this is on every request of a shared session."""
        ...

    async def save(self, record: SessionRecord) -> None:
        """Write back what a request changed (log level, subscriptions); keeps the TTL. A session
        deleted meanwhile stays deleted."""
        ...

    async def delete(self, session_id: str) -> None:
        """Remove the session everywhere (`DELETE`): other workers drop their replicas."""
        ...

    async def load_many(self, session_ids: list[str]) -> list[SessionRecord | None]:
        """Several records at once, without renewing them (fresh subscriptions for an event)."""
        ...

    def on_deleted(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call `callback(session_id)` when any worker deletes a session; returns an unsubscribe."""
        ...


def _wire(value: Any) -> dict[str, Any] | None:
    if value is None or isinstance(value, dict):
        return value  # pyright: ignore[reportUnknownVariableType]
    dumped: dict[str, Any] = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def record_of(session_id: str, session: ServerSession, owner: Any = None) -> SessionRecord:
    """The record of a live (initialized) session opened by `owner`."""
    assert session._protocol_version is not None
    return SessionRecord(session_id, session._protocol_version, _wire(session._client_info),
                         _wire(session._client_capabilities), session.log_level, sorted(session.subscribed_uris),
                         dict(owner) if owner is not None else None)


def state_of_record(record: SessionRecord) -> tuple[Any, ...]:
    return (record.log_level, tuple(sorted(record.subscriptions)))


def state_of(session: ServerSession) -> tuple[Any, ...]:
    """What `SessionRecord.state()` would be for this live session (cheap: no record built)."""
    return (session.log_level, tuple(sorted(session.subscribed_uris)))


def restore(session: ServerSession, record: SessionRecord) -> None:
    """Make a replica's session state that of `record` (a fresh replica, or one another worker changed)."""
    if session._protocol_version is None:
        session.complete_initialize(record.protocol_version, record.client_info, record.client_capabilities)
    session.initialized = True  # a client sending more requests is past the handshake
    session.log_level = record.log_level
    session.subscribed_uris = set(record.subscriptions)
