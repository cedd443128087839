"""The pure helpers of the OAuth client and the shared OAuth models."""

from __future__ import annotations

import json

import httpx2
import pytest
from pydantic import AnyUrl, ValidationError

from mcp.client.auth import OAuthFlowError, OAuthRegistrationError, utils
from mcp.client.auth.utils import (
    authorization_server_metadata_urls,
    canonical_resource,
    is_valid_client_metadata_url,
    issuers_match,
    parse_www_authenticate,
    protected_resource_metadata_urls,
    resource_covers,
    split_scopes,
)
from mcp.shared.auth import (
    InvalidRedirectUriError,
    InvalidScopeError,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("", None),
        ('Bearer resource_metadata="https://rs.example/.well-known/x"',
         {"resource_metadata": "https://rs.example/.well-known/x"}),
        ('Bearer error="insufficient_scope", scope="files:read files:write", error_description="a, b"',
         {"error": "insufficient_scope", "scope": "files:read files:write", "error_description": "a, b"}),
        ("bearer realm=example, SCOPE=x", {"realm": "example", "scope": "x"}),
        ('Bearer realm="a \\"quoted\\" word"', {"realm": 'a "quoted" word'}),
        ('DPoP algs="ES256", Bearer scope="a"', {"scope": "a"}),
        ('Bearer scope="a", DPoP algs="ES256"', {"scope": "a"}),
        ("Bearer", {}),
        ('Basic realm="x"', None),
        ("Basic dXNlcjpwYXNz, Bearer error=invalid_token", {"error": "invalid_token"}),
    ],
)
def test_www_authenticate_parsing(header: str | None, expected: dict[str, str] | None) -> None:
    assert parse_www_authenticate(header) == expected


def test_split_scopes_keeps_order_and_drops_duplicates() -> None:
    assert split_scopes("b a  b c") == ["b", "a", "c"]
    assert split_scopes(None) == []


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("HTTPS://MCP.Example.COM/mcp", "https://mcp.example.com/mcp"),
        ("https://mcp.example.com/", "https://mcp.example.com"),
        ("https://mcp.example.com/mcp/", "https://mcp.example.com/mcp"),
        ("https://mcp.example.com:8443/mcp#frag", "https://mcp.example.com:8443/mcp"),
        ("https://mcp.example.com/mcp?x=1", "https://mcp.example.com/mcp"),
    ],
)
def test_canonical_resource(url: str, canonical: str) -> None:
    assert canonical_resource(url) == canonical


def test_protected_resource_metadata_urls_follow_the_spec_order() -> None:
    assert protected_resource_metadata_urls("https://rs.example/public/mcp", "https://rs.example/custom") == [
        "https://rs.example/custom",
        "https://rs.example/.well-known/oauth-protected-resource/public/mcp",
        "https://rs.example/.well-known/oauth-protected-resource",
    ]
    assert protected_resource_metadata_urls("https://rs.example", None) == [
        "https://rs.example/.well-known/oauth-protected-resource",
    ]


def test_authorization_server_metadata_urls_follow_the_spec_order() -> None:
    assert authorization_server_metadata_urls("https://auth.example.com/tenant1") == [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]
    assert authorization_server_metadata_urls("https://auth.example.com/") == [
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration",
    ]


@pytest.mark.parametrize(
    ("resource", "server", "covers"),
    [
        ("https://rs.example/mcp", "https://rs.example/mcp", True),
        ("https://rs.example", "https://rs.example/mcp", True),
        ("https://rs.example/", "https://rs.example/mcp", True),
        ("https://RS.example:443/mcp", "https://rs.example/mcp", True),
        ("https://rs.example/mcp", "https://rs.example/mcp/sub", True),
        ("https://rs.example/mc", "https://rs.example/mcp", False),
        ("https://rs.example/mcp/sub", "https://rs.example/mcp", False),
        ("http://rs.example/mcp", "https://rs.example/mcp", False),
        ("https://rs.example:8443/mcp", "https://rs.example/mcp", False),
        ("https://evil.example/mcp", "https://rs.example/mcp", False),
    ],
)
def test_resource_covers(resource: str, server: str, covers: bool) -> None:
    assert resource_covers(resource, server) is covers


def test_issuers_match_is_exact_but_for_a_trailing_slash() -> None:
    assert issuers_match("https://as.example", "https://as.example/")
    assert not issuers_match("https://as.example", "https://AS.example")
    assert not issuers_match("https://as.example", "https://attacker.example")


