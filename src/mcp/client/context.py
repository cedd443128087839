"""`ClientRequestContext` and the signatures of the client callbacks that receive it.

The sampling, elicitation and roots callbacks answer a server's request; each is given the context
of that request. `mcp.client.session` re-exports these names (their documented home too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mcp.client.session import ClientSession
    from mcp.types import (
        CreateMessageRequestParams,
        CreateMessageResult,
        CreateMessageResultWithTools,
        ElicitRequestParams,
        ElicitResult,
        ErrorData,
        ListRootsResult,
        LoggingMessageNotificationParams,
        RequestId,
    )

__all__ = ["ClientRequestContext", "ElicitationFnT", "ListRootsFnT", "LoggingFnT", "SamplingFnT"]


@dataclass(kw_only=True)
class ClientRequestContext:
    """What a client callback knows about the server's request: the live session, the server's
    request id, and the `_meta` the server attached (keyword-only, as the official SDK's)."""

    session: ClientSession
    request_id: RequestId
    meta: dict[str, Any] | None = None


class SamplingFnT(Protocol):
    async def __call__(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | CreateMessageResultWithTools | ErrorData: ...


class ElicitationFnT(Protocol):
    async def __call__(self, context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult | ErrorData: ...


class ListRootsFnT(Protocol):
    async def __call__(self, context: ClientRequestContext) -> ListRootsResult | ErrorData: ...


class LoggingFnT(Protocol):
    async def __call__(self, params: LoggingMessageNotificationParams) -> None: ...
