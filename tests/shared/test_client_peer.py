"""`mcp.shared.peer.ClientPeer`: the official typed server-to-client requests over any outbound
channel, here a request's dispatch context on a real in-process dispatcher pair. What reaches the
client is the wire form (aliases, no nulls, `_meta` merged) and what comes back is the typed result."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import anyio
import pytest

from mcp.shared.direct_dispatcher import create_direct_dispatcher_pair
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.shared.peer import ClientPeer, dump_params
from mcp.types import CreateMessageResult, ElicitResult, ListRootsResult, SamplingMessage, TextContent

pytestmark = pytest.mark.anyio

CLIENT_ANSWERS: dict[str, dict[str, Any]] = {
    "sampling/createMessage": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"},
    "elicitation/create": {"action": "accept", "content": {"name": "Ada"}},
    "roots/list": {"roots": [{"uri": "file:///work", "name": "work"}]},
    "ping": {},
}


async def ignore(ctx: Any, method: str, params: Mapping[str, Any] | None) -> None:
    return None


async def test_client_peer_sends_each_request_in_wire_form_and_returns_the_typed_result() -> None:
    client, server = create_direct_dispatcher_pair()
    received: list[tuple[str, dict[str, Any] | None]] = []
    results: dict[str, Any] = {}

    async def client_serves(ctx: Any, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        received.append((method, None if params is None else dict(params)))
        return CLIENT_ANSWERS[method]

    async def serve(ctx: Any, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        peer = ClientPeer(ctx)
        with pytest.warns(MCPDeprecationWarning, match="sampling"):
            results["sample"] = await peer.sample([SamplingMessage(role="user", content=TextContent(text="q"))],
                                                  max_tokens=5, meta={"trace": "t1"})
        results["form"] = await peer.elicit_form("Your name?", {"type": "object"}, meta={"k": "v"})
        results["url"] = await peer.elicit_url("Sign in", "https://example.com/a", "e1")
        with pytest.warns(MCPDeprecationWarning, match="roots"):
            results["roots"] = await peer.list_roots()
        results["ping"] = await peer.ping(meta={"p": 1})
        await peer.notify("notifications/message", {"level": "info", "data": "x"})
        return {}

    async with anyio.create_task_group() as tg:
        await tg.start(partial(server.run, serve, ignore))
        await tg.start(partial(client.run, client_serves, ignore))
        with anyio.fail_after(10):
            assert await client.send_raw_request("go", None) == {}
        server.close()
        client.close()

    assert received == [
        ("sampling/createMessage", {"messages": [{"role": "user", "content": {"type": "text", "text": "q"}}],
                                    "maxTokens": 5, "_meta": {"trace": "t1"}}),
        ("elicitation/create", {"mode": "form", "message": "Your name?", "requestedSchema": {"type": "object"},
                                "_meta": {"k": "v"}}),
        ("elicitation/create", {"mode": "url", "message": "Sign in", "url": "https://example.com/a",
                                "elicitationId": "e1"}),
        ("roots/list", None),
        ("ping", {"_meta": {"p": 1}}),
    ]
    assert isinstance(results["sample"], CreateMessageResult) and results["sample"].model == "m"
    assert isinstance(results["form"], ElicitResult) and results["form"].content == {"name": "Ada"}
    assert isinstance(results["url"], ElicitResult) and results["url"].action == "accept"
    assert isinstance(results["roots"], ListRootsResult) and str(results["roots"].roots[0].uri) == "file:///work"
    assert results["ping"] is None


def test_dump_params_merges_meta_over_the_models_own_and_keeps_none_as_none() -> None:
    assert dump_params(None) is None
    assert dump_params(None, {"a": 1}) == {"_meta": {"a": 1}}
    message = SamplingMessage(role="user", content=TextContent(text="q"))
    assert dump_params(message, {"a": 1}) == {"role": "user", "content": {"type": "text", "text": "q"},
                                              "_meta": {"a": 1}}
