"""Protecting `requestState`: seal what the server hands the client between rounds, verify it on
the way back.

The wire only ever carries an opaque, authenticated, encrypted token. Inside it: the handler's
plaintext state, the framework's recorded answers, an expiry, the audience (server name), the
authenticated principal, and a digest binding it to the originating request (method, name or URI,
arguments). Every failure (tampered, expired, replayed elsewhere, unknown key) gets the same frozen
error; the real reason goes to the log only.

The default codec needs only the standard library: HMAC-SHA256 in counter mode as the keystream and
HMAC-SHA256 over the ciphertext as the tag (encrypt-then-MAC), with independent sub-keys.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, cast

from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import INVALID_PARAMS

logger = logging.getLogger("mcp.server.request_state")

INVALID_STATE_MESSAGE = "Invalid or expired requestState"
_VERSION = b"\x01"
_MRTR_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})


class InvalidRequestState(Exception):
    """A token this server did not mint, or one that no longer verifies. The message is a short
    log-only reason code (`malformed`, `unknown key`, `seal`), as officially; never sent on the wire."""


class RequestStateCodec(Protocol):
    def seal(self, payload: bytes) -> str: ...
    def unseal(self, token: str) -> bytes: ...


def _b64e(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _b64d(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        raise InvalidRequestState("malformed") from None


class HMACRequestStateCodec:
    """Authenticated encryption from the standard library; `keys[0]` seals, every key unseals."""

    def __init__(self, keys: Sequence[bytes | bytearray | str]) -> None:
        secrets = [_key_bytes(i, key) for i, key in enumerate(cast("Sequence[object]", keys))]
        if not secrets:
            raise ValueError("HMACRequestStateCodec requires at least one key")
        self._keys: list[tuple[bytes, bytes, bytes]] = []
        for i, key in enumerate(secrets):
            _check_length(i, key)
            key_id = hashlib.sha256(b"mcp-request-state-id" + key).digest()[:4]
            if any(key_id == known for known, _, _ in self._keys):
                raise ValueError(f"keys[{i}] duplicates an earlier ring key")
            enc = hmac.new(key, b"mcp-request-state-enc", hashlib.sha256).digest()
            mac = hmac.new(key, b"mcp-request-state-mac", hashlib.sha256).digest()
            self._keys.append((key_id, enc, mac))

    @staticmethod
    def _keystream(enc: bytes, nonce: bytes, length: int) -> bytes:
        blocks = [hmac.new(enc, nonce + i.to_bytes(4, "big"), hashlib.sha256).digest()
                  for i in range((length + 31) // 32)]
        return b"".join(blocks)[:length]

    def seal(self, payload: bytes) -> str:
        key_id, enc, mac = self._keys[0]
        nonce = os.urandom(16)
        stream = self._keystream(enc, nonce, len(payload))
        cipher = bytes(a ^ b for a, b in zip(payload, stream, strict=True))
        body = _VERSION + key_id + nonce + cipher
        return _b64e(body + hmac.new(mac, body, hashlib.sha256).digest())

    def unseal(self, token: str) -> bytes:
        raw = _b64d(token)
        if len(raw) < 1 + 4 + 16 + 32 or raw[:1] != _VERSION:
            raise InvalidRequestState("malformed")
        body, tag = raw[:-32], raw[-32:]
        key_id, nonce, cipher = body[1:5], body[5:21], body[21:]
        for candidate_id, enc, mac in self._keys:
            if hmac.compare_digest(candidate_id, key_id):
                if not hmac.compare_digest(hmac.new(mac, body, hashlib.sha256).digest(), tag):
                    raise InvalidRequestState("seal")
                stream = self._keystream(enc, nonce, len(cipher))
                return bytes(a ^ b for a, b in zip(cipher, stream, strict=True))
        raise InvalidRequestState("unknown key")


class AESGCMRequestStateCodec:
    """AES-256-GCM under keys stretched with HKDF-SHA256 (needs the `cryptography` package);
    `keys[0]` seals, every key unseals. The token's version prefix and key fingerprint are bound in
    as associated data."""

    _PREFIX = "v1."

    def __init__(self, keys: Sequence[bytes | bytearray | str]) -> None:
        try:
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            from cryptography.hazmat.primitives.hashes import SHA256
            from cryptography.hazmat.primitives.kdf.hkdf import HKDF
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("AESGCMRequestStateCodec needs the 'cryptography' package; "
                              "HMACRequestStateCodec needs only the standard library") from exc
        secrets = [_key_bytes(i, key) for i, key in enumerate(cast("Sequence[object]", keys))]
        if not secrets:
            raise ValueError("AESGCMRequestStateCodec requires at least one key")
        self._ring: dict[bytes, Any] = {}
        self._mint = b""
        for i, secret in enumerate(secrets):
            _check_length(i, secret)
            key = HKDF(algorithm=SHA256(), length=32, salt=None, info=b"mcp-request-state-aesgcm").derive(secret)
            kid = hashlib.sha256(b"mcp-request-state-kid" + key).digest()[:4]
            if kid in self._ring:
                raise ValueError(f"keys[{i}] duplicates an earlier ring key")
            self._ring[kid] = AESGCM(key)
            if i == 0:
                self._mint = kid

    def seal(self, payload: bytes) -> str:
        kid = self._mint
        nonce = os.urandom(12)
        sealed: bytes = self._ring[kid].encrypt(nonce, payload, self._PREFIX.encode() + kid)
        return self._PREFIX + _b64e(kid + nonce + sealed)

    def unseal(self, token: str) -> bytes:
        if not token.startswith(self._PREFIX):
            raise InvalidRequestState("malformed")
        raw = _b64d(token[len(self._PREFIX):])
        if len(raw) < 4 + 12 + 16:
            raise InvalidRequestState("malformed")
        kid, nonce, sealed = raw[:4], raw[4:16], raw[16:]
        aead = self._ring.get(kid)
        if aead is None:
            raise InvalidRequestState("unknown key")
        from cryptography.exceptions import InvalidTag

        try:
            return cast("bytes", aead.decrypt(nonce, sealed, self._PREFIX.encode() + kid))
        except InvalidTag:
            raise InvalidRequestState("seal") from None


def _check_length(index: int, key: bytes) -> None:
    if len(key) < 32:
        raise ValueError(
            f"request-state keys must be at least 32 bytes of secret randomness; keys[{index}] is {len(key)} "
            'bytes. Generate one with: python -c "import secrets; print(secrets.token_hex(32))"'
        )


def _key_bytes(index: int, key: object) -> bytes:
    """A ring key as bytes: a str key is its UTF-8 encoding. Nothing else is coerced (`bytes(32)`
    would quietly be an all-zero key)."""
    if isinstance(key, str):
        return key.encode()
    if isinstance(key, bytes | bytearray):
        return bytes(key)
    raise TypeError(f"request-state keys must be bytes, bytearray, or str; keys[{index}] is {type(key).__name__}")


def authenticated_principal(ctx: Any) -> str | None:
    """The default principal binding: who the request's bearer token stands for, its
    `principal_components` (client, issuer, subject) as compact JSON, the identity session
    ownership compares; None on an unauthenticated request. Read from the request being served
    (`get_access_token()`), as officially: `ctx` is not consulted."""
    from mcp.server.auth.middleware.auth_context import get_access_token
    from mcp.server.auth.provider import principal_components

    token = get_access_token()
    if token is None:
        return None
    return json.dumps(principal_components(token), separators=(",", ":"))


class RequestStateSecurity:
    """How `requestState` is sealed: shared `keys` (bytes, or str taken as UTF-8; at least 32 bytes
    each; `keys[0]` seals, every key unseals) or your own `codec`, a `ttl` per round, principal
    binding (None: none), and the audience claim (default: server name). A plain object compared
    and hashed by identity, as officially."""

    codec: RequestStateCodec
    ttl: float
    bind_principal: Callable[[Any], str | None] | None
    audience: str | None

    def __init__(
        self,
        *,
        keys: Sequence[bytes | bytearray | str] | None = None,
        codec: RequestStateCodec | None = None,
        ttl: float = 600.0,
        bind_principal: Callable[[Any], str | None] | None = authenticated_principal,
        audience: str | None = None,
    ) -> None:
        if (keys is None) == (codec is None):
            raise ValueError("RequestStateSecurity takes exactly one of keys= or codec=")
        if not (math.isfinite(ttl) and ttl > 0):
            raise ValueError(f"request-state ttl must be a positive finite number, got {ttl!r}")
        self.keys = keys
        """The key ring as given (None with a custom codec): replicas compare its first key."""
        self.codec = HMACRequestStateCodec(list(keys)) if keys is not None else cast("RequestStateCodec", codec)
        self.ttl = ttl
        self.bind_principal = bind_principal
        self.audience = audience
        self._ephemeral = False

    @classmethod
    def ephemeral(cls, *, ttl: float = 600.0, audience: str | None = None) -> RequestStateSecurity:
        """A per-process random key: right for one process, useless across instances or restarts."""
        security = cls(keys=[os.urandom(32)], ttl=ttl, audience=audience)
        security._ephemeral = True
        return security


def _invalid(method: str, reason: str) -> MCPError:
    """The frozen wire error; the reason goes to the log in the official wording
    (`requestState rejected on tools/call: malformed`), which the troubleshooting page quotes."""
    logger.warning("requestState rejected on %s: %s", method, reason)
    return MCPError(INVALID_PARAMS, INVALID_STATE_MESSAGE, {"reason": "invalid_request_state"})


def _principal(security: RequestStateSecurity, ctx: Any) -> str | None:
    bind = security.bind_principal
    return None if bind is None else bind(ctx)


def request_binding(method: str, params: dict[str, Any]) -> str:
    """A digest of what a token may be replayed against: method, target and arguments."""
    target = params.get("uri") if method == "resources/read" else params.get("name")
    arguments: Any = params.get("arguments") or {}
    canonical = json.dumps([method, target, arguments], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


class RequestStateBoundary:
    """Seals outgoing and verifies incoming `requestState` on tools/call, prompts/get and
    resources/read. `MCPServer` always uses one; on the low-level `Server`, append it to
    `server.middleware` to opt in."""

    def __init__(self, security: RequestStateSecurity | None = None, *, audience: str | None = None,
                 default_audience: str | None = None) -> None:
        """`default_audience` (the official SDK's name) or `audience`: the audience claim when the
        policy sets none."""
        self.security = security or RequestStateSecurity.ephemeral()
        self.audience = self.security.audience or audience or default_audience or ""

    def open(self, ctx: Any, method: str, params: dict[str, Any]) -> tuple[str | None, Any]:
        """Verify the echoed token: returns (the handler's plaintext state, framework state).
        Raises the frozen -32602 error on any failure."""
        token = params.get("requestState")
        if token is None:
            return None, None
        if not isinstance(token, str):
            raise _invalid(method, "non-string requestState")
        codec = self.security.codec
        try:
            payload = json.loads(codec.unseal(token))
        except InvalidRequestState as exc:
            raise _invalid(method, str(exc)) from None
        except (ValueError, UnicodeDecodeError):
            raise _invalid(method, "malformed") from None
        except Exception:  # deny on error: a buggy custom codec fails closed, not with -32603
            logger.exception("requestState codec raised during unseal on %s", method)
            raise _invalid(method, "codec error") from None
        if not isinstance(payload, dict):
            raise _invalid(method, "malformed")
        payload = cast("dict[str, Any]", payload)
        if payload.get("aud") != self.audience:
            raise _invalid(method, "audience")
        expires = payload.get("exp")
        if not isinstance(expires, int | float) or expires < time.time():
            raise _invalid(method, "expired")
        if payload.get("bind") != request_binding(method, params):
            raise _invalid(method, "request binding")
        if payload.get("p") != _principal(self.security, ctx):
            raise _invalid(method, "principal")
        return payload.get("s"), payload.get("r")

    def seal(self, ctx: Any, method: str, params: dict[str, Any], user_state: str | None, framework_state: Any) -> str:
        payload = {
            "aud": self.audience, "exp": time.time() + self.security.ttl, "bind": request_binding(method, params),
            "p": _principal(self.security, ctx), "s": user_state, "r": framework_state,
        }
        codec = self.security.codec
        return codec.seal(json.dumps(payload, separators=(",", ":")).encode())

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        """Middleware form for the low-level `Server`."""
        if ctx.method not in _MRTR_METHODS or ctx.params is None:
            return await call_next(ctx)
        original = ctx.params
        user_state, _ = self.open(ctx, ctx.method, original)
        if "requestState" in original:
            ctx.params = {**original, "requestState": user_state}
        result: Any = await call_next(ctx)
        if isinstance(result, Mapping):  # a result in wire form
            wire = cast("Mapping[str, Any]", result)
            if wire.get("resultType") != "input_required" or wire.get("requestState") is None:
                return wire
            return {**wire, "requestState": self.seal(ctx, ctx.method, original, wire.get("requestState"), None)}
        if getattr(result, "result_type", None) == "input_required" and getattr(result, "request_state", None) is not None:
            sealed = self.seal(ctx, ctx.method, original, getattr(result, "request_state", None), None)
            result = result.model_copy(update={"request_state": sealed})
        return result
