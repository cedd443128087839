"""Resources: listing, templates, reading, and change notifications.

`resources/subscribe` and `resources/unsubscribe` exist through 2025-11-25; on 2026-07-28 a
`subscriptions/listen` stream carries `notifications/resources/updated` instead.
"""

from __future__ import annotations

from typing import Literal

from mcp.types._base import Meta, meta_field
from mcp.types._common import (
    Annotations,
    BaseMetadata,
    CacheableResult,
    Icon,
    NotificationParams,
    PaginatedRequestParams,
    PaginatedResult,
    RequestParams,
    ResultType,
)
from mcp.types._content import BlobResourceContents, Resource, TextResourceContents
from mcp.types._input_required import InputResponseRequestParams
from mcp.types._messages import Notification, PaginatedRequest, Request

__all__ = [
    "ListResourceTemplatesRequest",
    "ListResourceTemplatesRequestParams",
    "ListResourceTemplatesResult",
    "ListResourcesRequest",
    "ListResourcesRequestParams",
    "ListResourcesResult",
    "ReadResourceRequest",
    "ReadResourceRequestParams",
    "ReadResourceResult",
    "ResourceListChangedNotification",
    "ResourceRequestParams",
    "ResourceTemplate",
    "ResourceUpdatedNotification",
    "ResourceUpdatedNotificationParams",
    "SubscribeRequest",
    "SubscribeRequestParams",
    "UnsubscribeRequest",
    "UnsubscribeRequestParams",
]


class ResourceTemplate(BaseMetadata):
    uri_template: str
    """An RFC 6570 URI template."""
    description: str | None = None
    mime_type: str | None = None
    icons: list[Icon] | None = None
    annotations: Annotations | None = None
    meta: Meta | None = meta_field()


ListResourcesRequestParams = PaginatedRequestParams
"""The params of `resources/list`: the cursor."""


class ListResourcesRequest(PaginatedRequest[Literal["resources/list"]]):
    method: Literal["resources/list"] = "resources/list"


class ListResourcesResult(PaginatedResult, CacheableResult):
    resources: list[Resource]
    result_type: ResultType = "complete"


ListResourceTemplatesRequestParams = PaginatedRequestParams
"""The params of `resources/templates/list`: the cursor."""


class ListResourceTemplatesRequest(PaginatedRequest[Literal["resources/templates/list"]]):
    method: Literal["resources/templates/list"] = "resources/templates/list"


class ListResourceTemplatesResult(PaginatedResult, CacheableResult):
    resource_templates: list[ResourceTemplate]
    result_type: ResultType = "complete"


class ResourceRequestParams(RequestParams):
    """Params naming one resource (the schema's shared base of read/subscribe/unsubscribe)."""

    uri: str


class ReadResourceRequestParams(InputResponseRequestParams):
    uri: str


class ReadResourceRequest(Request[ReadResourceRequestParams, Literal["resources/read"]]):
    method: Literal["resources/read"] = "resources/read"
    params: ReadResourceRequestParams


class ReadResourceResult(CacheableResult):
    contents: list[TextResourceContents | BlobResourceContents]
    result_type: ResultType = "complete"


class SubscribeRequestParams(ResourceRequestParams):
    pass


class SubscribeRequest(Request[SubscribeRequestParams, Literal["resources/subscribe"]]):
    method: Literal["resources/subscribe"] = "resources/subscribe"
    params: SubscribeRequestParams


class UnsubscribeRequestParams(ResourceRequestParams):
    pass


class UnsubscribeRequest(Request[UnsubscribeRequestParams, Literal["resources/unsubscribe"]]):
    method: Literal["resources/unsubscribe"] = "resources/unsubscribe"
    params: UnsubscribeRequestParams


class ResourceUpdatedNotificationParams(NotificationParams):
    uri: str


class ResourceUpdatedNotification(
    Notification[ResourceUpdatedNotificationParams, Literal["notifications/resources/updated"]]
):
    method: Literal["notifications/resources/updated"] = "notifications/resources/updated"
    params: ResourceUpdatedNotificationParams


class ResourceListChangedNotification(
    Notification[NotificationParams | None, Literal["notifications/resources/list_changed"]]
):
    method: Literal["notifications/resources/list_changed"] = "notifications/resources/list_changed"
    params: NotificationParams | None = None
