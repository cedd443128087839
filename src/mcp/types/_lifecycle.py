"""Lifecycle: implementation info, capabilities, `initialize` and `server/discover`, `ping`."""

from __future__ import annotations

from typing import Any, Literal

from mcp.types._base import MCPModel, OpenMCPModel
from mcp.types._common import CacheableResult, Icon, NotificationParams, RequestParams, Result
from mcp.types._messages import Notification, Request


class Implementation(MCPModel):
    name: str
    version: str = ""
    title: str | None = None
    description: str | None = None
    website_url: str | None = None
    icons: list[Icon] | None = None


class RootsCapability(OpenMCPModel):
    list_changed: bool | None = None


class SamplingToolsCapability(OpenMCPModel):
    pass


class SamplingContextCapability(OpenMCPModel):
    pass


class SamplingCapability(OpenMCPModel):
    context: SamplingContextCapability | None = None
    tools: SamplingToolsCapability | None = None


class FormElicitationCapability(OpenMCPModel):
    pass


class UrlElicitationCapability(OpenMCPModel):
    pass


class ElicitationCapability(OpenMCPModel):
    form: FormElicitationCapability | None = None
    url: UrlElicitationCapability | None = None


class ClientCapabilities(OpenMCPModel):
    experimental: dict[str, dict[str, Any]] | None = None
    roots: RootsCapability | None = None
    sampling: SamplingCapability | None = None
    elicitation: ElicitationCapability | None = None
    extensions: dict[str, dict[str, Any]] | None = None
    tasks: dict[str, Any] | None = None


class PromptsCapability(OpenMCPModel):
    list_changed: bool | None = None


class ResourcesCapability(OpenMCPModel):
    subscribe: bool | None = None
    list_changed: bool | None = None


class ToolsCapability(OpenMCPModel):
    list_changed: bool | None = None


class LoggingCapability(OpenMCPModel):
    pass


class CompletionsCapability(OpenMCPModel):
    pass


class ServerCapabilities(OpenMCPModel):
    experimental: dict[str, dict[str, Any]] | None = None
    logging: LoggingCapability | None = None
    completions: CompletionsCapability | None = None
    prompts: PromptsCapability | None = None
    resources: ResourcesCapability | None = None
    tools: ToolsCapability | None = None
    extensions: dict[str, dict[str, Any]] | None = None
    tasks: dict[str, Any] | None = None


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


class InitializedNotificationParams(NotificationParams):
    pass


class InitializedNotification(
    Notification[InitializedNotificationParams | None, Literal["notifications/initialized"]]
):
    method: Literal["notifications/initialized"] = "notifications/initialized"
    params: InitializedNotificationParams | None = None


class PingRequest(Request[RequestParams | None, Literal["ping"]]):
    """Either side checks the other is alive (through 2025-11-25); the answer is `EmptyResult`."""

    method: Literal["ping"] = "ping"
    params: RequestParams | None = None


class DiscoverRequestParams(RequestParams):
    pass


class DiscoverRequest(Request[DiscoverRequestParams | None, Literal["server/discover"]]):
    """Asks a 2026-07-28 server for its versions, capabilities and instructions."""

    method: Literal["server/discover"] = "server/discover"
    params: DiscoverRequestParams | None = None


class DiscoverResult(CacheableResult):
    supported_versions: list[str]
    capabilities: ServerCapabilities
    instructions: str | None = None
