"""Nothing accumulates: 10,000 session open/close cycles and 10,000 stateless 2026-07-28 requests
through the in-process ASGI client (`httpx.ASGITransport`, which runs no lifespan: the mounted-app
path) leave no session, no live channel, no task and no extra objects behind.

Assertions are on counts (live objects by type, tasks), never on time.
"""

import asyncio
import gc
import json
from collections import Counter
from typing import Any

import anyio
import httpx
import pytest
from httpkit import MCP_URL, build_server, initialize, legacy_headers, modern_headers, modern_tool_call

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("anyio_backend", ["asyncio"])]

CYCLES = 10_000
WARMUP = 200
TOLERANCE = 20
"""Total growth in live objects allowed after 10,000 cycles (caches settling, the event loop's own
bookkeeping); a leak of one object per cycle would be 10,000."""


def live_objects() -> Counter[str]:
    gc.collect()
    gc.collect()
    return Counter(type(obj).__qualname__ for obj in gc.get_objects())


def growth(before: Counter[str], after: Counter[str]) -> dict[str, int]:
    return {name: after[name] - before[name] for name in after if after[name] - before[name] > 0}


async def settle() -> None:
    for _ in range(5):
        await anyio.sleep(0)


class Measurement:
    def __init__(self, wire_check: Any) -> None:
        self.wire_check = wire_check

    async def snapshot(self) -> tuple[Counter[str], int]:
        await settle()
        self.wire_check.messages.clear()  # the test's own record of the wire, not server state
        live_objects()  # the first census itself leaves a few objects behind: take it twice
        return live_objects(), len(asyncio.all_tasks())


def assert_flat(label: str, before: tuple[Counter[str], int], after: tuple[Counter[str], int]) -> None:
    grown = growth(before[0], after[0])
    total = sum(after[0].values()) - sum(before[0].values())
    print(f"\n{label}: live objects {sum(before[0].values())} -> {sum(after[0].values())} ({total:+d}); "
          f"tasks {before[1]} -> {after[1]}; grown types: {dict(sorted(grown.items(), key=lambda kv: -kv[1])[:8])}")
    assert after[1] == before[1], f"tasks {before[1]} -> {after[1]}"
    assert total <= TOLERANCE, f"{label}: {total} more live objects; by type: {grown}"
    assert all(count <= TOLERANCE for count in grown.values()), grown


async def test_ten_thousand_session_open_close_cycles_leave_nothing_behind(wire_check: Any) -> None:
    mcp = build_server()
    app = mcp.streamable_http_app()
    manager = mcp.session_manager
    measure = Measurement(wire_check)
    init = json.dumps(initialize()).encode()
    init_headers = legacy_headers(version=None)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:

        async def cycle() -> None:
            response = await client.post(MCP_URL, content=init, headers=init_headers)
            assert response.status_code == 200
            session_id = response.headers["mcp-session-id"]
            deleted = await client.delete(MCP_URL, headers={"mcp-session-id": session_id})
            assert deleted.status_code == 200

        for _ in range(WARMUP):
            await cycle()
        before = await measure.snapshot()
        for _ in range(CYCLES):
            await cycle()
        after = await measure.snapshot()
        assert manager.session_count == 0
        assert manager._live == {}
        assert_flat("session open/close", before, after)
    await manager.close()


async def test_ten_thousand_stateless_2026_requests_leave_nothing_behind(wire_check: Any) -> None:
    mcp = build_server()
    app = mcp.streamable_http_app()
    manager = mcp.session_manager
    measure = Measurement(wire_check)
    # an async tool: a sync one runs on the worker-thread pool, which may start one more idle
    # worker during the run (bounded, and not this transport's business)
    call = modern_tool_call(1, "async_echo", {"text": "hello"})
    body = json.dumps(call).encode()
    headers = modern_headers(call)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:

        async def one() -> None:
            response = await client.post(MCP_URL, content=body, headers=headers)
            assert response.status_code == 200
            assert "mcp-session-id" not in response.headers

        for _ in range(WARMUP):
            await one()
        before = await measure.snapshot()
        for _ in range(CYCLES):
            await one()
        after = await measure.snapshot()
        assert manager.session_count == 0
        assert manager._live == {}
        assert_flat("stateless 2026-07-28", before, after)
    await manager.close()
