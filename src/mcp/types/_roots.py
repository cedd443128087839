"""Roots: the filesystem locations a client exposes to a server (`roots/list`).

Through 2025-11-25 `roots/list` is a server->client request; on 2026-07-28 the same request rides
inside an `InputRequiredResult`. Deprecated in 2026-07-28 with the rest of the client features.
"""

from __future__ import annotations

from typing import Literal

from pydantic import FileUrl

from mcp.types._base import MCPModel, Meta, meta_field
from mcp.types._common import NotificationParams, RequestParams, Result
from mcp.types._messages import Notification, Request

__all__ = ["ListRootsRequest", "ListRootsResult", "Root", "RootsListChangedNotification"]


class Root(MCPModel):
    uri: FileUrl
    """A `file://` URI (the only scheme the spec allows for now)."""
    name: str | None = None
    meta: Meta | None = meta_field()


class ListRootsRequest(Request[RequestParams | None, Literal["roots/list"]]):
    method: Literal["roots/list"] = "roots/list"
    params: RequestParams | None = None


class ListRootsResult(Result):
    roots: list[Root]


class RootsListChangedNotification(
    Notification[NotificationParams | None, Literal["notifications/roots/list_changed"]]
):
    """Client->server, through 2025-11-25 only."""

    method: Literal["notifications/roots/list_changed"] = "notifications/roots/list_changed"
    params: NotificationParams | None = None
