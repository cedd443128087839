"""mcpkit: the Model Context Protocol SDK (`import mcp`). Lazy facade over the official names.

There is deliberately no `mcp.MCPServer`: import it from `mcp.server`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mcp import types as types

_OWNER = {
    "Client": "mcp.client.client",
    "ClientSessionGroup": "mcp.client.session_group",
    "ClientSession": "mcp.client.session",
    "StdioServerParameters": "mcp.client.stdio",
    "stdio_client": "mcp.client.stdio",
    "stdio_server": "mcp.server.stdio",
    "ServerSession": "mcp.server.session",
    "MCPError": "mcp.shared.exceptions",
    "MCPDeprecationWarning": "mcp.shared.exceptions",
    "NoBackChannelError": "mcp.shared.exceptions",
    "UrlElicitationRequiredError": "mcp.shared.exceptions",
    "InputRequiredRoundsExceededError": "mcp.shared.exceptions",
    "InvalidUriTemplate": "mcp.shared.exceptions",
    "UriTemplate": "mcp.shared.uri_template",
}

_TYPE_NAMES = (
    "CallToolRequest", "ClientCapabilities", "ClientNotification", "ClientRequest", "ClientResult", "CompleteRequest",
    "CreateMessageRequest", "CreateMessageResult", "CreateMessageResultWithTools", "ErrorData", "GetPromptRequest",
    "GetPromptResult", "Implementation", "IncludeContext", "InitializeRequest", "InitializeResult",
    "InitializedNotification", "JSONRPCError", "JSONRPCRequest", "JSONRPCResponse", "ListPromptsRequest",
    "ListPromptsResult", "ListResourcesRequest", "ListResourcesResult", "ListToolsResult", "LoggingLevel",
    "LoggingMessageNotification", "Notification", "PingRequest", "ProgressNotification", "PromptsCapability",
    "ReadResourceRequest", "ReadResourceResult", "Resource", "ResourceUpdatedNotification", "ResourcesCapability",
    "RootsCapability", "SamplingCapability", "SamplingContent", "SamplingContextCapability", "SamplingMessage",
    "SamplingMessageContentBlock", "SamplingToolsCapability", "ServerCapabilities", "ServerNotification",
    "ServerRequest", "ServerResult", "SetLevelRequest", "StopReason", "SubscribeRequest", "Tool", "ToolChoice",
    "ToolResultContent", "ToolUseContent", "ToolsCapability", "UnsubscribeRequest",
)
"""The `mcp.types` names the official package lists at its top level (any `mcp.types` name resolves
here; these are the ones `from mcp import *` brings)."""

_RENAMED = {"SamplingRole": "Role"}
"""Top-level names for `mcp.types` names under another spelling."""

__all__ = sorted([*_OWNER, *_TYPE_NAMES, *_RENAMED, "types"])


_SUBMODULES = frozenset({"client", "server", "shared"})
"""Subpackages reachable as attributes after a bare `import mcp` (the official package imports them
up front; here each is imported on first access, so `import mcp` stays cheap)."""


def __getattr__(name: str) -> Any:
    module = _OWNER.get(name)
    if module is None:
        if name in _SUBMODULES:
            return importlib.import_module(f"mcp.{name}")
        if name in _RENAMED:
            return getattr(types, _RENAMED[name])
        if not name.startswith("_") and name in types.__all__:
            return getattr(types, name)
        raise AttributeError(f"module 'mcp' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    if module in _CLIENT_MODULES and "Client" not in globals():
        globals()["Client"] = importlib.import_module("mcp.client.client").Client
    return value


_CLIENT_MODULES = frozenset({"mcp.client.session", "mcp.client.stdio"})
"""Resolving a name of these binds `Client` too (one module more): libraries that import
`ClientSession` or `stdio_client` from `mcp` read `vars(mcp)["Client"]` next (the OpenAI Agents SDK
does), and `vars` sees only names already bound."""


if TYPE_CHECKING:
    from mcp import client as client
    from mcp import server as server
    from mcp import shared as shared
    from mcp.client.client import Client as Client
    from mcp.client.session import ClientSession as ClientSession
    from mcp.client.stdio import StdioServerParameters as StdioServerParameters
    from mcp.client.stdio import stdio_client as stdio_client
    from mcp.server.session import ServerSession as ServerSession
    from mcp.server.stdio import stdio_server as stdio_server
    from mcp.shared.exceptions import InputRequiredRoundsExceededError as InputRequiredRoundsExceededError
    from mcp.shared.exceptions import InvalidUriTemplate as InvalidUriTemplate
    from mcp.shared.exceptions import MCPDeprecationWarning as MCPDeprecationWarning
    from mcp.shared.exceptions import MCPError as MCPError
    from mcp.shared.exceptions import NoBackChannelError as NoBackChannelError
    from mcp.shared.exceptions import UrlElicitationRequiredError as UrlElicitationRequiredError
