"""What a client's handshake learns and declares: its capabilities, the protocol era it speaks.

`ClientHandshake` holds the half of `ClientSession` that negotiates: `initialize` (the handshake
era) or `discover`/`adopt` (the 2026-07-28 stateless wire, whose `_meta` stamp every request then
carries), the capabilities declared on either wire (extensions included), and what the server
said back.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcp.client.request_timeout import resolve
from mcp.types.version import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    HANDSHAKE_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    LATEST_PROTOCOL_VERSION,
    MODERN_VERSIONS,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
)

if TYPE_CHECKING:
    from mcp._engine.peer import Peer
    from mcp.client.context import ElicitationFnT, ListRootsFnT, SamplingFnT
    from mcp.client.dispatcher_peer import DispatcherPeer
    from mcp.client.extensions import ClientExtension, NotificationBinding
    from mcp.types import Implementation

DISCOVER_TIMEOUT_SECONDS = 10.0
"""How long one `server/discover` probe (`send_discover`) waits for the server's answer."""


def model_types() -> Any:
    """`mcp.types`, imported on first use: the models load pydantic, and importing the client
    stays cheap."""
    import mcp.types

    return mcp.types


class ClientHandshake:
    """The negotiating half of `ClientSession` (its state is set up by `ClientSession.__init__`)."""

    peer: Peer | DispatcherPeer
    client_info: Implementation
    read_timeout_seconds: float | None
    default_request_timeout_seconds: float | None
    _sampling: SamplingFnT | None
    _elicitation: ElicitationFnT | None
    _roots: ListRootsFnT | None
    _sampling_capabilities: Any
    _protocol_version: str | None
    _initialize_result: Any
    _discover_result: Any
    _server_info: Any
    _modern_meta: dict[str, Any] | None
    _extra_bindings: tuple[NotificationBinding[Any], ...]
    _bindings: dict[str, NotificationBinding[Any]]
    _extensions: list[ClientExtension]

    # -- what the handshake learnt ------------------------------------------------------------

    @property
    def initialize_result(self) -> Any:
        """The server's `InitializeResult`; None unless `initialize()` ran (or one was adopted)."""
        return self._initialize_result

    @property
    def discover_result(self) -> Any:
        """The server's `DiscoverResult`, kept whole; None unless `discover()` ran (or one was adopted)."""
        return self._discover_result


    @property
    def protocol_version(self) -> str | None:
        """The negotiated protocol version; None before `initialize()`, `discover()` or `adopt()`."""
        return self._protocol_version

    @property
    def server_info(self) -> Any:
        """The server's `Implementation`; on the stateless wire the optional `serverInfo` stamp of
        its discover result (None when absent or malformed)."""
        return self._server_info

    @property
    def server_capabilities(self) -> Any:
        """The server's capabilities; None before the handshake."""
        result = self._discover_result or self._initialize_result
        return None if result is None else result.capabilities

    @property
    def instructions(self) -> str | None:
        """The server's instructions text, if any."""
        result = self._discover_result or self._initialize_result
        return None if result is None else result.instructions

    @property
    def modern_meta(self) -> dict[str, Any] | None:
        """The `_meta` stamp (protocol version, client capabilities and info) every request carries
        on the 2026-07-28 stateless wire; None in the handshake era or before any handshake. Read
        it to tell the era, or copy it into a request sent around the typed verbs."""
        return self._modern_meta

    # -- extensions ---------------------------------------------------------------------------

    @property
    def extensions(self) -> list[ClientExtension]:
        """`ClientExtension`s this session declares (capabilities, claims, notifications)."""
        return self._extensions

    @extensions.setter
    def extensions(self, extensions: Sequence[ClientExtension]) -> None:
        from mcp.client.extensions import index_bindings

        self._bindings = index_bindings(extensions, self._extra_bindings)
        self._extensions = list(extensions)

    # -- capabilities and era -----------------------------------------------------------------

    def capabilities(self, modern: bool = False, version: str | None = None) -> Any:
        t = model_types()
        caps = t.ClientCapabilities()
        if self.extensions:
            from mcp.client.extensions import capability_map

            if modern and version is None:
                version = self.protocol_version if self._modern_meta is not None else LATEST_PROTOCOL_VERSION
            caps.extensions = capability_map(self.extensions, version if modern else None) or None
        if self._sampling is not None:
            caps.sampling = self._sampling_capabilities or t.SamplingCapability()
        if self._elicitation is not None:
            caps.elicitation = t.ElicitationCapability(form=t.FormElicitationCapability(), url=t.UrlElicitationCapability())
        if self._roots is not None:
            caps.roots = t.RootsCapability(list_changed=True)
        return caps

    def use_modern(self, version: str = LATEST_PROTOCOL_VERSION) -> None:
        """Speak the stateless wire: stamp version, capabilities and client info on every request."""
        self._protocol_version = version
        self.peer.protocol_version = version
        self._modern_meta = self._modern_stamp(version)

    def _modern_stamp(self, version: str) -> dict[str, Any]:
        """The `_meta` every stateless-wire request carries at `version`."""
        return {
            PROTOCOL_VERSION_META_KEY: version,
            CLIENT_CAPABILITIES_META_KEY: self.capabilities(modern=True, version=version).to_wire(),
            CLIENT_INFO_META_KEY: self.client_info.to_wire(),
        }

    async def initialize(self, protocol_version: str = LATEST_HANDSHAKE_VERSION) -> Any:
        """The handshake: `initialize`, then `notifications/initialized`. Once done, calling it
        again returns the same result with no wire traffic."""
        if self._initialize_result is not None:
            return self._initialize_result
        t = model_types()
        timeout, _ = resolve(None, self.read_timeout_seconds, self.default_request_timeout_seconds)
        raw = await self.peer.send_request("initialize", {
            "protocolVersion": protocol_version,
            "capabilities": self.capabilities(modern=False).to_wire(),
            "clientInfo": self.client_info.to_wire(),
        }, timeout=timeout)
        result = t.InitializeResult.model_validate(raw)
        if result.protocol_version not in HANDSHAKE_VERSIONS:
            self._disconnect()
            raise _unsupported_version(result.protocol_version)
        self.adopt(result)
        await self.peer.send_notification("notifications/initialized")
        return result

    def adopt(self, result: Any) -> None:
        """Install what a handshake would have learnt from a result already in hand, with no wire
        traffic: an `InitializeResult` (the handshake era), or a `DiscoverResult` (the stateless
        wire, at the newest version both sides speak; `RuntimeError` when they share none)."""
        t = model_types()
        if isinstance(result, t.InitializeResult):
            self._initialize_result, self._discover_result = result, None
            self._modern_meta = None
            self._protocol_version = result.protocol_version
            self.peer.protocol_version = result.protocol_version
            self._server_info = result.server_info
            return
        result = t.DiscoverResult.model_validate(result)
        mutual = [version for version in MODERN_VERSIONS if version in result.supported_versions]
        if not mutual:
            raise RuntimeError(f"No mutually supported modern protocol version (server: "
                               f"{result.supported_versions}, client: {list(MODERN_VERSIONS)})")
        self._install_discover(result, mutual[-1])

    def _install_discover(self, result: Any, version: str) -> None:
        """Speak the stateless wire at `version` with what `result` (a `DiscoverResult`) says."""
        from pydantic import ValidationError

        self.use_modern(version)
        self._discover_result, self._initialize_result = result, None
        meta: dict[str, Any] = result.meta or {}
        info = meta.get(SERVER_INFO_META_KEY)
        try:  # the stamp is display-only: a malformed one reads as absent
            self._server_info = model_types().Implementation.model_validate(info) if info is not None else None
        except ValidationError:
            self._server_info = None

    async def send_discover(self, version: str) -> dict[str, Any]:
        """One `server/discover` stamped at `version`; returns the raw result and adopts nothing.
        Waits `DISCOVER_TIMEOUT_SECONDS`; `MCPError` when the server (or the transport) refuses."""
        return await self.peer.send_request("server/discover", {"_meta": self._modern_stamp(version)},
                                            timeout=DISCOVER_TIMEOUT_SECONDS)

    async def discover(self, protocol_version: str = LATEST_PROTOCOL_VERSION) -> Any:
        """`server/discover` on the stateless wire; adopts that wire when the server answers, at
        `protocol_version` when the server lists it, else at the newest version both sides speak
        (`RuntimeError` when they share none, as `adopt`)."""
        result = await self.probe_discover(protocol_version)
        self.adopt_discovered(result, protocol_version)
        return result

    async def probe_discover(self, protocol_version: str) -> Any:
        """`server/discover` at `protocol_version`: the server's `DiscoverResult`, adopting nothing
        (`MCPError` when the server refuses, pydantic's `ValidationError` when the result is not one)."""
        previous = self.peer.protocol_version
        self.peer.protocol_version = protocol_version
        try:
            return model_types().DiscoverResult.model_validate(await self.send_discover(protocol_version))
        finally:
            self.peer.protocol_version = previous

    def adopt_discovered(self, result: Any, protocol_version: str) -> None:
        """Speak the stateless wire as `result` (a `DiscoverResult` answering a probe at
        `protocol_version`) allows: at that version when the server lists it, else as `adopt`."""
        if protocol_version in MODERN_VERSIONS and protocol_version in result.supported_versions:
            self._install_discover(result, protocol_version)
        else:
            self.adopt(result)

    def _disconnect(self) -> None:
        """End the connection after refusing what the server said: pending requests fail, nothing
        more is sent, and the server sees the end of its input."""
        from mcp._engine.peer import Peer

        peer = self.peer
        if isinstance(peer, Peer):
            peer.close()
            peer.close_output()


def _unsupported_version(version: str) -> RuntimeError:
    """The official refusal of an `initialize` result at a version this client does not speak (its
    text exactly), with a note naming the versions it does."""
    error = RuntimeError(f"Unsupported protocol version from the server: {version}")
    note = f"This client supports {', '.join(HANDSHAKE_VERSIONS)} (and {', '.join(MODERN_VERSIONS)} via server/discover)"
    if sys.version_info >= (3, 11):
        error.add_note(note)
    else:  # kept where 3.11's tracebacks would show it
        setattr(error, "__notes__", [note])  # noqa: B010
    return error
