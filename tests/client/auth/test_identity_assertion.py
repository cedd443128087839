"""`IdentityAssertionOAuthProvider` (SEP-990, client side) against the mock servers."""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest

from mcp.client.auth import OAuthClientProvider, OAuthFlowError, OAuthTokenError
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE

pytestmark = pytest.mark.anyio


def provider(world: Any, **overrides: Any) -> IdentityAssertionOAuthProvider:
    calls: list[tuple[str, str]] = []

    async def assertion_provider(audience: str, resource: str) -> str:
        calls.append((audience, resource))
        return "id-jag"

    options: dict[str, Any] = {
        "server_url": world.MCP_URL, "storage": world.Storage(), "client_id": "agent", "client_secret": "agent-secret",
        "issuer": world.AS, "assertion_provider": assertion_provider,
    }
    options.update(overrides)
    instance = IdentityAssertionOAuthProvider(**options)
    instance.calls = calls  # type: ignore[attr-defined]
    return instance


async def test_one_token_request_with_the_assertion(world: Any) -> None:
    auth = provider(world, scope="notes:read")
    assert (await world.call(auth)).status_code == 200
    assert world.rs.log[0] == ("POST", "/mcp")
    assert world.PRM_PATH not in [path for _, path in world.rs.log]  # the resource server is never asked
    assert world.auth.log == [("GET", "/.well-known/oauth-authorization-server"), ("POST", "/token")]
    form = world.auth.token_requests[0]
    assert form == {"grant_type": JWT_BEARER_GRANT_TYPE, "assertion": "id-jag", "resource": world.MCP_URL,
                    "scope": "notes:read", "client_id": "agent", "client_secret": "agent-secret"}
    assert auth.calls == [(world.AS, world.MCP_URL)]  # the configured issuer, as given  # type: ignore[attr-defined]


async def test_client_secret_basic(world: Any) -> None:
    assert (await world.call(provider(world, token_endpoint_auth_method="client_secret_basic"))).status_code == 200
    assert world.auth.token_auth_headers[0] == "Basic " + base64.b64encode(b"agent:agent-secret").decode()
    assert "client_secret" not in world.auth.token_requests[0]


async def test_an_issuer_mismatch_stops_before_any_assertion(world: Any) -> None:
    auth = provider(world, issuer=world.AS + "/")
    with pytest.raises(OAuthFlowError, match="issuer mismatch"):
        await world.call(auth)
    assert auth.calls == []  # type: ignore[attr-defined]
    assert world.auth.token_requests == []


async def test_a_token_endpoint_on_another_origin_is_refused(world: Any) -> None:
    original = world.auth.metadata_document

    def moved() -> dict[str, Any]:
        return {**original(), "token_endpoint": "https://evil.example.com/token"}

    world.auth.metadata_document = moved
    with pytest.raises(OAuthFlowError, match="origin"):
        await world.call(provider(world))


async def test_a_refused_assertion_is_a_token_error(world: Any) -> None:
    world.auth.token_status = 400
    with pytest.raises(OAuthTokenError, match=r"^Token exchange failed \(400\): .*invalid_grant"):
        await world.call(provider(world))


async def test_insufficient_scope_exchanges_again_with_the_union(world: Any) -> None:
    world.rs.required = lambda request: ["a", "b"] if request.headers.get("x-op") == "b" else ["a"]
    auth = provider(world, scope="a")
    async with world.client(auth) as http:
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
        assert (await http.post(world.MCP_URL, content=b"{}", headers={"x-op": "b"})).status_code == 200
    assert [form["scope"] for form in world.auth.token_requests] == ["a", "a b"]
    assert len(auth.calls) == 2  # type: ignore[attr-defined]  # a fresh assertion per exchange


async def test_an_expired_token_means_a_new_assertion(world: Any) -> None:
    auth = provider(world)
    async with world.client(auth) as http:
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
        world.tokens.issued.clear()
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
    assert [form["grant_type"] for form in world.auth.token_requests] == [JWT_BEARER_GRANT_TYPE] * 2
    assert world.auth.log.count(("GET", "/.well-known/oauth-authorization-server")) == 1


def test_it_is_an_httpx_auth_but_not_an_oauth_client_provider(world: Any) -> None:
    auth = provider(world)
    assert isinstance(auth, httpx.Auth) and not isinstance(auth, OAuthClientProvider)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"client_secret": ""}, "client_secret is required"),
        ({"issuer": ""}, "issuer is required"),
    ],
)
def test_constructor_validation(world: Any, overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        provider(world, **overrides)
