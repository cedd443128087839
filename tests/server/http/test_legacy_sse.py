"""The legacy HTTP+SSE transport (`sse_app()`): a GET stream whose first event names the URL to
POST messages to; every POST is accepted with 202 and answered on the stream."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from uuid import UUID, uuid4

import anyio
import httpx
import pytest
from httpkit import (
    SSEStream,
    build_server,
    connect,
    initialize,
    notification,
    text_of,
    tool_call,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

from mcp.server import MCPServer
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context
from mcp.server.sse import SseServerTransport
from mcp.server.transport_security import TransportSecuritySettings

pytestmark = pytest.mark.anyio

JSON = {"content-type": "application/json"}


@asynccontextmanager
async def sse_session(client: httpx.AsyncClient, path: str = "/sse") -> AsyncIterator[tuple[SSEStream, str]]:
    """Open the SSE stream; yields it and the message URL from its endpoint event."""
    async with client.stream("GET", path, headers={"accept": "text/event-stream"}) as get, SSEStream(get) as stream:
        assert get.status_code == 200
        assert get.headers["content-type"].startswith("text/event-stream")
        assert get.headers["x-accel-buffering"] == "no"
        assert "no-cache" in get.headers["cache-control"]
        endpoint = await stream.next_event()
        assert endpoint is not None and endpoint.event == "endpoint"
        yield stream, endpoint.data


async def initialize_over(client: httpx.AsyncClient, stream: SSEStream, url: str) -> None:
    accepted = await client.post(url, json=initialize(version="2024-11-05"), headers=JSON)
    assert accepted.status_code == 202
    answer = await stream.next_message()
    assert answer is not None and answer["result"]["protocolVersion"] == "2024-11-05"
    assert (await client.post(url, json=notification("notifications/initialized"), headers=JSON)).status_code == 202


async def test_posts_are_accepted_with_202_and_answered_on_the_event_stream(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.sse_app()) as client, sse_session(client) as (stream, url):
            assert url.startswith("/messages/?session_id=")
            await initialize_over(client, stream, url)
            accepted = await client.post(url, json=tool_call(2, "progress", {"steps": 2}, progress_token="p"), headers=JSON)
            assert accepted.status_code == 202
            messages = [await stream.next_message() for _ in range(3)]
            assert [m["params"]["progress"] for m in messages[:2] if m is not None] == [1, 2]
            assert messages[2] is not None and text_of(messages[2]) == "counted 2"


async def test_a_post_is_refused_without_a_session_id_with_a_malformed_one_or_an_unknown_one(wire: str) -> None:
    """As the official: 400 without `session_id` or with one that is not a UUID, 404 for a UUID
    that names no open session; the answers are plain text without a Content-Type."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.sse_app()) as client:
            unknown = await client.post(f"/messages/?session_id={uuid4().hex}", json=tool_call(1, "echo"), headers=JSON)
            assert (unknown.status_code, unknown.text) == (404, "Could not find session")
            assert "content-type" not in unknown.headers
            malformed = await client.post("/messages/?session_id=0123456789abcdef", json=tool_call(1, "echo"),
                                          headers=JSON)
            assert (malformed.status_code, malformed.text) == (400, "Invalid session ID")
            missing = await client.post("/messages/", json=tool_call(1, "echo"), headers=JSON)
            assert (missing.status_code, missing.text) == (400, "session_id is required")


async def test_the_message_endpoint_answers_only_posts_of_json(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.sse_app()) as client, sse_session(client) as (_, url):
            get = await client.get(url)
            assert (get.status_code, get.headers["allow"]) == (405, "POST")
            text = await client.post(url, content=b"{}", headers={"content-type": "text/plain"})
            assert (text.status_code, text.text) == (400, "Invalid Content-Type header")


