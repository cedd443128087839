"""DPoPAuth (RFC 9449) and WorkloadIdentityOAuthProvider (SEP-1933) against a real authorization
server and resource server on 127.0.0.1 that check every proof the way RFC 9449 §4.3 says: the
signature with the header's key, `typ`, `htm`, `htu`, `ath`, fresh `jti`s, server nonces, and
that the token is bound to the proving key."""

from __future__ import annotations

import base64
import hashlib
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl

import httpx
import jwt
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mcp.client.auth.exceptions import OAuthTokenError
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    static_assertion_provider,
)
from mcp.client.auth.extensions.dpop import DPoPAuth, DPoPKey, jwk_thumbprint
from mcp.client.auth.extensions.workload_identity import WorkloadIdentityOAuthProvider
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientInformationFull, OAuthToken

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("anyio_backend", ["asyncio"])]


class Storage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        pass


@contextmanager
def serve(make_app: Any) -> Iterator[str]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(make_app(base), log_level="warning", ws="none", http="h11"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def b64url_sha256(text: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).decode().rstrip("=")


class World:
    """An authorization server and a protected `/resource` on one origin. `dpop` makes the token
    endpoint issue DPoP-bound tokens; `nonces` makes both ends demand a nonce first."""

    def __init__(self, *, dpop: bool = True, nonces: bool = False, wif_assertion: str | None = None) -> None:
        self.dpop, self.nonces, self.wif_assertion = dpop, nonces, wif_assertion
        self.token_requests: list[dict[str, str]] = []
        self.token_proofs: list[dict[str, Any]] = []
        self.resource_requests: list[dict[str, Any]] = []
        self.jtis: set[str] = set()
        self.bound: dict[str, str] = {}
        self.problems: list[str] = []
        self.base = ""

    def app(self, base: str) -> Starlette:
        self.base = base
        return Starlette(routes=[
            Route("/.well-known/oauth-protected-resource/resource", self.prm),
            Route("/.well-known/oauth-authorization-server", self.metadata),
            Route("/token", self.token, methods=["POST"]),
            Route("/resource", self.resource, methods=["GET", "POST"]),
        ])

    async def prm(self, request: Request) -> Response:
        return JSONResponse({"resource": f"{self.base}/resource", "authorization_servers": [self.base]})

    async def metadata(self, request: Request) -> Response:
        document: dict[str, Any] = {
            "issuer": self.base, "authorization_endpoint": f"{self.base}/authorize",
            "token_endpoint": f"{self.base}/token", "response_types_supported": ["code"],
            "grant_types_supported": ["client_credentials", JWT_BEARER_GRANT_TYPE],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"]}
        if self.dpop:
            document["dpop_signing_alg_values_supported"] = ["ES256"]
        return JSONResponse(document)

    def check_proof(self, proof: str | None, method: str, url: str, token: str | None) -> dict[str, Any] | None:
        """RFC 9449 §4.3; returns the claims (plus the key's thumbprint) or records a problem."""
        if not proof:
            self.problems.append(f"no proof on {method} {url}")
            return None
        header = jwt.get_unverified_header(proof)
        if header.get("typ") != "dpop+jwt" or "d" in header["jwk"]:
            self.problems.append(f"bad proof header {header}")
            return None
        key = jwt.PyJWK(header["jwk"], header["alg"])
        claims: dict[str, Any] = jwt.decode(proof, key.key, algorithms=[header["alg"]])
        if claims["htm"] != method or claims["htu"] != url or abs(claims["iat"] - time.time()) > 60:
            self.problems.append(f"proof for {claims['htm']} {claims['htu']}, request {method} {url}")
        if claims["jti"] in self.jtis:
            self.problems.append("a proof was replayed")
        self.jtis.add(claims["jti"])
        if token is not None and claims.get("ath") != b64url_sha256(token):
            self.problems.append("ath does not hash the presented token")
        return {**claims, "jkt": jwk_thumbprint(header["jwk"])}

    async def token(self, request: Request) -> Response:
        form = dict(parse_qsl((await request.body()).decode()))
        self.token_requests.append(form)
        if self.wif_assertion is not None and (form.get("grant_type") != JWT_BEARER_GRANT_TYPE
                                               or form.get("assertion") != self.wif_assertion):
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        proof = request.headers.get("dpop")
        if not self.dpop or proof is None:
            return JSONResponse({"access_token": f"bearer-{len(self.token_requests)}", "token_type": "Bearer"})
        claims = self.check_proof(proof, "POST", f"{self.base}/token", None)
        self.token_proofs.append(claims or {})
        if self.nonces and (claims or {}).get("nonce") != "as-nonce-1":
            return JSONResponse({"error": "use_dpop_nonce"}, status_code=400, headers={"DPoP-Nonce": "as-nonce-1"})
        token = f"dpop-{len(self.token_requests)}"
        self.bound[token] = (claims or {}).get("jkt", "")
        return JSONResponse({"access_token": token, "token_type": "DPoP", "expires_in": 600})

    async def resource(self, request: Request) -> Response:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        challenge = f'DPoP resource_metadata="{self.base}/.well-known/oauth-protected-resource/resource"'
        if not token:
            return JSONResponse({"error": "unauthorized"}, status_code=401, headers={"WWW-Authenticate": challenge})
        entry: dict[str, Any] = {"scheme": scheme, "token": token, "proof": request.headers.get("dpop")}
        self.resource_requests.append(entry)
        if token in self.bound:
            claims = self.check_proof(entry["proof"], request.method, f"{self.base}/resource", token)
            if claims is None or claims["jkt"] != self.bound[token] or scheme != "DPoP":
                return JSONResponse({"error": "invalid_token"}, status_code=401, headers={"WWW-Authenticate": challenge})
            if self.nonces and claims.get("nonce") != "rs-nonce-1":
                return JSONResponse({"error": "use_dpop_nonce"}, status_code=401, headers={
                    "WWW-Authenticate": f'DPoP error="use_dpop_nonce", {challenge[5:]}', "DPoP-Nonce": "rs-nonce-1"})
        return JSONResponse({"ok": True, "scheme": scheme})


def credentials_provider(base: str) -> ClientCredentialsOAuthProvider:
    return ClientCredentialsOAuthProvider(server_url=f"{base}/resource", storage=Storage(), client_id="svc",
                                          client_secret="svc-secret", issuer=base)


@pytest.mark.parametrize("nonces", [False, True])
async def test_a_dpop_bound_token_is_obtained_and_presented_with_a_fresh_proof_each_time(nonces: bool) -> None:
    world = World(nonces=nonces)
    key = DPoPKey.generate()
    with serve(world.app) as base:
        async with httpx.AsyncClient(auth=DPoPAuth(credentials_provider(base), key), timeout=15) as http:
            first = await http.get(f"{base}/resource")
            second = await http.post(f"{base}/resource", json={"n": 2})
    assert first.json() == second.json() == {"ok": True, "scheme": "DPoP"}
    assert world.problems == []
    assert set(world.bound.values()) == {key.thumbprint}
    assert [proof.get("nonce") for proof in world.token_proofs] == ([None, "as-nonce-1"] if nonces else [None])
    presented = [entry for entry in world.resource_requests if entry["token"] in world.bound]
    assert all(entry["scheme"] == "DPoP" for entry in presented)
    # with nonces: the first presentation is challenged once, then the nonce is remembered for the next
    assert len(presented) == (3 if nonces else 2)


async def test_without_dpop_support_at_the_server_the_token_stays_a_bearer_token() -> None:
    world = World(dpop=False)
    with serve(world.app) as base:
        async with httpx.AsyncClient(auth=DPoPAuth(credentials_provider(base)), timeout=15) as http:
            response = await http.get(f"{base}/resource")
    assert response.json() == {"ok": True, "scheme": "Bearer"}
    assert world.resource_requests[-1]["proof"] is None


def workload_jwt(audience: str) -> str:
    from cryptography.hazmat.primitives.asymmetric import ec

    now = int(time.time())
    claims = {"iss": "https://k8s.example", "sub": "system:serviceaccount:ns:agent", "aud": audience,
              "iat": now, "exp": now + 300}
    return jwt.encode(claims, ec.generate_private_key(ec.SECP256R1()), algorithm="ES256")


async def test_the_workload_jwt_is_exchanged_with_the_jwt_bearer_grant() -> None:
    world = World(dpop=False)
    with serve(world.app) as base:
        assertion = world.wif_assertion = workload_jwt(base)
        provider = WorkloadIdentityOAuthProvider(server_url=f"{base}/resource", storage=Storage(), client_id="agent",
                                                 assertion_provider=static_assertion_provider(assertion))
        async with httpx.AsyncClient(auth=provider, timeout=15) as http:
            response = await http.get(f"{base}/resource")
    assert response.json() == {"ok": True, "scheme": "Bearer"}
    [request] = world.token_requests
    assert request == {"grant_type": JWT_BEARER_GRANT_TYPE, "assertion": assertion, "client_id": "agent",
                       "resource": f"{base}/resource"}


async def test_a_refused_workload_jwt_is_an_error_with_no_retry_and_no_other_grant() -> None:
    world = World(dpop=False, wif_assertion="the-one-the-server-expects")
    with serve(world.app) as base:
        provider = WorkloadIdentityOAuthProvider(server_url=f"{base}/resource", storage=Storage(), client_id="agent",
                                                 assertion_provider=static_assertion_provider(workload_jwt(base)))
        async with httpx.AsyncClient(auth=provider, timeout=15) as http:
            with pytest.raises(OAuthTokenError, match="invalid_grant"):
                await http.get(f"{base}/resource")
    assert [request["grant_type"] for request in world.token_requests] == [JWT_BEARER_GRANT_TYPE]


async def test_workload_identity_and_dpop_compose() -> None:
    world = World(nonces=True)
    with serve(world.app) as base:
        assertion = workload_jwt(base)
        provider = WorkloadIdentityOAuthProvider(server_url=f"{base}/resource", storage=Storage(), client_id="agent",
                                                 assertion_provider=static_assertion_provider(assertion))
        async with httpx.AsyncClient(auth=DPoPAuth(provider), timeout=15) as http:
            response = await http.get(f"{base}/resource")
    assert response.json() == {"ok": True, "scheme": "DPoP"} and world.problems == []
    assert [request["grant_type"] for request in world.token_requests] == [JWT_BEARER_GRANT_TYPE] * 2
