"""`RequestStateSecurity` takes its keys as the official SDK does (bytes, bytearray or str, at least
32 bytes each) and refuses the same mistakes with the same texts; the low-level
`RequestStateBoundary` seals a hand-built `input_required` result returned as a dict too."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from mcp import Client
from mcp.server import MCPServer, Server, ServerRequestContext
from mcp.server.context import HandlerResult
from mcp.server.mcpserver.context import Context
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.types import CallToolRequestParams, InputRequiredResult, TextContent

pytestmark = pytest.mark.anyio

DOCS_KEY = "a-32-character-secret-from-env!!"  # the docs pass a str read from the environment


def stepping_server(security: RequestStateSecurity) -> MCPServer:
    mcp = MCPServer("steps", request_state_security=security)

    @mcp.tool()
    def step(ctx: Context) -> Any:
        if ctx.request_state is None:
            return InputRequiredResult(input_requests={}, request_state="step-1")
        return f"resumed from {ctx.request_state}"

    return mcp


async def test_a_str_key_seals_and_opens_request_state() -> None:
    assert len(DOCS_KEY) == 32
    async with Client(stepping_server(RequestStateSecurity(keys=[DOCS_KEY]))) as client:
        first = await client.session.call_tool("step", {}, allow_input_required=True)
        assert isinstance(first, InputRequiredResult) and first.request_state not in (None, "step-1")
        final = await client.session.call_tool("step", {}, input_responses={}, request_state=first.request_state)
    assert final.content == [TextContent(text="resumed from step-1")]


async def test_a_str_key_is_its_utf8_bytes() -> None:
    as_text = stepping_server(RequestStateSecurity(keys=["é" * 16]))  # 32 bytes in UTF-8
    as_bytes = stepping_server(RequestStateSecurity(keys=[("é" * 16).encode()]))
    async with Client(as_text) as client:
        first = await client.session.call_tool("step", {}, allow_input_required=True)
    async with Client(as_bytes) as client:
        final = await client.session.call_tool("step", {}, input_responses={}, request_state=first.request_state)
    assert final.content == [TextContent(text="resumed from step-1")]


def test_a_key_shorter_than_32_bytes_is_refused_naming_its_index_and_length() -> None:
    expected = ("request-state keys must be at least 32 bytes of secret randomness; keys[1] is 31 bytes. "
                'Generate one with: python -c "import secrets; print(secrets.token_hex(32))"')
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        RequestStateSecurity(keys=[os.urandom(32), "x" * 31])
    with pytest.raises(ValueError, match=r"keys\[0\] is 16 bytes"):
        RequestStateSecurity(keys=["é" * 8])  # 8 characters, 16 bytes


def test_a_key_of_another_type_is_a_type_error_not_coerced() -> None:
    with pytest.raises(TypeError, match=r"^request-state keys must be bytes, bytearray, or str; keys\[0\] is int$"):
        RequestStateSecurity(keys=[32])  # type: ignore[list-item]


def test_a_repeated_key_and_a_bad_ttl_are_refused_with_the_official_texts() -> None:
    key = os.urandom(32)
    with pytest.raises(ValueError, match=r"^keys\[1\] duplicates an earlier ring key$"):
        RequestStateSecurity(keys=[key, bytearray(key)])
    for ttl in (0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match=r"^request-state ttl must be a positive finite number, got "):
            RequestStateSecurity(keys=[key], ttl=ttl)


def test_ephemeral_takes_a_ttl_and_an_audience() -> None:
    security = RequestStateSecurity.ephemeral(ttl=30.0, audience="svc")
    assert (security.ttl, security.audience) == (30.0, "svc")


async def test_without_principal_binding_state_still_round_trips() -> None:
    security = RequestStateSecurity(keys=[os.urandom(32)], bind_principal=None)
    async with Client(stepping_server(security)) as client:
        first = await client.session.call_tool("step", {}, allow_input_required=True)
        final = await client.session.call_tool("step", {}, input_responses={}, request_state=first.request_state)
    assert final.content == [TextContent(text="resumed from step-1")]


async def test_the_low_level_boundary_seals_a_dict_input_required_result() -> None:
    seen: list[Any] = []

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> HandlerResult:
        seen.append(params.request_state)
        if params.request_state is None:
            return {"resultType": "input_required", "inputRequests": {}, "requestState": "round-1"}
        return {"content": [{"type": "text", "text": f"resumed from {params.request_state}"}]}

    server = Server("low", on_call_tool=call_tool)
    server.middleware.append(RequestStateBoundary(RequestStateSecurity(keys=[DOCS_KEY]), default_audience="low"))
    async with Client(server) as client:
        first = await client.session.call_tool("step", {}, allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        assert first.request_state is not None and "round-1" not in first.request_state
        final = await client.session.call_tool("step", {}, input_responses={}, request_state=first.request_state)
    assert final.content == [TextContent(text="resumed from round-1")]
    assert seen == [None, "round-1"]


def test_the_default_principal_is_the_bearer_tokens_identity_as_compact_json() -> None:
    """Regression: it read a `ctx.access_token` no request context has, so state was never bound."""
    from mcp.server.auth.middleware.auth_context import access_token_context
    from mcp.server.auth.provider import AccessToken
    from mcp.server.request_state import authenticated_principal

    assert RequestStateSecurity(keys=[DOCS_KEY]).bind_principal is authenticated_principal
    assert authenticated_principal(None) is None
    reader = AccessToken(token="t", client_id="app", scopes=[], subject="reader", claims={"iss": "https://id.example"})
    with access_token_context(reader):
        assert authenticated_principal(None) == '["app","https://id.example","reader"]'
    with access_token_context(AccessToken(token="u", client_id="app", scopes=[])):
        assert authenticated_principal(None) == '["app",null,null]'
