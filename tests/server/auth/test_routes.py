"""The embedded authorization server: `create_auth_routes` over an in-memory provider."""

from __future__ import annotations

import base64
import hashlib
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from pydantic import AnyHttpUrl, AnyUrl
from starlette.applications import Starlette

from mcp.server.auth.routes import build_metadata, create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientInformationFull

pytestmark = pytest.mark.anyio

ISSUER = "http://127.0.0.1:9000"
REDIRECT = "http://127.0.0.1:3030/callback"
VERIFIER = "v" * 64
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).decode().rstrip("=")


def app(provider: Any, **options: Any) -> Starlette:
    options.setdefault("client_registration_options", ClientRegistrationOptions(enabled=True,
                                                                                valid_scopes=["read", "write"]))
    options.setdefault("revocation_options", RevocationOptions(enabled=True))
    return Starlette(routes=create_auth_routes(provider, issuer_url=ISSUER, **options))  # type: ignore[arg-type]


def client(starlette_app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=starlette_app), base_url="http://127.0.0.1:9000")


def add_client(provider: Any, **overrides: Any) -> OAuthClientInformationFull:
    values: dict[str, Any] = {
        "client_id": "app", "client_secret": "app-secret", "redirect_uris": [AnyUrl(REDIRECT)],
        "token_endpoint_auth_method": "client_secret_post", "scope": "read write",
    }
    values.update(overrides)
    info = OAuthClientInformationFull(**values)
    provider.clients[info.client_id] = info
    return info


async def authorize(http: httpx.AsyncClient, **params: str) -> httpx.Response:
    query = {"response_type": "code", "client_id": "app", "redirect_uri": REDIRECT, "state": "st",
             "code_challenge": CHALLENGE, "code_challenge_method": "S256"}
    query.update(params)
    return await http.get("/authorize", params={k: v for k, v in query.items() if v != ""})


def redirect_query(response: httpx.Response) -> dict[str, str]:
    assert response.status_code == 302, response.text
    return {key: values[0] for key, values in parse_qs(urlsplit(response.headers["location"]).query).items()}


# -- metadata -------------------------------------------------------------------------------------


async def test_the_metadata_document(memory_provider: Any) -> None:
    async with client(app(memory_provider, identity_assertion_enabled=True,
                          service_documentation_url="https://docs.example.com")) as http:
        response = await http.get("/.well-known/oauth-authorization-server")
    assert response.status_code == 200
    assert response.json() == {
        "issuer": "http://127.0.0.1:9000",
        "authorization_endpoint": "http://127.0.0.1:9000/authorize",
        "token_endpoint": "http://127.0.0.1:9000/token",
        "registration_endpoint": "http://127.0.0.1:9000/register",
        "scopes_supported": ["read", "write"],
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", JWT_BEARER_GRANT_TYPE],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
        "code_challenge_methods_supported": ["S256"],
        "service_documentation": "https://docs.example.com",
        "revocation_endpoint": "http://127.0.0.1:9000/revoke",
        "revocation_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
        "authorization_grant_profiles_supported": ["urn:ietf:params:oauth:grant-profile:id-jag"],
    }


def test_optional_endpoints_are_off_by_default() -> None:
    document = build_metadata(AnyHttpUrl("https://auth.example.com/tenant"), None, ClientRegistrationOptions(),
                              RevocationOptions())
    assert str(document.issuer) == "https://auth.example.com/tenant"
    assert str(document.token_endpoint) == "https://auth.example.com/tenant/token"
    assert document.registration_endpoint is None and document.revocation_endpoint is None
    assert JWT_BEARER_GRANT_TYPE not in (document.grant_types_supported or [])
    assert document.authorization_grant_profiles_supported is None


def test_endpoints_are_advertised_under_the_issuer_and_routed_at_the_app_root(memory_provider: Any) -> None:
    routes = create_auth_routes(memory_provider, issuer_url=AnyHttpUrl("https://auth.example.com/tenant"))
    assert [route.path for route in routes] == ["/.well-known/oauth-authorization-server", "/authorize", "/token"]


def test_an_issuer_must_be_https_unless_loopback(memory_provider: Any) -> None:
    with pytest.raises(ValueError, match="Issuer URL must be HTTPS"):
        create_auth_routes(memory_provider, issuer_url=AnyHttpUrl("http://auth.example.com"))
    with pytest.raises(ValueError, match="must not have a query string"):
        create_auth_routes(memory_provider, issuer_url=AnyHttpUrl("https://auth.example.com/?x=1"))


