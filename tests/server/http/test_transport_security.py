"""DNS-rebinding protection: Host and Origin allowlists on the HTTP transports."""

import anyio
import pytest
from httpkit import (
    build_server,
    connect,
    initialize,
    legacy_headers,
    modern,
    modern_headers,
)

from mcp.server.transport_security import TransportSecuritySettings, check, default_for_host

pytestmark = pytest.mark.anyio


def init_headers(**extra: str) -> dict[str, str]:
    return {**legacy_headers(version=None), **extra}


async def test_a_localhost_server_rejects_a_foreign_host_with_421_and_a_foreign_origin_with_403(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            bad_host = await client.post("/mcp", json=initialize(), headers=init_headers(host="evil.example.com"))
            assert bad_host.status_code == 421
            assert "content-type" not in bad_host.headers  # as officially: plainly not JSON-RPC
            assert bad_host.text == "Invalid Host header"

            port = client.base_url.port
            local = f"127.0.0.1:{port}" if port else "127.0.0.1"
            bad_origin = await client.post("/mcp", json=initialize(),
                                           headers=init_headers(host=local, origin="http://evil.example.com"))
            assert bad_origin.status_code == 403
            assert "content-type" not in bad_origin.headers
            assert bad_origin.text == "Invalid Origin header"

            for method in ("GET", "DELETE"):
                response = await client.request(method, "/mcp", headers={"host": "evil.example.com",
                                                                          "accept": "text/event-stream"})
                assert response.status_code == 421
            assert mcp.session_manager.session_count == 0

            good = await client.post("/mcp", json=initialize(),
                                     headers=init_headers(host=local, origin=f"http://{local}"))
            assert good.status_code == 200
            assert "mcp-session-id" in good.headers


async def test_the_2026_wire_is_protected_too(wire: str) -> None:
    mcp = build_server()
    discover = modern(1, "server/discover")
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            response = await client.post("/mcp", json=discover,
                                         headers={**modern_headers(discover), "host": "evil.example.com",
                                                  "origin": "http://evil.example.com"})
            assert response.status_code == 421
            ok = await client.post("/mcp", json=discover, headers={**modern_headers(discover), "host": "localhost:8080",
                                                                   "origin": "http://localhost:8080"})
            assert ok.status_code == 200


async def test_host_and_origin_names_are_compared_case_insensitively(wire: str) -> None:
    """Regression: `Host: LOCALHOST:8000` (legal: host names are case-insensitive) got 421."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            response = await client.post("/mcp", json=initialize(),
                                         headers=init_headers(host="LocalHost:8000", origin="HTTP://LOCALHOST:8000"))
            assert response.status_code == 200


async def test_allowed_hosts_and_origins_are_configurable(wire: str) -> None:
    mcp = build_server()
    settings = TransportSecuritySettings(allowed_hosts=["mcp.example.com", "api.example.com:*"],
                                         allowed_origins=["https://app.example.com"])
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(transport_security=settings)) as client:
            ok = await client.post("/mcp", json=initialize(),
                                   headers=init_headers(host="mcp.example.com", origin="https://app.example.com"))
            assert ok.status_code == 200
            any_port = await client.post("/mcp", json=initialize(), headers=init_headers(host="api.example.com:9443"))
            assert any_port.status_code == 200
            localhost = await client.post("/mcp", json=initialize(), headers=init_headers(host="127.0.0.1"))
            assert localhost.status_code == 421  # no longer on the list
            other_origin = await client.post("/mcp", json=initialize(),
                                             headers=init_headers(host="mcp.example.com", origin="https://evil.example.com"))
            assert other_origin.status_code == 403


async def test_protection_can_be_disabled(wire: str) -> None:
    mcp = build_server()
    settings = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(transport_security=settings)) as client:
            response = await client.post("/mcp", json=initialize(),
                                         headers=init_headers(host="evil.example.com", origin="http://evil.example.com"))
            assert response.status_code == 200


async def test_a_server_bound_to_all_interfaces_gets_no_default_protection(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(host="0.0.0.0")) as client:
            response = await client.post("/mcp", json=initialize(),
                                         headers=init_headers(host="mcp.example.com", origin="https://elsewhere.example"))
            assert response.status_code == 200


async def test_custom_routes_are_not_subject_to_the_host_check(wire: str) -> None:
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse

    mcp = build_server()

    @mcp.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            response = await client.get("/health", headers={"host": "evil.example.com"})
            assert response.status_code == 200
            assert response.text == "ok"


def test_defaults_protect_loopback_hosts_only() -> None:
    for host in ("127.0.0.1", "localhost", "::1"):
        assert default_for_host(host) is not None
    for host in ("0.0.0.0", "::", "192.168.1.10", "mcp.example.com"):
        assert default_for_host(host) is None


def test_a_wildcard_port_matches_digits_only() -> None:
    settings = TransportSecuritySettings(allowed_hosts=["127.0.0.1:*"], allowed_origins=["http://127.0.0.1:*"])
    assert check(settings, "127.0.0.1:8000", None) is None
    assert check(settings, "127.0.0.1:8000", "http://127.0.0.1:3000") is None
    assert check(settings, "127.0.0.1", None) == (421, "Invalid Host header")  # no port given
    assert check(settings, "127.0.0.1:80x", None) == (421, "Invalid Host header")
    assert check(settings, "127.0.0.1:.evil.com", None) == (421, "Invalid Host header")
    assert check(settings, "127.0.0.1.evil.com:80", None) == (421, "Invalid Host header")
    assert check(settings, None, None) == (421, "Invalid Host header")
    assert check(settings, "127.0.0.1:1", "http://127.0.0.1:1@evil.com") == (403, "Invalid Origin header")
    assert check(None, "anything", "http://anything") is None


def test_allowlists_edited_after_the_settings_were_first_used_take_effect() -> None:
    settings = TransportSecuritySettings(allowed_hosts=["mcp.example.com"], allowed_origins=["https://a.example"])
    assert check(settings, "api.example.com:8443", None) == (421, "Invalid Host header")
    settings.allowed_hosts.append("API.example.com:*")
    settings.allowed_origins.append("https://b.example")
    assert check(settings, "api.example.com:8443", "https://B.example") is None
    settings.allowed_hosts.remove("API.example.com:*")
    assert check(settings, "api.example.com:8443", None) == (421, "Invalid Host header")
