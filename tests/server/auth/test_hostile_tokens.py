"""Hostile and broken bearer tokens against a real MCPServer protected by JWTVerifier, over HTTP on
127.0.0.1 with its JWKS served by a second real server: every one is a 401 `invalid_token` with
a description of the broken rule, none is a 500 or a hang, and no log line carries the token."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import jwt
import pytest
from jwtkit import ISSUER, RESOURCE, JWKSApp, SigningKey, serve, silent_port

from mcp.server.auth.settings import AuthSettings
from mcp.server.auth.verifiers import JWTVerifier
from mcp.server.mcpserver import MCPServer

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("anyio_backend", ["asyncio"])]

KEY = SigningKey("RS256", kid="main")
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def b64(data: bytes | dict[str, Any]) -> str:
    raw = json.dumps(data).encode() if isinstance(data, dict) else data
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    return {"iss": ISSUER, "aud": RESOURCE, "sub": "mallory", "iat": now, "exp": now + 3600, "scope": "notes:read",
            **overrides}


def hmac_with_public_key() -> str:
    """The algorithm-confusion forgery: HS256 keyed with the server's own public key PEM."""
    signing_input = f"{b64({'alg': 'HS256', 'typ': 'JWT', 'kid': 'main'})}.{b64(claims())}"
    signature = hmac.new(KEY.public_pem(), signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64(signature)}"


def unsigned() -> str:
    return f"{b64({'alg': 'none', 'typ': 'JWT', 'kid': 'main'})}.{b64(claims())}."


now = int(time.time())
HOSTILE = {
    "expired": (lambda: KEY.sign(exp=now - 3600), "Token has expired"),
    "not yet valid": (lambda: KEY.sign(nbf=now + 3600), "Token is not yet valid"),
    "issued in the future": (lambda: KEY.sign(iat=now + 3600), "Token is not yet valid"),
    "without exp": (lambda: KEY.sign(exp=None), "Token lacks the exp claim"),
    "wrong issuer": (lambda: KEY.sign(iss="https://evil.example"), "Token issuer is not accepted"),
    "wrong audience": (lambda: KEY.sign(aud="https://other.example/mcp"), "Token was not issued for this resource"),
    "no audience": (lambda: KEY.sign(aud=None), "Token was not issued for this resource"),
    "alg none": (unsigned, "Token signing algorithm is not accepted"),
    "hmac with the public key": (hmac_with_public_key, "Token signing algorithm is not accepted"),
    "unknown kid": (lambda: SigningKey("RS256", kid="stranger").sign(), "Token signing key is unknown"),
    "forged signature": (lambda: SigningKey("RS256", kid="main").sign(), "Token signature is invalid"),
    "key type of another algorithm": (lambda: SigningKey("ES256", kid="main").sign(),
                                      "Token signing key does not fit its algorithm"),
    "malformed base64": (lambda: "eyJhbGciOi!!!.@@@@.####", "Token is malformed"),
    "header not json": (lambda: f"{b64(b'not json')}.{b64(claims())}.sig", "Token is malformed"),
    "signed payload not json": (lambda: jwt.api_jws.encode(b"[1,2", KEY.private_key, "RS256", {"kid": "main"}),
                                "Token is malformed"),
    "tampered payload": (lambda: f"{KEY.sign().split('.')[0]}.{b64(claims(scope='admin'))}.{KEY.sign().split('.')[2]}",
                         "Token signature is invalid"),
    "encrypted (five parts)": (lambda: "a.b.c.d.e", "Token is malformed"),
    "not a jwt at all": (lambda: "opaque-token-value", "Token is malformed"),
    "oversized": (lambda: KEY.sign(padding="x" * 10_000), "Token is too large"),
    "header nested past the parser": (lambda: f"{b64(b'[' * 2000 + b']' * 2000)}.{b64(claims())}.sig",
                                      "Token is malformed"),
    "signed payload nested past the parser": (
        lambda: jwt.api_jws.encode(b"[" * 2000 + b"]" * 2000, KEY.private_key, "RS256", {"kid": "main"}),
        "Token is malformed"),
    "exp as a string": (lambda: jwt.api_jws.encode(json.dumps(claims(exp=str(now + 3600))).encode(), KEY.private_key,
                                                   "RS256", {"kid": "main"}), "Token has a malformed exp claim"),
    "attacker key in the jwk header": (lambda: SigningKey("RS256", kid="main").sign(
        headers={"jwk": SigningKey("RS256").jwk}), "Token signature is invalid"),
    "jku pointing elsewhere": (lambda: SigningKey("RS256", kid="theirs").sign(
        headers={"jku": "https://evil.example/jwks"}), "Token signing key is unknown"),
}


