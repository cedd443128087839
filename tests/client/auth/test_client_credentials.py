"""Machine-to-machine providers: `ClientCredentialsOAuthProvider` and `PrivateKeyJWTOAuthProvider`."""

from __future__ import annotations

import base64
import inspect
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from mcp.client.auth import OAuthClientProvider, OAuthFlowError, OAuthTokenError
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
    static_assertion_provider,
)
from mcp.shared.exceptions import MCPDeprecationWarning

pytestmark = pytest.mark.anyio


def credentials_provider(world: Any, **kwargs: Any) -> ClientCredentialsOAuthProvider:
    options: dict[str, Any] = {"client_id": "reporting-agent", "client_secret": "s3cret", "issuer": world.AS}
    options.update(kwargs)
    return ClientCredentialsOAuthProvider(server_url=world.MCP_URL, storage=world.Storage(), **options)


async def test_client_secret_basic_is_the_default(world: Any) -> None:
    world.rs.scopes_supported = ["reports:read"]
    provider = credentials_provider(world, scope="reports:read")
    response = await world.call(provider)
    assert response.status_code == 200
    assert world.auth.log == [("GET", "/.well-known/oauth-authorization-server"), ("POST", "/token")]
    form = world.auth.token_requests[0]
    assert form == {"grant_type": "client_credentials", "resource": world.MCP_URL, "scope": "reports:read"}
    assert world.auth.token_auth_headers[0] == "Basic " + base64.b64encode(b"reporting-agent:s3cret").decode()
    assert response.json()["scopes"] == ["reports:read"]


async def test_client_secret_post_puts_the_secret_in_the_body(world: Any) -> None:
    provider = credentials_provider(world, token_endpoint_auth_method="client_secret_post")
    assert (await world.call(provider)).status_code == 200
    form = world.auth.token_requests[0]
    assert (form["client_id"], form["client_secret"]) == ("reporting-agent", "s3cret")
    assert world.auth.token_auth_headers[0] is None


async def test_the_challenge_scope_is_used_when_none_is_configured(world: Any) -> None:
    world.rs.challenge_scope = "mcp:basic"
    assert (await world.call(credentials_provider(world))).status_code == 200
    assert world.auth.token_requests[0]["scope"] == "mcp:basic"


async def test_the_discovered_scope_replaces_the_configured_one(world: Any) -> None:
    """As the official SDK: the scope selection (challenge, resource, authorization server) is
    written over `client_metadata.scope`, the configured scope included."""
    world.rs.scopes_supported = ["mcp:basic"]
    provider = credentials_provider(world, scope="reports:read")
    assert (await world.call(provider)).status_code == 200
    assert world.auth.token_requests[0]["scope"] == "mcp:basic"
    assert provider.context.client_metadata.scope == "mcp:basic"


async def test_a_pinned_issuer_refuses_another_authorization_server(world: Any) -> None:
    provider = credentials_provider(world, issuer="https://other-as.example.com")
    with pytest.raises(OAuthFlowError, match=r"^Authorization server metadata issuer mismatch: "):
        await world.call(provider)
    assert world.auth.token_requests == []


@pytest.mark.parametrize("spelling", ["bare", "trailing slash"])
async def test_a_pinned_issuer_that_matches_proceeds(world: Any, spelling: str) -> None:
    """A root issuer with and without its trailing slash names the same server."""
    world.auth.issuer = world.AS + "/"
    world.rs.authorization_servers = lambda: [world.AS + "/"]
    issuer = world.AS if spelling == "bare" else world.AS + "/"
    assert (await world.call(credentials_provider(world, issuer=issuer))).status_code == 200


def test_omitting_the_issuer_is_deprecated() -> None:
    with pytest.warns(MCPDeprecationWarning, match="Omitting `issuer` is deprecated"):
        ClientCredentialsOAuthProvider("http://127.0.0.1:1/mcp", storage=None, client_id="a",  # type: ignore[arg-type]
                                       client_secret="b")


