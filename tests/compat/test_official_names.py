"""Every official public name resolves at its official import path (api-surface §2.2)."""

from __future__ import annotations

import importlib

import pytest

NAMES: dict[str, list[str]] = {
    "mcp": ["Client", "ClientSessionGroup", "MCPError", "StdioServerParameters", "MCPDeprecationWarning",
            "stdio_client", "ClientSession", "InputRequiredRoundsExceededError", "UriTemplate", "InvalidUriTemplate",
            "ServerSession", "stdio_server", "UrlElicitationRequiredError", "Tool", "Resource", "Implementation",
            "ServerCapabilities", "types", "SamplingRole", "ServerNotification", "LoggingMessageNotification",
            "ResourceUpdatedNotification", "ToolUseContent", "SamplingMessageContentBlock"],
    "mcp.server": ["MCPServer", "Server", "ServerRequestContext", "CacheHint", "NotificationOptions",
                   "InitializationOptions"],
    "mcp.server.mcpserver": ["MCPServer", "Context", "Image", "Audio", "Message", "UserMessage", "AssistantMessage",
                             "Icon", "Resolve", "Elicit", "Sample", "ListRoots", "ElicitationResult",
                             "AcceptedElicitation", "DeclinedElicitation", "CancelledElicitation", "ResourceSecurity",
                             "RequestStateSecurity", "InvalidRequestState", "require_client_extension", "Extension",
                             "ToolBinding", "ResourceBinding", "MethodBinding", "DEFAULT_RESOURCE_SECURITY",
                             "RequestStateCodec", "RequestStateBoundary", "authenticated_principal"],
    "mcp.server.mcpserver.context": ["Context"],
    "mcp.server.mcpserver.prompts": ["Prompt"],
    "mcp.server.mcpserver.prompts.base": ["Message", "UserMessage", "AssistantMessage"],
    "mcp.server.mcpserver.resources": ["FileResource", "Resource", "TextResource", "BinaryResource",
                                       "FunctionResource", "HttpResource", "DirectoryResource", "ResourceTemplate",
                                       "ResourceSecurityError"],
    "mcp.server.mcpserver.exceptions": ["ResourceNotFoundError", "MCPServerError", "ResourceError", "ToolError",
                                        "InvalidSignature", "UnexpectedResourceError"],
    "mcp.server.lowlevel": ["Server"],
    "mcp.server.context": ["ServerRequestContext", "CallNext", "HandlerResult", "ServerMiddleware"],
    "mcp.server.subscriptions": ["InMemorySubscriptionBus", "ListenHandler", "ResourceUpdated", "SubscriptionBus",
                                 "ServerEvent", "ToolsListChanged"],
    "mcp.server.extension": ["Extension", "MethodBinding", "ToolBinding"],
    "mcp.server.transport_security": ["TransportSecuritySettings"],
    "mcp.server.request_state": ["RequestStateBoundary", "RequestStateSecurity"],
    "mcp.server.streamable_http": ["EventStore", "EventMessage", "EventCallback", "EventId", "StreamId"],
    "mcp.client": ["CacheConfig", "ClaimContext", "ClientExtension", "ClientRequestContext", "ResultClaim",
                   "advertise", "Client", "ClientSession", "CacheEntry", "CacheKey", "CacheMode",
                   "InMemoryResponseCacheStore", "ResponseCacheStore", "NotificationBinding",
                   "UnexpectedClaimedResult", "InputRequiredRoundsExceededError", "IncomingMessage", "Transport"],
    "mcp.client.session": ["ClientSession", "ClientRequestContext", "IncomingMessage", "MessageHandlerFnT",
                           "SamplingFnT", "ElicitationFnT", "ListRootsFnT", "LoggingFnT"],
    "mcp.client.streamable_http": ["streamable_http_client"],
    "mcp.client.stdio": ["stdio_client", "StdioServerParameters"],
    "mcp.client.sse": ["sse_client"],
    "mcp.client.session_group": ["StreamableHttpParameters", "SseServerParameters"],
    "mcp.client.subscriptions": ["ResourceUpdated", "Subscription", "SubscriptionLost", "ToolsListChanged",
                                 "ListenNotSupportedError", "PromptsListChanged", "ResourcesListChanged", "ServerEvent",
                                 "OnEvent", "listen"],
    "mcp.client.extension": ["ClaimContext", "ClientExtension", "NotificationBinding", "ResultClaim",
                             "UnexpectedClaimedResult", "advertise"],
    "mcp.shared.exceptions": ["MCPError", "NoBackChannelError", "MCPDeprecationWarning"],
    "mcp.shared.path_security": ["contains_path_traversal", "is_absolute_path", "safe_join", "PathEscapeError"],
    "mcp.shared.uri_template": ["UriTemplate"],
    "mcp.shared.metadata_utils": ["get_display_name"],
    "mcp_types": ["INVALID_REQUEST", "SubscriptionsListenRequestParams", "SERVER_INFO_META_KEY", "CallToolResult"],
}


@pytest.mark.parametrize(("module", "name"), [(m, n) for m, names in NAMES.items() for n in names])
def test_the_official_name_resolves(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is not None


def test_mcp_types_is_an_alias_of_mcp_types_module() -> None:
    import mcp.types
    import mcp_types

    assert mcp_types.CallToolResult is mcp.types.CallToolResult


def test_star_imports_bring_the_official_top_level_names() -> None:
    import mcp
    import mcp.client

    official_top = {"Client", "ClientSession", "ClientSessionGroup", "SamplingRole", "ServerNotification", "Tool",
                    "UnsubscribeRequest", "stdio_client", "types", "MCPError", "InitializedNotification"}
    assert official_top <= set(mcp.__all__)
    assert {"IncomingMessage", "Transport", "ClientRequestContext"} <= set(mcp.client.__all__)
    for name in (*mcp.__all__, *(f"client.{n}" for n in mcp.client.__all__)):
        owner, _, attr = name.rpartition(".")
        assert getattr(mcp.client if owner else mcp, attr) is not None


def test_sampling_role_is_the_role_literal() -> None:
    import mcp
    from mcp.types import Role

    assert mcp.SamplingRole is Role
