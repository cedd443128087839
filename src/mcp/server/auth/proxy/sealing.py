"""`Sealer`: the proxy's secret, turned into the keys it needs.

One secret (at least 32 bytes of entropy, the same on every replica) yields, through HKDF, three
independent keys: one signs the proxy's own access tokens (HS256), one encrypts what must not sit
in the store readable (upstream tokens: AES-256-GCM with a fresh nonce each time), and one names
store entries after a keyed hash of the secret they stand for (codes, refresh tokens, access token
ids), so a dump of the store yields nothing usable at the token endpoint.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from typing import Any


class SealError(Exception):
    """A sealed value that does not open with this secret (tampered, or another secret's)."""


def _derive(secret: bytes, label: str) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=b"mcp-oauth-proxy", info=label.encode()).derive(
        secret
    )


class Sealer:
    """Keys derived from the proxy's secret (see the module docstring)."""

    def __init__(self, secret: str | bytes) -> None:
        raw = secret.encode() if isinstance(secret, str) else bytes(secret)
        if len(raw) < 32:
            raise ValueError(
                "the OAuth proxy's secret must be at least 32 bytes (e.g. secrets.token_urlsafe(32))"
            )
        self.signing_key = _derive(raw, "access-token-signing")
        self._encryption_key = _derive(raw, "upstream-token-encryption")
        self._naming_key = _derive(raw, "store-key-naming")

    def name(self, kind: str, value: str) -> str:
        """The store key of secret `value` of `kind`: a keyed hash, never the value itself."""
        digest = hmac.new(self._naming_key, f"{kind}\0{value}".encode(), hashlib.sha256).hexdigest()
        return f"{kind}:{digest}"

    def seal(self, value: dict[str, Any], context: str) -> str:
        """`value` encrypted and authenticated; opens only with the same `context`."""
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        nonce = os.urandom(12)
        sealed = AESGCM(self._encryption_key).encrypt(nonce, json.dumps(value).encode(), context.encode())
        return base64.urlsafe_b64encode(nonce + sealed).decode()

    def open(self, sealed: str, context: str) -> dict[str, Any]:
        """What `seal` sealed; `SealError` when it was altered or sealed elsewhere."""
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        try:
            raw = base64.urlsafe_b64decode(sealed.encode())
            plain = AESGCM(self._encryption_key).decrypt(raw[:12], raw[12:], context.encode())
            value = json.loads(plain)
        except (InvalidTag, ValueError) as exc:
            raise SealError("sealed value does not open with this secret") from exc
        if not isinstance(value, dict):
            raise SealError("sealed value is not an object")
        return value  # pyright: ignore[reportUnknownVariableType]


__all__ = ["SealError", "Sealer"]
