"""`mcp.shared.auth_utils`: RFC 8707 resource URLs, hierarchical resource matching, token expiry."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pydantic import AnyUrl

from mcp.shared import auth_utils
from mcp.shared.auth_utils import calculate_token_expiry, check_resource_allowed, resource_url_from_server_url


def test_the_resource_url_is_lowercased_and_loses_its_fragment() -> None:
    assert resource_url_from_server_url("HTTPS://MCP.Example.COM/Path?q=1#frag") == "https://mcp.example.com/Path?q=1"
    assert resource_url_from_server_url(AnyUrl("https://mcp.example.com/mcp")) == "https://mcp.example.com/mcp"


def test_a_resource_is_allowed_at_or_below_the_configured_path() -> None:
    assert check_resource_allowed("https://x.example/api/v1", "https://x.example/api")
    assert check_resource_allowed("https://x.example/api/", "https://X.example/api")
    assert not check_resource_allowed("https://x.example/api123", "https://x.example/api")
    assert not check_resource_allowed("http://x.example/api", "https://x.example/api")


def test_token_expiry_is_computed_from_expires_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auth_utils, "time", SimpleNamespace(time=lambda: 1000.0))
    assert calculate_token_expiry("60") == 1060.0
    assert calculate_token_expiry(3600) == 4600.0
    assert calculate_token_expiry(None) is None
