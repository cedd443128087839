"""Lifecycle: implementation info, capabilities, `initialize` and `server/discover`, `ping`."""

from __future__ import annotations

from typing import Any, Literal

from mcp.types._base import MCPModel
from mcp.types._common import (
    BaseMetadata,
    CacheableResult,
    Icon,
    NotificationParams,
    RequestParams,
    Result,
    ResultType,
)
from mcp.types._messages import Notification, Request
from mcp.types._tasks import ClientTasksCapability, ServerTasksCapability


class Implementation(BaseMetadata):
    """Who a client or server is (`clientInfo` / `serverInfo`)."""

    version: str = ""
    description: str | None = None
    website_url: str | None = None
    icons: list[Icon] | None = None


class RootsCapability(MCPModel):
    list_changed: bool | None = None


class SamplingToolsCapability(MCPModel):
    pass


class SamplingContextCapability(MCPModel):
    pass


class SamplingCapability(MCPModel):
    context: SamplingContextCapability | None = None
    tools: SamplingToolsCapability | None = None


class FormElicitationCapability(MCPModel):
    pass


class UrlElicitationCapability(MCPModel):
    pass


class ElicitationCapability(MCPModel):
    form: FormElicitationCapability | None = None
    url: UrlElicitationCapability | None = None


class ClientCapabilities(MCPModel):
    experimental: dict[str, dict[str, Any]] | None = None
    sampling: SamplingCapability | None = None
    elicitation: ElicitationCapability | None = None
    roots: RootsCapability | None = None
    extensions: dict[str, dict[str, Any]] | None = None
    tasks: ClientTasksCapability | None = None
    """Task-augmented requests the client accepts (2025-11-25 only)."""


class PromptsCapability(MCPModel):
    list_changed: bool | None = None


class ResourcesCapability(MCPModel):
    subscribe: bool | None = None
    list_changed: bool | None = None


class ToolsCapability(MCPModel):
    list_changed: bool | None = None


class LoggingCapability(MCPModel):
    pass


class CompletionsCapability(MCPModel):
    pass


class ServerCapabilities(MCPModel):
    experimental: dict[str, dict[str, Any]] | None = None
    logging: LoggingCapability | None = None
    completions: CompletionsCapability | None = None
    prompts: PromptsCapability | None = None
    resources: ResourcesCapability | None = None
    tools: ToolsCapability | None = None
    extensions: dict[str, dict[str, Any]] | None = None
    tasks: ServerTasksCapability | None = None
    """Task-augmented requests the server accepts (2025-11-25 only)."""


class InitializeRequestParams(RequestParams):
    protocol_version: str
    capabilities: ClientCapabilities
    client_info: Implementation


class InitializeRequest(Request[InitializeRequestParams, Literal["initialize"]]):
    """The handshake's opening request (through 2025-11-25)."""

    method: Literal["initialize"] = "initialize"
    params: InitializeRequestParams


class InitializeResult(Result):
    protocol_version: str
    capabilities: ServerCapabilities
    server_info: Implementation
    instructions: str | None = None


InitializedNotificationParams = NotificationParams
"""The params of `notifications/initialized`: just `_meta`."""


class InitializedNotification(Notification[NotificationParams | None, Literal["notifications/initialized"]]):
    method: Literal["notifications/initialized"] = "notifications/initialized"
    params: NotificationParams | None = None


class PingRequest(Request[RequestParams | None, Literal["ping"]]):
    """Either side checks the other is alive (through 2025-11-25); the answer is `EmptyResult`."""

    method: Literal["ping"] = "ping"
    params: RequestParams | None = None


DiscoverRequestParams = RequestParams
"""The params of `server/discover`: just `_meta`."""


class DiscoverRequest(Request[RequestParams | None, Literal["server/discover"]]):
    """Asks a 2026-07-28 server for its versions, capabilities and instructions."""

    method: Literal["server/discover"] = "server/discover"
    params: RequestParams | None = None


class DiscoverResult(CacheableResult):
    supported_versions: list[str]
    capabilities: ServerCapabilities
    instructions: str | None = None
    result_type: ResultType = "complete"
