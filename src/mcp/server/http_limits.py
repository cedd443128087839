"""Connection limits for the HTTP servers `run()` starts (uvicorn with httptools).

uvicorn bounds neither the size of a request head on its httptools parser nor how long a client
may take to send it, and it never times out a connection that sends nothing at all: a client could
hold a 100 MB header in memory, or keep 1,000 silent sockets open until the process runs out of file
descriptors. `HttpLimits` closes those gaps per connection:

- a request head (request line and headers) larger than `max_header_size` bytes is answered
  `431 Request Header Fields Too Large` and the connection closed, before the rest is read;
- a connection must complete each request head within `header_timeout` seconds of opening or of
  the request's first byte (a silent or slow-header client is disconnected);
- a request body must arrive within `body_timeout` seconds of its head (a slow-body client is
  disconnected; the handler sees the disconnect).

Between requests uvicorn's keep-alive timeout closes idle connections (`keep_alive_timeout`, 5 s
by default, as uvicorn's own). Responses, SSE streams included, are never cut short by these timers
(they stop once a request has been read), only by the send timeout:

- an answer (a response or an SSE event) the client does not read is held at most `send_timeout`
  seconds without progress: while writes wait for the client (uvicorn's write buffer is over its
  high-water mark) or once the response is complete with bytes still unsent, a period of
  `send_timeout` in which the unsent bytes do not shrink drops the connection, which frees them
  (the handler sees a disconnect; its session and other requests go on). Was: held forever, and
  closing such a connection waited forever for the buffer to flush.

Per process, `max_connections` (and, optionally, `max_connections_per_client` per peer address)
bounds the open connections (`mcp.server.connection_cap`): beyond it a new connection replaces
the longest-idle one (else the one longest sending a request body), or is refused with 503 when
every connection has a request being answered, and a warning is logged.

Hosts that run uvicorn themselves get the same guard with `uvicorn.run(app, http=guarded_httptools())`
(or `--http mcp.server.http_limits:GuardedHttpToolsProtocol` on the command line, default limits).

`SessionsPerClient` bounds the handshake-era sessions one client may hold open at once (consulted
by the Streamable HTTP session manager when it is asked to `initialize`): a client is the token's
subject, else its address where `trusted_proxies=` makes addresses trustworthy; otherwise no cap.
With shared sessions (`RedisState`) the count is the shared store's, so the cap holds across
workers (`client_digest` names the client there).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, cast

from mcp._protocol.http import DEFAULT_MAX_SESSIONS_PER_CLIENT
from mcp.server.connection_cap import BUSY, IDLE, SENDING, ConnectionCap, default_max_connections

if TYPE_CHECKING:
    import ipaddress

__all__ = ["DEFAULT_HTTP_LIMITS", "DEFAULT_SESSIONS_PER_CLIENT", "HttpLimits", "SessionsPerClient",
           "TrustedProxies", "client_digest", "guarded_httptools", "guarded_protocol", "too_many_sessions"]

_HEAD_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
                   b"content-length: 32\r\nconnection: close\r\n\r\nRequest header fields too large\n")
_TOO_MANY_CONNECTIONS = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
                         b"retry-after: 1\r\ncontent-length: 21\r\nconnection: close\r\n\r\nToo many connections\n")
_LINGER: Final = 1.0
"""Seconds a refused connection stays half-open while its client reads the 503 (closing at once,
with the client's request unread, would reset the connection and could lose the answer)."""
_MAX_LINGERING: Final = 64
"""Refused connections allowed to linger at once; beyond, they are closed right after the 503."""


@dataclass(frozen=True, slots=True)
class HttpLimits:
    """Per-connection limits of the HTTP server (see the module docstring); `None` turns one off."""

    max_header_size: int | None = 128 * 1024
    header_timeout: float | None = 30.0
    body_timeout: float | None = 60.0
    keep_alive_timeout: float = 5.0
    """Seconds an idle kept-alive connection is held between requests (uvicorn's `timeout_keep_alive`)."""
    send_timeout: float | None = 60.0
    """Seconds an answer the client is not reading may make no progress before the connection is dropped."""
    max_connections: int | None = field(default_factory=default_max_connections)
    """Open connections per server (3/4 of the open-files limit when the limits are made)."""
    max_connections_per_client: int | None = None
    """Open connections per peer address (off by default: behind a proxy every client shares one)."""


DEFAULT_HTTP_LIMITS = HttpLimits()


def guarded_protocol(protocol_class: type[asyncio.BaseProtocol], limits: HttpLimits) -> type[asyncio.BaseProtocol]:
    """`protocol_class` (uvicorn's httptools protocol) with `limits` enforced. Another protocol
    (h11, which bounds its head itself) is returned unchanged. The connection caps count the
    connections of every server using the returned class."""
    if not hasattr(protocol_class, "on_headers_complete"):
        return protocol_class
    max_head = limits.max_header_size
    head_timeout = limits.header_timeout
    body_timeout = limits.body_timeout
    send_timeout = limits.send_timeout
    per_client = limits.max_connections_per_client
    capped = limits.max_connections is not None or per_client is not None
    base: Any = protocol_class

    class Guarded(base):
        _mcp_cap = ConnectionCap(limits.max_connections, per_client) if capped else None
        _mcp_refused: asyncio.Transport | None = None
        """Set on a connection refused by the cap: uvicorn never sees it."""
        _mcp_in_head = True
        _mcp_between = False
        """A request has ended: the next read starts the next request's head."""
        _mcp_head_bytes = 0
        _mcp_deadline: float | None = None
        """When the current phase (head or body) must be done; None between requests."""
        _mcp_timer: asyncio.TimerHandle | None = None
        """One timer per connection, re-armed only when it fires early: moving the deadline per
        request costs a clock read, not a timer (the hot path sees three phase changes a call)."""
        _mcp_send_timer: asyncio.TimerHandle | None = None
        """The send watchdog, armed only while an answer waits for the client (see `_mcp_watch_send`)."""
        _mcp_unsent = 0
        """Unsent bytes when the send watchdog last looked."""

        def _mcp_super(self) -> Any:
            return super()

        def connection_made(self, transport: Any) -> None:
            cap = self._mcp_cap
            if cap is not None:
                client: str | None = None
                if per_client is not None:
                    peer: Any = transport.get_extra_info("peername")
                    host: Any = peer
                    if isinstance(peer, tuple):  # (host, port, ...); a unix socket's peer is a path
                        host = cast("tuple[Any, ...]", peer)[0]
                    client = str(host) if host else None
                if not cap.admit(self, client):
                    self._mcp_refuse_connection(transport, cap)
                    return
            self._mcp_super().connection_made(transport)
            self._mcp_arm(head_timeout)

        def data_received(self, data: bytes) -> None:
            if self._mcp_refused is not None:
                return  # the request of a refused connection: read and dropped while the 503 goes out
            used = 0 if self._mcp_between else self._mcp_head_bytes
            if (self._mcp_in_head or self._mcp_between) and max_head is not None and used + len(data) > max_head:
                # Judged before parsing: a whole oversized head may come in one read, and once
                # parsed it would already be on its way to the app. Only reads crossing the limit
                # pay for the search (a head split just at its blank line counts as not ended).
                end = data.find(b"\r\n\r\n")
                if end < 0 or used + end + 4 > max_head:
                    self._mcp_refuse_head()
                    return
            self._mcp_super().data_received(data)
            if self._mcp_in_head and max_head is not None:
                self._mcp_head_bytes += len(data)
                if self._mcp_head_bytes > max_head:
                    self._mcp_refuse_head()

        def on_message_begin(self) -> None:
            self._mcp_super().on_message_begin()
            self._mcp_in_head = True
            self._mcp_between = False
            self._mcp_head_bytes = 0
            self._mcp_arm(head_timeout)

        def on_headers_complete(self) -> None:
            self._mcp_in_head = False
            self._mcp_arm(body_timeout)
            if self._mcp_cap is not None:  # a pipelined request waits behind a response being written
                self._mcp_cap.moved(self, SENDING if self._mcp_answered() else BUSY)
            self._mcp_super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._mcp_deadline = None
            self._mcp_between = True  # what comes next on the connection is the next request's head
            self._mcp_super().on_message_complete()
            if self._mcp_cap is not None and not self._mcp_answered():  # being answered: never closed
                self._mcp_cap.moved(self, BUSY)

        def on_response_complete(self) -> None:
            self._mcp_super().on_response_complete()
            if self._mcp_answered():  # no pipelined request started
                if self._mcp_cap is not None:
                    self._mcp_cap.moved(self, IDLE)
                if self.transport.get_write_buffer_size():
                    self._mcp_watch_send()  # nothing more will be written: the rest must drain

        def pause_writing(self) -> None:
            if self._mcp_refused is None:
                self._mcp_super().pause_writing()
                self._mcp_watch_send()

        def resume_writing(self) -> None:
            if self._mcp_refused is not None:
                return
            self._mcp_super().resume_writing()
            timer = self._mcp_send_timer
            if timer is not None and not self._mcp_answered():
                timer.cancel()  # the app writes freely again: the next pause re-arms the watchdog
                self._mcp_send_timer = None

        def connection_lost(self, exc: Exception | None) -> None:
            if self._mcp_send_timer is not None:
                self._mcp_send_timer.cancel()
                self._mcp_send_timer = None
            cap = self._mcp_cap
            if self._mcp_refused is not None:
                if self._mcp_timer is not None:  # the linger timer
                    self._mcp_timer.cancel()
                    self._mcp_timer = None
                    if cap is not None:
                        cap.lingering -= 1
                return
            if cap is not None:
                cap.closed(self)
            self._mcp_deadline = None
            if self._mcp_timer is not None:
                self._mcp_timer.cancel()
                self._mcp_timer = None
            self._mcp_super().connection_lost(exc)

        def evict(self) -> None:
            """Close this connection to make room (`ConnectionCap`): a client between requests sees
            what it sees after the keep-alive timeout; a request still being sent is never served."""
            transport = self.transport
            if transport is None or (transport.is_closing() and not transport.get_write_buffer_size()):
                return
            if transport.get_write_buffer_size():
                _reset(transport)  # an unread answer would hold the close forever
            else:
                transport.close()

        def _mcp_answered(self) -> bool:
            """Whether the connection's last request (if any) has had its whole response."""
            cycle = self.cycle
            return cycle is None or cycle.response_complete

        def _mcp_watch_send(self) -> None:
            """Start (or restart) the send watchdog from the current unsent size."""
            if send_timeout is None:
                return
            self._mcp_unsent = self.transport.get_write_buffer_size()
            if self._mcp_send_timer is not None:
                self._mcp_send_timer.cancel()
            self._mcp_send_timer = asyncio.get_running_loop().call_later(send_timeout, self._mcp_check_send)

        def _mcp_check_send(self) -> None:
            """`send_timeout` has passed since the watchdog last looked: drop the connection if the
            unsent bytes did not shrink. While a response is being written and writes are not held
            back, nothing is judged (the app may be writing as fast as the client reads)."""
            self._mcp_send_timer = None
            transport = self.transport
            unsent = transport.get_write_buffer_size()
            if not unsent or (not self._mcp_answered() and not self.flow.write_paused):
                return
            if unsent < self._mcp_unsent:  # progress
                self._mcp_watch_send()
                return
            _reset(transport)  # frees the unsent bytes; the handler sees the disconnect

        def _mcp_refuse_connection(self, transport: Any, cap: ConnectionCap) -> None:
            self._mcp_refused = transport
            transport.write(_TOO_MANY_CONNECTIONS)
            if cap.lingering < _MAX_LINGERING and transport.can_write_eof():
                transport.write_eof()  # the client reads the 503 and closes; its request is read and dropped
                cap.lingering += 1
                self._mcp_timer = asyncio.get_running_loop().call_later(_LINGER, transport.abort)
            else:
                transport.close()

        def _mcp_arm(self, seconds: float | None) -> None:
            if seconds is None:
                self._mcp_deadline = None
                return
            loop = asyncio.get_running_loop()
            self._mcp_deadline = deadline = loop.time() + seconds
            timer = self._mcp_timer
            if timer is not None and timer.when() > deadline:  # a shorter phase after a longer one
                timer.cancel()
                timer = None
            if timer is None:
                self._mcp_timer = loop.call_at(deadline, self._mcp_check)

        def _mcp_check(self) -> None:
            self._mcp_timer = None
            deadline = self._mcp_deadline
            if deadline is None:
                return
            loop = asyncio.get_running_loop()
            if loop.time() < deadline:  # the deadline moved on since the timer was set
                self._mcp_timer = loop.call_at(deadline, self._mcp_check)
                return
            transport = getattr(self, "transport", None)
            if transport is not None and not transport.is_closing():
                transport.close()

        def _mcp_refuse_head(self) -> None:
            self._mcp_in_head = False
            self._mcp_deadline = None
            transport = getattr(self, "transport", None)
            if transport is not None and not transport.is_closing():
                transport.write(_HEAD_TOO_LARGE)
                transport.close()

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{protocol_class.__name__}"
    return Guarded


def _reset(transport: Any) -> None:
    """Drop a connection whose client reads nothing: closed with a reset, so that neither our write
    buffer nor the kernel's (a plain close would queue its FIN behind the unsent bytes, and the
    kernel would keep those until the client read them) holds the answer."""
    sock: Any = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError, AttributeError, TypeError):  # not a TCP socket: the abort alone
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


