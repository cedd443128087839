"""The pure helpers of the OAuth client and the shared OAuth models."""

from __future__ import annotations

import pytest
from pydantic import AnyUrl, ValidationError

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