# -- registration -------------------------------------------------------------------------------


async def test_dynamic_registration(memory_provider: Any) -> None:
    async with client(app(memory_provider)) as http:
        response = await http.post("/register", json={"redirect_uris": [REDIRECT], "client_name": "x",
                                                      "scope": "read"})
    assert response.status_code == 201
    body = response.json()
    assert body["client_id"] in memory_provider.clients
    assert body["token_endpoint_auth_method"] == "client_secret_post"
    assert len(body["client_secret"]) == 64
    assert body["scope"] == "read"


async def test_public_clients_get_no_secret_and_default_scopes_apply(memory_provider: Any) -> None:
    options = ClientRegistrationOptions(enabled=True, default_scopes=["read"], client_secret_expiry_seconds=60)
    async with client(app(memory_provider, client_registration_options=options)) as http:
        body = (await http.post("/register", json={"redirect_uris": [REDIRECT],
                                                   "token_endpoint_auth_method": "none"})).json()
    assert "client_secret" not in body and "client_secret_expires_at" not in body
    assert body["scope"] == "read"


@pytest.mark.parametrize(
    "body",
    [
        {"client_name": "no redirect uris"},
        {"redirect_uris": [REDIRECT], "scope": "admin"},
        {"redirect_uris": [REDIRECT], "grant_types": ["authorization_code", JWT_BEARER_GRANT_TYPE]},
        {"redirect_uris": [REDIRECT], "grant_types": ["client_credentials"]},
        {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "private_key_jwt"},
    ],
)
async def test_invalid_registrations_are_refused(memory_provider: Any, body: dict[str, Any]) -> None:
    async with client(app(memory_provider)) as http:
        response = await http.post("/register", json=body)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_client_metadata"
    assert memory_provider.clients == {}


async def test_registration_is_absent_unless_enabled(memory_provider: Any) -> None:
    async with client(app(memory_provider, client_registration_options=None)) as http:
        assert (await http.post("/register", json={"redirect_uris": [REDIRECT]})).status_code == 404


# -- authorization ------------------------------------------------------------------------------


async def test_authorization_redirects_with_a_code_state_and_iss(memory_provider: Any) -> None:
    add_client(memory_provider)
    async with client(app(memory_provider)) as http:
        params = redirect_query(await authorize(http, scope="read", resource="http://127.0.0.1:8000/mcp"))
    assert params["state"] == "st" and params["code"]
    authorization = memory_provider.authorize_params[0]
    assert authorization.scopes == ["read"]
    assert authorization.resource == "http://127.0.0.1:8000/mcp"
    assert authorization.redirect_uri_provided_explicitly


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"code_challenge": ""}, "invalid_request"),
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"scope": "admin"}, "invalid_scope"),
    ],
)
async def test_authorization_errors_go_back_to_the_client(memory_provider: Any, params: dict[str, str],
                                                          error: str) -> None:
    add_client(memory_provider)
    async with client(app(memory_provider)) as http:
        query = redirect_query(await authorize(http, **params))
    assert query["error"] == error and query["state"] == "st"


@pytest.mark.parametrize(("params", "status"), [({"client_id": "nobody"}, 400), ({"client_id": ""}, 400),
                                                ({"redirect_uri": "http://evil.example/cb"}, 400)])
async def test_authorization_errors_that_cannot_redirect(memory_provider: Any, params: dict[str, str],
                                                         status: int) -> None:
    add_client(memory_provider)
    async with client(app(memory_provider)) as http:
        response = await authorize(http, **params)
    assert response.status_code == status
    assert response.json()["error"] == "invalid_request"


# -- token: authorization code and refresh --------------------------------------------------------


async def exchange(http: httpx.AsyncClient, code: str, **extra: str) -> httpx.Response:
    data = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": VERIFIER,
            "client_id": "app", "client_secret": "app-secret"}
    data.update(extra)
    return await http.post("/token", data={k: v for k, v in data.items() if v != ""})


async def test_the_code_is_exchanged_with_pkce(memory_provider: Any) -> None:
    add_client(memory_provider)
    async with client(app(memory_provider)) as http:
        code = redirect_query(await authorize(http, scope="read"))["code"]
        response = await exchange(http, code)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert body["token_type"] == "Bearer" and body["scope"] == "read" and body["refresh_token"]
    assert memory_provider.access_tokens[body["access_token"]].subject == "alice"


