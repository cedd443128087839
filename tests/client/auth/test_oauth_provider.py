"""`OAuthClientProvider` against mock resource and authorization servers (see conftest.py):
discovery, registration, PKCE, resource and scope selection, iss validation, token endpoint
authentication, refresh, step-up and authorization-server migration."""

from __future__ import annotations

import base64
import inspect
import time
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import anyio
import httpx
import httpx2
import pytest
from pydantic import AnyUrl

from mcp.client.auth import (
    AuthorizationCodeResult,
    OAuthClientProvider,
    OAuthFlowError,
    OAuthRegistrationError,
    OAuthTokenError,
    PKCEParameters,
    TokenStorage,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

pytestmark = pytest.mark.anyio


def query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


# -- the whole flow -------------------------------------------------------------------------------


async def test_a_401_runs_discovery_registration_authorization_and_exchange(world: Any) -> None:
    storage = world.Storage()
    provider = world.provider(storage)
    response = await world.call(provider)
    assert response.status_code == 200
    assert response.json()["ok"] is True

    assert world.rs.log[:2] == [("POST", "/mcp"), ("GET", world.PRM_PATH)]
    assert world.auth.log == [
        ("GET", "/.well-known/oauth-authorization-server"),
        ("POST", "/register"),
        ("GET", "/authorize"),
        ("POST", "/token"),
    ]
    registration = world.auth.registrations[0]
    assert registration["redirect_uris"] == [world.REDIRECT_URI]
    assert registration["grant_types"] == ["authorization_code", "refresh_token"]
    assert registration["application_type"] == "native"
    assert "token_endpoint_auth_method" not in registration  # the metadata as given, nothing chosen

    authorize = world.auth.authorize_requests[0]
    assert authorize["response_type"] == "code"
    assert authorize["client_id"] == "dcr-client"
    assert authorize["code_challenge_method"] == "S256"
    assert len(authorize["code_challenge"]) == 43
    assert authorize["resource"] == world.MCP_URL
    assert "scope" not in authorize

    token = world.auth.token_requests[0]
    assert token["grant_type"] == "authorization_code"
    assert token["resource"] == world.MCP_URL
    assert token["redirect_uri"] == world.REDIRECT_URI

    assert storage.tokens is not None and storage.tokens.access_token == "at-1"
    assert storage.client_info is not None and storage.client_info.client_id == "dcr-client"
    assert world.rs.authorizations[-1] == "Bearer at-1"


async def test_the_token_is_reused_without_another_flow(world: Any) -> None:
    provider = world.provider()
    async with world.client(provider) as http:
        for _ in range(3):
            assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
    assert len(world.auth.authorize_requests) == 1
    assert world.rs.authorizations == [None, "Bearer at-1", "Bearer at-1", "Bearer at-1"]


async def test_a_stored_token_is_sent_on_the_first_request(world: Any) -> None:
    token = world.tokens.issue([], world.AS)
    provider = world.provider(world.Storage(tokens=OAuthToken(access_token=token)))
    assert (await world.call(provider)).status_code == 200
    assert world.rs.authorizations == [f"Bearer {token}"]
    assert world.auth.log == []


async def test_concurrent_401s_share_one_authorization(world: Any) -> None:
    provider = world.provider()
    statuses: list[int] = []
    async with world.client(provider) as http:

        async def one() -> None:
            statuses.append((await http.post(world.MCP_URL, content=b"{}")).status_code)

        async with anyio.create_task_group() as tg:
            for _ in range(4):
                tg.start_soon(one)
    assert statuses == [200] * 4
    assert len(world.auth.authorize_requests) == 1


async def test_the_provider_is_an_async_only_httpx_auth(world: Any) -> None:
    provider = world.provider()
    assert isinstance(provider, httpx.Auth)
    with httpx.Client(auth=provider, transport=httpx.MockTransport(lambda r: httpx.Response(200))) as http, \
            pytest.raises(RuntimeError, match="asynchronous"):
        http.get(world.MCP_URL)
    assert inspect.isgeneratorfunction(type(provider).sync_auth_flow)  # the httpx.Auth flow shape


# -- protected resource metadata discovery --------------------------------------------------------


async def test_without_resource_metadata_in_the_challenge_the_path_based_uri_comes_first(world: Any) -> None:
    world.rs.header_metadata = None
    assert (await world.call(world.provider())).status_code == 200
    assert world.rs.log[1] == ("GET", world.PRM_PATH)


async def test_the_root_well_known_uri_is_the_last_resort(world: Any) -> None:
    world.rs.header_metadata = None
    world.rs.prm_paths = ["/.well-known/oauth-protected-resource"]
    world.rs.prm_resource = world.RS
    assert (await world.call(world.provider())).status_code == 200
    assert world.rs.log[1:3] == [("GET", world.PRM_PATH), ("GET", "/.well-known/oauth-protected-resource")]
    # the resource identifier is sent exactly as published: no slash appended to a pathless one
    assert world.auth.authorize_requests[0]["resource"] == world.RS
    assert world.auth.token_requests[0]["resource"] == world.RS


async def test_a_custom_metadata_location_from_the_challenge_is_used(world: Any) -> None:
    world.rs.prm_paths = ["/custom/metadata.json"]
    world.rs.header_metadata = "/custom/metadata.json"
    assert (await world.call(world.provider())).status_code == 200
    assert world.rs.log[1] == ("GET", "/custom/metadata.json")
    assert ("GET", world.PRM_PATH) not in world.rs.log


async def test_a_resource_for_another_server_is_refused_before_authorization(world: Any) -> None:
    world.rs.prm_resource = "https://evil.example.com/mcp"
    with pytest.raises(OAuthFlowError, match=r"^Protected resource https://evil.example.com/mcp does not match expected "):
        await world.call(world.provider())
    assert world.auth.log == []


@pytest.mark.parametrize("resource", ["http://127.0.0.1:8123/mc", "http://127.0.0.1:9999/mcp", "https://127.0.0.1:8123/mcp"])
async def test_a_resource_that_does_not_cover_the_server_url_is_refused(world: Any, resource: str) -> None:
    world.rs.prm_resource = resource
    with pytest.raises(OAuthFlowError):
        await world.call(world.provider())


async def test_validate_resource_url_replaces_the_default_check(world: Any) -> None:
    world.rs.prm_resource = "https://api.example.com/mcp"
    seen: list[tuple[str, str | None]] = []

    async def accept(server_url: str, resource: str | None) -> None:
        seen.append((server_url, resource))

    assert (await world.call(world.provider(validate_resource_url=accept))).status_code == 200
    assert seen == [(world.MCP_URL, "https://api.example.com/mcp")]
    # a published resource that does not cover the server's URL is not sent: the canonical URL is
    assert world.auth.authorize_requests[0]["resource"] == world.MCP_URL


# -- authorization server metadata discovery ------------------------------------------------------


@pytest.mark.parametrize(
    ("served_at", "expected_order"),
    [
        ("/.well-known/oauth-authorization-server/tenant1", ["/.well-known/oauth-authorization-server/tenant1"]),
        ("/.well-known/openid-configuration/tenant1",
         ["/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1"]),
        ("/tenant1/.well-known/openid-configuration",
         ["/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1",
          "/tenant1/.well-known/openid-configuration"]),
    ],
)
async def test_an_issuer_with_a_path_is_discovered_in_the_mcp_order(world: Any, served_at: str,
                                                                     expected_order: list[str]) -> None:
    world.auth.prefix = "/tenant1"
    world.auth.issuer = world.AS + "/tenant1"
    world.auth.metadata_paths = [served_at]
    world.rs.authorization_servers = lambda: [world.AS + "/tenant1"]
    assert (await world.call(world.provider())).status_code == 200
    metadata_requests = [path for _method, path in world.auth.log if "well-known" in path]
    assert metadata_requests == expected_order
    assert ("GET", "/.well-known/oauth-authorization-server") not in world.auth.log


async def test_openid_configuration_is_the_fallback_for_a_pathless_issuer(world: Any) -> None:
    world.auth.metadata_paths = ["/.well-known/openid-configuration"]
    assert (await world.call(world.provider())).status_code == 200
    assert world.auth.log[:2] == [("GET", "/.well-known/oauth-authorization-server"),
                                  ("GET", "/.well-known/openid-configuration")]


async def test_metadata_naming_another_issuer_is_refused(world: Any) -> None:
    world.auth.issuer = "https://attacker.example.com"
    with pytest.raises(OAuthFlowError, match="issuer mismatch"):
        await world.call(world.provider())
    assert world.auth.registrations == [] and world.auth.authorize_requests == [] and world.auth.token_requests == []


async def test_a_trailing_slash_on_the_discovered_issuer_is_a_mismatch(world: Any) -> None:
    world.auth.issuer = world.auth.issuer.rstrip("/") + "/"
    with pytest.raises(OAuthFlowError, match=r"issuer mismatch: .*/ != "):
        await world.call(world.provider())
    assert world.auth.registrations == []


async def test_pkce_is_sent_even_when_the_server_does_not_advertise_it(world: Any) -> None:
    """As the official SDK: no `code_challenge_methods_supported` does not stop the flow (the S256
    challenge goes out all the same)."""
    world.auth.pkce_methods = []
    assert (await world.call(world.provider())).status_code == 200
    assert world.auth.authorize_requests[0]["code_challenge_method"] == "S256"


async def test_a_2025_03_26_server_without_protected_resource_metadata(world: Any) -> None:
    """No PRM anywhere: the MCP server's origin is the authorization server (metadata at its root)."""
    world.rs.prm_paths = []
    world.rs.header_metadata = None
    legacy = world.AuthServer(world.RS, world.tokens, prefix="/oauth", issuer=world.RS,
                              metadata_paths=["/.well-known/oauth-authorization-server"])
    rs_app = world.rs.app

    async def combined(scope: Any, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        target = legacy.app if path.startswith(("/oauth", "/.well-known/oauth-authorization-server")) else rs_app
        await target(scope, receive, send)

    world.rs.app = combined
    assert (await world.call(world.provider())).status_code == 200
    assert [path for _, path in legacy.log] == ["/.well-known/oauth-authorization-server", "/oauth/register",
                                                "/oauth/authorize", "/oauth/token"]


async def test_the_resource_parameter_follows_metadata_or_the_protocol_version(world: Any) -> None:
    """Sent once protected resource metadata was found; without it, only from 2025-06-18 on."""
    assert (await world.call(world.provider())).status_code == 200
    assert world.auth.authorize_requests[0]["resource"] == world.MCP_URL
    assert world.auth.token_requests[0]["resource"] == world.MCP_URL
    provider = world.provider()
    assert not provider.context.should_include_resource_param(None)
    assert not provider.context.should_include_resource_param("2025-03-26")
    assert provider.context.should_include_resource_param("2025-06-18")


async def test_a_2025_03_26_server_without_any_metadata_uses_the_default_endpoints(world: Any) -> None:
    world.rs.prm_paths = []
    world.rs.header_metadata = None
    legacy = world.AuthServer(world.RS, world.tokens, issuer=world.RS, metadata=False)
    rs_app = world.rs.app

    async def combined(scope: Any, receive: Any, send: Any) -> None:
        target = legacy.app if scope.get("path", "") in ("/authorize", "/token", "/register",
                                                         "/.well-known/oauth-authorization-server",
                                                         "/.well-known/openid-configuration") else rs_app
        await target(scope, receive, send)

    world.rs.app = combined
    world.tamper = lambda result: AuthorizationCodeResult(code=result.code, state=result.state, iss=None)
    assert (await world.call(world.provider())).status_code == 200
    # the 2025-03-26 path looks for RFC 8414 metadata at the origin only
    assert [path for _, path in legacy.log] == ["/.well-known/oauth-authorization-server",
                                                "/register", "/authorize", "/token"]
    assert world.auth.authorize_requests[0:] == []


# -- scope selection ------------------------------------------------------------------------------


async def test_the_challenge_scope_wins(world: Any) -> None:
    world.rs.challenge_scope = "mcp:basic"
    world.rs.scopes_supported = ["mcp:basic", "mcp:other"]
    assert (await world.call(world.provider())).status_code == 200
    assert world.auth.authorize_requests[0]["scope"] == "mcp:basic"
    assert world.auth.registrations[0]["scope"] == "mcp:basic"


async def test_without_a_challenge_scope_all_scopes_supported_are_requested(world: Any) -> None:
    world.rs.scopes_supported = ["mcp:basic", "mcp:read", "mcp:write"]
    assert (await world.call(world.provider())).status_code == 200
    assert world.auth.authorize_requests[0]["scope"] == "mcp:basic mcp:read mcp:write"


async def test_without_any_scope_guidance_no_scope_is_requested(world: Any) -> None:
    """As the official SDK: the selection (challenge, then resource, then authorization server)
    replaces `client_metadata.scope`, so with no guidance at all no scope is asked for."""
    metadata = OAuthClientMetadata(redirect_uris=[AnyUrl(world.REDIRECT_URI)], scope="user")
    provider = world.provider(metadata=metadata)
    assert (await world.call(provider)).status_code == 200
    assert "scope" not in world.auth.authorize_requests[0]
    assert provider.context.client_metadata.scope is None


async def test_offline_access_is_requested_with_a_consent_prompt_when_offered(world: Any) -> None:
    world.rs.scopes_supported = ["mcp:basic"]
    world.auth.scopes_supported = ["mcp:basic", "offline_access"]
    assert (await world.call(world.provider())).status_code == 200
    assert world.auth.authorize_requests[0]["scope"] == "mcp:basic offline_access"
    assert world.auth.authorize_requests[0]["prompt"] == "consent"


async def test_a_challenged_scope_is_requested_as_challenged(world: Any) -> None:
    """`offline_access` is only ever added, never taken out of what the server challenged."""
    world.rs.challenge_scope = "mcp:basic offline_access"
    world.auth.scopes_supported = ["mcp:basic"]
    assert (await world.call(world.provider())).status_code == 200
    assert world.auth.authorize_requests[0]["scope"] == "mcp:basic offline_access"


async def test_offline_access_is_not_added_for_clients_without_refresh_tokens(world: Any) -> None:
    world.rs.scopes_supported = ["mcp:basic"]
    world.auth.scopes_supported = ["mcp:basic", "offline_access"]
    metadata = OAuthClientMetadata(redirect_uris=[AnyUrl(world.REDIRECT_URI)], grant_types=["authorization_code"])
    assert (await world.call(world.provider(metadata=metadata))).status_code == 200
    assert world.auth.authorize_requests[0]["scope"] == "mcp:basic"
    assert "prompt" not in world.auth.authorize_requests[0]


# -- step-up ------------------------------------------------------------------------------------


async def test_insufficient_scope_steps_up_with_the_union_of_scopes(world: Any) -> None:
    world.rs.challenge_scope = "mcp:basic"
    world.rs.required = lambda request: ["mcp:write"] if request.headers.get("x-op") == "write" else ["mcp:basic"]
    provider = world.provider()
    async with world.client(provider) as http:
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
        response = await http.post(world.MCP_URL, content=b"{}", headers={"x-op": "write"})
    assert response.status_code == 200
    assert [request.get("scope") for request in world.auth.authorize_requests] == ["mcp:basic", "mcp:basic mcp:write"]
    assert response.json()["scopes"] == ["mcp:basic", "mcp:write"]
    assert len(world.auth.registrations) == 1


async def test_a_request_is_authorized_at_most_once_and_its_retry_is_final(world: Any) -> None:
    """As the official SDK: each request answers one challenge (a 401 or a 403 step-up) and is
    sent once more; whatever the retry gets is the answer, with no loop."""
    world.rs.challenge_scope = "mcp:admin"
    world.rs.required = lambda request: ["mcp:admin", "never-granted"]
    world.auth.scopes_supported = ["mcp:admin"]
    provider = world.provider()
    async with world.client(provider) as http:
        statuses = [(await http.post(world.MCP_URL, content=b"{}")).status_code for _ in range(3)]
    assert statuses == [403, 403, 403]
    assert len(world.auth.authorize_requests) == 3  # the first authorization, then one step-up each


async def test_a_403_without_insufficient_scope_is_returned_as_is(world: Any) -> None:
    async def forbidden(scope: Any, receive: Any, send: Any) -> None:
        await httpx_response(send, 403, b"no")

    world.rs.app = forbidden
    assert (await world.call(world.provider())).status_code == 403
    assert world.auth.log == []


async def httpx_response(send: Any, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": body})


# -- authorization response validation (state, RFC 9207 iss) --------------------------------------


@pytest.mark.parametrize(
    ("supported", "mode", "accepted"),
    [
        (True, "correct", True),
        (None, "omit", True),
        (False, "omit", True),
        (None, "correct", True),
        (True, "omit", False),
        (True, "wrong", False),
        (None, "wrong", False),
        (True, "normalized", False),
    ],
)
async def test_the_iss_parameter_is_checked_before_the_code_is_used(world: Any, supported: bool | None, mode: str,
                                                                    accepted: bool) -> None:
    world.auth.iss_supported = supported
    world.auth.iss_mode = mode
    if accepted:
        assert (await world.call(world.provider())).status_code == 200
        assert len(world.auth.token_requests) == 1
    else:
        with pytest.raises(OAuthFlowError, match="iss"):
            await world.call(world.provider())
        assert world.auth.token_requests == []


async def test_a_state_mismatch_is_refused(world: Any) -> None:
    world.tamper = lambda result: AuthorizationCodeResult(code=result.code, state="forged", iss=result.iss)
    with pytest.raises(OAuthFlowError, match=r"^State parameter mismatch: forged != "):
        await world.call(world.provider())
    assert world.auth.token_requests == []


async def test_a_callback_may_return_a_code_state_tuple(world: Any) -> None:
    world.auth.iss_supported = None
    world.auth.iss_mode = "omit"

    async def legacy_callback() -> tuple[str, str | None]:
        result = await world.callback_handler()
        return result.code, result.state

    provider = world.provider()
    provider.context.callback_handler = legacy_callback
    assert (await world.call(provider)).status_code == 200


async def test_the_flow_needs_both_handlers(world: Any) -> None:
    provider = OAuthClientProvider(world.MCP_URL, OAuthClientMetadata(redirect_uris=[AnyUrl(world.REDIRECT_URI)]),
                                   world.Storage())
    with pytest.raises(OAuthFlowError, match=r"^No redirect handler provided for authorization code grant$"):
        await world.call(provider)


# -- client registration --------------------------------------------------------------------------


async def test_stored_client_information_is_used_without_registering(world: Any) -> None:
    client_info = OAuthClientInformationFull(client_id="pre-registered", client_secret="s3cret",
                                             redirect_uris=[AnyUrl(world.REDIRECT_URI)],
                                             token_endpoint_auth_method="client_secret_basic")
    world.auth.registration = False
    assert (await world.call(world.provider(world.Storage(client_info=client_info)))).status_code == 200
    assert world.auth.registrations == []
    assert world.auth.authorize_requests[0]["client_id"] == "pre-registered"
    header = world.auth.token_auth_headers[0]
    assert header == "Basic " + base64.b64encode(b"pre-registered:s3cret").decode()


async def test_a_client_id_metadata_document_replaces_registration_when_supported(world: Any) -> None:
    world.auth.cimd = True
    storage = world.Storage()
    url = "https://client.example.com/oauth/client.json"
    assert (await world.call(world.provider(storage, client_metadata_url=url))).status_code == 200
    assert world.auth.registrations == []
    assert world.auth.authorize_requests[0]["client_id"] == url
    assert world.auth.token_requests[0]["client_id"] == url
    assert "client_secret" not in world.auth.token_requests[0]
    assert storage.client_info is not None and storage.client_info.client_id == url


async def test_without_server_support_the_metadata_document_url_falls_back_to_registration(world: Any) -> None:
    url = "https://client.example.com/oauth/client.json"
    assert (await world.call(world.provider(client_metadata_url=url))).status_code == 200
    assert len(world.auth.registrations) == 1
    assert world.auth.authorize_requests[0]["client_id"] == "dcr-client"


@pytest.mark.parametrize("url", ["http://client.example.com/client.json", "https://client.example.com",
                                 "https://client.example.com/", "not a url"])
async def test_a_metadata_document_url_must_be_https_with_a_path(world: Any, url: str) -> None:
    with pytest.raises(ValueError, match="client_metadata_url must be a valid HTTPS URL"):
        world.provider(client_metadata_url=url)


async def test_without_a_registration_endpoint_the_mcp_servers_origin_is_asked(world: Any) -> None:
    """As the official SDK: `/register` on the MCP server's origin is the fallback."""
    world.auth.registration = False
    with pytest.raises(OAuthRegistrationError, match=r"^Registration failed: 404 "):
        await world.call(world.provider())
    assert ("POST", "/register") in world.rs.log


async def test_a_refused_registration_is_a_registration_error(world: Any) -> None:
    world.auth.registration_status = 400
    with pytest.raises(OAuthRegistrationError, match=r"^Registration failed: 400 .*invalid_client_metadata"):
        await world.call(world.provider())


async def test_an_unusable_registered_auth_method_is_a_registration_error(world: Any) -> None:
    world.auth.registration_method = "tls_client_auth"
    with pytest.raises(OAuthRegistrationError, match="tls_client_auth"):
        await world.call(world.provider())


async def test_registration_sends_native_unless_the_client_says_web(world: Any) -> None:
    assert (await world.call(world.provider())).status_code == 200
    assert world.auth.registrations[0]["application_type"] == "native"
    metadata = OAuthClientMetadata(redirect_uris=[AnyUrl("https://app.example.com/callback")], application_type="web")
    assert (await world.call(world.provider(metadata=metadata))).status_code == 200
    assert world.auth.registrations[1]["application_type"] == "web"
    assert world.auth.authorize_requests[1]["redirect_uri"] == "https://app.example.com/callback"


# -- token endpoint client authentication ---------------------------------------------------------


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post", "none"])
async def test_the_registered_token_endpoint_auth_method_is_used(world: Any, method: str) -> None:
    world.auth.auth_methods = [method]
    world.auth.registration_method = method
    world.auth.registration_secret = method != "none"
    assert (await world.call(world.provider())).status_code == 200
    form, header = world.auth.token_requests[0], world.auth.token_auth_headers[0]
    if method == "client_secret_basic":
        assert header == "Basic " + base64.b64encode(b"dcr-client:dcr-client-secret").decode()
        assert "client_secret" not in form
    elif method == "client_secret_post":
        assert header is None
        assert (form["client_id"], form["client_secret"]) == ("dcr-client", "dcr-client-secret")
    else:
        assert header is None
        assert form["client_id"] == "dcr-client" and "client_secret" not in form


async def test_basic_credentials_are_form_encoded(world: Any) -> None:
    client_info = OAuthClientInformationFull(client_id="id with:colon", client_secret="p@ss word",
                                             redirect_uris=[AnyUrl(world.REDIRECT_URI)],
                                             token_endpoint_auth_method="client_secret_basic")
    assert (await world.call(world.provider(world.Storage(client_info=client_info)))).status_code == 200
    decoded = base64.b64decode(world.auth.token_auth_headers[0][6:]).decode()
    client_id, secret = decoded.split(":")
    assert (unquote(client_id), unquote(secret)) == ("id with:colon", "p@ss word")


async def test_a_secret_without_a_registered_method_is_not_sent(world: Any) -> None:
    """The registered `token_endpoint_auth_method` decides, never the server's advertised list."""
    world.auth.auth_methods = ["client_secret_post"]
    assert (await world.call(world.provider())).status_code == 200
    assert "client_secret" not in world.auth.token_requests[0]
    assert world.auth.token_auth_headers[0] is None


async def test_a_refused_token_request_is_a_token_error(world: Any) -> None:
    world.auth.token_status = 400
    with pytest.raises(OAuthTokenError, match=r"^Token exchange failed \(400\): .*invalid_grant"):
        await world.call(world.provider())


# -- refresh --------------------------------------------------------------------------------------


async def test_an_expired_token_is_refreshed_before_the_request(world: Any) -> None:
    world.auth.refresh_tokens = True
    world.auth.expires_in = -1  # expired as soon as it is issued
    provider = world.provider()
    async with world.client(provider) as http:
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
        world.auth.expires_in = 3600
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
    grants = [request["grant_type"] for request in world.auth.token_requests]
    assert grants == ["authorization_code", "refresh_token"]
    assert sorted(world.auth.token_requests[1]) == ["client_id", "grant_type", "refresh_token", "resource"]
    assert world.auth.token_requests[1]["resource"] == world.MCP_URL
    assert len(world.auth.authorize_requests) == 1
    assert world.rs.authorizations[-1] == "Bearer at-2"


async def test_a_token_refused_with_401_starts_a_new_authorization_not_a_refresh(world: Any) -> None:
    """As the official SDK: a refresh is tried only for a token whose known lifetime ran out; a
    `401` is answered with discovery and a new authorization."""
    world.auth.refresh_tokens = True
    world.auth.refresh["rt-stored"] = []
    storage = world.Storage(tokens=OAuthToken(access_token="revoked", refresh_token="rt-stored"),
                            client_info=OAuthClientInformationFull(client_id="dcr-client",
                                                                   redirect_uris=[AnyUrl(world.REDIRECT_URI)]))
    assert (await world.call(world.provider(storage))).status_code == 200
    assert [request["grant_type"] for request in world.auth.token_requests] == ["authorization_code"]
    assert len(world.auth.authorize_requests) == 1
    assert storage.tokens is not None and storage.tokens.access_token == "at-1"


async def test_a_refresh_keeps_the_refresh_token_when_none_is_returned(world: Any) -> None:
    world.auth.refresh_tokens = True
    world.auth.expires_in = -1
    storage = world.Storage()
    provider = world.provider(storage)
    async with world.client(provider) as http:
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
        first = storage.tokens.refresh_token if storage.tokens is not None else None
        world.auth.refresh_tokens = False  # the refresh response carries no new refresh token
        world.auth.expires_in = 3600
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
    assert [request["grant_type"] for request in world.auth.token_requests] == ["authorization_code", "refresh_token"]
    assert first is not None and storage.tokens is not None and storage.tokens.refresh_token == first


async def test_a_failed_refresh_falls_back_to_authorization(world: Any) -> None:
    world.auth.refresh_tokens = True
    world.auth.expires_in = -1
    provider = world.provider()
    async with world.client(provider) as http:
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
        world.auth.refresh_status = 400
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
    assert [request["grant_type"] for request in world.auth.token_requests] == \
        ["authorization_code", "refresh_token", "authorization_code"]
    assert len(world.auth.registrations) == 1


# -- authorization server binding -----------------------------------------------------------------


async def test_credentials_are_not_reused_at_a_new_authorization_server(world: Any) -> None:
    current = [world.AS]
    world.rs.authorization_servers = lambda: list(current)
    world.rs.accept = lambda token, scopes, issuer: issuer == current[0]
    storage = world.Storage()
    provider = world.provider(storage)
    async with world.client(provider) as http:
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
        current[0] = world.AS2
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
    assert len(world.auth2.registrations) == 1
    assert [request["client_id"] for request in world.auth2.authorize_requests] == ["as2-client"]
    assert all(request.get("client_id") != "dcr-client" for request in world.auth2.token_requests)
    assert storage.client_info is not None and storage.client_info.client_id == "as2-client"


async def test_a_registration_is_stored_with_its_issuer_and_not_reused_elsewhere_later(world: Any) -> None:
    storage = world.Storage()
    assert (await world.call(world.provider(storage))).status_code == 200
    assert storage.client_info is not None and storage.client_info.issuer == world.AS
    world.rs.authorization_servers = lambda: [world.AS2]
    world.rs.accept = lambda token, scopes, issuer: issuer == world.AS2
    assert (await world.call(world.provider(storage))).status_code == 200  # a new process, same storage
    assert len(world.auth2.registrations) == 1
    assert storage.client_info is not None and storage.client_info.issuer == world.AS2


async def test_stored_credentials_without_an_issuer_carry_no_binding(world: Any) -> None:
    client_info = OAuthClientInformationFull(client_id="pre-registered", redirect_uris=[AnyUrl(world.REDIRECT_URI)])
    storage = world.Storage(client_info=client_info)
    world.rs.authorization_servers = lambda: [world.AS2]
    world.rs.accept = lambda token, scopes, issuer: issuer == world.AS2
    assert (await world.call(world.provider(storage))).status_code == 200
    assert world.auth2.registrations == []
    assert [request["client_id"] for request in world.auth2.authorize_requests] == ["pre-registered"]


async def test_stored_credentials_are_kept_for_the_same_authorization_server(world: Any) -> None:
    client_info = OAuthClientInformationFull(client_id="kept", redirect_uris=[AnyUrl(world.REDIRECT_URI)])
    storage = world.Storage(client_info=client_info)
    provider = world.provider(storage)
    async with world.client(provider) as http:
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
        world.tokens.issued.clear()  # every token is revoked: authorize again at the same server
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200
    assert world.auth.registrations == []
    assert [request["client_id"] for request in world.auth.authorize_requests] == ["kept", "kept"]


# -- values -------------------------------------------------------------------------------------


def test_pkce_parameters_are_a_verifier_and_its_s256_challenge() -> None:
    pkce = PKCEParameters.generate()
    assert 43 <= len(pkce.code_verifier) <= 128
    import hashlib

    expected = base64.urlsafe_b64encode(hashlib.sha256(pkce.code_verifier.encode()).digest()).decode().rstrip("=")
    assert pkce.code_challenge == expected
    assert PKCEParameters.generate().code_verifier != pkce.code_verifier


async def test_in_memory_storage_satisfies_the_protocol(world: Any) -> None:
    storage: TokenStorage = world.Storage()
    assert isinstance(storage, TokenStorage)
    assert await storage.get_tokens() is None


def test_the_constructor_keeps_the_documented_parameter_order() -> None:
    import inspect

    parameters = list(inspect.signature(OAuthClientProvider.__init__).parameters)
    assert parameters == ["self", "server_url", "client_metadata", "storage", "redirect_handler",
                          "callback_handler", "client_metadata_url", "validate_resource_url"]


def test_the_provider_context_exposes_configuration() -> None:
    metadata = OAuthClientMetadata(redirect_uris=[AnyUrl("http://localhost:1/cb")])
    provider = OAuthClientProvider("http://localhost:2/mcp", metadata, storage=None)  # type: ignore[arg-type]
    assert provider.context.client_metadata is metadata
    assert provider.context.redirect_handler is None and provider.context.callback_handler is None
    assert provider.context.get_resource_url() == "http://localhost:2/mcp"


def test_token_validity_follows_expires_in() -> None:
    provider = OAuthClientProvider("http://localhost:2/mcp",
                                   OAuthClientMetadata(redirect_uris=[AnyUrl("http://localhost:1/cb")]),
                                   storage=None)  # type: ignore[arg-type]
    context = provider.context
    assert not context.is_token_valid()
    context.current_tokens = OAuthToken(access_token="a", expires_in=3600)
    context.update_token_expiry(context.current_tokens)
    assert context.is_token_valid()
    context.token_expiry_time = time.time() - 1
    assert not context.is_token_valid()
    context.current_tokens = OAuthToken(access_token="a")
    context.update_token_expiry(context.current_tokens)
    assert context.is_token_valid()


async def test_network_errors_during_the_flow_pass_through_untouched(world: Any) -> None:
    def unreachable(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    mounts = world.mounts()
    mounts[world.AS] = httpx.MockTransport(unreachable)
    async with httpx.AsyncClient(auth=world.provider(), mounts=mounts) as http:
        with pytest.raises(httpx.ConnectError):
            await http.post(world.MCP_URL, content=b"{}")
        world.auth.registration = True
        mounts_ok = world.mounts()
    async with httpx.AsyncClient(auth=world.provider(), mounts=mounts_ok) as http:
        assert (await http.post(world.MCP_URL, content=b"{}")).status_code == 200



async def test_a_subclass_can_guard_the_authorization_step(world: Any) -> None:
    """FastMCP's `OAuth` overrides `_perform_authorization` to refuse expired registrations."""

    class Guarded(OAuthClientProvider):
        async def _perform_authorization(self) -> httpx2.Request:
            assert self.context.client_info is not None
            raise OAuthFlowError(f"refusing {self.context.client_info.client_id}")

    base = world.provider()
    guarded = Guarded(server_url=base.context.server_url, client_metadata=base.context.client_metadata,
                      storage=base.context.storage, redirect_handler=base.context.redirect_handler,
                      callback_handler=base.context.callback_handler)
    with pytest.raises(OAuthFlowError, match="refusing"):
        await world.call(guarded)
    assert len(world.auth.registrations) == 1 and world.auth.authorize_requests == []


def test_prepare_token_auth_applies_the_registered_method(world: Any) -> None:
    context = world.provider().context
    assert context.prepare_token_auth({"grant_type": "x"}, {}) == ({"grant_type": "x"}, {})
    context.client_info = OAuthClientInformationFull(client_id="a b", client_secret="s:1",
                                                     token_endpoint_auth_method="client_secret_basic")
    data, headers = context.prepare_token_auth({"grant_type": "x", "client_secret": "leak"}, {})
    assert data == {"grant_type": "x"}
    assert base64.b64decode(headers["Authorization"].removeprefix("Basic ")) == b"a%20b:s%3A1"
    context.client_info = context.client_info.model_copy(update={"token_endpoint_auth_method": "client_secret_post"})
    assert context.prepare_token_auth({"grant_type": "x"}, {}) == (
        {"grant_type": "x", "client_id": "a b", "client_secret": "s:1"}, {})
    context.client_info = context.client_info.model_copy(update={"token_endpoint_auth_method": "tls_client_auth"})
    with pytest.raises(OAuthTokenError, match="unsupported token_endpoint_auth_method 'tls_client_auth'"):
        context.prepare_token_auth({}, {})
