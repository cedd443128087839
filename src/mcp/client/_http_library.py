"""Which HTTP library a client belongs to: `httpx2` (the default, as in the official SDK) or `httpx`.

The client transports and the OAuth providers work with either library's `AsyncClient`, because
their APIs are the same; only the classes differ (a request built for one, an exception raised by
the other). This module answers "which library is this object from?" without importing `httpx`
unless the caller's object is already one of its own, so a process that never uses `httpx` never
loads it.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

if TYPE_CHECKING:
    import httpx
    import httpx2

    AsyncHTTPClient: TypeAlias = httpx2.AsyncClient | httpx.AsyncClient
    HTTPResponse: TypeAlias = httpx2.Response | httpx.Response
    HTTPRequest: TypeAlias = httpx2.Request | httpx.Request
    HTTPTimeout: TypeAlias = httpx2.Timeout | httpx.Timeout
    HTTPAuth: TypeAlias = httpx2.Auth | httpx.Auth


class HTTPErrors(NamedTuple):
    """The exception classes a transport catches for one client's library."""

    http: type[Exception]
    """Any failure of a request (`HTTPError`)."""
    transport: type[Exception]
    """A connection-level failure (`TransportError`)."""


def default_library() -> ModuleType:
    """`httpx2`, the library of the clients the SDK creates itself."""
    import httpx2

    return httpx2


def library_of(obj: Any) -> ModuleType:
    """The HTTP library (`httpx2` or `httpx`) whose client, request or response `obj` is.

    Anything not recognisably from `httpx` (including None) is taken as `httpx2`'s."""
    httpx_module = sys.modules.get("httpx")
    if httpx_module is not None and isinstance(
        obj, (httpx_module.AsyncClient, httpx_module.Request, httpx_module.Response, httpx_module.Client)
    ):
        return httpx_module
    return default_library()


def errors_of(client: Any) -> HTTPErrors:
    """The exceptions `client`'s library raises for failed requests."""
    library = library_of(client)
    return HTTPErrors(http=library.HTTPError, transport=library.TransportError)


def request_for(library: ModuleType, request: Any) -> Any:
    """`request` (built by any of the two libraries) as a request of `library`, so an auth flow
    that builds its own requests can be driven by a client of either library."""
    if isinstance(request, library.Request):
        return request
    return library.Request(request.method, str(request.url), headers=list(request.headers.multi_items()),
                           content=request.content)