def test_client_metadata_document_urls() -> None:
    assert is_valid_client_metadata_url("https://app.example/oauth/client.json")
    assert not is_valid_client_metadata_url("https://app.example/")
    assert not is_valid_client_metadata_url("http://app.example/client.json")
    assert not is_valid_client_metadata_url(None)


# -- models -------------------------------------------------------------------------------------


def test_client_metadata_defaults_are_the_authorization_code_flow() -> None:
    metadata = OAuthClientMetadata(redirect_uris=[AnyUrl("http://localhost:3030/callback")])
    assert metadata.grant_types == ["authorization_code", "refresh_token"]
    assert metadata.response_types == ["code"]


def test_redirect_uris_is_required() -> None:
    with pytest.raises(ValidationError, match="redirect_uris\n  Field required"):
        OAuthClientMetadata.model_validate({"client_name": "Bookshop Agent"})


def test_client_information_may_omit_redirect_uris() -> None:
    info = OAuthClientInformationFull(client_id="c")
    assert info.redirect_uris is None and info.client_secret is None


def test_scope_and_redirect_uri_validation() -> None:
    info = OAuthClientInformationFull(client_id="c", scope="a b",
                                      redirect_uris=[AnyUrl("http://localhost/cb")])
    assert info.validate_scope("a") == ["a"]
    assert info.validate_scope(None) is None
    with pytest.raises(InvalidScopeError):
        info.validate_scope("a c")
    assert str(info.validate_redirect_uri(None)) == "http://localhost/cb"
    with pytest.raises(InvalidRedirectUriError):
        info.validate_redirect_uri(AnyUrl("http://localhost/other"))


def test_token_type_is_normalized() -> None:
    assert OAuthToken.model_validate({"access_token": "x", "token_type": "bearer"}).token_type == "Bearer"
    assert OAuthToken(access_token="x").token_type == "Bearer"


def test_path_less_identifiers_get_no_trailing_slash() -> None:
    metadata = OAuthMetadata.model_validate({"issuer": "https://as.example", "authorization_endpoint":
                                             "https://as.example/a", "token_endpoint": "https://as.example/t"})
    assert str(metadata.issuer) == "https://as.example"
    prm = ProtectedResourceMetadata.model_validate({"resource": "https://rs.example",
                                                    "authorization_servers": ["https://as.example"]})
    assert str(prm.resource) == "https://rs.example"
    assert [str(server) for server in prm.authorization_servers] == ["https://as.example"]
    with pytest.raises(ValidationError):
        OAuthMetadata.model_validate({"issuer": "not a url", "authorization_endpoint": "https://as.example/a",
                                      "token_endpoint": "https://as.example/t"})
    with pytest.raises(ValidationError):
        ProtectedResourceMetadata.model_validate({"resource": "https://rs.example", "authorization_servers": []})


# -- the official helper functions ------------------------------------------------------------------


def _challenge(header: str, status: int = 401) -> httpx2.Response:
    return httpx2.Response(status, headers={"WWW-Authenticate": header})


def test_www_authenticate_fields_are_read_quoted_or_bare() -> None:
    response = _challenge('Bearer error="insufficient_scope", scope="read write", '
                          'resource_metadata=https://x.example/.well-known/oauth-protected-resource')
    assert utils.extract_scope_from_www_auth(response) == "read write"
    assert utils.extract_field_from_www_auth(response, "error") == "insufficient_scope"
    assert utils.extract_resource_metadata_from_www_auth(response) == (
        "https://x.example/.well-known/oauth-protected-resource")
    assert utils.extract_resource_metadata_from_www_auth(_challenge("Bearer resource_metadata=x", 400)) is None
    assert utils.extract_field_from_www_auth(httpx2.Response(401), "scope") is None


def test_discovery_urls_follow_the_spec_order() -> None:
    assert utils.build_protected_resource_metadata_discovery_urls("https://x.example/custom", "https://x.example/mcp") == [
        "https://x.example/custom",
        "https://x.example/.well-known/oauth-protected-resource/mcp",
        "https://x.example/.well-known/oauth-protected-resource",
    ]
    assert utils.build_oauth_authorization_server_metadata_discovery_urls("https://as.example/tenant/", "") == [
        "https://as.example/.well-known/oauth-authorization-server/tenant",
        "https://as.example/.well-known/openid-configuration/tenant",
        "https://as.example/tenant/.well-known/openid-configuration",
    ]
    assert utils.build_oauth_authorization_server_metadata_discovery_urls(None, "https://x.example/mcp") == [
        "https://x.example/.well-known/oauth-authorization-server"]


