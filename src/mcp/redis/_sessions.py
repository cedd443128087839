"""`RedisSessionStore`: handshake-era Streamable HTTP sessions shared by every worker.

One JSON value per session under `PREFIX:session:ID`, with the idle TTL: `GETEX` reads it and
renews the TTL in one round trip on every request; `DELETE` removes it and tells the other
workers on the `session-ended` channel. A value that is not a session record of ours is refused
(logged) and the session treated as unknown.

The per-client session cap is counted here too, so that it holds across workers: each client
(named by a digest, never its subject or address) has a set `PREFIX:client-sessions:DIGEST` of
its sessions' ids. A session is added when its record is created, atomically with the check
against the cap (one Lua script), and leaves the count once its record is gone, deleted or
expired: every count first drops the ids whose record no longer exists (at most the cap's worth).
The set is forgotten a day after its client last opened a session.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

from mcp.redis._client import RedisConnection, dumps, loads_object, refuse
from mcp.server.session_store import SessionRecord
from mcp.types.version import HANDSHAKE_VERSIONS

_FORMAT = "mcpkit.session/1"
_LEVELS = frozenset({"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"})
_OWNER_KEYS = frozenset({"client_id", "issuer", "subject"})
"""A record's owner: the principal that opened the session (`SessionRecord.owner`)."""
_SESSION_ID = re.compile(r"^[\x21-\x7E]{1,256}$")
MAX_SUBSCRIPTIONS = 10_000
CLIENT_COUNT_TTL = 86_400
"""Seconds a client's session count is remembered after it last opened a session."""

_COUNT = """
local prefix = ARGV[1]
for _, sid in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', prefix .. sid) == 0 then redis.call('SREM', KEYS[1], sid) end
end
local count = redis.call('SCARD', KEYS[1])
if #ARGV == 2 then return count end
if count >= tonumber(ARGV[3]) then return -1 end
redis.call('SET', prefix .. ARGV[4], ARGV[5], 'PX', ARGV[6], 'NX')
redis.call('SADD', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return count + 1
"""
"""Prune a client's set of the sessions whose record is gone; count it; with a record to create,
create it and add it, unless the count is at the cap (-1)."""


class RedisSessionStore:
    """A `mcp.server.session_store.SessionStore` on Redis."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection
        self._ended = connection.key("session-ended")

    @classmethod
    def from_url(cls, url: str, *, prefix: str = "mcp") -> RedisSessionStore:
        return cls(RedisConnection(url, prefix=prefix))

    def _key(self, session_id: str) -> str:
        return self.connection.key("session", session_id)

    async def create(self, record: SessionRecord, ttl: float) -> None:
        value = _encode(record)
        await self.connection.run("create session", lambda r: r.set(self._key(record.session_id), value,
                                                                    px=_ms(ttl), nx=True))

    async def open_sessions(self, client: str) -> int:
        """How many sessions `client` (a digest) has open, on every worker."""
        key = self.connection.key("client-sessions", client)
        prefix = self._key("")
        return int(await self.connection.run("count sessions", lambda r: r.eval(_COUNT, 1, key, prefix,
                                                                                 CLIENT_COUNT_TTL * 1000)))

    async def create_within(self, record: SessionRecord, ttl: float, client: str, limit: int) -> bool:
        """`create`, counted as one of `client`'s sessions, unless it already has `limit` open
        (then False, and nothing is created). Atomic: workers racing at the cap cannot pass it."""
        key = self.connection.key("client-sessions", client)
        args = (self._key(""), CLIENT_COUNT_TTL * 1000, limit, record.session_id, _encode(record), _ms(ttl))
        created = await self.connection.run("create session", lambda r: r.eval(_COUNT, 1, key, *args))
        return int(created) >= 0

    async def load(self, session_id: str, ttl: float) -> SessionRecord | None:
        if not _SESSION_ID.match(session_id):
            return None
        key = self._key(session_id)
        raw = await self.connection.run("load session", lambda r: r.getex(key, px=_ms(ttl)))
        return _decode(raw, session_id, key)

    async def save(self, record: SessionRecord) -> None:
        value = _encode(record)
        await self.connection.run("save session", lambda r: r.set(self._key(record.session_id), value,
                                                                  xx=True, keepttl=True))

    async def delete(self, session_id: str) -> None:
        async def op(r: Any) -> Any:
            async with r.pipeline(transaction=False) as pipe:  # returns its connection to the pool
                pipe.delete(self._key(session_id))
                pipe.publish(self._ended, session_id)
                return await pipe.execute()

        await self.connection.run("delete session", op)

    async def load_many(self, session_ids: list[str]) -> list[SessionRecord | None]:
        if not session_ids:
            return []
        keys = [self._key(s) for s in session_ids]
        raws: list[Any] = await self.connection.run("load sessions", lambda r: r.mget(keys))
        return [_decode(raw, sid, key) for raw, sid, key in zip(raws, session_ids, keys, strict=True)]

    def on_deleted(self, callback: Callable[[str], None]) -> Callable[[], None]:
        def incoming(data: bytes) -> None:
            try:
                session_id = data.decode("ascii")
            except UnicodeDecodeError:
                refuse("session-ended message", self._ended, "not ASCII")
                return
            if _SESSION_ID.match(session_id):
                callback(session_id)
            else:
                refuse("session-ended message", self._ended, "not a session id")

        return self.connection.hub().subscribe("session-ended", incoming)


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


def _encode(record: SessionRecord) -> str:
    return dumps({"format": _FORMAT, "id": record.session_id, "version": record.protocol_version,
                  "clientInfo": record.client_info, "capabilities": record.client_capabilities,
                  "logLevel": record.log_level, "subscriptions": record.subscriptions, "owner": record.owner})


def _decode(raw: Any, session_id: str, key: str) -> SessionRecord | None:
    value = loads_object(raw, "session record", key)
    if value is None:
        return None
    what = "session record"
    if value.get("format") != _FORMAT:
        refuse(what, key, "not a session record of this SDK (format marker)")
        return None
    if value.get("id") != session_id:
        refuse(what, key, "it names another session")
        return None
    version = value.get("version")
    if version not in HANDSHAKE_VERSIONS:
        refuse(what, key, f"unknown protocol version {version!r}")
        return None
    info, caps, level, subs = (value.get("clientInfo"), value.get("capabilities"), value.get("logLevel"),
                               value.get("subscriptions"))
    if not (info is None or isinstance(info, dict)) or not (caps is None or isinstance(caps, dict)):
        refuse(what, key, "client info and capabilities must be objects")
        return None
    if level is not None and level not in _LEVELS:
        refuse(what, key, f"unknown log level {level!r}")
        return None
    if not isinstance(subs, list) or len(cast("list[Any]", subs)) > MAX_SUBSCRIPTIONS or not all(
            isinstance(uri, str) for uri in cast("list[Any]", subs)):
        refuse(what, key, "subscriptions must be a list of URIs")
        return None
    owner = value.get("owner")
    if owner is not None and not (isinstance(owner, dict) and frozenset(cast("dict[str, Any]", owner)) == _OWNER_KEYS and all(
            part is None or isinstance(part, str) for part in cast("dict[str, Any]", owner).values())):
        refuse(what, key, "the owner must be a principal (client_id, issuer, subject)")
        return None
    return SessionRecord(session_id, cast("str", version), cast("dict[str, Any] | None", info),
                         cast("dict[str, Any] | None", caps), level, list(cast("list[str]", subs)),
                         cast("dict[str, str | None] | None", owner))
