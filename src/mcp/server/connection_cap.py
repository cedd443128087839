"""How many HTTP connections the server `run()` starts holds open at once, per process and per client
address (`HttpLimits.max_connections`, `max_connections_per_client`).

Without a cap, one client opening connections until the process hits its open-files limit made the
server fail everyone else's calls, unlogged (accept() and every file open failed). With one, a new
connection beyond the cap first takes the place of the connection that has been idle longest (one
that has not finished sending a request head: silent, slow-head or kept-alive between requests; its
client loses nothing, as after the keep-alive timeout); only when every connection has a request in
the app (a call being answered, an SSE stream) is the newcomer refused, with a 503 and `Retry-After`.
Requests in flight are never cut. Each kind of event (refused, evicted; overall or for one client)
is logged as a warning at once, then at most once per `WARN_INTERVAL` seconds with the count since
its last line.

uvicorn's own `limit_concurrency` does not do this: it answers 503 only once a request head arrives
(connections that send nothing still pile up), it counts running requests too (long SSE streams),
logs every refusal, and is off by default.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Hashable
from typing import Final, Protocol

__all__ = ["WARN_INTERVAL", "ConnectionCap", "Evictable", "default_max_connections"]

logger = logging.getLogger("mcp.server.http")

WARN_INTERVAL: Final = 10.0
"""Seconds between two warnings of one kind (the events in between are counted in the next)."""

_FALLBACK_OPEN_FILES: Final = 1024
_MAX_OPEN_FILES_CONSIDERED: Final = 1 << 20


def default_max_connections() -> int:
    """Three quarters of this process's open-files limit (`ulimit -n`, RLIMIT_NOFILE's soft limit,
    read now): the rest stays for refusing connections politely, for the app's own files and
    sockets (Redis, subprocesses, logs) and for the event loop. 768 at the usual limit of 1,024."""
    try:
        import resource
    except ImportError:  # Windows: no RLIMIT_NOFILE
        return _FALLBACK_OPEN_FILES * 3 // 4
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY or soft <= 0 or soft > _MAX_OPEN_FILES_CONSIDERED:
        soft = _MAX_OPEN_FILES_CONSIDERED
    return max(soft * 3 // 4, 8)


class Evictable(Protocol):
    def evict(self) -> None:
        """Close this idle connection now, to make room for a new one."""
        ...


class ConnectionCap:
    """The open connections of one server, each idle (evictable) or busy, and the admission rule of
    the module docstring. `limit` / `per_client` of None: no cap of that kind."""

    __slots__ = (
        "_by_client",
        "_client",
        "_counts",
        "_idle",
        "_idle_by_client",
        "_last_warning",
        "limit",
        "lingering",
        "per_client",
    )

    def __init__(self, limit: int | None, per_client: int | None = None) -> None:
        if limit is not None and limit <= 0:
            raise ValueError("max_connections must be positive or None")
        if per_client is not None and per_client <= 0:
            raise ValueError("max_connections_per_client must be positive or None")
        self.limit = limit
        self.per_client = per_client
        self._client: dict[Evictable, Hashable | None] = {}
        """Every open connection, with its client address when `per_client` counts addresses."""
        self._by_client: dict[Hashable, int] = {}
        self._idle: OrderedDict[Evictable, None] = OrderedDict()
        """Connections with no request in the app, longest idle first."""
        self._idle_by_client: dict[Hashable, OrderedDict[Evictable, None]] = {}
        self._counts: dict[str, int] = {}
        """Events since the last warning of their kind: refused / evicted, overall or for one client."""
        self._last_warning: dict[str, float] = {}
        self.lingering = 0
        """Refused connections still open while their 503 is read (the protocol keeps the count)."""

    def __len__(self) -> int:
        return len(self._client)

    def open_for(self, client: Hashable | None) -> int:
        return self._by_client.get(client, 0) if client is not None else 0

    def admit(self, connection: Evictable, client: Hashable | None) -> bool:
        """Whether `connection` (from `client`'s address; None if not counted per client) may stay
        open, evicting the longest-idle connection (of that client, then overall) when it would
        exceed a cap. Admitted connections start idle; `busy` / `idle` / `closed` follow them."""
        if client is not None and self.per_client is not None and self._by_client.get(client, 0) >= self.per_client:
            if not self._evict(self._idle_by_client.get(client)):
                self._note("refused_client", client)
                return False
            self._note("evicted_client", client)
        if self.limit is not None and len(self._client) >= self.limit:
            if not self._evict(self._idle):
                self._note("refused", client)
                return False
            self._note("evicted", client)
        if self.per_client is None:
            client = None
        self._client[connection] = client
        self._idle[connection] = None
        if client is not None:
            self._by_client[client] = self._by_client.get(client, 0) + 1
            self._idle_by_client.setdefault(client, OrderedDict())[connection] = None
        return True

    def busy(self, connection: Evictable) -> None:
        """`connection` has a request in the app: never evicted until it is `idle` again."""
        if connection in self._idle:
            del self._idle[connection]
            client = self._client[connection]
            if client is not None:
                self._idle_by_client[client].pop(connection, None)

    def idle(self, connection: Evictable) -> None:
        """`connection` has no request in the app (it is the most recently idle now)."""
        if connection not in self._client:
            return
        self._idle[connection] = None
        self._idle.move_to_end(connection)
        client = self._client[connection]
        if client is not None:
            idle = self._idle_by_client[client]
            idle[connection] = None
            idle.move_to_end(connection)

    def closed(self, connection: Evictable) -> None:
        if connection not in self._client:
            return
        client = self._client.pop(connection)
        self._idle.pop(connection, None)
        if client is None:
            return
        self._idle_by_client[client].pop(connection, None)
        left = self._by_client[client] - 1
        if left > 0:
            self._by_client[client] = left
        else:
            del self._by_client[client]
            del self._idle_by_client[client]

    def _evict(self, idle: OrderedDict[Evictable, None] | None) -> bool:
        if not idle:
            return False
        victim = next(iter(idle))
        self.closed(victim)
        victim.evict()
        return True

    def _note(self, event: str, client: Hashable | None) -> None:
        """Count one event; warn now if this kind's last warning is `WARN_INTERVAL` seconds old."""
        count = self._counts[event] = self._counts.get(event, 0) + 1
        now = time.monotonic()
        last = self._last_warning.get(event)
        if last is not None and now - last < WARN_INTERVAL:
            return
        self._last_warning[event] = now
        self._counts[event] = 0
        if event in ("refused", "evicted"):
            held = f"{len(self._client)} connections open (max_connections={self.limit})"
        else:
            held = f"client {client} is at max_connections_per_client={self.per_client}"
        done = {"refused": "all busy: refused {} new connection(s) with 503",
                "evicted": "closed {} idle connection(s) to make room for new ones",
                "refused_client": "all busy: refused {} new connection(s) from it with 503",
                "evicted_client": "closed {} of its idle connection(s) to make room for its new ones"}[event]
        logger.warning("HTTP connection limit reached: %s; %s since the last such warning. Raise the limit (and "
                       "the open-files limit, ulimit -n) if this is legitimate load", held, done.format(count))
