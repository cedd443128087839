"""The requests every server answers itself: `initialize` and `server/discover`.

They build their results directly in wire form: a cold start answers its first requests without
building a model.
"""

from __future__ import annotations

from typing import Any, cast

from mcp._protocol.lifecycle import negotiate_version
from mcp.server.context import ServerRequestContext
from mcp.server.session import WireResult
from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import INVALID_PARAMS
from mcp.types.version import MODERN_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS


def _initialize_params(params: Any) -> tuple[str, dict[str, Any], dict[str, Any]]:
    if type(params) is not dict:
        raise MCPError(INVALID_PARAMS, "Invalid params: initialize needs params")
    fields = cast("dict[str, Any]", params)
    version: Any = fields.get("protocolVersion")
    capabilities: Any = fields.get("capabilities")
    client_info: Any = fields.get("clientInfo")
    if type(version) is not str:
        raise MCPError(INVALID_PARAMS, "Invalid params: protocolVersion must be a string")
    if type(capabilities) is not dict:
        raise MCPError(INVALID_PARAMS, "Invalid params: capabilities must be an object")
    if type(client_info) is not dict or type(cast("dict[str, Any]", client_info).get("name")) is not str:
        raise MCPError(INVALID_PARAMS, "Invalid params: clientInfo must be an object with a name")
    return version, cast("dict[str, Any]", capabilities), cast("dict[str, Any]", client_info)


async def initialize(ctx: ServerRequestContext[Any], params: Any) -> Any:
    requested, capabilities, client_info = _initialize_params(params)
    session = ctx.session
    server = session.server
    if session.stateless:
        version = negotiate_version(requested)
    else:
        version = session.complete_initialize(requested, client_info, capabilities)
        server.handshake_sessions.add(session)
    ctx.protocol_version = version
    capabilities_out = server.capabilities_for(version)
    if server.has_handler("logging/setLevel"):
        # Deprecated on the 2026-07-28 wire (so not advertised there), but served on this one: a
        # server that sends log notifications must declare `logging` (spec, server utilities).
        capabilities_out.setdefault("logging", {})
    wire: dict[str, Any] = {"protocolVersion": version, "capabilities": capabilities_out,
                            "serverInfo": server.server_info_wire}
    if server.instructions is not None:
        wire["instructions"] = server.instructions
    return WireResult(wire)


async def discover(ctx: ServerRequestContext[Any], params: Any) -> Any:
    server = ctx.session.server
    versions = MODERN_VERSIONS if ctx.protocol_version in MODERN_VERSIONS else SUPPORTED_PROTOCOL_VERSIONS
    wire: dict[str, Any] = {"supportedVersions": list(versions), "capabilities": server.capabilities_for(ctx.protocol_version)}
    if server.instructions is not None:
        wire["instructions"] = server.instructions
    return WireResult(wire)
