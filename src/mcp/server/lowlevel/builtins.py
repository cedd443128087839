"""The requests every server answers itself: `initialize`, `server/discover`, `ping`."""

from __future__ import annotations

from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.types.version import MODERN_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS


async def initialize(ctx: ServerRequestContext[Any], params: Any) -> Any:
    from mcp.types import InitializeResult

    session = ctx.session
    server = session.server
    if session.stateless:
        from mcp._protocol.lifecycle import negotiate_version

        version = negotiate_version(params.protocol_version)
    else:
        version = session._complete_initialize(params.protocol_version, params.client_info, params.capabilities)
    ctx.protocol_version = version
    return InitializeResult.model_construct(
        protocol_version=version,
        capabilities=server.get_capabilities(),
        server_info=_implementation(server),
        instructions=server.instructions,
    )


async def discover(ctx: ServerRequestContext[Any], params: Any) -> Any:
    from mcp.types import DiscoverResult

    server = ctx.session.server
    return DiscoverResult.model_construct(
        supported_versions=list(MODERN_VERSIONS if ctx.protocol_version in MODERN_VERSIONS else SUPPORTED_PROTOCOL_VERSIONS),
        capabilities=server.get_capabilities(),
        instructions=server.instructions,
    )


async def ping(ctx: ServerRequestContext[Any], params: Any) -> Any:
    from mcp.types import EmptyResult

    return EmptyResult()


def _implementation(server: Any) -> Any:
    from mcp.types import Implementation

    return Implementation.model_validate(server.server_info_wire)
