"""Client extensions (SEP-2133): declare an identifier (and settings) under
`ClientCapabilities.extensions`, claim extra `tools/call` result shapes, observe vendor
notifications. Off by default: nothing changes for a client that declares none."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Generic, Literal, TypeVar, cast, get_args

from mcp._protocol.extension_ids import check_identifier
from mcp.types.version import MODERN_VERSIONS

if TYPE_CHECKING:
    from pydantic import BaseModel

    from mcp.client.session import ClientSession
    from mcp.types import Result

__all__ = [
    "ClaimContext",
    "ClientExtension",
    "NotificationBinding",
    "ResultClaim",
    "UnexpectedClaimedResult",
    "advertise",
]

ClaimedT = TypeVar("ClaimedT", bound="Result")
NotifyParamsT = TypeVar("NotifyParamsT", bound="BaseModel")

_CORE_RESULT_TYPES: Final = frozenset({"complete", "input_required"})
_CLAIMABLE_METHODS: Final = ("tools/call",)
_CORE_WIRE_KEYS: Final = frozenset({"requestState", "inputRequests"})
"""Keys the core result surface types itself; a claim model reusing one would never get its value."""


@dataclass(frozen=True, kw_only=True)
class ClaimContext:
    """What a claim's resolver may use: the session (for follow-up calls) and the call it finishes."""

    session: ClientSession
    tool_name: str
    read_timeout_seconds: float | None
    progress_callback: Any = None
    """The call's `progress_callback` (None: the caller asked for none)."""


@dataclass(frozen=True, kw_only=True)
class ResultClaim(Generic[ClaimedT]):
    """A `resultType` tag this client understands on `tools/call`, the model that parses it, and
    the resolver that turns it into an ordinary `CallToolResult`.

    Active on stateless-era (2026-07-28+) connections only, optionally narrowed to
    `protocol_versions`. Every constraint is checked when the claim is built.
    """

    result_type: str
    model: type[ClaimedT]
    resolve: Callable[[ClaimedT, ClaimContext], Awaitable[Any]]
    method: Literal["tools/call"] = "tools/call"
    protocol_versions: frozenset[str] | None = None

    def __post_init__(self) -> None:
        from mcp.types import CallToolResult, InputRequiredResult, Result

        if self.method not in _CLAIMABLE_METHODS:
            raise ValueError(f"claims attach to {sorted(_CLAIMABLE_METHODS)} only; got method {self.method!r}")
        if self.result_type in _CORE_RESULT_TYPES:
            raise ValueError(f"resultType {self.result_type!r} is core protocol vocabulary")
        candidate: Any = self.model
        if not inspect.isclass(candidate) or Result not in candidate.__mro__:
            raise ValueError(f"{getattr(candidate, '__name__', candidate)} must subclass mcp_types.Result")
        model = cast("type[BaseModel]", candidate)
        if issubclass(model, (CallToolResult, InputRequiredResult)):
            raise ValueError("claim models must not subclass core result types")
        fields = model.model_fields
        model_name = model.__name__
        for name, info in fields.items():
            for clash in sorted(_wire_keys(name, info) & _CORE_WIRE_KEYS):
                raise ValueError(
                    f"{model_name}.{name} aliases {clash!r}, a typed field of the core result surface; "
                    "a colliding value would fail core validation before the claim adapter runs"
                )
        tag_field = fields.get("result_type")
        if tag_field is None or get_args(tag_field.annotation) != (self.result_type,):
            raise ValueError(f"{model_name}.result_type must be Literal[{self.result_type!r}]")
        versions = self.protocol_versions
        if versions is not None:
            if not versions:
                raise ValueError("empty protocol_versions could never activate; use None for all")
            legacy = sorted(v for v in versions if v not in MODERN_VERSIONS)
            if legacy:
                raise ValueError(
                    f"protocol_versions {legacy} are not modern protocol revisions; claimed shapes cannot be "
                    "delivered on a legacy wire (None means every modern version)"
                )

    def active_at(self, version: str | None) -> bool:
        """Whether this claim can arrive on a connection speaking `version` (None: not negotiated)."""
        if version not in MODERN_VERSIONS:
            return False
        return self.protocol_versions is None or version in self.protocol_versions


def _wire_keys(name: str, info: Any) -> set[str]:
    """Every top-level wire key a model field reads or writes."""
    keys = {info.alias or name}
    if info.serialization_alias:
        keys.add(info.serialization_alias)
    alias = info.validation_alias
    choices: Iterable[Any] = getattr(alias, "choices", None) or (alias,)
    for choice in choices:
        path = getattr(choice, "path", None)
        if path:
            choice = path[0]
        if isinstance(choice, str):
            keys.add(choice)
    return keys


class UnexpectedClaimedResult(RuntimeError):
    """A claimed (extension) result shape reached a `call_tool` that did not opt in; the parsed
    value is on `result` (the server may hold state it references)."""

    def __init__(self, result: Any) -> None:
        super().__init__(
            f"Server returned a claimed result ({type(result).__name__}); pass the owning extension to "
            "Client(extensions=[...]) for transparent resolution, or call with allow_claimed=True "
            "and handle the shape. The carried result may reference server-side state needing cleanup."
        )
        self.result = result


@dataclass(frozen=True, kw_only=True)
class NotificationBinding(Generic[NotifyParamsT]):
    """Hand server notifications for `method` (a vendor method, not a core one) to `handler`, with
    params validated as `params_type`. Deliveries run one at a time, in arrival order."""

    method: str
    params_type: type[NotifyParamsT]
    handler: Callable[[NotifyParamsT], Awaitable[None]]