async def test_credentials_do_not_follow_a_new_authorization_server(world: Any) -> None:
    current = [world.AS]
    world.rs.authorization_servers = lambda: list(current)
    world.rs.accept = lambda token, scopes, issuer: issuer == current[0]
    provider = credentials_provider(world)
    async with world.client(provider) as http:
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
        current[0] = world.AS2
        with pytest.raises(OAuthFlowError, match="issuer mismatch"):
            await http.post(world.MCP_URL, content=b"{}")
    assert world.auth2.token_requests == []


async def test_a_refused_token_request_is_a_token_error(world: Any) -> None:
    world.auth.token_status = 401
    with pytest.raises(OAuthTokenError):
        await world.call(credentials_provider(world))


async def test_no_registration_and_no_handlers(world: Any) -> None:
    provider = credentials_provider(world, scope="user")
    assert isinstance(provider, OAuthClientProvider) and isinstance(provider, httpx.Auth)
    assert provider.context.redirect_handler is None and provider.context.callback_handler is None
    metadata = provider.context.client_metadata
    assert metadata.grant_types == ["client_credentials"]
    assert metadata.token_endpoint_auth_method == "client_secret_basic"
    assert metadata.redirect_uris is None
    assert metadata.scope == "user"
    await world.call(provider)
    assert world.auth.registrations == []


def test_the_issuer_must_be_an_http_url() -> None:
    with pytest.raises(ValueError, match="issuer must be the authorization server's http"):
        ClientCredentialsOAuthProvider("http://127.0.0.1:1/mcp", storage=None, client_id="a",  # type: ignore[arg-type]
                                       client_secret="b", issuer="as.example.com")


@pytest.mark.parametrize("provider_class", [ClientCredentialsOAuthProvider, PrivateKeyJWTOAuthProvider])
def test_issuer_is_optional(provider_class: type) -> None:
    issuer = inspect.signature(provider_class.__init__).parameters["issuer"]
    assert issuer.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert issuer.default is None


# -- private_key_jwt ------------------------------------------------------------------------------


async def test_private_key_jwt_sends_a_fresh_signed_assertion(world: Any) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    parameters = SignedJWTParameters(issuer="workload", subject="workload", signing_key=pem,
                                     signing_algorithm="ES256")
    provider = PrivateKeyJWTOAuthProvider(server_url=world.MCP_URL, storage=world.Storage(), client_id="workload",
                                          assertion_provider=parameters.create_assertion_provider(), issuer=world.AS)
    assert provider.context.client_metadata.token_endpoint_auth_method == "private_key_jwt"
    assert (await world.call(provider)).status_code == 200
    form = world.auth.token_requests[0]
    assert form["grant_type"] == "client_credentials"
    assert "client_id" not in form  # the assertion names the client
    assert form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    assert world.auth.token_auth_headers[0] is None
    claims = jwt.decode(form["client_assertion"], key.public_key(), algorithms=["ES256"], audience=world.AS)
    assert claims["iss"] == claims["sub"] == "workload"
    assert claims["exp"] - claims["iat"] == 300
    assert claims["jti"]


async def test_a_static_assertion_is_sent_as_is(world: Any) -> None:
    provider = PrivateKeyJWTOAuthProvider(server_url=world.MCP_URL, storage=world.Storage(), client_id="wl",
                                          assertion_provider=static_assertion_provider("a.prebuilt.jwt"),
                                          issuer=world.AS)
    assert (await world.call(provider)).status_code == 200
    assert world.auth.token_requests[0]["client_assertion"] == "a.prebuilt.jwt"


async def test_static_assertion_provider_ignores_the_audience() -> None:
    provide = static_assertion_provider("token")
    assert await provide("https://a.example") == await provide("https://b.example") == "token"


def test_signed_jwt_parameters_carry_additional_claims() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    parameters = SignedJWTParameters(issuer="i", subject="s", signing_key=pem, signing_algorithm="ES256",
                                     lifetime_seconds=60, additional_claims={"tenant": "t1"})
    claims = jwt.decode(parameters.create_assertion("https://as.example"), key.public_key(), algorithms=["ES256"],
                        audience="https://as.example")
    assert claims["tenant"] == "t1" and claims["exp"] - claims["iat"] == 60
