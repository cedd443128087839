"""Elicitation: a server asks the user, through the client, for form input or a URL visit.

`elicitation/create` is a server->client request from 2025-06-18 (URL mode from 2025-11-25); on
2026-07-28 the same request rides inside an `InputRequiredResult` instead.
"""

from __future__ import annotations

from typing import Any, Literal

from mcp.types._base import MCPModel
from mcp.types._common import NotificationParams, RequestParams, Result
from mcp.types._messages import Notification, Request
from mcp.types._tasks import TaskMetadata

__all__ = [
    "ElicitCompleteNotification",
    "ElicitCompleteNotificationParams",
    "ElicitRequest",
    "ElicitRequestFormParams",
    "ElicitRequestParams",
    "ElicitRequestURLParams",
    "ElicitRequestedSchema",
    "ElicitResult",
    "ElicitationCompleteNotification",
    "ElicitationCompleteNotificationParams",
    "ElicitationRequiredErrorData",
]

ElicitRequestedSchema = dict[str, Any]
"""A flat JSON Schema object (`{"type": "object", "properties": {...}, "required": [...]}`), kept
as a dict so it can go straight to a validator; `PrimitiveSchemaDefinition` models one property."""


class ElicitRequestFormParams(RequestParams):
    """Form mode: the client renders a form for `requested_schema`. `mode` may be absent on the
    wire (it is always "form" before 2025-11-25); it is always sent."""

    mode: Literal["form"] = "form"
    message: str
    requested_schema: ElicitRequestedSchema
    task: TaskMetadata | None = None
    """Task augmentation (2025-11-25 only)."""


class ElicitRequestURLParams(RequestParams):
    """URL mode (2025-11-25+): the user completes an out-of-band interaction at `url`."""

    mode: Literal["url"] = "url"
    message: str
    url: str
    elicitation_id: str | None = None
    """Required on 2025-11-25 (pairs with `notifications/elicitation/complete`); absent on 2026-07-28."""
    task: TaskMetadata | None = None
    """Task augmentation (2025-11-25 only)."""


ElicitRequestParams = ElicitRequestURLParams | ElicitRequestFormParams
"""Form or URL params: a plain union, so `isinstance` works; without `mode` they are form params."""


class ElicitRequest(Request[ElicitRequestParams, Literal["elicitation/create"]]):
    method: Literal["elicitation/create"] = "elicitation/create"
    params: ElicitRequestParams


class ElicitResult(Result):
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, str | int | float | bool | list[str] | None] | None = None
    """The submitted form values; only with "accept" in form mode."""


class ElicitCompleteNotificationParams(NotificationParams):
    elicitation_id: str


class ElicitCompleteNotification(
    Notification[ElicitCompleteNotificationParams, Literal["notifications/elicitation/complete"]]
):
    """Server->client on 2025-11-25: a URL-mode elicitation finished out of band."""

    method: Literal["notifications/elicitation/complete"] = "notifications/elicitation/complete"
    params: ElicitCompleteNotificationParams


ElicitationCompleteNotification = ElicitCompleteNotification
"""The schema's name for `ElicitCompleteNotification`."""

ElicitationCompleteNotificationParams = ElicitCompleteNotificationParams
"""The schema's name for `ElicitCompleteNotificationParams`."""


class ElicitationRequiredErrorData(MCPModel):
    """`data` of the -32042 error (2025-11-25): URL elicitations to complete before retrying."""

    elicitations: list[ElicitRequestURLParams]
