"""Real keys and a real JWKS endpoint for the token verifier tests.

- `SigningKey`: a freshly generated RSA, EC P-256 or Ed25519 key with its public JWK, signing
  tokens with PyJWT.
- `serve(app)` / `serve_built(make_app)`: uvicorn on a free 127.0.0.1 port in a background thread
  (stopped on exit).
- `JWKSApp`: a Starlette app serving `/jwks` from a mutable key list (rotate by assigning `keys`),
  counting requests; `mode` makes it fail (`"error"`: HTTP 500, `"garbage"`: not JSON).
- `silent_port()`: a listening socket that never answers (a hung issuer); `closed_port()`: a port
  nobody listens on (an issuer that is down).
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import get_default_algorithms
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

ISSUER = "https://auth.example.com"
RESOURCE = "https://mcp.example.com/mcp"


class SigningKey:
    """A private key of one family, its algorithm, `kid` and public JWK."""

    def __init__(self, algorithm: str = "RS256", kid: str | None = None) -> None:
        self.algorithm = algorithm
        self.kid = kid or uuid.uuid4().hex[:8]
        if algorithm.startswith(("RS", "PS")):
            self.private_key: Any = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        elif algorithm == "ES256":
            self.private_key = ec.generate_private_key(ec.SECP256R1())
        elif algorithm == "EdDSA":
            self.private_key = ed25519.Ed25519PrivateKey.generate()
        else:
            raise ValueError(algorithm)
        jwk = json.loads(get_default_algorithms()[algorithm].to_jwk(self.private_key.public_key()))
        self.jwk: dict[str, Any] = {**jwk, "kid": self.kid, "use": "sig"}

    def public_pem(self) -> bytes:
        from cryptography.hazmat.primitives import serialization

        return self.private_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

    def sign(self, claims: dict[str, Any] | None = None, *, headers: dict[str, Any] | None = None,
             **overrides: Any) -> str:
        """A token with sensible claims (issuer, resource audience, an hour of life, two scopes),
        `claims`/`overrides` replacing any of them (a value of `None` drops the claim)."""
        now = int(time.time())
        body: dict[str, Any] = {"iss": ISSUER, "aud": RESOURCE, "sub": "alice", "client_id": "notes-app",
                                "iat": now, "exp": now + 3600, "scope": "notes:read notes:write"}
        body.update(claims or {})
        body.update(overrides)
        body = {name: value for name, value in body.items() if value is not None}
        return jwt.encode(body, self.private_key, algorithm=self.algorithm,
                          headers={"kid": self.kid, **(headers or {})})


def jwks(*keys: SigningKey) -> dict[str, Any]:
    return {"keys": [key.jwk for key in keys]}


class JWKSApp:
    """`GET /jwks` serving `keys` (see the module docstring)."""

    def __init__(self, *keys: SigningKey) -> None:
        self.keys = list(keys)
        self.mode = "ok"
        self.requests = 0
        self.app = Starlette(routes=[Route("/jwks", self._jwks)])

    async def _jwks(self, request: Request) -> Response:
        self.requests += 1
        if self.mode == "error":
            return PlainTextResponse("boom", status_code=500)
        if self.mode == "garbage":
            return PlainTextResponse("<html>not a key set</html>")
        return JSONResponse(jwks(*self.keys))


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Serve `app` with uvicorn on a free 127.0.0.1 port; yields `http://127.0.0.1:<port>`."""
    with serve_built(lambda base: app) as base:
        yield base


@contextmanager
def serve_built(make_app: Callable[[str], Any]) -> Iterator[str]:
    """`serve` for an app that needs its own base URL: `make_app(base)` builds it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(make_app(base), log_level="warning", lifespan="on", ws="none",
                                           http="h11"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@contextmanager
def silent_port() -> Iterator[str]:
    """`http://127.0.0.1:<port>` of a socket that accepts connections (the kernel does) and never
    answers."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()


def closed_port() -> str:
    """`http://127.0.0.1:<port>` where nothing listens."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}"