def guarded_httptools(limits: HttpLimits | None = None) -> type[asyncio.BaseProtocol]:
    """uvicorn's httptools protocol with `limits` (default: `HttpLimits()`, made now), for hosts
    that run uvicorn themselves: `uvicorn.run(app, http=guarded_httptools(HttpLimits(max_header_size=...)))`.
    The keep-alive timeout stays uvicorn's own setting there (`timeout_keep_alive=`)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    return guarded_protocol(HttpToolsProtocol, HttpLimits() if limits is None else limits)


def __getattr__(name: str) -> Any:
    if name == "GuardedHttpToolsProtocol":  # `--http mcp.server.http_limits:GuardedHttpToolsProtocol`
        return guarded_httptools()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


DEFAULT_SESSIONS_PER_CLIENT: Final = DEFAULT_MAX_SESSIONS_PER_CLIENT
"""Open handshake-era sessions one client may hold (`mcp._protocol.http` is the number's home)."""

_ACCESS_TOKEN_KEY = "mcp.access_token"
TrustedProxies = str | Sequence[str] | None
"""`trusted_proxies=`: None, or the peers (IP addresses, networks such as "10.0.0.0/8", "*" for
any) whose `X-Forwarded-For` names the client, as a list or a comma-separated string."""


class SessionsPerClient:
    """How many handshake-era sessions each client holds, and whether it may open another.

    The cap never refuses a client it cannot tell apart from others (the official SDK has no cap,
    so it must not turn away what the official serves). A client is:

    - the authenticated principal, when the request carries a verified token with a subject
      (client id, issuer and subject: one user is one client from every address);
    - else its IP address, when `trusted_proxies` says addresses can be trusted: a peer listed
      there is a proxy, and the client is the nearest address in `X-Forwarded-For` that is not a
      listed proxy (as uvicorn's `forwarded_allow_ips`); any other peer is a client connecting
      directly. `X-Forwarded-For` from an unlisted peer is never read;
    - else nobody in particular, and the cap does not apply: with `trusted_proxies=None` (the
      default) every peer may be a proxy carrying many users, and a token without a subject may be
      shared by every user of one OAuth client.

    `limit=None` counts nothing."""

    __slots__ = ("_any_proxy", "_open", "_proxies", "_proxy_hosts", "limit", "trusts_addresses")

    def __init__(self, limit: int | None = DEFAULT_SESSIONS_PER_CLIENT, trusted_proxies: TrustedProxies = None) -> None:
        if limit is not None and limit <= 0:
            raise ValueError("max_sessions_per_client must be positive or None")
        self.limit = limit
        self._open: dict[Hashable, int] = {}
        self.trusts_addresses = trusted_proxies is not None
        """Whether an address stands for one client (`trusted_proxies` was given)."""
        entries = ([part.strip() for part in trusted_proxies.split(",")] if isinstance(trusted_proxies, str)
                   else [str(entry).strip() for entry in trusted_proxies or ()])
        entries = [entry for entry in entries if entry]
        self._any_proxy = "*" in entries
        self._proxies: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        self._proxy_hosts: set[str] = set()
        """Entries that are neither addresses nor networks (a unix socket path, a host name): matched
        literally, as uvicorn does."""
        if not entries:
            return
        import ipaddress  # only with proxies to match

        for entry in entries:
            if entry == "*":
                continue
            try:
                self._proxies.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                self._proxy_hosts.add(entry)

    def _is_proxy(self, host: str) -> bool:
        if self._any_proxy or host in self._proxy_hosts:
            return True
        if not self._proxies:
            return False
        import ipaddress

        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self._proxies)

    def client_of(self, scope: Any) -> Hashable | None:
        """The key the limit counts `scope`'s request under, or None when the request cannot be
        attributed to one client (then it is not counted; see the class docstring)."""
        token = scope.get(_ACCESS_TOKEN_KEY)
        if token is not None:
            subject = getattr(token, "subject", None)
            if subject is not None:
                claims: Any = getattr(token, "claims", None) or {}
                issuer: Any = claims.get("iss")
                return ("principal", getattr(token, "client_id", None), issuer, subject)
        if not self.trusts_addresses:
            return None
        client = scope.get("client")
        peer: str | None = client[0] if client else None
        if peer is None:
            return None
        if not self._is_proxy(peer):
            return ("address", peer)
        forwarded = b",".join(value for name, value in scope.get("headers", ()) if name.lower() == b"x-forwarded-for")
        hops = [hop.strip() for hop in forwarded.decode("latin-1").split(",") if hop.strip()]
        for hop in reversed(hops):  # nearest first: each listed proxy vouches for the hop before it
            if not self._is_proxy(hop):
                return ("address", hop)
        return ("address", hops[0]) if hops else None  # a proxy that names no client: nobody to count

    def admit(self, client: Hashable | None) -> bool:
        """Whether `client` may open one more session (it is counted once `opened` is called)."""
        return self.limit is None or client is None or self._open.get(client, 0) < self.limit

    def opened(self, client: Hashable | None) -> None:
        if self.limit is not None and client is not None:
            self._open[client] = self._open.get(client, 0) + 1

    def closed(self, client: Hashable | None) -> None:
        if self.limit is None or client is None:
            return
        left = self._open.get(client, 0) - 1
        if left > 0:
            self._open[client] = left
        else:
            self._open.pop(client, None)

    def open_sessions(self, client: Hashable | None) -> int:
        return self._open.get(client, 0) if client is not None else 0


def too_many_sessions(limit: int) -> str:
    """The refusal's message (429 before `initialize` runs; its JSON-RPC error when a shared
    count is found at the cap as the session is created)."""
    return (f"Too Many Requests: this client already has {limit} open sessions "
            "(end one with DELETE, or wait until an idle one expires)")


def client_digest(client: Hashable) -> str:
    """A client (`SessionsPerClient.client_of`) as a shared store names it, so that every worker
    counts it under one name: a hash, revealing neither its subject nor its address."""
    import hashlib

    return hashlib.sha256(b"mcpkit client\x00" + repr(client).encode()).hexdigest()[:32]
