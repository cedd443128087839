"""IntrospectionVerifier against a real RFC 7662 endpoint on 127.0.0.1 (client authentication,
the short positive cache, an endpoint that fails), StaticTokenVerifier, and what the bearer gate
answers when a verifier refuses, demands scopes or crashes."""

from __future__ import annotations

import base64
import time
from typing import Any
from urllib.parse import parse_qsl, unquote

import anyio
import httpx
import pytest
from jwtkit import RESOURCE, closed_port, serve, silent_port
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from mcp.server.auth.middleware.bearer_auth import RequireBearerAuth
from mcp.server.auth.provider import AccessToken, InsufficientScopeError, InvalidTokenError
from mcp.server.auth.verifiers import IntrospectionVerifier, StaticTokenVerifier

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("anyio_backend", ["asyncio"])]

CLIENT_ID, SECRET = "mcp-rs", "s3cret:with/odd&chars"


class IntrospectionEndpoint:
    """`POST /introspect`: answers from `tokens` for a correctly authenticated client."""

    def __init__(self) -> None:
        now = int(time.time())
        self.tokens: dict[str, dict[str, Any]] = {
            "good": {"active": True, "client_id": "notes-app", "sub": "alice", "scope": "notes:read",
                     "aud": RESOURCE, "exp": now + 3600, "iss": "https://auth.example.com"},
            "elsewhere": {"active": True, "client_id": "x", "scope": "notes:read", "aud": "https://other/mcp"},
            "expired": {"active": True, "client_id": "x", "aud": RESOURCE, "exp": now - 3600},
        }
        self.requests: list[dict[str, str]] = []
        self.mode = "ok"
        self.app = Starlette(routes=[Route("/introspect", self._introspect, methods=["POST"])])

    async def _introspect(self, request: Request) -> Response:
        form = dict(parse_qsl((await request.body()).decode()))
        self.requests.append(form)
        if self.mode == "error":
            return PlainTextResponse("down for maintenance", status_code=503)
        header = request.headers.get("authorization", "")
        basic = None
        if header.startswith("Basic "):  # RFC 6749 §2.3.1: form-encoded id and secret, then base64
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
            basic = (unquote(user), unquote(password))
        posted = (form.get("client_id"), form.get("client_secret"))
        if (CLIENT_ID, SECRET) not in (basic, posted):
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        return JSONResponse(self.tokens.get(form.get("token", ""), {"active": False}))


def introspector(base: str, **options: Any) -> IntrospectionVerifier:
    return IntrospectionVerifier(introspection_endpoint=f"{base}/introspect", client_id=CLIENT_ID,
                                 client_secret=SECRET, audience=RESOURCE, **options)


async def refusal(verifier: Any, token: str) -> str:
    with anyio.fail_after(20), pytest.raises(InvalidTokenError) as caught:
        await verifier.verify_token(token)
    return caught.value.description


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
async def test_an_active_token_is_accepted_and_cached_briefly(method: str) -> None:
    endpoint = IntrospectionEndpoint()
    with serve(endpoint.app) as base:
        verifier = introspector(base, client_auth_method=method, issuer="https://auth.example.com")
        first = await verifier.verify_token("good")
        second = await verifier.verify_token("good")
    assert first is not None and first == second
    assert (first.client_id, first.subject, first.scopes, first.resource) == ("notes-app", "alice", ["notes:read"],
                                                                             RESOURCE)
    assert len(endpoint.requests) == 1  # the second answer came from the cache
    assert endpoint.requests[0]["token"] == "good" and endpoint.requests[0]["token_type_hint"] == "access_token"
    assert ("client_secret" in endpoint.requests[0]) == (method == "client_secret_post")


async def test_inactive_answers_are_refused_and_not_cached() -> None:
    endpoint = IntrospectionEndpoint()
    with serve(endpoint.app) as base:
        verifier = introspector(base)
        assert await refusal(verifier, "revoked") == "Token is not active"
        endpoint.tokens["revoked"] = {**endpoint.tokens["good"]}
        assert await verifier.verify_token("revoked") is not None  # activated later: not held back
    assert len(endpoint.requests) == 2


async def test_expired_and_foreign_tokens_are_refused_unless_the_audience_check_is_off() -> None:
    endpoint = IntrospectionEndpoint()
    with serve(endpoint.app) as base:
        assert await refusal(introspector(base), "expired") == "Token has expired"
        assert await refusal(introspector(base), "elsewhere") == "Token was not issued for this resource"
        lenient = introspector(base, validate_audience=False)
        access = await lenient.verify_token("elsewhere")
    assert access is not None and access.resource == "https://other/mcp"


