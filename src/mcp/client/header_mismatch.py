"""Recovering a 2026-07-28 `tools/call` the server refused with `HEADER_MISMATCH` (-32020).

The refusal means the `Mcp-Param-*` headers mirrored from the tool's `x-mcp-header` arguments
disagree with the server's schema: this client never listed the tool, or its listing went stale.
The recovery (a SHOULD of the spec): re-list tools, page by page until the page naming the tool
(at most `RELIST_PAGE_CAP` pages, the whole walk bounded by the read timeout), which refreshes
the mirroring, then send the call once more. The caller sees the server's refusal when the
re-list fails (its error, `TimeoutError` or `ValidationError` as `__cause__`) or when the
refusal survives the retry. Handshake-era connections never retry: there -32020 can only come
from the tool itself, and resending would run it twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final, Protocol, TypeVar

import anyio

from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import HEADER_MISMATCH
from mcp.types.version import MODERN_VERSIONS

RELIST_PAGE_CAP: Final = 100
"""How many `tools/list` pages the re-list walks at most: a listing that never ends cannot hang a call."""

_T = TypeVar("_T")


class _Lister(Protocol):
    """What the recovery needs of a `Client`."""

    @property
    def protocol_version(self) -> str | None: ...

    async def list_tools(self, *, cursor: str | None = None, meta: dict[str, Any] | None = None,
                         cache_mode: str = "use") -> Any: ...


async def relist_tool(client: _Lister, name: str) -> None:
    """Re-read the tool listing, bypassing (and refreshing) the response cache, until a page lists
    `name`, the listing ends, or `RELIST_PAGE_CAP` pages have been read."""
    cursor: str | None = None
    for _ in range(RELIST_PAGE_CAP):
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        cursor = page.next_cursor
        if cursor is None or any(tool.name == name for tool in page.tools):
            return


async def with_header_recovery(client: _Lister, name: str, timeout: float | None,
                               send: Callable[[], Awaitable[_T]]) -> _T:
    """`send()` (one `tools/call` round for tool `name`); on a 2026-07-28 `HEADER_MISMATCH`
    re-list within `timeout` seconds (None: no limit) and send once more."""
    try:
        return await send()
    except MCPError as mismatch:
        if mismatch.code != HEADER_MISMATCH or client.protocol_version not in MODERN_VERSIONS:
            raise
        try:
            with anyio.fail_after(timeout):
                await relist_tool(client, name)
        except Exception as relist_error:
            if not isinstance(relist_error, MCPError | TimeoutError) and not _is_validation_error(relist_error):
                raise
            raise mismatch from relist_error
    return await send()


def _is_validation_error(error: Exception) -> bool:
    """A malformed page (pydantic's `ValidationError`; pydantic is imported only when needed)."""
    from pydantic import ValidationError

    return isinstance(error, ValidationError)
