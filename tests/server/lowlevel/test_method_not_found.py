"""-32601 as the official SDK answers it: message "Method not found", the method name as `data`,
wherever the server decides a method is not served."""

from __future__ import annotations

from typing import Any

import pytest

from mcp import Client, MCPError
from mcp.server import MCPServer, Server, ServerRequestContext
from mcp.server.mcpserver import Extension, MethodBinding
from mcp.types import RequestParams, Result

pytestmark = pytest.mark.anyio


async def raw_error(client: Client, method: str, params: dict[str, Any] | None = None) -> MCPError:
    with pytest.raises(MCPError) as info:
        await client.session.send_request_raw(method, params or {})
    return info.value


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_method_without_a_handler_names_itself_in_the_error_data(mode: str) -> None:
    async with Client(Server("bare"), mode=mode) as client:
        error = await raw_error(client, "vendor/unknown")
    assert (error.code, error.message, error.data) == (-32601, "Method not found", "vendor/unknown")


@pytest.mark.wire_invalid_ok({"method": "tools/call", "params": {"name": 42}}, reason="the malformed request under test")
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_unserved_spec_method_with_malformed_params_is_invalid_params(mode: str) -> None:
    async with Client(Server("bare"), mode=mode) as client:
        malformed = await raw_error(client, "tools/call", {"name": 42})
        well_formed = await raw_error(client, "tools/call", {"name": "t"})
    assert (malformed.code, malformed.message, malformed.data) == (-32602, "Invalid request parameters", "")
    assert (well_formed.code, well_formed.message, well_formed.data) == (-32601, "Method not found", "tools/call")


@pytest.mark.parametrize("method", ["ping", "logging/setLevel"])
async def test_a_method_removed_from_the_2026_wire_is_not_found_there(method: str) -> None:
    async with Client(MCPServer("m")) as client:
        error = await raw_error(client, method, {"level": "info"} if method == "logging/setLevel" else None)
    assert (error.code, error.message, error.data) == (-32601, "Method not found", method)


async def test_subscriptions_listen_on_a_handshake_era_connection_is_not_found() -> None:
    async with Client(MCPServer("m"), mode="legacy") as client:
        error = await raw_error(client, "subscriptions/listen", {"notifications": {}})
    assert (error.code, error.message, error.data) == (-32601, "Method not found", "subscriptions/listen")


class Versioned(Extension):
    identifier = "com.example/versioned"

    def methods(self) -> list[MethodBinding]:
        async def stats(ctx: Any, params: RequestParams) -> Result:
            return Result()

        return [MethodBinding("com.example/stats", RequestParams, stats, protocol_versions=frozenset({"2026-07-28"}))]


async def test_an_extension_method_outside_its_protocol_versions_is_not_found() -> None:
    async with Client(MCPServer("ext", extensions=[Versioned()]), mode="legacy") as client:
        error = await raw_error(client, "com.example/stats")
    assert (error.code, error.message, error.data) == (-32601, "Method not found", "com.example/stats")
    async with Client(MCPServer("ext", extensions=[Versioned()])) as client:
        assert (await client.session.send_request_raw("com.example/stats", {}))["resultType"] == "complete"


async def test_a_middleware_sees_method_not_found_as_the_raised_mcp_error() -> None:
    server = Server("observed")
    seen: list[tuple[int, str, Any]] = []

    async def observe(ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        try:
            return await call_next(ctx)
        except MCPError as exc:
            seen.append((exc.code, exc.message, exc.data))
            raise

    server.middleware.append(observe)
    async with Client(server, mode="legacy") as client:
        await raw_error(client, "vendor/nothing")
    assert seen == [(-32601, "Method not found", "vendor/nothing")]
