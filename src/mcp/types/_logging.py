"""Protocol logging: `logging/setLevel` (through 2025-11-25) and `notifications/message`.

On 2026-07-28 the level travels per request in `_meta` (`LOG_LEVEL_META_KEY`) instead of
`logging/setLevel`; the whole feature is deprecated there.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from mcp.types._common import NotificationParams, RequestParams
from mcp.types._messages import Notification, Request

__all__ = [
    "LoggingLevel",
    "LoggingMessageNotification",
    "LoggingMessageNotificationParams",
    "SetLevelRequest",
    "SetLevelRequestParams",
]

LoggingLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
"""Syslog severities (RFC 5424), least to most severe."""


class SetLevelRequestParams(RequestParams):
    level: LoggingLevel


class SetLevelRequest(Request[SetLevelRequestParams, Literal["logging/setLevel"]]):
    method: Literal["logging/setLevel"] = "logging/setLevel"
    params: SetLevelRequestParams


class LoggingMessageNotificationParams(NotificationParams):
    level: LoggingLevel
    logger: str | None = None
    data: Any
    """Any JSON value; a `None` is sent as `null` (the member is required)."""

    @model_serializer(mode="wrap")
    def _keep_null_data(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        out.setdefault("data", None)
        return out


class LoggingMessageNotification(
    Notification[LoggingMessageNotificationParams, Literal["notifications/message"]]
):
    method: Literal["notifications/message"] = "notifications/message"
    params: LoggingMessageNotificationParams
