"""A server->client request on a connection that cannot carry one fails with `NoBackChannelError`,
which is -32600 (invalid request) with the official text."""

from __future__ import annotations

from typing import Any

import pytest

from mcp import Client, MCPError, NoBackChannelError
from mcp.server import Server, ServerRequestContext
from mcp.types import RequestParams, Result

pytestmark = pytest.mark.anyio


def test_no_back_channel_error_is_an_invalid_request_naming_the_method() -> None:
    error = NoBackChannelError("roots/list")
    assert isinstance(error, MCPError)
    assert (error.code, error.method) == (-32600, "roots/list")
    assert error.message == (
        "Cannot send 'roots/list': this transport context has no back-channel for server-initiated requests."
    )


async def test_a_handler_asking_the_client_on_the_2026_wire_gets_it_and_the_client_sees_32600() -> None:
    raised: list[BaseException] = []

    async def ask(ctx: ServerRequestContext[Any, Any], params: RequestParams) -> Result:
        try:
            await ctx.session.send_request("roots/list")
        except NoBackChannelError as exc:
            raised.append(exc)
            raise
        return Result()

    server = Server("asker")
    server.add_request_handler("vendor/ask", RequestParams, ask)
    async with Client(server) as client:  # 2026-07-28: no server->client requests outside a round
        with pytest.raises(MCPError) as info:
            await client.session.send_request_raw("vendor/ask", {})
    assert len(raised) == 1
    assert (info.value.code, info.value.message) == (
        -32600, "Cannot send 'roots/list': this transport context has no back-channel for server-initiated requests.")
