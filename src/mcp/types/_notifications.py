"""Notifications that belong to no single feature: progress and cancellation.

The list-changed and updated notifications live with their feature (`_tools`, `_resources`...).
"""

from __future__ import annotations

from typing import Literal

from mcp.types._common import NotificationParams, ProgressToken, RequestId
from mcp.types._messages import Notification

__all__ = [
    "CancelledNotification",
    "CancelledNotificationParams",
    "ProgressNotification",
    "ProgressNotificationParams",
]


class ProgressNotificationParams(NotificationParams):
    progress_token: ProgressToken
    progress: float
    total: float | None = None
    message: str | None = None


class ProgressNotification(Notification[ProgressNotificationParams, Literal["notifications/progress"]]):
    method: Literal["notifications/progress"] = "notifications/progress"
    params: ProgressNotificationParams


class CancelledNotificationParams(NotificationParams):
    request_id: RequestId | None = None
    """Required through 2025-06-18; optional from 2025-11-25 (tasks are cancelled otherwise)."""
    reason: str | None = None


class CancelledNotification(Notification[CancelledNotificationParams, Literal["notifications/cancelled"]]):
    method: Literal["notifications/cancelled"] = "notifications/cancelled"
    params: CancelledNotificationParams