async def test_the_endpoint_event_names_a_fresh_uuid_session_listed_until_its_stream_ends(wire: str) -> None:
    """`_read_stream_writers` (read by the official tests and by proxies) holds each open
    session under its UUID, the hex form of which the endpoint event names."""
    transport = SseServerTransport("/messages/", TransportSecuritySettings(enable_dns_rebinding_protection=False))
    server = build_server()._lowlevel_server

    async def handle_sse(request: Request) -> Response:
        async with transport.connect_sse(request.scope, request.receive, request._send) as (read, write):
            await server.run(read, write, server.create_initialization_options())
        return Response()

    app = Starlette(routes=[Route("/sse", endpoint=handle_sse, methods=["GET"]),
                            Mount("/messages/", app=transport.handle_post_message)])
    with anyio.fail_after(20):
        async with connect(wire, app) as client:
            async with sse_session(client) as (stream, url):
                path, _, session_id = url.partition("?session_id=")
                assert path == "/messages/"
                assert list(transport._read_stream_writers) == [UUID(hex=session_id)]
                await initialize_over(client, stream, url)
            with anyio.fail_after(5):
                while transport._read_stream_writers:  # the server notices the disconnect shortly after
                    await anyio.sleep(0.01)


async def test_a_session_opened_with_a_token_answers_only_that_principal(wire: str) -> None:
    """As the official: a POST whose bearer principal differs from the one that opened the
    session (or that carries none) is told the session does not exist."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, _as_principal(mcp.sse_app())) as client:
            alice = {**JSON, "x-test-subject": "alice"}
            async with client.stream("GET", "/sse", headers=alice) as get, SSEStream(get) as stream:
                endpoint = await stream.next_event()
                assert endpoint is not None
                url = endpoint.data
                for other in ({**JSON, "x-test-subject": "bob"}, JSON):
                    refused = await client.post(url, json=initialize(version="2024-11-05"), headers=other)
                    assert (refused.status_code, refused.text) == (404, "Could not find session")
                accepted = await client.post(url, json=initialize(version="2024-11-05"), headers=alice)
                assert accepted.status_code == 202
                answer = await stream.next_message()
                assert answer is not None and answer["result"]["protocolVersion"] == "2024-11-05"


async def test_handlers_see_the_http_request_of_the_post(wire: str) -> None:
    mcp = MCPServer("legacy")

    @mcp.tool()
    def header(ctx: Context) -> str:
        """The request's x-probe header."""
        request = ctx.request_context.request
        assert request is not None
        return request.headers["x-probe"]

    with anyio.fail_after(20):
        async with connect(wire, mcp.sse_app()) as client, sse_session(client) as (stream, url):
            await initialize_over(client, stream, url)
            posted = await client.post(url, json=tool_call(2, "header"), headers={**JSON, "x-probe": "seen"})
            assert posted.status_code == 202
            answer = await stream.next_message()
            assert answer is not None and text_of(answer) == "seen"


class _Verifier:
    async def verify_token(self, token: str) -> AccessToken | None:
        if token in ("alice", "bob"):
            return AccessToken(token=token, client_id="app", scopes=["mcp"], subject=token)
        return None


async def test_with_auth_settings_both_endpoints_require_a_bearer_token(wire: str) -> None:
    """As the official `sse_app()`: the GET and the POST are refused without a valid token, the
    protected-resource metadata is served, and a session answers only the principal that opened it."""
    mcp = MCPServer("secured", token_verifier=_Verifier(), auth=AuthSettings(
        issuer_url="https://auth.example.com", resource_server_url="http://127.0.0.1/sse", required_scopes=["mcp"],
        validate_token_resource=False))
    mcp.tool()(_echo)
    alice, bob = {"authorization": "Bearer alice"}, {"authorization": "Bearer bob"}
    with anyio.fail_after(20):
        async with connect(wire, mcp.sse_app()) as client:
            assert (await client.get("/sse", headers={"accept": "text/event-stream"})).status_code == 401
            assert (await client.post(f"/messages/?session_id={uuid4().hex}", json=initialize(),
                                      headers=JSON)).status_code == 401
            metadata = await client.get("/.well-known/oauth-protected-resource/sse")
            assert metadata.status_code == 200 and metadata.json()["resource"] == "http://127.0.0.1/sse"
            async with client.stream("GET", "/sse", headers={**alice, "accept": "text/event-stream"}) as get, \
                    SSEStream(get) as stream:
                assert get.status_code == 200
                endpoint = await stream.next_event()
                assert endpoint is not None
                url = endpoint.data
                stolen = await client.post(url, json=initialize(version="2024-11-05"), headers={**JSON, **bob})
                assert (stolen.status_code, stolen.text) == (404, "Could not find session")
                client.headers.update(alice)
                await initialize_over(client, stream, url)
                assert (await client.post(url, json=tool_call(2, "_echo", {"text": "hi"}), headers=JSON)).status_code == 202
                answer = await stream.next_message()
                assert answer is not None and text_of(answer) == "hi"


