"""`BaseContext`: a handler's view of one inbound request over its `DispatchContext` (the
request's outbound channel): transport facts, cancellation, `_meta`, and talking back.

(`RequestContext`, which this module held in v1, is gone: see `mcp.server.context` and
`mcp.client.context`.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

from mcp.shared.transport_context import TransportContext

if TYPE_CHECKING:  # annotations only: a server answers its first requests without these protocols
    from mcp.shared.dispatcher import CallOptions, DispatchContext

__all__ = ["BaseContext"]

TransportT = TypeVar("TransportT", bound=TransportContext, default=TransportContext, covariant=True)


class BaseContext(Generic[TransportT]):
    """One request's context, composed over its `DispatchContext`."""

    def __init__(self, dctx: DispatchContext[TransportT], meta: Any = None) -> None:
        self._dctx = dctx
        self._meta = meta

    @property
    def transport(self) -> TransportT:
        """The transport's facts about this request."""
        return self._dctx.transport

    @property
    def cancel_requested(self) -> Any:
        """An `anyio.Event` set when the peer cancels this request."""
        return self._dctx.cancel_requested

    @property
    def can_send_request(self) -> bool:
        return self._dctx.can_send_request

    @property
    def meta(self) -> Any:
        """The request's `_meta`, when it had one."""
        return self._meta

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None,
                               opts: CallOptions | None = None) -> dict[str, Any]:
        return await self._dctx.send_raw_request(method, params, opts)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None) -> None:
        await self._dctx.notify(method, params, opts)

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Report progress on this request (a no-op when the peer asked for none)."""
        await self._dctx.progress(progress, total, message)