@pytest.mark.parametrize(
    ("extra", "status", "error"),
    [
        ({"code_verifier": "w" * 64}, 400, "invalid_grant"),
        ({"code": "unknown"}, 400, "invalid_grant"),
        ({"redirect_uri": "http://127.0.0.1:3030/other"}, 400, "invalid_request"),
        ({"client_secret": "wrong"}, 401, "invalid_client"),
        ({"grant_type": "password"}, 400, "invalid_request"),
        ({"code_verifier": ""}, 400, "invalid_request"),
    ],
)
async def test_bad_exchanges_are_refused(memory_provider: Any, extra: dict[str, str], status: int, error: str) -> None:
    add_client(memory_provider)
    async with client(app(memory_provider)) as http:
        code = redirect_query(await authorize(http))["code"]
        extra = dict(extra)
        response = await exchange(http, extra.pop("code", code), **extra)
    assert response.status_code == status
    assert response.json()["error"] == error


async def test_client_secret_basic_authenticates_too(memory_provider: Any) -> None:
    add_client(memory_provider, client_id="basic app", client_secret="p@ss:word",
               token_endpoint_auth_method="client_secret_basic")
    async with client(app(memory_provider)) as http:
        code = redirect_query(await authorize(http, client_id="basic app"))["code"]
        credentials = base64.b64encode(b"basic%20app:p%40ss%3Aword").decode()
        response = await http.post("/token", headers={"Authorization": f"Basic {credentials}"}, data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": VERIFIER,
            "client_id": "basic app"})
        assert response.status_code == 200, response.text
        wrong = base64.b64encode(b"basic%20app:nope").decode()
        refused = await http.post("/token", headers={"Authorization": f"Basic {wrong}"},
                                  data={"grant_type": "refresh_token", "refresh_token": "x", "client_id": "basic app"})
        unsent = await http.post("/token", data={"grant_type": "refresh_token", "refresh_token": "x",
                                                 "client_id": "basic app", "client_secret": "p@ss:word"})
    assert refused.status_code == 401
    assert refused.json() == {"error": "invalid_client", "error_description": "Invalid client_secret"}
    assert unsent.status_code == 401 and "Basic authentication" in unsent.json()["error_description"]


async def test_a_public_client_needs_no_secret(memory_provider: Any) -> None:
    add_client(memory_provider, client_secret=None, token_endpoint_auth_method="none")
    async with client(app(memory_provider)) as http:
        code = redirect_query(await authorize(http))["code"]
        response = await exchange(http, code, client_secret="")
    assert response.status_code == 200


async def test_refresh_tokens_rotate_and_cannot_widen_scope(memory_provider: Any) -> None:
    add_client(memory_provider)
    async with client(app(memory_provider)) as http:
        code = redirect_query(await authorize(http, scope="read write"))["code"]
        refresh = (await exchange(http, code)).json()["refresh_token"]
        base = {"grant_type": "refresh_token", "client_id": "app", "client_secret": "app-secret"}
        narrowed = await http.post("/token", data={**base, "refresh_token": refresh, "scope": "read"})
        assert narrowed.status_code == 200 and narrowed.json()["scope"] == "read"
        reused = await http.post("/token", data={**base, "refresh_token": refresh})
        assert reused.json()["error"] == "invalid_grant"
        widened = await http.post("/token", data={**base, "refresh_token": narrowed.json()["refresh_token"],
                                                  "scope": "read admin"})
    assert widened.status_code == 400 and widened.json()["error"] == "invalid_scope"


async def test_a_client_can_only_use_the_grants_it_registered_for(memory_provider: Any) -> None:
    add_client(memory_provider, grant_types=["authorization_code"])
    async with client(app(memory_provider)) as http:
        response = await http.post("/token", data={"grant_type": "refresh_token", "refresh_token": "x",
                                                   "client_id": "app", "client_secret": "app-secret"})
    assert response.json()["error"] == "unsupported_grant_type"


# -- token: identity assertion (SEP-990) ----------------------------------------------------------


