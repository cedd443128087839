"""The outbound-channel vocabulary: what a server (or client) needs to talk back to its peer.

`Outbound` is anything with `send_raw_request` / `notify`; a `DispatchContext` is the channel of
one inbound request (it can also report progress on it). `ServerSession(request_outbound,
connection)` is built over one of these. `ProgressFnT` is the progress-callback shape used by
every `progress_callback=` parameter.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypedDict, TypeVar, runtime_checkable

import anyio
from anyio.abc import TaskStatus

RequestId = str | int  # as `mcp.types.RequestId`, without loading the schema models

__all__ = ["CallOptions", "DispatchContext", "Dispatcher", "OnNotify", "OnNotifyIntercept", "OnRequest", "Outbound",
           "ProgressFnT", "as_request_id", "coerce_request_id", "run_notify_intercept"]

logger = logging.getLogger("mcp.shared.dispatcher")

TransportT_co = TypeVar("TransportT_co", covariant=True)


class ProgressFnT(Protocol):
    """Called with each `notifications/progress` update of a request in flight."""

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None: ...


class CallOptions(TypedDict, total=False):
    """Per-call options of `Outbound.send_raw_request`; a channel ignores keys it does not know."""

    request_id: RequestId
    """Send under this id rather than a minted one (it must not be in flight already)."""
    timeout: float
    """Seconds to wait for the answer; then the request is cancelled."""
    cancel_on_abandon: bool
    """Whether giving up on the request tells the peer with `notifications/cancelled` (default True)."""
    on_progress: ProgressFnT
    """Receives the request's `notifications/progress` updates."""
    resumption_token: str
    """Client-side streamable HTTP: resume an interrupted request."""
    on_resumption_token: Callable[[str], Awaitable[None]]
    """Client-side streamable HTTP: receives the resumption token when one is issued."""
    headers: dict[str, str]
    """Extra HTTP headers for the message (non-HTTP channels ignore them)."""


@runtime_checkable
class Outbound(Protocol):
    """A channel to the peer: raw requests (answered with the raw result) and notifications."""

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None
    ) -> dict[str, Any]: ...

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None) -> None: ...


@runtime_checkable
class DispatchContext(Outbound, Protocol[TransportT_co]):
    """The channel of one inbound request: messages sent on it follow that request back."""

    @property
    def request_id(self) -> RequestId | None:
        """The inbound request's id."""
        ...

    @property
    def message_metadata(self) -> Any:
        """The transport metadata the request arrived with."""
        ...

    @property
    def transport(self) -> TransportT_co:
        """The transport's facts about the request (a `TransportContext`)."""
        ...

    @property
    def cancel_requested(self) -> Any:
        """An `anyio.Event` set when the peer cancels the request."""
        ...

    @property
    def can_send_request(self) -> bool:
        """Whether a request sent now can reach the peer (and its answer come back)."""
        ...

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Report progress on the inbound request (a no-op when its sender asked for none)."""
        ...


OnRequest = Callable[[DispatchContext[Any], str, Mapping[str, Any] | None], Awaitable[dict[str, Any]]]
"""An inbound-request handler: `(ctx, method, params) -> result` (raise `MCPError` to refuse)."""
OnNotify = Callable[[DispatchContext[Any], str, Mapping[str, Any] | None], Awaitable[None]]
"""An inbound-notification handler: `(ctx, method, params)`."""
OnNotifyIntercept = Callable[[str, Mapping[str, Any] | None], bool]
"""Sees each inbound notification first, synchronously and in arrival order; True consumes it."""


def run_notify_intercept(intercept: OnNotifyIntercept | None, method: str, params: Mapping[str, Any] | None) -> bool:
    """Offer a notification to `intercept`; a failing intercept is logged and consumes nothing."""
    if intercept is None:
        return False
    try:
        return intercept(method, params)
    except Exception:
        logger.exception("notification intercept raised; passing %r through", method)
        return False


@runtime_checkable
class Dispatcher(Outbound, Protocol[TransportT_co]):
    """A duplex channel with call-return semantics: sends (as `Outbound`) and, in `run`, receives,
    handing each inbound request to `on_request` and each notification to `on_notify`."""

    async def run(self, on_request: OnRequest, on_notify: OnNotify, on_notify_intercept: OnNotifyIntercept | None = None,
                  *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Serve inbound messages until the channel closes (`task_status.started()` once ready)."""
        ...


def as_request_id(value: object) -> RequestId | None:
    """`value` when it can be a JSON-RPC request id (a string or an integer, never a bool)."""
    if isinstance(value, str | int) and not isinstance(value, bool):
        return value
    return None


def coerce_request_id(request_id: RequestId) -> RequestId:
    """An id as used for matching answers to requests: `"7"` and `7` name the same request."""
    if isinstance(request_id, str):
        try:
            return int(request_id)
        except ValueError:
            return request_id
    return request_id