@pytest.fixture(scope="module")
def resource_server() -> Iterator[str]:
    with serve(JWKSApp(KEY).app) as issuer:
        verifier = JWTVerifier(issuer=ISSUER, jwks_uri=f"{issuer}/jwks", max_token_bytes=8192)
        mcp = MCPServer("notes", token_verifier=verifier, auth=AuthSettings(
            issuer_url=ISSUER, resource_server_url=RESOURCE, validate_token_resource=True))

        @mcp.tool()
        def ping() -> str:
            return "pong"

        with serve(mcp.streamable_http_app()) as base:
            yield base


async def post(base: str, token: str) -> httpx.Response:
    with anyio.fail_after(20):
        async with httpx.AsyncClient(timeout=15) as http:
            return await http.post(f"{base}/mcp", json=INITIALIZE,
                                   headers={**HEADERS, "authorization": f"Bearer {token}"})


async def test_a_good_token_gets_through(resource_server: str) -> None:
    response = await post(resource_server, KEY.sign())
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("case", list(HOSTILE))
async def test_a_hostile_token_is_a_401_naming_the_broken_rule_and_is_never_logged(
        case: str, resource_server: str, caplog: pytest.LogCaptureFixture) -> None:
    make, description = HOSTILE[case]
    token = make()
    caplog.set_level(logging.DEBUG)
    response = await post(resource_server, token)
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert 'error="invalid_token"' in challenge
    assert f'error_description="{description}"' in challenge
    assert "resource_metadata=" in challenge
    assert response.json() == {"error": "invalid_token", "error_description": description}
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert token not in logged
    assert token.split(".")[-1] not in logged or len(token.split(".")[-1]) < 8


async def test_a_hung_jwks_endpoint_is_a_401_within_the_timeout_not_a_hang() -> None:
    with silent_port() as issuer:
        mcp = MCPServer("notes", token_verifier=JWTVerifier(issuer=ISSUER, jwks_uri=f"{issuer}/jwks", jwks_timeout=0.5),
                        auth=AuthSettings(issuer_url=ISSUER, resource_server_url=RESOURCE,
                                          validate_token_resource=True))
        with serve(mcp.streamable_http_app()) as base:
            response = await post(base, KEY.sign())
    assert response.status_code == 401
    assert 'error_description="Token signing keys are unavailable"' in response.headers["www-authenticate"]


async def test_the_server_keeps_serving_after_a_barrage(resource_server: str) -> None:
    for make, _ in HOSTILE.values():
        assert (await post(resource_server, make())).status_code == 401
    assert (await post(resource_server, KEY.sign())).status_code == 200


async def test_a_key_rotation_mid_run_is_followed_and_the_retired_key_stops_working() -> None:
    old, new = SigningKey("ES256"), SigningKey("ES256")
    jwks = JWKSApp(old)
    with serve(jwks.app) as issuer:
        verifier = JWTVerifier(issuer=ISSUER, jwks_uri=f"{issuer}/jwks", jwks_refresh_interval=0, cache_ttl=0)
        mcp = MCPServer("notes", token_verifier=verifier, auth=AuthSettings(
            issuer_url=ISSUER, resource_server_url=RESOURCE, validate_token_resource=True))
        with serve(mcp.streamable_http_app()) as base:
            assert (await post(base, old.sign())).status_code == 200
            jwks.keys = [new]  # the issuer rotates and retires the old key
            assert (await post(base, new.sign())).status_code == 200
            retired = await post(base, old.sign())
    assert retired.status_code == 401
    assert 'error_description="Token signing key is unknown"' in retired.headers["www-authenticate"]
