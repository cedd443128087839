"""Sharing handshake-era Streamable HTTP sessions between server processes: the `SessionStore`
interface the session manager talks to, and the `SessionRecord` it keeps there (re-exported from
their home, `mcp.server._http.shared_sessions`). `mcp.redis.RedisSessionStore` is the
implementation for several processes.
"""

from __future__ import annotations

from mcp.server._http.shared_sessions import (
    SessionRecord,
    SessionStore,
    StoreUnavailable,
    record_of,
    restore,
    state_of,
)

__all__ = ["SessionRecord", "SessionStore", "StoreUnavailable", "record_of", "restore", "state_of"]