def _echo(text: str) -> str:
    return text


def _as_principal(app: Any) -> Any:
    """`app` behind a stand-in for the bearer gate: the `x-test-subject` header, when present,
    makes the request authenticated as that subject (of one OAuth client)."""

    async def gate(scope: Any, receive: Any, send: Any) -> None:
        subject = dict(scope.get("headers", [])).get(b"x-test-subject")
        if scope["type"] == "http" and subject is not None:
            token = AccessToken(token="t", client_id="client", scopes=[], subject=subject.decode())
            scope = {**scope, "user": AuthenticatedUser(token), "mcp.access_token": token}
        await app(scope, receive, send)

    return gate


async def test_an_oversized_or_unparsable_body_is_refused_and_the_session_survives(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.sse_app(max_request_body_size=512)) as client, \
                sse_session(client) as (stream, url):
            await initialize_over(client, stream, url)
            too_big = await client.post(url, json=tool_call(2, "echo", {"text": "x" * 1000}), headers=JSON)
            assert too_big.status_code == 413
            garbage = await client.post(url, content=b"{nope", headers=JSON)
            assert garbage.status_code == 400
            ok = await client.post(url, json=tool_call(3, "echo", {"text": "fine"}), headers=JSON)
            assert ok.status_code == 202
            answer = await stream.next_message()
            assert answer is not None and answer["id"] == 3 and text_of(answer) == "fine"


async def test_a_session_ends_with_its_event_stream(wire: str) -> None:
    mcp = build_server()
    app = mcp.sse_app()
    with anyio.fail_after(20):
        async with connect(wire, app) as client:
            async with sse_session(client) as (stream, url):
                await initialize_over(client, stream, url)
            with anyio.fail_after(5):
                while True:  # the server notices the disconnect shortly after
                    response = await client.post(url, json=tool_call(9, "echo", {"text": "late"}), headers=JSON)
                    if response.status_code == 404:
                        break
                    await anyio.sleep(0.01)


async def test_the_legacy_transport_checks_host_and_origin(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.sse_app()) as client:
            get = await client.get("/sse", headers={"host": "evil.example.com", "accept": "text/event-stream"})
            assert get.status_code == 421
            assert get.text == "Invalid Host header"
            post = await client.post("/messages/?session_id=x", json={}, headers={**JSON, "origin": "http://evil.example"})
            assert post.status_code == 403


async def test_a_mounted_legacy_app_names_its_full_message_url_and_enters_the_lifespan_on_first_use(wire: str) -> None:
    """Regression: without the app's lifespan the server lifespan was never entered, and tools
    reading their lifespan state got None."""
    entered: list[int] = []

    @asynccontextmanager
    async def lifespan(server: MCPServer) -> AsyncIterator[dict[str, Any]]:
        entered.append(1)
        yield {"greeting": "from the lifespan"}

    mcp = MCPServer("legacy", lifespan=lifespan)

    @mcp.tool()
    def greet(ctx: Context) -> str:
        """Lifespan state."""
        return ctx.request_context.lifespan_context["greeting"]

    host = Starlette(routes=[Mount("/legacy", app=mcp.sse_app())])
    with anyio.fail_after(20):
        async with connect(wire, host, lifespan=False) as client, sse_session(client, "/legacy/sse") as (stream, url):
            assert url.startswith("/legacy/messages/?session_id=")
            await initialize_over(client, stream, url)
            assert (await client.post(url, json=tool_call(2, "greet"), headers=JSON)).status_code == 202
            answer = await stream.next_message()
            assert answer is not None and text_of(answer) == "from the lifespan"
            assert entered == [1]