async def jwt_bearer(http: httpx.AsyncClient, assertion: str = "valid-id-jag", **credentials: str) -> httpx.Response:
    data = {"grant_type": JWT_BEARER_GRANT_TYPE, "assertion": assertion, "scope": "notes:read",
            "resource": "http://127.0.0.1:8000/mcp", "client_id": "agent", "client_secret": "agent-secret"}
    data.update(credentials)
    return await http.post("/token", data={k: v for k, v in data.items() if v != ""})


async def test_identity_assertions_reach_the_provider(memory_provider: Any) -> None:
    add_client(memory_provider, client_id="agent", client_secret="agent-secret", grant_types=[JWT_BEARER_GRANT_TYPE])
    async with client(app(memory_provider, identity_assertion_enabled=True)) as http:
        response = await jwt_bearer(http)
        refused = await jwt_bearer(http, assertion="forged")
        missing = await jwt_bearer(http, assertion="")
    assert response.status_code == 200 and "refresh_token" not in response.json()
    params = memory_provider.assertions[0]
    assert (params.assertion, params.scopes, params.resource) == ("valid-id-jag", ["notes:read"],
                                                                  "http://127.0.0.1:8000/mcp")
    assert refused.status_code == 400
    assert refused.json() == {"error": "invalid_grant", "error_description": "the assertion did not verify"}
    assert missing.json()["error"] == "invalid_request"


async def test_identity_assertions_are_gated(memory_provider: Any) -> None:
    add_client(memory_provider, client_id="agent", client_secret="agent-secret", grant_types=[JWT_BEARER_GRANT_TYPE])
    add_client(memory_provider, client_id="public", client_secret=None, token_endpoint_auth_method="none",
               grant_types=[JWT_BEARER_GRANT_TYPE])
    add_client(memory_provider, client_id="other", client_secret="other-secret")
    async with client(app(memory_provider)) as http:
        disabled = await jwt_bearer(http)
    async with client(app(memory_provider, identity_assertion_enabled=True)) as http:
        public = await jwt_bearer(http, client_id="public", client_secret="")
        not_registered = await jwt_bearer(http, client_id="other", client_secret="other-secret")
    assert disabled.json()["error"] == "unsupported_grant_type"
    assert public.json()["error"] == "unauthorized_client"
    assert not_registered.json()["error"] == "unsupported_grant_type"
    assert memory_provider.assertions == []


# -- revocation -----------------------------------------------------------------------------------


async def test_revocation_only_revokes_the_clients_own_tokens(memory_provider: Any) -> None:
    add_client(memory_provider)
    add_client(memory_provider, client_id="other", client_secret="other-secret")
    async with client(app(memory_provider)) as http:
        code = redirect_query(await authorize(http))["code"]
        access = (await exchange(http, code)).json()["access_token"]
        foreign = await http.post("/revoke", data={"token": access, "client_id": "other",
                                                   "client_secret": "other-secret"})
        assert foreign.status_code == 200 and access in memory_provider.access_tokens
        own = await http.post("/revoke", data={"token": access, "client_id": "app", "client_secret": "app-secret"})
        unknown = await http.post("/revoke", data={"token": "nope", "client_id": "app", "client_secret": "app-secret"})
    assert own.status_code == 200 and unknown.status_code == 200
    assert memory_provider.revoked == [access]


async def test_oversized_bodies_are_refused_before_the_endpoint_runs(memory_provider: Any) -> None:
    add_client(memory_provider)
    async with client(app(memory_provider)) as http:
        huge = "x" * (4 * 1024 * 1024 + 1)
        token = await http.post("/token", data={"grant_type": "refresh_token", "refresh_token": huge,
                                                "client_id": "app", "client_secret": "app-secret"},
                                headers={"Origin": "http://inspector.example"})
        authorization = await http.post("/authorize", data={"client_id": huge})
    assert token.status_code == 413 and token.text == "Request body too large"
    assert token.headers["access-control-allow-origin"] == "*"
    assert authorization.status_code == 413


async def test_authorization_requests_can_be_posted_as_a_form(memory_provider: Any) -> None:
    add_client(memory_provider)
    async with client(app(memory_provider)) as http:
        response = await http.post("/authorize", data={
            "response_type": "code", "client_id": "app", "redirect_uri": REDIRECT, "state": "st",
            "code_challenge": CHALLENGE})
        refused = await http.post("/authorize", data={"response_type": "token", "client_id": "app", "state": "st",
                                                      "code_challenge": CHALLENGE})
    assert redirect_query(response)["state"] == "st"
    assert redirect_query(refused)["error"] == "unsupported_response_type"
