"""The official request-check building blocks for hand-built HTTP endpoints:
`RequestBodyLimitMiddleware` (413 before the app runs) and `TransportSecurityMiddleware`
(Content-Type, Host, Origin); `TransportSecuritySettings` is a pydantic model as in the SDK."""

from typing import Any

import anyio
import pytest
from httpkit import connect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    RequestBodyLimitMiddleware,
    TransportSecurityMiddleware,
    TransportSecuritySettings,
)

pytestmark = pytest.mark.anyio


def _echo_length_app() -> Any:
    async def endpoint(request: Request) -> Response:
        return PlainTextResponse(str(len(await request.body())))

    return Starlette(routes=[Route("/", endpoint=endpoint, methods=["POST"])])


async def test_a_body_over_the_limit_gets_413_and_a_smaller_one_reaches_the_app(wire: str) -> None:
    app = RequestBodyLimitMiddleware(_echo_length_app(), max_body_size=16)
    with anyio.fail_after(20):
        async with connect(wire, app, lifespan=False) as client:
            small = await client.post("/", content=b"x" * 16)
            large = await client.post("/", content=b"x" * 17)

            async def chunks() -> Any:
                for _ in range(3):
                    yield b"x" * 8

            streamed = await client.post("/", content=chunks())  # no Content-Length: counted
    assert (small.status_code, small.text) == (200, "16")
    assert (large.status_code, large.text) == (413, "Request body too large")
    assert streamed.status_code == 413
    assert DEFAULT_MAX_REQUEST_BODY_SIZE == 4 * 1024 * 1024


def _guarded_app(settings: TransportSecuritySettings | None) -> Any:
    guard = TransportSecurityMiddleware(settings)

    async def endpoint(request: Request) -> Response:
        refused = await guard.validate_request(request, is_post=request.method == "POST")
        return refused if refused is not None else PlainTextResponse("ok")

    return Starlette(routes=[Route("/", endpoint=endpoint, methods=["GET", "POST"])])


async def test_the_security_middleware_checks_content_type_host_and_origin(wire: str) -> None:
    settings = TransportSecuritySettings(allowed_hosts=["127.0.0.1:*", "127.0.0.1"],
                                         allowed_origins=["http://127.0.0.1:*"])
    with anyio.fail_after(20):
        async with connect(wire, _guarded_app(settings), lifespan=False) as client:
            ok = await client.post("/", json={})
            wrong_type = await client.post("/", content=b"{}", headers={"content-type": "text/plain"})
            wrong_host = await client.get("/", headers={"host": "evil.example"})
            wrong_origin = await client.get("/", headers={"origin": "http://evil.example"})
    assert ok.text == "ok"
    assert (wrong_type.status_code, wrong_type.text) == (400, "Invalid Content-Type header")
    assert (wrong_host.status_code, wrong_host.text) == (421, "Invalid Host header")
    assert (wrong_origin.status_code, wrong_origin.text) == (403, "Invalid Origin header")


async def test_without_settings_only_the_content_type_is_checked(wire: str) -> None:
    with anyio.fail_after(20):
        async with connect(wire, _guarded_app(None), lifespan=False) as client:
            foreign = await client.get("/", headers={"host": "evil.example"})
            wrong_type = await client.post("/", content=b"{}", headers={"content-type": "text/plain"})
    assert foreign.text == "ok"
    assert wrong_type.status_code == 400


def test_the_settings_are_a_pydantic_model() -> None:
    settings = TransportSecuritySettings.model_validate({"allowed_hosts": ["example.com"]})
    assert settings.enable_dns_rebinding_protection is True
    assert settings.model_dump() == {"enable_dns_rebinding_protection": True, "allowed_hosts": ["example.com"],
                                     "allowed_origins": []}
