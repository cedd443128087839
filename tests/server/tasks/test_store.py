"""`InMemoryTaskStore` and `TaskState`: TTL eviction, the bound, terminal states, the wire shapes."""

from __future__ import annotations

import pytest

from mcp.server.tasks import InMemoryTaskStore, TaskState, TaskStoreFull

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


async def test_tasks_expire_by_their_own_ttl_counted_from_creation() -> None:
    clock = Clock()
    store = InMemoryTaskStore(clock=clock)
    await store.create(TaskState("short", created_at=clock.now, ttl_ms=1_000))
    await store.create(TaskState("long", created_at=clock.now, ttl_ms=5_000))
    clock.now += 0.999
    assert await store.get("short") is not None
    clock.now += 0.002
    assert await store.get("short") is None
    assert await store.update("short", status="completed") is None
    assert (await store.get("long")) is not None and len(store) == 1
    clock.now += 4
    assert len(store) == 0


async def test_a_full_store_drops_its_oldest_finished_task_and_refuses_when_none_finished() -> None:
    clock = Clock()
    store = InMemoryTaskStore(max_tasks=2, clock=clock)
    await store.create(TaskState("a", created_at=clock.now))
    await store.create(TaskState("b", created_at=clock.now))
    with pytest.raises(TaskStoreFull):
        await store.create(TaskState("c", created_at=clock.now))
    await store.update("b", status="completed", result={"content": []})
    await store.create(TaskState("c", created_at=clock.now))
    assert await store.get("b") is None and await store.get("a") is not None
    with pytest.raises(ValueError, match="already exists"):
        await store.create(TaskState("a", created_at=clock.now))
    with pytest.raises(ValueError):
        InMemoryTaskStore(max_tasks=0)


async def test_terminal_tasks_never_change_and_callers_only_see_copies() -> None:
    clock = Clock()
    store = InMemoryTaskStore(clock=clock)
    await store.create(TaskState("t", created_at=clock.now))
    clock.now += 1
    parked = await store.update("t", status="input_required", input_requests={"k": {"method": "roots/list"}})
    assert parked is not None and parked.last_updated_at == clock.now
    parked.input_requests.clear()  # a copy: the stored task keeps its request
    assert (await store.get("t")).input_requests == {"k": {"method": "roots/list"}}  # type: ignore[union-attr]
    await store.update("t", status="cancelled", input_requests={})
    clock.now += 1
    after = await store.update("t", status="completed", result={"content": []})
    assert after is not None and after.status == "cancelled" and after.result is None
    assert after.last_updated_at == clock.now - 1
    with pytest.raises(TypeError, match="task_id"):
        await store.update("t", task_id="other")


def test_the_wire_shapes_of_each_status() -> None:
    state = TaskState("id-1", created_at=0.5, ttl_ms=60_000, poll_interval_ms=None)
    assert state.task_wire() == {"taskId": "id-1", "status": "working", "createdAt": "1970-01-01T00:00:00.500Z",
                                 "lastUpdatedAt": "1970-01-01T00:00:00.500Z", "ttlMs": 60_000}
    state.status, state.input_requests = "input_required", {"q": {"method": "roots/list", "params": {}}}
    assert state.detailed_wire()["inputRequests"] == {"q": {"method": "roots/list", "params": {}}}
    state.status, state.result = "completed", {"content": [{"type": "text", "text": "ok"}]}
    assert "inputRequests" not in state.detailed_wire() and state.detailed_wire()["result"] == state.result
    state.status, state.error, state.status_message = "failed", {"code": -32603, "message": "boom"}, "boom"
    wire = state.detailed_wire()
    assert wire["error"] == {"code": -32603, "message": "boom"} and "result" not in wire
    assert wire["statusMessage"] == "boom" and state.terminal
