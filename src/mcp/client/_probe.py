"""Connect-time era negotiation: `server/discover` first, the `initialize` handshake as fallback.

`negotiate_auto` is the `mode="auto"` policy: discover at the newest stateless-era version (once
more at the newest version both sides speak when the server refuses it as unsupported but lists
one), and fall back to `initialize` on any other JSON-RPC refusal. Transport faults propagate:
an outage is never an era verdict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import UNSUPPORTED_PROTOCOL_VERSION
from mcp.types.version import LATEST_HANDSHAKE_VERSION, MODERN_VERSIONS

if TYPE_CHECKING:
    from mcp.client.session import ClientSession


async def negotiate_auto(session: ClientSession) -> None:
    """Leave `session` speaking the stateless wire if the server does, else after the handshake.
    A discover result that is not one, or that lists no stateless-era version this client speaks,
    is a legacy server's answer (as officially): the handshake follows, and refuses a version this
    client does not speak."""
    from pydantic import ValidationError

    try:
        result, version = await discover_with_retry(session, MODERN_VERSIONS[-1], "auto")
    except (MCPError, ValidationError):
        await session.initialize(LATEST_HANDSHAKE_VERSION)
        return
    if not any(known in result.supported_versions for known in MODERN_VERSIONS):
        await session.initialize(LATEST_HANDSHAKE_VERSION)
        return
    session.adopt_discovered(result, version)


async def discover_with_retry(session: ClientSession, version: str, mode: str) -> tuple[Any, str]:
    """`server/discover` at `version`: the server's `DiscoverResult` and the version it answered,
    adopting nothing. A server that refuses the version as unsupported (-32022) but lists one this
    client may speak (with a pinned `mode`, only that one) is asked once more, at the newest such
    version."""
    try:
        return await session.probe_discover(version), version
    except MCPError as exc:
        retry = retry_version(exc, mode)
        if retry is None:
            raise
        return await session.probe_discover(retry), retry


def retry_version(error: MCPError, mode: str) -> str | None:
    """The version to retry `server/discover` with after `error`, or None: for an
    UnsupportedProtocolVersion error, the newest stateless-era version in its `data.supported` that
    `mode` allows."""
    data: Any = error.data
    if error.code != UNSUPPORTED_PROTOCOL_VERSION or not isinstance(data, dict):
        return None
    supported: Any = cast("dict[str, Any]", data).get("supported")
    if not isinstance(supported, list):
        return None
    allowed = MODERN_VERSIONS if mode == "auto" else (mode,)
    candidates = [version for version in allowed if version in supported]
    return candidates[-1] if candidates else None