async def test_wrong_client_credentials_and_a_failing_endpoint_are_refusals() -> None:
    endpoint = IntrospectionEndpoint()
    with serve(endpoint.app) as base:
        wrong = IntrospectionVerifier(introspection_endpoint=f"{base}/introspect", client_id=CLIENT_ID,
                                      client_secret="guess", audience=RESOURCE)
        assert await refusal(wrong, "good") == "Token could not be verified"
        endpoint.mode = "error"
        assert await refusal(introspector(base), "good") == "Token could not be verified"
    assert await refusal(introspector(closed_port(), timeout=2), "good") == "Token could not be verified"
    with silent_port() as hung:
        assert await refusal(introspector(hung, timeout=0.5), "good") == "Token could not be verified"


async def test_required_scopes_apply_to_cached_answers_too() -> None:
    endpoint = IntrospectionEndpoint()
    with serve(endpoint.app) as base:
        open_verifier = introspector(base)
        strict = introspector(base, required_scopes=["notes:write"])
        assert await open_verifier.verify_token("good") is not None
        for _ in range(2):
            with pytest.raises(InsufficientScopeError):
                await strict.verify_token("good")


async def test_static_tokens_from_claims_or_access_tokens() -> None:
    verifier = StaticTokenVerifier({
        "dev": {"client_id": "alice", "scopes": ["notes:read", "notes:write"], "aud": RESOURCE},
        "ro": AccessToken(token="ignored", client_id="bob", scopes=["notes:read"]),
        "old": {"client_id": "carol", "expires_at": int(time.time()) - 10},
    })
    dev = await verifier.verify_token("dev")
    ro = await verifier.verify_token("ro")
    assert dev is not None and (dev.client_id, dev.scopes, dev.resource) == ("alice", ["notes:read", "notes:write"],
                                                                            RESOURCE)
    assert ro is not None and (ro.client_id, ro.token) == ("bob", "ro")
    assert await verifier.verify_token("unknown") is None
    assert await refusal(verifier, "old") == "Token has expired"
    with pytest.raises(InsufficientScopeError):
        await StaticTokenVerifier({"ro": {"client_id": "b", "scope": "a"}}, required_scopes=["b"]).verify_token("ro")


# -- the gate --------------------------------------------------------------------------------------------


class Crashing:
    async def verify_token(self, token: str) -> AccessToken | None:
        raise RuntimeError(f"bug while looking at {token}")


class Demanding:
    async def verify_token(self, token: str) -> AccessToken | None:
        raise InsufficientScopeError(["notes:admin"])


async def ok(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


async def gate_answer(verifier: Any) -> httpx.Response:
    gate = RequireBearerAuth(ok, verifier, resource_metadata_url="https://rs/.well-known/oauth-protected-resource")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=gate), base_url="http://rs") as http:
        return await http.post("/mcp", headers={"authorization": "Bearer secret-token-value"})


async def test_a_crashing_verifier_is_a_401_and_its_log_omits_the_token(caplog: pytest.LogCaptureFixture) -> None:
    response = await gate_answer(Crashing())
    assert response.status_code == 401
    assert 'error_description="Token could not be verified"' in response.headers["www-authenticate"]
    assert any("Crashing failed" in record.getMessage() for record in caplog.records)
    assert not any("secret-token-value" in record.getMessage() or record.exc_info for record in caplog.records)


async def test_a_verifier_demanding_scopes_is_a_403_with_the_scope_challenge() -> None:
    response = await gate_answer(Demanding())
    assert response.status_code == 403
    challenge = response.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge and 'scope="notes:admin"' in challenge


class Injecting:
    async def verify_token(self, token: str) -> AccessToken | None:
        raise InvalidTokenError('nope\r\nSet-Cookie: session=stolen; "quoted"')


async def test_a_refusal_text_cannot_break_out_of_the_challenge_header() -> None:
    response = await gate_answer(Injecting())
    assert response.status_code == 401
    assert "set-cookie" not in response.headers
    assert response.headers["www-authenticate"].startswith(
        'Bearer error="invalid_token", error_description="nope  Set-Cookie: session=stolen; \\"quoted\\""')


async def test_a_server_binds_its_resource_url_as_the_introspected_audience() -> None:
    from mcp.server.auth.settings import AuthSettings
    from mcp.server.mcpserver import MCPServer

    endpoint = IntrospectionEndpoint()
    with serve(endpoint.app) as issuer:
        verifier = IntrospectionVerifier(introspection_endpoint=f"{issuer}/introspect", client_id=CLIENT_ID,
                                         client_secret=SECRET)
        mcp = MCPServer("notes", token_verifier=verifier, auth=AuthSettings(
            issuer_url="https://auth.example.com", resource_server_url=RESOURCE, validate_token_resource=True))
        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
        with serve(mcp.streamable_http_app()) as base:
            async with httpx.AsyncClient(timeout=15) as http:
                answers = {token: await http.post(f"{base}/mcp", json=body, headers={
                    "accept": "application/json, text/event-stream", "authorization": f"Bearer {token}"})
                    for token in ("good", "elsewhere")}
    assert answers["good"].status_code == 200
    assert answers["elsewhere"].status_code == 401
    assert "Token was not issued for this resource" in answers["elsewhere"].headers["www-authenticate"]
