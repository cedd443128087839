"""MCP clients: `Client`, `ClientSession` and transports. Lazy facade."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_OWNER = {
    "ClientSessionGroup": "mcp.client.session_group",
    "ClientExtension": "mcp.client.extensions",
    "ClaimContext": "mcp.client.extensions",
    "ResultClaim": "mcp.client.extensions",
    "NotificationBinding": "mcp.client.extensions",
    "UnexpectedClaimedResult": "mcp.client.extensions",
    "advertise": "mcp.client.extensions",
    "CacheConfig": "mcp.client.caching",
    "CacheEntry": "mcp.client.caching",
    "CacheKey": "mcp.client.caching",
    "CacheMode": "mcp.client.caching",
    "InMemoryResponseCacheStore": "mcp.client.caching",
    "ResponseCacheStore": "mcp.client.caching",
    "InputRequiredRoundsExceededError": "mcp.shared.exceptions",
    "Client": "mcp.client.client",
    "ClientSession": "mcp.client.session",
    "ClientRequestContext": "mcp.client.context",
    "IncomingMessage": "mcp.client.session",
    "Transport": "mcp.client.client",
    "StdioServerParameters": "mcp.client.stdio",
    "stdio_client": "mcp.client.stdio",
    "streamable_http_client": "mcp.client.streamable_http",
    "sse_client": "mcp.client.sse",
}

__all__ = sorted(_OWNER)


def __getattr__(name: str) -> Any:
    module = _OWNER.get(name)
    if module is None:
        raise AttributeError(f"module 'mcp.client' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from mcp.client.client import Client as Client
    from mcp.client.client import Transport as Transport
    from mcp.client.context import ClientRequestContext as ClientRequestContext
    from mcp.client.session import ClientSession as ClientSession
    from mcp.client.session import IncomingMessage as IncomingMessage
    from mcp.client.sse import sse_client as sse_client
    from mcp.client.stdio import StdioServerParameters as StdioServerParameters
    from mcp.client.stdio import stdio_client as stdio_client
    from mcp.client.streamable_http import streamable_http_client as streamable_http_client