class ClientExtension:
    """Subclass, set `identifier` (class attribute, or in `__init__`), override what you need."""

    identifier: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # An identifier assigned per instance is checked when a Client takes the extension.
        if "identifier" in cls.__dict__:
            check_identifier(cls.__name__, cls.__dict__["identifier"])

    def settings(self) -> dict[str, Any]:
        return {}

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return ()

    def notifications(self) -> Sequence[NotificationBinding[Any]]:
        return ()


class _Advertised(ClientExtension):
    """An identifier and its settings, nothing else (also what a `ClientSession(extensions={...})`
    mapping entry becomes, with that entry's `result_claims`)."""

    def __init__(self, identifier: str, settings: dict[str, Any], claims: Sequence[ResultClaim[Any]] = ()) -> None:
        self.identifier = identifier
        self._settings = settings
        self._claims = tuple(claims)

    def settings(self) -> dict[str, Any]:
        return self._settings

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return self._claims


def advertise(identifier: str, settings: dict[str, Any] | None = None) -> ClientExtension:
    """Declare an extension with no client-side behaviour (the server gates on the capability)."""
    check_identifier("advertise", identifier)
    return _Advertised(identifier, {} if settings is None else settings)


def identifier_of(extension: ClientExtension) -> str:
    return extension.identifier


def fold_extensions(extensions: Any) -> list[ClientExtension]:
    """Check what `Client(extensions=...)` was given: a sequence of `ClientExtension`s with distinct
    identifiers, claimed result types and bound notification methods."""
    if isinstance(extensions, Mapping):
        raise TypeError(
            "extensions= takes a sequence of ClientExtension instances. The mapping form was "
            "replaced: use advertise(identifier, settings) for advertise-only entries"
        )
    if not extensions:
        return []
    folded: list[ClientExtension] = []
    claim_owner: dict[str, str] = {}
    binding_owner: dict[str, str] = {}
    for extension in extensions:
        identifier = getattr(extension, "identifier", None)
        name = type(extension).__name__
        if identifier is None:
            raise ValueError(
                f"{name} has no `identifier`; a ClientExtension must set the `identifier` class attribute "
                "(or assign one in `__init__`) before it can be used"
            )
        check_identifier(name, identifier)
        if any(identifier_of(seen) == identifier for seen in folded):
            raise ValueError(f"extension identifier {identifier!r} is passed more than once")
        for claim in extension.claims():
            _claim_once(claim_owner, claim.result_type, identifier, "claim", "resultType",
                        "a wire tag can have only one resolver")
        for binding in extension.notifications():
            _claim_once(binding_owner, binding.method, identifier, "bind", "notification method",
                        "a method can have only one observer")
            _warn_if_core(binding.method)
        folded.append(extension)
    return folded


def _warn_if_core(method: str) -> None:
    """A binding on a method the core protocol defines never fires (core dispatch wins): say so once, here."""
    from mcp.types.methods import is_defined

    if is_defined(method, "2026-07-28"):
        import logging

        logging.getLogger("mcp.client.extensions").warning(
            "notification binding for %r will never fire at 2026-07-28: the core protocol defines this method", method)


def _claim_once(owners: dict[str, str], key: str, identifier: str, verb: str, what: str, why: str) -> None:
    owner = owners.get(key)
    if owner is not None:
        who = f"extension {identifier!r} {verb}s" if owner == identifier else (
            f"extensions {owner!r} and {identifier!r} both {verb}")
        raise ValueError(f"{who} {what} {key!r}; {why}")
    owners[key] = identifier


def session_extensions(extensions: Mapping[str, dict[str, Any]] | None,
                       result_claims: Mapping[str, Sequence[ResultClaim[Any]]] | None) -> list[ClientExtension]:
    """`ClientSession(extensions=..., result_claims=...)`: the capability mapping (identifier ->
    settings) and the claims filed under its identifiers, as extensions."""
    seen: set[str] = set()
    for identifier, claims in (result_claims or {}).items():
        if extensions is None or identifier not in extensions:
            raise ValueError(
                f"result_claims key {identifier!r} has no extensions entry; a claim is only "
                "advertised through its extension's capability ad"
            )
        if not claims:
            raise ValueError(
                f"result_claims[{identifier!r}] is empty and would drop the extension from "
                "the capability ad at every version. Omit the key instead"
            )
        for claim in claims:
            if claim.result_type in seen:
                raise ValueError(f"duplicate result claim for resultType {claim.result_type!r}")
            seen.add(claim.result_type)
    return [_Advertised(identifier, settings, (result_claims or {}).get(identifier, ()))
            for identifier, settings in (extensions or {}).items()]


def index_bindings(extensions: Sequence[ClientExtension],
                   extra: Sequence[NotificationBinding[Any]] = ()) -> dict[str, NotificationBinding[Any]]:
    """Bindings by method; a method bound twice is refused."""
    indexed: dict[str, NotificationBinding[Any]] = {}
    for binding in [*extra, *(b for extension in extensions for b in extension.notifications())]:
        if binding.method in indexed:
            raise ValueError(f"duplicate notification binding for method {binding.method!r}")
        indexed[binding.method] = binding
    return indexed


def capability_map(extensions: Sequence[ClientExtension], version: str | None) -> dict[str, dict[str, Any]]:
    """`ClientCapabilities.extensions` at `version` (None: the handshake era, before it is known):
    an extension that claims result shapes is declared only where one of its claims is active."""
    out: dict[str, dict[str, Any]] = {}
    for extension in extensions:
        claims = extension.claims()
        if claims and not any(claim.active_at(version) for claim in claims):
            continue
        out[identifier_of(extension)] = dict(extension.settings())
    return out
