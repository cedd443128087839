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
    RequestParams,
)
from mcp.types._content import BlobResourceContents, TextResourceContents
from mcp.types._input_required import InputResponseRequestParams
from mcp.types._messages import Notification, Request

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
    "Resource",
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


class Resource(BaseMetadata):
    uri: str
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    """Bytes of the raw content (before base64), if known."""
    icons: list[Icon] | None = None
    annotations: Annotations | None = None
    meta: Meta | None = meta_field()


class ResourceTemplate(BaseMetadata):
    uri_template: str
    """An RFC 6570 URI template."""
    description: str | None = None
    mime_type: str | None = None
    icons: list[Icon] | None = None
    annotations: Annotations | None = None
    meta: Meta | None = meta_field()


class ListResourcesRequestParams(PaginatedRequestParams):
    pass


class ListResourcesRequest(Request[ListResourcesRequestParams | None, Literal["resources/list"]]):
    method: Literal["resources/list"] = "resources/list"
    params: ListResourcesRequestParams | None = None


class ListResourcesResult(CacheableResult):
    resources: list[Resource]
    next_cursor: str | None = None


class ListResourceTemplatesRequestParams(PaginatedRequestParams):
    pass


class ListResourceTemplatesRequest(
    Request[ListResourceTemplatesRequestParams | None, Literal["resources/templates/list"]]
):
    method: Literal["resources/templates/list"] = "resources/templates/list"
    params: ListResourceTemplatesRequestParams | None = None


class ListResourceTemplatesResult(CacheableResult):
    resource_templates: list[ResourceTemplate]
    next_cursor: str | None = None


class ResourceRequestParams(RequestParams):
    """Params naming one resource (the schema's shared base of read/subscribe/unsubscribe)."""

    uri: str


class ReadResourceRequestParams(InputResponseRequestParams):
    uri: str


class ReadResourceRequest(Request[ReadResourceRequestParams, Literal["resources/read"]]):
    name_param = "uri"
    method: Literal["resources/read"] = "resources/read"
    params: ReadResourceRequestParams


class ReadResourceResult(CacheableResult):
    contents: list[TextResourceContents | BlobResourceContents]


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
