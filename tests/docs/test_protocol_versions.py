"""docs/protocol-versions.md: `mode="auto"` probes and falls back, `"legacy"` handshakes, a version
pin sends nothing and knows nothing until told, and `prior_discover` tells it (only with a pin).
The negotiation traffic is counted on a real Streamable HTTP server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from mcp import Client
from mcp.types import DiscoverResult

sys.path.insert(0, str(Path(__file__).parent))
from client_pages_kit import Recorder, bookshop, serving

pytestmark = pytest.mark.anyio


def _recorded_server() -> tuple[list[Recorder], object]:
    recorders: list[Recorder] = []
    mcp = bookshop()

    def app() -> Recorder:
        recorders.append(Recorder(mcp.streamable_http_app()))
        return recorders[0]

    return recorders, app


def _methods(recorder: Recorder) -> list[str]:
    """The JSON-RPC method of every POST, read from the body-independent `Mcp-Method` header on the
    2026 wire, or `initialize`/`notifications/initialized`/... for the handshake (session header)."""
    return [r["mcp_method"] or ("handshake-era" if "mcp-session-id" in r["headers"] else "initialize?")
            for r in recorder.posts()]


async def test_auto_sends_one_discover_probe_and_lands_on_2026() -> None:
    recorders, app = _recorded_server()
    with serving(app) as base, anyio.fail_after(30):  # type: ignore[arg-type]
        async with Client(f"{base}/mcp") as client:
            assert client.protocol_version == "2026-07-28"
            negotiation = _methods(recorders[0])
            await client.list_tools()
    assert negotiation == ["server/discover"]


async def test_legacy_never_probes_and_negotiates_the_newest_handshake_version() -> None:
    recorders, app = _recorded_server()
    with serving(app) as base, anyio.fail_after(30):  # type: ignore[arg-type]
        async with Client(f"{base}/mcp", mode="legacy") as client:
            assert client.protocol_version == "2025-11-25"
            assert client.server_info is not None and client.server_info.name == "Bookshop"
    assert "server/discover" not in _methods(recorders[0])


async def test_a_pin_sends_nothing_before_the_first_request_and_knows_nothing_of_the_server() -> None:
    recorders, app = _recorded_server()
    with serving(app) as base, anyio.fail_after(30):  # type: ignore[arg-type]
        async with Client(f"{base}/mcp", mode="2026-07-28") as client:
            assert recorders[0].posts() == []  # live the instant `async with` returns
            assert client.protocol_version == "2026-07-28"
            assert client.server_info is None
            assert client.instructions is None
            capabilities = client.server_capabilities
            assert (capabilities.tools, capabilities.resources, capabilities.prompts) == (None, None, None)
            result = await client.call_tool("search_books", {"query": "Dune"})  # needs none of it
            assert result.is_error is False
    # The first thing on the wire is the first request (the client then lists the tools to check
    # the call's structured output against its schema, as the official client does).
    assert _methods(recorders[0])[0] == "tools/call"
    assert "server/discover" not in _methods(recorders[0])


def test_only_modern_versions_are_pinnable_and_a_handshake_version_is_refused_before_any_io() -> None:
    with pytest.raises(ValueError) as refused:
        Client("http://127.0.0.1:9/mcp", mode="2025-06-18")
    assert str(refused.value) == (
        "mode must be 'legacy', 'auto', or one of ['2026-07-28']; got '2025-06-18' "
        "('2025-06-18' is a handshake-era version; use mode='legacy')"
    )
    with pytest.raises(ValueError, match=r"^mode must be 'legacy', 'auto', or one of \['2026-07-28'\]; got 'newest'$"):
        Client("http://127.0.0.1:9/mcp", mode="newest")


async def test_prior_discover_restores_the_identity_with_zero_round_trips() -> None:
    recorders, app = _recorded_server()
    with serving(app) as base, anyio.fail_after(30):  # type: ignore[arg-type]
        async with Client(f"{base}/mcp") as client:
            saved = client.session.discover_result
        assert isinstance(saved, DiscoverResult)
        assert saved.supported_versions == ["2026-07-28"]
        restored = DiscoverResult.model_validate_json(saved.model_dump_json())  # across processes
        before = len(recorders[0].posts())
        async with Client(f"{base}/mcp", mode="2026-07-28", prior_discover=restored) as client:
            assert len(recorders[0].posts()) == before
            assert client.protocol_version == "2026-07-28"
            assert client.server_info is not None and client.server_info.name == "Bookshop"
            assert client.instructions == "Search the catalog before recommending a book."
            assert client.server_capabilities.tools is not None


async def test_prior_discover_is_ignored_unless_the_mode_is_a_pin() -> None:
    async with Client(bookshop()) as client:
        saved = client.session.discover_result
    assert saved is not None
    recorders, app = _recorded_server()
    with serving(app) as base, anyio.fail_after(30):  # type: ignore[arg-type]
        async with Client(f"{base}/mcp", prior_discover=saved) as client:  # auto probes anyway
            assert _methods(recorders[0]) == ["server/discover"]
            assert client.session.discover_result is not saved
        async with Client(f"{base}/mcp", mode="legacy", prior_discover=saved) as client:  # ignored
            assert client.protocol_version == "2025-11-25"
            assert client.session.discover_result is None


class OldServer:
    """An ASGI wrapper that plays a pre-2026 server: `server/discover` is an unknown method."""

    def __init__(self, app: object) -> None:
        self.app = app
        self.refused = 0

    async def __call__(self, scope: dict[str, object], receive: object, send: object) -> None:
        headers = dict(scope.get("headers", ()))  # type: ignore[arg-type]
        if scope["type"] == "http" and headers.get(b"mcp-method") == b"server/discover":
            body = b""
            while True:
                message = await receive()  # type: ignore[operator]
                body += message.get("body", b"")
                if not message.get("more_body"):
                    break
            request_id = json.loads(body)["id"]
            answer = json.dumps({"jsonrpc": "2.0", "id": request_id,
                                 "error": {"code": -32601, "message": "Method not found"}}).encode()
            self.refused += 1
            await send({"type": "http.response.start", "status": 200,  # type: ignore[operator]
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": answer})  # type: ignore[operator]
            return
        await self.app(scope, receive, send)  # type: ignore[operator]


async def test_against_an_older_server_auto_falls_back_to_the_initialize_handshake() -> None:
    mcp = bookshop()
    wrappers: list[OldServer] = []

    def app() -> OldServer:
        wrappers.append(OldServer(mcp.streamable_http_app()))
        return wrappers[0]

    with serving(app) as base, anyio.fail_after(30):
        async with Client(f"{base}/mcp") as client:
            assert client.protocol_version == "2025-11-25"
            assert (await client.call_tool("search_books", {"query": "x"})).is_error is False
    assert wrappers[0].refused == 1
