"""How many HTTP connections the server `run()` starts holds open at once, per process and per client
address (`HttpLimits.max_connections`, `max_connections_per_client`).

Without a cap, one client opening connections until the process hits its open-files limit made the
server fail everyone else's calls, unlogged (accept() and every file open failed). With one, a new
connection beyond the cap first takes the place of the connection that has been idle longest (one
that has not finished sending a request head: silent, slow-head or kept-alive between requests; its
client loses nothing, as after the keep-alive timeout), else of the one that has been sending a
request body longest (nothing of it is being answered yet); only when every connection has a
request being answered (a call, an SSE stream) is the newcomer refused, with a 503 and
`Retry-After`. Requests being answered are never cut. Each kind of event (refused, evicted; overall or for one client)
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

__all__ = ["BUSY", "IDLE", "SENDING", "WARN_INTERVAL", "ConnectionCap", "Evictable", "default_max_connections"]

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
        """Close this connection (it has no request being answered) now, to make room for a new one."""
        ...


IDLE, SENDING, BUSY = 0, 1, 2
"""A connection's state: no request in the app (silent, slow head, kept alive between requests);
a request whose body is still arriving (nothing answered yet); a request being answered."""


class ConnectionCap:
    """The open connections of one server, each IDLE, SENDING or BUSY, and the admission rule of the
    module docstring: an IDLE connection is closed first (longest idle first), then a SENDING one
    (longest sending first: a request not yet complete is not yet being served); BUSY ones never.
    `limit` / `per_client` of None: no cap of that kind."""

    __slots__ = ("_by_client", "_client", "_counts", "_last_warning", "_queues", "_state", "limit", "lingering",
                 "per_client")

    def __init__(self, limit: int | None, per_client: int | None = None) -> None:
        if limit is not None and limit <= 0:
            raise ValueError("max_connections must be positive or None")
        if per_client is not None and per_client <= 0:
            raise ValueError("max_connections_per_client must be positive or None")
        self.limit = limit
        self.per_client = per_client
        self._client: dict[Evictable, Hashable | None] = {}
        """Every open connection, with its client address when `per_client` counts addresses."""
        self._state: dict[Evictable, int] = {}
        self._queues: dict[Hashable | None, tuple[OrderedDict[Evictable, None], OrderedDict[Evictable, None]]] = {
            None: (OrderedDict(), OrderedDict())}
        """The IDLE and SENDING connections, oldest first: overall (key None) and per client."""
        self._by_client: dict[Hashable, int] = {}
        self._counts: dict[str, int] = {}
        """Events since the last warning of their kind: refused / evicted, overall or for one client."""
        self._last_warning: dict[str, float] = {}
        self.lingering = 0
        """Refused connections still open while their 503 is read (the protocol keeps the count)."""

    def __len__(self) -> int:
        return len(self._client)

    def open_for(self, client: Hashable | None) -> int:
        return self._by_client.get(client, 0) if client is not None else 0

    def state(self, connection: Evictable) -> int | None:
        return self._state.get(connection)

    def admit(self, connection: Evictable, client: Hashable | None) -> bool:
        """Whether `connection` (from `client`'s address; None if not counted per client) may stay
        open, closing another connection (of that client, then overall) when it would exceed a cap.
        Admitted connections start IDLE; `moved` / `closed` follow them."""
        if client is not None and self.per_client is not None and self._by_client.get(client, 0) >= self.per_client:
            if not self._evict(client):
                self._note("refused_client", client)
                return False
            self._note("evicted_client", client)
        if self.limit is not None and len(self._client) >= self.limit:
            if not self._evict(None):
                self._note("refused", client)
                return False
            self._note("evicted", client)
        if self.per_client is None:
            client = None
        self._client[connection] = client
        self._state[connection] = IDLE
        self._queues[None][IDLE][connection] = None
        if client is not None:
            self._by_client[client] = self._by_client.get(client, 0) + 1
            queues = self._queues.get(client)
            if queues is None:
                queues = self._queues[client] = (OrderedDict(), OrderedDict())
            queues[IDLE][connection] = None
        return True

    def moved(self, connection: Evictable, state: int) -> None:
        """`connection` is now in `state` (the newest of its queue)."""
        old = self._state.get(connection)
        if old is None or old == state:
            return
        self._state[connection] = state
        client = self._client[connection]
        for key in (None, client) if client is not None else (None,):
            queues = self._queues[key]
            if old != BUSY:
                del queues[old][connection]
            if state != BUSY:
                queues[state][connection] = None

    def closed(self, connection: Evictable) -> None:
        state = self._state.pop(connection, None)
        if state is None:
            return
        client = self._client.pop(connection)
        if state != BUSY:
            del self._queues[None][state][connection]
            if client is not None:
                del self._queues[client][state][connection]
        if client is None:
            return
        left = self._by_client[client] - 1
        if left > 0:
            self._by_client[client] = left
        else:
            del self._by_client[client]
            del self._queues[client]

    def _evict(self, client: Hashable | None) -> bool:
        """Close the longest-idle connection (of `client`, or overall for None), else the longest
        sending; False if every one is busy."""
        queues = self._queues.get(client)
        if queues is None:
            return False
        for queue in queues:
            if queue:
                victim = next(iter(queue))
                self.closed(victim)
                victim.evict()
                return True
        return False

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
                "evicted": "closed {} connection(s) with no request being answered to make room for new ones",
                "refused_client": "all busy: refused {} new connection(s) from it with 503",
                "evicted_client": "closed {} of its connection(s) with no request being answered to make room "
                                  "for its new ones"}[event]
        logger.warning("HTTP connection limit reached: %s; %s since the last such warning. Raise the limit (and "
                       "the open-files limit, ulimit -n) if this is legitimate load", held, done.format(count))