def test_scope_selection_prefers_the_challenge_and_adds_offline_access() -> None:
    prm = ProtectedResourceMetadata.model_validate({"resource": "https://x.example/mcp",
                                                    "authorization_servers": ["https://as.example"],
                                                    "scopes_supported": ["read"]})
    asm = OAuthMetadata.model_validate({"issuer": "https://as.example", "authorization_endpoint": "https://as.example/a",
                                        "token_endpoint": "https://as.example/t",
                                        "scopes_supported": ["read", "offline_access"]})
    assert utils.get_client_metadata_scopes("write", prm) == "write"
    assert utils.get_client_metadata_scopes(None, prm, asm, ["authorization_code", "refresh_token"]) == (
        "read offline_access")
    assert utils.get_client_metadata_scopes(None, None, asm, ["authorization_code"]) == "read offline_access"
    assert utils.get_client_metadata_scopes(None, None) is None
    assert utils.union_scopes("read write", "write admin") == "read write admin"
    assert utils.union_scopes(None, "read") == "read" and utils.union_scopes("read", "") == "read"


def test_issuers_match_only_tolerates_a_root_trailing_slash() -> None:
    assert utils.issuers_match(a="https://as.example", b="https://as.example/")
    assert not utils.issuers_match("https://as.example/tenant", "https://as.example/tenant/")
    info = OAuthClientInformationFull(client_id="c", issuer="https://as.example")
    assert utils.credentials_match_issuer(info, "https://as.example/", None)
    assert not utils.credentials_match_issuer(info, "https://other.example", None)
    assert utils.credentials_match_issuer(OAuthClientInformationFull(client_id="c"), "https://other.example", None)


@pytest.mark.anyio
async def test_a_registration_response_never_sets_the_issuer_binding() -> None:
    response = httpx2.Response(201, json={"client_id": "c", "client_secret": "s", "issuer": "https://evil.example",
                                         "redirect_uris": None})
    info = await utils.handle_registration_response(response)
    assert info.client_id == "c" and info.issuer is None and info.redirect_uris is None
    with pytest.raises(OAuthRegistrationError, match="Registration failed: 400"):
        await utils.handle_registration_response(httpx2.Response(400, text="nope"))


@pytest.mark.anyio
async def test_metadata_responses_say_whether_to_keep_looking() -> None:
    assert await utils.handle_auth_metadata_response(httpx2.Response(404)) == (True, None)
    assert await utils.handle_auth_metadata_response(httpx2.Response(500)) == (False, None)
    keep, metadata = await utils.handle_auth_metadata_response(httpx2.Response(200, json={
        "issuer": "https://as.example", "authorization_endpoint": "https://as.example/a",
        "token_endpoint": "https://as.example/t"}))
    assert keep and metadata is not None and str(metadata.issuer) == "https://as.example"
    assert await utils.handle_protected_resource_response(httpx2.Response(404)) is None
    utils.validate_metadata_issuer(metadata, "https://as.example")
    with pytest.raises(OAuthFlowError, match="issuer mismatch"):
        utils.validate_metadata_issuer(metadata, "https://as.example/")
    with pytest.raises(OAuthFlowError, match="iss mismatch"):
        utils.validate_authorization_response_iss("https://evil.example", metadata)
    utils.validate_authorization_response_iss(None, metadata)
    token = await utils.handle_token_response_scopes(httpx2.Response(200, json={"access_token": "a",
                                                                               "token_type": "bearer"}))
    assert token.token_type == "Bearer"


def test_requests_are_built_for_the_flow_to_send() -> None:
    request = utils.create_oauth_metadata_request("https://as.example/.well-known/oauth-authorization-server")
    assert request.method == "GET" and request.headers["mcp-protocol-version"]
    metadata = OAuthClientMetadata(redirect_uris=[AnyUrl("http://127.0.0.1:3030/cb")])
    registration = utils.create_client_registration_request(None, metadata, "https://as.example/base")
    assert str(registration.url) == "https://as.example/register"
    assert json.loads(registration.content)["application_type"] == "native"
    assert utils.should_use_client_metadata_url(None, "https://app.example/client.json") is False
    info = utils.create_client_info_from_metadata_url("https://app.example/client.json")
    assert info.client_id == "https://app.example/client.json" and info.token_endpoint_auth_method == "none"
