"""`StreamableHTTPServerTransport`: one session as a stream pair, used as documented: the host
enters `connect()`, runs the server on the streams, and routes the session's HTTP requests to
`handle_request`. A real client talks to it over HTTP."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from mcp.client import ClientRequestContext, ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.types import ElicitResult

from .httpkit import asgi_client, initialize, legacy_headers, messages_of, request

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return request.param


def demo() -> Any:
    mcp = MCPServer("transported")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.tool()
    async def ask_name(ctx: Context) -> str:
        answer = await ctx.session.elicit_form("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        return f"{answer.action}:{answer.content['name']}"

    return mcp._lowlevel_server  # pyright: ignore[reportPrivateUsage]


async def test_a_client_talks_to_a_server_run_on_the_transports_streams() -> None:
    server = demo()
    transport = StreamableHTTPServerTransport("session-1")

    async def elicit(context: ClientRequestContext, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"name": "Ada"})

    async with transport.connect() as (read_stream, write_stream), anyio.create_task_group() as tg:
        tg.start_soon(lambda: server.run(read_stream, write_stream, server.create_initialization_options()))
        async with asgi_client(transport.handle_request) as http, \
                streamable_http_client("http://127.0.0.1/mcp", http_client=http) as (read, write), \
                ClientSession(read, write, elicitation_callback=elicit) as session:
            with anyio.fail_after(10):
                result = await session.initialize()
                assert result.server_info.name == "transported"
                assert (await session.call_tool("add", {"a": 1, "b": 2})).structured_content == {"result": 3}
                asked = await session.call_tool("ask_name", {})  # a server->client request on the POST's stream
                assert asked.content[0].text == "accept:Ada"  # type: ignore[union-attr]
        assert transport.is_terminated  # the client ended the session with DELETE
        tg.cancel_scope.cancel()


async def test_the_session_id_is_the_hosts_and_a_terminated_session_answers_404() -> None:
    server = demo()
    transport = StreamableHTTPServerTransport("host-chosen-id")
    async with transport.connect() as (read_stream, write_stream), anyio.create_task_group() as tg:
        tg.start_soon(lambda: server.run(read_stream, write_stream, server.create_initialization_options()))
        async with asgi_client(transport.handle_request) as http:
            with anyio.fail_after(10):
                init = await http.post("/mcp", headers=legacy_headers(), json=initialize())
                assert init.status_code == 200 and init.headers["mcp-session-id"] == "host-chosen-id"
                assert messages_of(init)[-1]["result"]["serverInfo"]["name"] == "transported"
                await transport.terminate()
                assert transport.is_terminated
                after = await http.post("/mcp", headers=legacy_headers("host-chosen-id"), json=request(2, "tools/list"))
                assert after.status_code == 404
        tg.cancel_scope.cancel()


async def test_behind_a_bearer_gate_the_transport_serves_whoever_the_host_lets_through() -> None:
    """The host's own transport does not bind its session to a principal (the session manager
    does, as officially): two tokens of different users reach the one session."""
    from mcp.server.auth.middleware.bearer_auth import RequireBearerAuth
    from mcp.server.auth.verifiers import StaticTokenVerifier

    server = demo()
    transport = StreamableHTTPServerTransport("hosted")
    verifier = StaticTokenVerifier({"alice": {"client_id": "app", "sub": "alice"},
                                    "bob": {"client_id": "app", "sub": "bob"}})
    gated = RequireBearerAuth(transport.handle_request, verifier)
    async with transport.connect() as (read_stream, write_stream), anyio.create_task_group() as tg:
        tg.start_soon(lambda: server.run(read_stream, write_stream, server.create_initialization_options()))
        async with asgi_client(gated) as http:
            with anyio.fail_after(10):
                init = await http.post("/mcp", headers={**legacy_headers(), "authorization": "Bearer alice"},
                                       json=initialize())
                assert init.status_code == 200
                for token in ("alice", "bob"):
                    listed = await http.post("/mcp", headers={**legacy_headers("hosted"), "authorization": f"Bearer {token}"},
                                             json=request(2, "tools/list"))
                    assert listed.status_code == 200, token
        tg.cancel_scope.cancel()


def test_an_invalid_session_id_or_idle_timeout_is_refused() -> None:
    with pytest.raises(ValueError, match="visible ASCII"):
        StreamableHTTPServerTransport("has space")
    with pytest.raises(ValueError, match="idle_timeout"):
        StreamableHTTPServerTransport("ok", idle_timeout=0)


async def test_idle_scope_ends_the_hosts_loop_once_no_request_is_in_flight_for_idle_timeout() -> None:
    server = demo()
    transport = StreamableHTTPServerTransport("idle-session", idle_timeout=0.2)
    ended = anyio.Event()
    async with transport.connect() as (read_stream, write_stream), anyio.create_task_group() as tg:
        assert transport.idle_scope is not None
        idle_scope = transport.idle_scope

        async def host_loop() -> None:
            with idle_scope:
                await server.run(read_stream, write_stream, server.create_initialization_options())
            ended.set()

        tg.start_soon(host_loop)
        async with asgi_client(transport.handle_request) as http:
            with anyio.fail_after(10):
                init = await http.post("/mcp", headers=legacy_headers(), json=initialize())
                assert init.status_code == 200
                await ended.wait()  # the countdown started when the initialize was answered
        assert idle_scope.cancel_called
        tg.cancel_scope.cancel()
