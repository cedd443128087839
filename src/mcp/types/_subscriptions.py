"""Subscriptions (2026-07-28): one `subscriptions/listen` stream replaces `resources/subscribe`
and unsolicited list-changed notifications; the client names what it wants in a filter.
"""

from __future__ import annotations

from typing import Literal

from mcp.types._base import OpenMCPModel
from mcp.types._common import NotificationParams, RequestParams, Result, ResultType
from mcp.types._messages import Notification, Request

__all__ = [
    "SubscriptionFilter",
    "SubscriptionsAcknowledgedNotification",
    "SubscriptionsAcknowledgedNotificationParams",
    "SubscriptionsListenRequest",
    "SubscriptionsListenRequestParams",
    "SubscriptionsListenResult",
]


class SubscriptionFilter(OpenMCPModel):
    """Which notifications a listen stream carries. Extensions add keys, so unknown keys are kept."""

    tools_list_changed: bool | None = None
    prompts_list_changed: bool | None = None
    resources_list_changed: bool | None = None
    resource_subscriptions: list[str] | None = None


class SubscriptionsListenRequestParams(RequestParams):
    notifications: SubscriptionFilter


class SubscriptionsListenRequest(Request[SubscriptionsListenRequestParams, Literal["subscriptions/listen"]]):
    method: Literal["subscriptions/listen"] = "subscriptions/listen"
    params: SubscriptionsListenRequestParams


class SubscriptionsListenResult(Result):
    """Sent only when the server ends the stream gracefully.

    `_meta["io.modelcontextprotocol/subscriptionId"]` names the stream.
    """

    result_type: ResultType = "complete"


class SubscriptionsAcknowledgedNotificationParams(NotificationParams):
    notifications: SubscriptionFilter
    """The subset of the requested filter the server will honour."""


class SubscriptionsAcknowledgedNotification(
    Notification[
        SubscriptionsAcknowledgedNotificationParams, Literal["notifications/subscriptions/acknowledged"]
    ]
):
    """The first message on a listen stream."""

    method: Literal["notifications/subscriptions/acknowledged"] = "notifications/subscriptions/acknowledged"
    params: SubscriptionsAcknowledgedNotificationParams
