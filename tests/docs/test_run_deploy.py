"""docs/run/deploy.md: the default app accepts only localhost Hosts (421 otherwise, 403 for a
foreign Origin) until `transport_security=` allowlists the real name (`"name"` bare, `"name:*"` any
port) or the check is switched off; a non-localhost `host=` disarms the default; legacy sessions
live in one worker (a stranger's id is 404); sealed `requestState` crosses instances only with
the same keys and the same audience (server name or explicit `audience=`)."""

from __future__ import annotations

from typing import Annotated, Any

import httpx
import pytest
from pydantic import BaseModel
from tests.server.http.httpkit import uvicorn_server

from mcp import Client, MCPError
from mcp.server.mcpserver import Elicit, MCPServer, RequestStateSecurity, Resolve
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ElicitResult

pytestmark = pytest.mark.anyio

ASYNCIO_ONLY = pytest.mark.parametrize("anyio_backend", ["asyncio"])
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "curl", "version": "1"}}}
KEY = b"k" * 32


async def post(base: str, **headers: str) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{base}/mcp", json=INITIALIZE, headers={**HEADERS, **headers})
        session_id = response.headers.get("mcp-session-id")
        if session_id is not None:  # end what we opened
            await http.delete(f"{base}/mcp", headers={"Mcp-Session-Id": session_id,
                                                       "Mcp-Protocol-Version": "2025-11-25", **headers})
        return response


@ASYNCIO_ONLY
async def test_the_default_accepts_localhost_only() -> None:
    async with uvicorn_server(MCPServer("Svc").streamable_http_app()) as base:
        assert (await post(base)).status_code == 200
        wrong_host = await post(base, Host="mcp.example.com")
        wrong_origin = await post(base, Origin="https://evil.example")
    assert (wrong_host.status_code, wrong_host.text) == (421, "Invalid Host header")
    assert (wrong_origin.status_code, wrong_origin.text) == (403, "Invalid Origin header")


@ASYNCIO_ONLY
async def test_an_allowlist_admits_the_real_name_bare_and_with_any_port() -> None:
    security = TransportSecuritySettings(allowed_hosts=["mcp.example.com", "mcp.example.com:*"],
                                         allowed_origins=["https://app.example.com"])
    async with uvicorn_server(MCPServer("Svc").streamable_http_app(transport_security=security)) as base:
        assert (await post(base, Host="mcp.example.com")).status_code == 200
        assert (await post(base, Host="mcp.example.com:8443", Origin="https://app.example.com")).status_code == 200
        assert (await post(base, Host="other.example.com")).status_code == 421


@ASYNCIO_ONLY
async def test_switching_the_check_off_or_a_public_host_accepts_every_host() -> None:
    off = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    for app in (MCPServer("Svc").streamable_http_app(transport_security=off),
                MCPServer("Svc").streamable_http_app(host="mcp.example.com")):
        async with uvicorn_server(app) as base:
            assert (await post(base, Host="anything.example")).status_code == 200


@ASYNCIO_ONLY
async def test_a_session_id_another_worker_minted_is_404() -> None:
    async with uvicorn_server(MCPServer("Svc").streamable_http_app()) as base, httpx.AsyncClient() as http:
        response = await http.post(f"{base}/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                                   headers={**HEADERS, "Mcp-Session-Id": "minted-elsewhere",
                                            "Mcp-Protocol-Version": "2025-11-25"})
    assert response.status_code == 404


class Sure(BaseModel):
    yes: bool


def ask() -> Elicit[Sure]:
    return Elicit("Refund?", Sure)


def billing(name: str, security: RequestStateSecurity | None = None) -> MCPServer:
    mcp = MCPServer(name, request_state_security=security)

    @mcp.tool()
    def refund(order: str, sure: Annotated[Sure, Resolve(ask)]) -> str:
        return f"refunded {order}" if sure.yes else "kept"

    return mcp


async def never_called(context: Any, params: Any) -> ElicitResult:
    raise AssertionError("the rounds are driven by hand")


async def first_round_then_retry_elsewhere(minting: MCPServer, serving: MCPServer) -> Any:
    async with Client(minting, elicitation_callback=never_called) as client:
        first = await client.session.call_tool("refund", {"order": "A1"}, allow_input_required=True)
        (key,) = first.input_requests
    async with Client(serving, elicitation_callback=never_called) as client:
        return await client.session.call_tool(
            "refund", {"order": "A1"}, allow_input_required=True, request_state=first.request_state,
            input_responses={key: ElicitResult(action="accept", content={"yes": True})})


async def test_default_keys_are_per_process_so_a_sibling_refuses_the_round() -> None:
    with pytest.raises(MCPError) as refused:
        await first_round_then_retry_elsewhere(billing("billing"), billing("billing"))
    assert (refused.value.error.code, refused.value.error.message) == (-32602, "Invalid or expired requestState")


async def test_shared_keys_and_the_same_name_cross_instances() -> None:
    result = await first_round_then_retry_elsewhere(billing("billing", RequestStateSecurity(keys=[KEY])),
                                                    billing("billing", RequestStateSecurity(keys=[KEY])))
    assert result.structured_content == {"result": "refunded A1"}


async def test_shared_keys_but_different_names_still_refuse_unless_one_audience_is_given() -> None:
    with pytest.raises(MCPError, match="Invalid or expired requestState"):
        await first_round_then_retry_elsewhere(billing("billing-a", RequestStateSecurity(keys=[KEY])),
                                               billing("billing-b", RequestStateSecurity(keys=[KEY])))
    result = await first_round_then_retry_elsewhere(
        billing("billing-a", RequestStateSecurity(keys=[KEY], audience="billing")),
        billing("billing-b", RequestStateSecurity(keys=[KEY], audience="billing")))
    assert result.structured_content == {"result": "refunded A1"}
