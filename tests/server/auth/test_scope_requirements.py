"""Scopes per tool, prompt and resource on a real MCPServer over HTTP on 127.0.0.1: a call without
the scopes is the spec's 403 `insufficient_scope` challenge, lists show each caller what its
token allows (and say so with `cacheScope: "private"`), and without a token nothing changes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from jwtkit import RESOURCE, serve

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.auth.settings import AuthSettings
from mcp.server.auth.verifiers import StaticTokenVerifier
from mcp.server.mcpserver import MCPServer

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("anyio_backend", ["asyncio"])]

MODERN = "2026-07-28"
TOKENS = {
    "reader": {"client_id": "r", "scopes": ["notes:read"], "aud": RESOURCE},
    "writer": {"client_id": "w", "scopes": ["notes:read", "notes:write"], "aud": RESOURCE},
    "admin": {"client_id": "a", "scopes": ["notes:read", "notes:write", "notes:admin"], "aud": RESOURCE},
}


def notes(auth: bool = True) -> MCPServer:
    options: dict[str, Any] = {}
    if auth:
        options = {"token_verifier": StaticTokenVerifier(TOKENS), "auth": AuthSettings(
            issuer_url="https://auth.example.com", resource_server_url=RESOURCE, validate_token_resource=True)}
    mcp = MCPServer("notes", **options)

    @mcp.tool()
    def read_note(note_id: str = "1") -> str:
        return f"note {note_id}"

    @mcp.tool(required_scopes=["notes:write"])
    def delete_note(note_id: str = "1") -> str:
        return f"deleted {note_id}"

    @mcp.prompt(required_scopes=["notes:admin"])
    def audit() -> str:
        return "audit everything"

    @mcp.prompt()
    def summarize() -> str:
        return "summarize"

    @mcp.resource("notes://secret", required_scopes=["notes:admin"])
    def secret() -> str:
        return "the secret"

    @mcp.resource("notes://by-id/{note_id}", required_scopes=["notes:read"])
    def by_id(note_id: str) -> str:
        return f"note {note_id}"

    @mcp.resource("notes://public")
    def public() -> str:
        return "hello"

    return mcp


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve(notes().streamable_http_app()) as url:
        yield url


async def rpc(base: str, token: str, method: str, params: dict[str, Any] | None = None,
              name: str | None = None) -> httpx.Response:
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": MODERN,
               "mcp-method": method, "authorization": f"Bearer {token}"}
    if name is not None:
        headers["mcp-name"] = name
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**(params or {}), "_meta": meta}}
    with anyio.fail_after(20):
        async with httpx.AsyncClient(timeout=15) as http:
            return await http.post(f"{base}/mcp", json=body, headers=headers)


async def test_a_call_without_the_tools_scope_is_a_403_challenge_naming_it(base: str) -> None:
    denied = await rpc(base, "reader", "tools/call", {"name": "delete_note", "arguments": {}}, name="delete_note")
    assert denied.status_code == 403
    challenge = denied.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and 'error="insufficient_scope"' in challenge
    assert 'scope="notes:write"' in challenge and "resource_metadata=" in challenge
    allowed = await rpc(base, "writer", "tools/call", {"name": "delete_note", "arguments": {}}, name="delete_note")
    assert allowed.status_code == 200
    assert allowed.json()["result"]["content"][0]["text"] == "deleted 1"
    unscoped = await rpc(base, "reader", "tools/call", {"name": "read_note", "arguments": {}}, name="read_note")
    assert unscoped.status_code == 200


async def test_prompts_and_resources_and_templates_are_guarded_the_same_way(base: str) -> None:
    prompt = await rpc(base, "writer", "prompts/get", {"name": "audit"}, name="audit")
    assert prompt.status_code == 403 and 'scope="notes:admin"' in prompt.headers["www-authenticate"]
    assert (await rpc(base, "admin", "prompts/get", {"name": "audit"}, name="audit")).status_code == 200
    secret = await rpc(base, "writer", "resources/read", {"uri": "notes://secret"}, name="notes://secret")
    assert secret.status_code == 403
    by_template = await rpc(base, "reader", "resources/read", {"uri": "notes://by-id/7"}, name="notes://by-id/7")
    assert by_template.status_code == 200
    assert by_template.json()["result"]["contents"][0]["text"] == "note 7"


def names(response: httpx.Response, key: str, field: str = "name") -> list[str]:
    assert response.status_code == 200, response.text
    return [item[field] for item in response.json()["result"][key]]


async def test_lists_show_each_caller_what_its_scopes_allow_and_are_private(base: str) -> None:
    reader_tools = await rpc(base, "reader", "tools/list")
    assert names(reader_tools, "tools") == ["read_note"]
    assert reader_tools.json()["result"]["cacheScope"] == "private"
    assert names(await rpc(base, "writer", "tools/list"), "tools") == ["read_note", "delete_note"]
    assert names(await rpc(base, "reader", "prompts/list"), "prompts") == ["summarize"]
    assert names(await rpc(base, "admin", "prompts/list"), "prompts") == ["audit", "summarize"]
    resources = await rpc(base, "reader", "resources/list")
    assert names(resources, "resources", "uri") == ["notes://public"]
    assert resources.json()["result"]["cacheScope"] == "private"
    templates = await rpc(base, "reader", "resources/templates/list")
    assert names(templates, "resourceTemplates", "uriTemplate") == ["notes://by-id/{note_id}"]


async def test_the_stateful_wire_filters_too(base: str) -> None:
    headers = {"authorization": "Bearer reader"}
    async with (
        httpx.AsyncClient(headers=headers, timeout=15) as http,
        Client(streamable_http_client(f"{base}/mcp", http_client=http), mode="legacy") as client,
    ):
        listed = await client.list_tools()
        assert [tool.name for tool in listed.tools] == ["read_note"]


async def test_without_authentication_nothing_is_hidden_or_refused() -> None:
    async with Client(notes(auth=False)) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == ["read_note", "delete_note"]
        result = await client.call_tool("delete_note", {})
        assert result.content[0].text == "deleted 1"  # type: ignore[union-attr]
