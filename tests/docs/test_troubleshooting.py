"""docs/troubleshooting.md: each error text the page is keyed by, produced the way the page says,
with its fix. Two entries differ on purpose (README, "What we do beyond the official SDK"): an error
leaving `async with Client(...)` comes out as itself, not inside an ExceptionGroup; and a mounted
Streamable HTTP app without the host lifespan serves instead of failing with "Task group is not
initialized" (the documented fix, entering `mcp.session_manager.run()`, still works). Our client also
names an HTTP refusal ("HTTP 421 Misdirected Request: Invalid Host header") where the official one
says "Server returned an error response"."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from docskit import serve_http
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.routing import Mount

from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.request_state import RequestStateSecurity
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import INVALID_PARAMS, INVALID_REQUEST, TextContent

pytestmark = pytest.mark.anyio

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "curl", "version": "1"}}}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def weather(**settings: Any) -> MCPServer:
    mcp = MCPServer("Weather", **settings)

    @mcp.tool()
    def forecast(city: str) -> str:
        if city != "Oslo":
            raise ValueError(f"No forecast for {city!r}.")
        return "Oslo: snow."

    @mcp.resource("weather://{city}")
    def conditions(city: str) -> str:
        if city != "Oslo":
            raise MCPError(INVALID_PARAMS, f"No forecast for {city!r}.")
        return "snow"

    class Confirm(BaseModel):
        ok: bool

    @mcp.tool()
    async def book(day: str, ctx: Context) -> str:
        answer = await ctx.elicit(f"Book {day}?", Confirm)
        return f"booked {day}" if answer.action == "accept" else "not booked"

    return mcp


async def test_an_error_leaving_the_client_block_is_the_error_itself_and_inside_it_is_catchable() -> None:
    with pytest.raises(MCPError) as escaped:
        async with Client(weather()) as client:
            await client.read_resource("weather://Atlantis")
    assert str(escaped.value) == "No forecast for 'Atlantis'."
    async with Client(weather()) as client:
        try:
            await client.read_resource("weather://Atlantis")
        except MCPError as caught:
            assert caught.error.message == "No forecast for 'Atlantis'."


async def test_a_client_used_outside_async_with_refuses_every_method() -> None:
    client = Client(weather())
    with pytest.raises(RuntimeError, match=r"^Client must be used within an async context manager$"):
        await client.list_tools()


async def test_failing_and_unknown_tools_are_results_not_exceptions() -> None:
    async with Client(weather()) as client:
        failed = await client.call_tool("forecast", {"city": "Atlantis"})
        assert failed.is_error and failed.structured_content is None
        assert isinstance(failed.content[0], TextContent)
        assert failed.content[0].text.startswith("Error executing tool forecast")
        unknown = await client.call_tool("get_forecast", {"city": "Oslo"})
        assert unknown.is_error
        assert unknown.content == [TextContent(type="text", text="Unknown tool: get_forecast")]
        bad = await client.call_tool("forecast", {"town": "Oslo"})
        assert bad.is_error


@pytest.mark.parametrize("kind", ["tool", "resource", "prompt"])
def test_a_decorator_without_parentheses_says_how_to_call_it(kind: str) -> None:
    mcp = MCPServer("Weather")
    with pytest.raises(TypeError) as raised:

        @getattr(mcp, kind)
        def forecast(city: str) -> str:
            return city

    if kind == "resource":
        assert "Use @resource('uri') instead of @resource" in str(raised.value)
    else:
        assert str(raised.value) == (f"The @{kind} decorator was used incorrectly. Did you forget to call it? "
                                     f"Use @{kind}() instead of @{kind}")


async def test_a_duplicate_name_keeps_the_first_and_only_the_log_says_so(caplog: pytest.LogCaptureFixture) -> None:
    mcp = MCPServer("Weather")

    @mcp.tool()
    def forecast(city: str) -> str:
        """Today."""
        return "today"

    with caplog.at_level(logging.WARNING):

        @mcp.tool(name="forecast")
        def forecast_week(city: str) -> str:
            """The week."""
            return "week"

        @mcp.resource("w://a")
        def one() -> str:
            return "1"

        @mcp.resource("w://a")
        def two() -> str:
            return "2"

        @mcp.prompt(name="p")
        def first() -> str:
            return "1"

        @mcp.prompt(name="p")
        def second() -> str:
            return "2"

    logged = {(r.name, r.getMessage()) for r in caplog.records}
    assert ("mcp.server.mcpserver.tools.tool_manager", "Tool already exists: forecast") in logged
    assert ("mcp.server.mcpserver.resources.resource_manager", "Resource already exists: w://a") in logged
    assert ("mcp.server.mcpserver.prompts.manager", "Prompt already exists: p") in logged
    async with Client(mcp) as client:
        (tool,) = (await client.list_tools()).tools
        assert tool.description == "Today."


def test_warn_on_duplicate_tools_false_silences_without_changing_the_outcome(caplog: pytest.LogCaptureFixture) -> None:
    mcp = MCPServer("Weather", warn_on_duplicate_tools=False)
    with caplog.at_level(logging.WARNING):
        for _ in range(2):

            @mcp.tool(name="forecast")
            def forecast(city: str) -> str:
                return city

    assert not [r for r in caplog.records if "already exists" in r.getMessage()]


async def test_a_nonconforming_tool_name_is_listed_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    mcp = MCPServer("Weather")
    with caplog.at_level(logging.WARNING, logger="mcp.shared.tool_name_validation"):

        @mcp.tool(name="weather report!")
        def report() -> str:
            return "r"

    assert any("weather report!" in message for message in caplog.messages)
    async with Client(mcp) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["weather report!"]


async def test_a_real_hostname_gets_421_three_ways_and_the_allowlist_fixes_it(caplog: pytest.LogCaptureFixture) -> None:
    with serve_http(lambda: weather().streamable_http_app()) as base:
        async with httpx.AsyncClient(headers={"host": "mcp.example.com"}) as raw:
            with caplog.at_level(logging.WARNING, logger="mcp.server.transport_security"):
                response = await raw.post(f"{base}/mcp", json=INITIALIZE, headers=HEADERS)
            assert (response.status_code, response.reason_phrase, response.text) == (
                421, "Misdirected Request", "Invalid Host header")
            assert response.headers.get("content-type") is None
            assert "Invalid Host header: mcp.example.com" in caplog.messages
            # Ours names the refusal (the official client says only "Server returned an error response").
            with pytest.raises(MCPError, match=r"^HTTP 421 Misdirected Request: Invalid Host header$"):
                async with Client(streamable_http_client(f"{base}/mcp", http_client=raw)):
                    pass
            origin = await raw.post(f"{base}/mcp", json=INITIALIZE,
                                    headers={**HEADERS, "host": "127.0.0.1", "origin": "http://evil.example"})
            assert (origin.status_code, origin.text) == (403, "Invalid Origin header")

    allow = TransportSecuritySettings(allowed_hosts=["mcp.example.com", "mcp.example.com:*"],
                                      allowed_origins=["https://mcp.example.com"])
    with serve_http(lambda: weather().streamable_http_app(transport_security=allow)) as base:
        for host in ("mcp.example.com", "mcp.example.com:8443"):
            async with httpx.AsyncClient(headers={"host": host}) as http, \
                    Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
                assert client.protocol_version == "2026-07-28"
                assert (await client.call_tool("forecast", {"city": "Oslo"})).structured_content == {
                    "result": "Oslo: snow."}


async def test_a_mounted_app_serves_without_the_host_lifespan_and_with_the_documented_fix() -> None:
    def bare() -> Starlette:
        return Starlette(routes=[Mount("/", app=weather().streamable_http_app())])

    def with_lifespan() -> Starlette:
        mcp = weather()
        routes = [Mount("/", app=mcp.streamable_http_app())]

        @asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            async with mcp.session_manager.run():
                yield

        return Starlette(routes=routes, lifespan=lifespan)

    for make in (bare, with_lifespan):
        with serve_http(make) as base:
            async with Client(f"{base}/mcp") as client:
                assert (await client.call_tool("forecast", {"city": "Oslo"})).structured_content == {
                    "result": "Oslo: snow."}


async def test_the_session_manager_exists_only_after_the_app_is_built() -> None:
    mcp = weather()
    with pytest.raises(Exception):  # noqa: B017 - no manager before the app exists
        _ = mcp.session_manager
    mcp.streamable_http_app()
    async with mcp.session_manager.run():
        assert mcp.session_manager.session_count == 0


async def test_an_unknown_session_is_a_404_with_a_json_rpc_body_logged_at_info(caplog: pytest.LogCaptureFixture) -> None:
    with serve_http(lambda: weather().streamable_http_app()) as base:
        async with httpx.AsyncClient() as http:
            with caplog.at_level(logging.INFO):
                response = await http.post(f"{base}/mcp", headers={**HEADERS, "mcp-session-id": "deadbeef",
                                                                   "mcp-protocol-version": "2025-06-18"},
                                           json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("application/json")
        assert response.json() == {"jsonrpc": "2.0", "id": None,
                                   "error": {"code": -32600, "message": "Session not found"}}
        assert any(r.levelno == logging.INFO and r.getMessage() ==
                   "Rejected request with unknown or expired session ID: deadbeef" for r in caplog.records)


async def test_an_unknown_method_is_method_not_found_naming_it() -> None:
    async with Client(weather(), mode="legacy") as client:
        with pytest.raises(MCPError) as raised:
            await client.session.send_request_raw("subscriptions/nonsense", {})
        assert (raised.value.error.code, raised.value.error.message) == (-32601, "Method not found")
        assert "subscriptions/nonsense" in str(raised.value.error.data)


async def test_ctx_elicit_on_a_2026_connection_has_no_back_channel_and_legacy_works() -> None:
    async def accept(context: Any, params: Any) -> Any:
        from mcp.types import ElicitResult

        return ElicitResult(action="accept", content={"ok": True})

    async with Client(weather(), elicitation_callback=accept) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("book", {"day": "Friday"})
        assert (raised.value.error.code, raised.value.error.message) == (
            INVALID_REQUEST,
            "Cannot send 'elicitation/create': this transport context has no back-channel for server-initiated "
            "requests.")
    async with Client(weather(), mode="legacy", elicitation_callback=accept) as client:
        assert (await client.call_tool("book", {"day": "Friday"})).structured_content == {"result": "booked Friday"}
    async with Client(weather(), mode="legacy") as client:
        with pytest.raises(MCPError) as unsupported:
            await client.call_tool("book", {"day": "Friday"})
        assert (unsupported.value.error.code, unsupported.value.error.message) == (INVALID_REQUEST,
                                                                                  "Elicitation not supported")


async def test_a_request_state_this_server_did_not_seal_is_refused_with_the_reason_in_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with Client(weather()) as client:
        with caplog.at_level(logging.WARNING, logger="mcp.server.request_state"), pytest.raises(MCPError) as raised:
            await client.call_tool("forecast", {"city": "Oslo"}, request_state="round-1-from-worker-a")
        assert (raised.value.error.code, raised.value.error.message, raised.value.error.data) == (
            INVALID_PARAMS, "Invalid or expired requestState", {"reason": "invalid_request_state"})
    assert "requestState rejected on tools/call: malformed" in caplog.messages


async def test_a_token_sealed_by_another_process_key_is_an_unknown_key(caplog: pytest.LogCaptureFixture) -> None:
    other = RequestStateSecurity(keys=[b"k" * 32])
    assert other.codec is not None
    token = other.codec.seal(b"{}")
    async with Client(weather()) as client:
        with caplog.at_level(logging.WARNING, logger="mcp.server.request_state"), pytest.raises(MCPError):
            await client.call_tool("forecast", {"city": "Oslo"}, request_state=token)
    assert "requestState rejected on tools/call: unknown key" in caplog.messages


def test_a_weak_request_state_key_is_refused_with_how_to_make_one() -> None:
    with pytest.raises(ValueError) as raised:
        RequestStateSecurity(keys=[b"hunter2"])
    assert str(raised.value) == (
        "request-state keys must be at least 32 bytes of secret randomness; keys[0] is 7 bytes. "
        'Generate one with: python -c "import secrets; print(secrets.token_hex(32))"')


async def test_shared_keys_and_name_let_a_second_instance_accept_a_sealed_round() -> None:
    keys = [b"s" * 32]
    first, second = (MCPServer("Weather", request_state_security=RequestStateSecurity(keys=keys)) for _ in range(2))
    for server in (first, second):

        @server.tool()
        def echo(ctx: Context) -> str:
            return f"state={ctx.request_state}"

    sealer = RequestStateSecurity(keys=keys)
    assert sealer.codec is not None
    with anyio.fail_after(10):
        async with Client(second) as client:
            with pytest.raises(MCPError):  # a token not bound to this request is still refused
                await client.call_tool("echo", {}, request_state=sealer.codec.seal(b"{}"))
