"""The discovery documents as endpoints: authorization server metadata (RFC 8414) and protected
resource metadata (RFC 9728), each a fixed model served as JSON and cacheable for an hour."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from mcp.server.auth.json_response import PydanticJSONResponse
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata

_CACHE_FOR_AN_HOUR = {"Cache-Control": "public, max-age=3600"}


@dataclass
class MetadataHandler:
    """Serves an `OAuthMetadata` document (`/.well-known/oauth-authorization-server`)."""

    metadata: OAuthMetadata

    async def handle(self, request: Request) -> Response:
        return PydanticJSONResponse(content=self.metadata, headers=_CACHE_FOR_AN_HOUR)


@dataclass
class ProtectedResourceMetadataHandler:
    """Serves a `ProtectedResourceMetadata` document (`/.well-known/oauth-protected-resource...`)."""

    metadata: ProtectedResourceMetadata

    async def handle(self, request: Request) -> Response:
        return PydanticJSONResponse(content=self.metadata, headers=_CACHE_FOR_AN_HOUR)


__all__ = ["MetadataHandler", "ProtectedResourceMetadataHandler"]
