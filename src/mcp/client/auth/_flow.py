"""Composing OAuth auth flows: `Flow` (what an `httpx2.Auth` async flow is), `SubFlow`, which
runs one flow from inside another (async generators cannot `yield from`), and `EitherLibraryAuth`,
the base that makes a provider an auth of both `httpx2` and `httpx` clients."""

from __future__ import annotations

import functools
from collections.abc import AsyncGenerator, Callable, Generator
from typing import TYPE_CHECKING, Any, TypeVar, cast

import httpx2

from mcp.client._http_library import library_of, request_for

Flow = AsyncGenerator[httpx2.Request, httpx2.Response]

_FlowMethod = TypeVar("_FlowMethod", bound=Callable[..., Any])


class _NoLegacyAuth:
    """Stands in for `httpx.Auth` where the legacy `httpx` is not installed: with no `httpx`
    there is no `httpx` client to accept the provider, and the SDK itself needs only `httpx2`."""


def _legacy_auth() -> type:
    try:
        import httpx
    except ImportError:
        return _NoLegacyAuth
    return httpx.Auth


if TYPE_CHECKING:
    from httpx import Auth as _LegacyAuth
else:
    _LegacyAuth = _legacy_auth()


class EitherLibraryAuth(httpx2.Auth, _LegacyAuth):  # pyright: ignore[reportIncompatibleMethodOverride]
    """An auth both HTTP libraries accept: `httpx2.AsyncClient(auth=...)` (the official SDK's, and
    the default) and `httpx.AsyncClient(auth=...)` each check `isinstance` against their own
    `Auth` (the second only where `httpx` is installed: the SDK needs only `httpx2`). Flows build
    their own requests with `httpx2`; `either_library` hands them to an `httpx` client as its own
    requests. The flows take and yield either library's requests."""

    def auth_flow(self, request: Any) -> Generator[Any, Any, None]:
        raise RuntimeError(f"{type(self).__name__} is asynchronous: use it with httpx2.AsyncClient or httpx.AsyncClient")
        yield request  # a generator, as the libraries' flows are

    def sync_auth_flow(self, request: Any) -> Generator[Any, Any, None]:
        raise RuntimeError(f"{type(self).__name__} is asynchronous: use it with httpx2.AsyncClient or httpx.AsyncClient")
        yield request

    async def async_auth_flow(self, request: Any) -> AsyncGenerator[Any, Any]:
        raise NotImplementedError
        yield request


def either_library(method: _FlowMethod) -> _FlowMethod:
    """Decorates a provider's `async_auth_flow` so it runs under a client of either library: the
    requests the flow builds itself (discovery, registration, tokens) are converted to the
    library of the request being authorized. Responses need no conversion (the two libraries'
    responses read the same)."""

    @functools.wraps(method)
    async def async_auth_flow(self: Any, request: Any) -> Flow:
        library = library_of(request)
        flow: Flow = method(self, request)
        try:
            try:
                outgoing = await flow.asend(None)  # type: ignore[arg-type]  # None starts it
            except StopAsyncIteration:
                return
            while True:
                response = yield request_for(library, outgoing)
                try:
                    outgoing = await flow.asend(response)
                except StopAsyncIteration:
                    return
        finally:
            await flow.aclose()

    return cast("_FlowMethod", async_auth_flow)


class SubFlow:
    """Runs a sub-flow (another `Flow`) from inside an auth flow. Async generators cannot
    delegate with `yield from`, so the caller relays each request out and each response back:

        async with SubFlow(self._refresh_flow()) as sub:
            outgoing = await sub.step(None)
            while outgoing is not None:
                outgoing = await sub.step((yield outgoing))

    Every response's body is read before the sub-flow sees it; the sub-flow is closed on exit."""

    def __init__(self, flow: Flow) -> None:
        self._flow = flow

    async def step(self, reply: httpx2.Response | None) -> httpx2.Request | None:
        """The sub-flow's next request, given the response to its previous one; None when done."""
        if reply is not None:
            await reply.aread()
        try:
            return await self._flow.asend(reply)  # type: ignore[arg-type]  # None starts it
        except StopAsyncIteration:
            return None

    async def __aenter__(self) -> SubFlow:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._flow.aclose()
