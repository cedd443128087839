"""Client extensions (SEP-2133): declare an identifier (and settings) under
`ClientCapabilities.extensions`, claim extra `tools/call` result shapes, observe vendor
notifications. Off by default: nothing changes for a client that declares none."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mcp.server.extension import check_identifier


@dataclass
class ClaimContext:
    """What a claim's resolver may use: the session (for follow-up calls) and the call it finishes."""

    session: Any
    tool_name: str
    read_timeout_seconds: float | None = None


@dataclass
class ResultClaim:
    """A `resultType` tag this client understands, the model that parses it, and the resolver that
    turns it into the verb's normal result."""

    result_type: str
    model: Any
    resolve: Callable[[Any, ClaimContext], Awaitable[Any]]

    def __post_init__(self) -> None:
        if self.result_type in ("complete", "input_required"):
            raise ValueError(f"ResultClaim cannot claim the core result type {self.result_type!r}")


@dataclass
class NotificationBinding:
    method: str
    params_type: Any
    handler: Callable[[Any], Awaitable[None]]


class UnexpectedClaimedResult(Exception):
    """A claimed result shape reached a session-level caller that did not pass `allow_claimed=True`."""


class ClientExtension:
    identifier: str = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        check_identifier(cls.__name__, cls.__dict__.get("identifier", cls.identifier))

    def settings(self) -> dict[str, Any]:
        return {}

    def claims(self) -> Sequence[ResultClaim]:
        return ()

    def notifications(self) -> Sequence[NotificationBinding]:
        return ()


class _Advertised(ClientExtension):
    identifier = "io.modelcontextprotocol/advertised"

    def __init__(self, identifier: str, settings: dict[str, Any] | None) -> None:
        check_identifier("advertise", identifier)
        self._identifier = identifier
        self._settings = dict(settings or {})

    def settings(self) -> dict[str, Any]:
        return self._settings


def advertise(identifier: str, settings: dict[str, Any] | None = None) -> ClientExtension:
    """Declare an extension with no client-side behaviour (the server gates on the capability)."""
    return _Advertised(identifier, settings)


def identifier_of(extension: ClientExtension) -> str:
    return getattr(extension, "_identifier", None) or type(extension).identifier


def capability_map(extensions: Sequence[ClientExtension], modern: bool) -> dict[str, dict[str, Any]]:
    """`ClientCapabilities.extensions`: on a legacy connection, extensions whose only purpose is to
    claim result shapes drop out (their shapes could never arrive there)."""
    out: dict[str, dict[str, Any]] = {}
    for extension in extensions:
        if not modern and extension.claims():
            continue
        out[identifier_of(extension)] = dict(extension.settings())
    return out
