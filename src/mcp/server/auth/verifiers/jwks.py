"""`JWKSCache`: an issuer's signing keys (RFC 7517 JWK Set), fetched over HTTP and cached.

- The set is fetched on first use and kept for `cache_ttl` seconds; after that the next lookup
  fetches it again.
- A `kid` the cached set does not hold triggers one fetch (key rotation: the issuer published a
  new key), but at most once per `refresh_interval` seconds whatever the tokens say, so a flood
  of made-up `kid`s cannot turn into a flood of requests to the issuer. Failed fetches count too.
- Every fetch is bounded (`timeout`, `max_bytes`); concurrent lookups share one fetch. When the
  issuer is down or answers garbage, the keys already cached stay in use (stale beats nothing)
  and the failure is logged; with no keys at all the lookup finds nothing.
- Keys that are not usable for signatures (`use` other than `sig`, unknown `kty`, broken
  parameters) are skipped one by one; the rest of the set still works.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, cast

import anyio

logger = logging.getLogger("mcp.server.auth.jwks")


@dataclass(frozen=True)
class SigningKey:
    """One verification key: its `kid`, the `alg` the set pins it to (if any), its `kty`, and
    the public key object PyJWT verifies with."""

    kid: str | None
    alg: str | None
    kty: str
    key: Any


class JWKSCache:
    """The key set at `jwks_uri` (see the module docstring)."""

    def __init__(self, jwks_uri: str, *, cache_ttl: float = 300.0, refresh_interval: float = 30.0,
                 timeout: float = 5.0, max_bytes: int = 512 * 1024) -> None:
        self.jwks_uri = jwks_uri
        self.cache_ttl = cache_ttl
        self.refresh_interval = refresh_interval
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.fetches = 0
        """How many times the set was requested (successfully or not)."""
        self._keys: list[SigningKey] = []
        self._fetched_at: float | None = None
        self._attempted_at: float | None = None
        self._lock: anyio.Lock | None = None

    async def keys(self) -> list[SigningKey]:
        """The current keys, fetched first when there are none yet or they are older than
        `cache_ttl` (and the last attempt is at least `refresh_interval` ago)."""
        if self._fresh():
            return self._keys
        await self._refresh(force=False)
        return self._keys

    async def find(self, kid: str | None) -> list[SigningKey]:
        """The keys that may have signed a token with this `kid`: the one with that id (after one
        rate-limited refetch if it is unknown), or every key when the token names none."""
        keys = await self.keys()
        if kid is None:
            return keys
        found = [key for key in keys if key.kid == kid]
        if not found and await self._refresh(force=True):
            found = [key for key in self._keys if key.kid == kid]
        return found

    def _fresh(self) -> bool:
        return self._fetched_at is not None and time.monotonic() - self._fetched_at < self.cache_ttl

    async def _refresh(self, *, force: bool) -> bool:
        """Fetch the set unless another task just did, or the last attempt is too recent.
        Returns whether a fetch was made (by this call or one it waited for)."""
        if self._lock is None:
            self._lock = anyio.Lock()
        attempted_before = self._attempted_at
        async with self._lock:
            if self._attempted_at != attempted_before:
                return True  # a concurrent lookup fetched while this one waited
            now = time.monotonic()
            if self._attempted_at is not None and now - self._attempted_at < self.refresh_interval:
                return False  # rate limit: a bad kid or a down issuer waits for the next window
            if not force and self._fresh():
                return False
            self._attempted_at = now
            self.fetches += 1
            try:
                with anyio.fail_after(self.timeout):
                    document = await self._fetch()
                keys = parse_jwks(document)
            except Exception as exc:  # unreachable, slow, not JSON, not a key set: keep what we had
                logger.warning("JWKS %s could not be fetched (%s: %s); keeping %d cached key(s)",
                               self.jwks_uri, type(exc).__name__, exc, len(self._keys))
                return True
            self._keys = keys
            self._fetched_at = time.monotonic()
            logger.info("JWKS %s: %d signing key(s)", self.jwks_uri, len(keys))
            return True

    async def _fetch(self) -> Any:
        import httpx

        timeout = httpx.Timeout(self.timeout)
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client, \
                client.stream("GET", self.jwks_uri, headers={"Accept": "application/json"}) as response:
            if response.status_code != 200:
                raise RuntimeError(f"HTTP {response.status_code}")
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body.extend(chunk)
                if len(body) > self.max_bytes:
                    raise RuntimeError(f"key set larger than {self.max_bytes} bytes")
        import json

        return json.loads(bytes(body))


def parse_jwks(document: Any) -> list[SigningKey]:
    """The signature keys of a JWK Set document; unusable entries are skipped (and logged)."""
    from jwt import PyJWK

    if not isinstance(document, dict) or not isinstance(cast(dict[str, Any], document).get("keys"), list):
        raise ValueError("not a JWK Set (no 'keys' list)")
    keys: list[SigningKey] = []
    for entry in cast(list[Any], cast(dict[str, Any], document)["keys"]):
        if not isinstance(entry, dict):
            continue
        data = cast(dict[str, Any], entry)
        if data.get("use", "sig") != "sig" or "d" in data or data.get("kty") == "oct":
            continue  # encryption keys, private or symmetric keys never verify access tokens
        try:
            kid, alg = data.get("kid"), data.get("alg")
            keys.append(SigningKey(kid=kid if isinstance(kid, str) else None, alg=alg if isinstance(alg, str) else None,
                                   kty=str(data.get("kty")), key=PyJWK(data).key))
        except Exception as exc:
            logger.info("skipping JWK %r: %s", data.get("kid"), exc)
    return keys


__all__ = ["JWKSCache", "SigningKey", "parse_jwks"]
