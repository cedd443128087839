"""Composing OAuth auth flows: `Flow` (what an `httpx.Auth` async flow is) and `SubFlow`, which
runs one flow from inside another (async generators cannot `yield from`)."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import httpx

Flow = AsyncGenerator[httpx.Request, httpx.Response]


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

    async def step(self, reply: httpx.Response | None) -> httpx.Request | None:
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
