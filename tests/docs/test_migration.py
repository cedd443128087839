"""docs/migration.md, the client-facing sections: httpx2 instead of httpx, `Client` defaulting to
`mode="auto"`, the era-neutral `ClientSession` accessors, pagination keywords, float timeouts and
`REQUEST_TIMEOUT`, removed transport helpers, the OAuth providers' base class, and the 2026-era
notes (deprecated subscription methods, `NoBackChannelError`)."""

from __future__ import annotations

import contextlib
import inspect

import anyio
import httpx2
import pytest

import mcp.client.streamable_http as streamable_http
from mcp import Client, ClientSessionGroup, MCPDeprecationWarning, MCPError
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
)
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.session_group import StreamableHttpParameters
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import NoBackChannelError
from mcp.types import REQUEST_TIMEOUT, PaginatedRequestParams, SamplingMessage, TextContent

pytestmark = pytest.mark.anyio


def harbour() -> MCPServer:
    mcp = MCPServer("Harbour", instructions="Check the tide first.")

    @mcp.tool()
    async def wait_for_tide(ctx: Context) -> str:
        await anyio.sleep(30)
        return "high tide"

    @mcp.tool()
    def tide() -> str:
        return "noon"

    @mcp.tool()
    async def ask_pilot(ctx: Context) -> str:
        await ctx.session.create_message(
            [SamplingMessage(role="user", content=TextContent(type="text", text="Route?"))], max_tokens=5)
        return "never"

    return mcp


def test_the_oauth_providers_subclass_httpx2_auth() -> None:
    for provider in (OAuthClientProvider, ClientCredentialsOAuthProvider, PrivateKeyJWTOAuthProvider,
                     IdentityAssertionOAuthProvider):
        assert issubclass(provider, httpx2.Auth), provider


def test_the_default_transport_client_is_httpx2_and_streamablehttp_client_is_gone() -> None:
    assert isinstance(streamable_http.create_mcp_http_client(), httpx2.AsyncClient)
    assert not hasattr(streamable_http, "streamablehttp_client")
    assert "get_session_id" not in inspect.signature(streamable_http.streamable_http_client).parameters


def test_client_defaults_to_auto() -> None:
    assert Client(harbour()).mode == "auto"


@pytest.mark.parametrize(("mode", "handshake"), [("auto", "discover_result"), ("legacy", "initialize_result")])
async def test_client_session_exposes_era_neutral_accessors(mode: str, handshake: str) -> None:
    async with Client(harbour(), mode=mode) as client:
        session = client.session
        assert session.server_info is not None and session.server_info.name == "Harbour"
        assert session.instructions == "Check the tide first."
        assert session.server_capabilities is not None and session.server_capabilities.tools is not None
        assert session.protocol_version == client.protocol_version
        other = "initialize_result" if handshake == "discover_result" else "discover_result"
        assert getattr(session, handshake) is not None and getattr(session, other) is None
        assert not hasattr(session, "get_server_capabilities")


async def test_client_session_pages_with_params_and_client_pages_with_cursor() -> None:
    async with Client(harbour()) as client:
        page = await client.session.list_tools(params=PaginatedRequestParams(cursor=None))
        assert {tool.name for tool in page.tools} == {"wait_for_tide", "tide", "ask_pilot"}
        assert (await client.list_tools(cursor=None)).next_cursor is None
        with pytest.raises(TypeError):
            await client.list_tools(params=PaginatedRequestParams())  # type: ignore[call-arg]


def test_session_group_call_tool_takes_arguments_not_args() -> None:
    parameters = inspect.signature(ClientSessionGroup.call_tool).parameters
    assert "arguments" in parameters and "args" not in parameters


def test_streamable_http_parameters_take_float_seconds() -> None:
    from datetime import timedelta

    from pydantic import ValidationError

    params = StreamableHttpParameters(url="http://127.0.0.1:9/mcp", timeout=30, sse_read_timeout=300)
    assert (params.timeout, params.sse_read_timeout) == (30, 300)
    with pytest.raises(ValidationError):
        StreamableHttpParameters(url="http://127.0.0.1:9/mcp", timeout=timedelta(seconds=30))  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_timed_out_request_is_request_timeout_with_the_documented_text(mode: str) -> None:
    async with Client(harbour(), mode=mode, read_timeout_seconds=0.2) as client:
        with pytest.raises(MCPError) as timed_out:
            await client.call_tool("wait_for_tide", {})
    assert timed_out.value.code == REQUEST_TIMEOUT == -32001
    assert timed_out.value.error.code == REQUEST_TIMEOUT
    assert str(timed_out.value) == "Request 'tools/call' timed out"


async def test_a_per_call_timeout_is_float_seconds_too() -> None:
    async with Client(harbour()) as client:
        with pytest.raises(MCPError) as timed_out:
            await client.call_tool("wait_for_tide", {}, read_timeout_seconds=0.2)
        assert timed_out.value.code == REQUEST_TIMEOUT
        assert (await client.call_tool("tide", {})).is_error is False  # the connection carries on


async def test_the_client_resource_subscription_methods_are_deprecated() -> None:
    async with Client(harbour(), mode="legacy") as client:
        # Whether a legacy server serves the method is the server's business: the warning is the claim.
        with pytest.warns(MCPDeprecationWarning, match=r"^resources/subscribe is removed as of 2026-07-28"), \
                contextlib.suppress(MCPError):
            await client.subscribe_resource("harbour://berths")


async def test_on_a_2026_connection_server_initiated_sampling_raises_no_back_channel_error() -> None:
    async with Client(harbour()) as client:
        with pytest.warns(MCPDeprecationWarning), pytest.raises(NoBackChannelError):
            await client.call_tool("ask_pilot", {})
