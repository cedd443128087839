"""Three server processes share one Redis; every request picks its worker, as a round-robin
balancer would. Sessions, change notifications, resumable streams and tasks work across them,
and the service rides out a Redis restart."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any, cast

import anyio
import httpx
import pytest
import redis.asyncio as aioredis
from cluster import Replicas, RoundRobinProxy, Session, answer, modern_request
from redis_server import RedisServer

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def replicas(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicas]:
    cluster = Replicas(3, redis_server.url, "cluster", tmp_path_factory.mktemp("replicas"))
    try:
        cluster.start_all()
        yield cluster
    finally:
        cluster.stop_all()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=httpx.Timeout(20.0)) as client:
        yield client


async def _lines_until(lines: AsyncIterator[str], wanted: Any, timeout: float = 20.0) -> list[dict[str, Any]]:
    """SSE data messages read from `lines` until one satisfies `wanted` (bounded)."""
    seen: list[dict[str, Any]] = []
    with anyio.fail_after(timeout):
        async for line in lines:
            if line.startswith("data:") and line[5:].strip():
                message = json.loads(line[5:])
                seen.append(message)
                if wanted(message):
                    return seen
    raise AssertionError(f"stream ended before the awaited message; saw {seen}")


async def test_a_handshake_session_is_served_by_all_three_workers_and_deleted_everywhere(
        http: httpx.AsyncClient, replicas: Replicas, redis_server: RedisServer) -> None:
    session = Session(http, replicas)
    init = await session.initialize(0)
    assert init["result"]["serverInfo"]["name"] == "replicated"
    assert "error" not in await session.call(1, "resources/subscribe", {"uri": "doc://readme"})
    served = [(await session.call(w, "tools/call", {"name": "whoami", "arguments": {}}))["result"]["structuredContent"]
              for w in (0, 1, 2, 2, 1, 0)]
    assert served == [{"result": f"worker{w}"} for w in (0, 1, 2, 2, 1, 0)]
    record = json.loads(redis_server.call("GET", f"cluster:session:{session.id}").split(b"\r\n")[1])
    assert record["subscriptions"] == ["doc://readme"]  # a change made on worker1 is what every worker reads

    deleted = await http.delete(replicas.url(2), headers=session.headers())
    assert deleted.status_code == 200
    for worker in (0, 1):
        gone = await session.request(worker, "tools/call", {"name": "whoami", "arguments": {}})
        assert gone.status_code == 404


async def test_the_sdk_client_behind_a_round_robin_balancer_is_served_by_every_worker(replicas: Replicas) -> None:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with RoundRobinProxy(replicas.ports) as proxy:
        no_reuse = httpx.AsyncClient(limits=httpx.Limits(max_keepalive_connections=0), timeout=20)
        async with no_reuse, Client(streamable_http_client(f"http://127.0.0.1:{proxy.port}/mcp", http_client=no_reuse),
                                    mode="legacy") as client:
            served = {(await client.call_tool("whoami", {})).structured_content["result"] for _ in range(6)}
    assert served == {"worker0", "worker1", "worker2"}
    assert len(set(proxy.picked)) == 3


async def test_a_change_raised_on_one_worker_reaches_a_listen_stream_on_another(
        http: httpx.AsyncClient, replicas: Replicas) -> None:
    body, headers = modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    async with http.stream("POST", replicas.url(1), json=body, headers=headers) as stream:
        lines = stream.aiter_lines()
        await _lines_until(lines, lambda m: m.get("method") == "notifications/subscriptions/acknowledged")
        call, call_headers = modern_request("tools/call", {"name": "announce", "arguments": {}}, 7, name="announce")
        announced = await http.post(replicas.url(2), json=call, headers=call_headers)
        assert answer(announced)["result"]["structuredContent"] == {"result": "worker2"}
        seen = await _lines_until(lines, lambda m: m.get("method") == "notifications/tools/list_changed")
        assert seen[-1]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 1


async def test_a_resource_update_raised_on_one_worker_reaches_the_get_stream_held_by_another(
        http: httpx.AsyncClient, replicas: Replicas) -> None:
    session = Session(http, replicas)
    await session.initialize(1)
    assert "error" not in await session.call(2, "resources/subscribe", {"uri": "doc://readme"})
    async with http.stream("GET", replicas.url(0), headers=dict(session.headers(), accept="text/event-stream")) as stream:
        assert stream.status_code == 200
        lines = stream.aiter_lines()
        assert (await lines.__anext__()).startswith(": stream open")
        assert "error" not in await session.call(1, "tools/call", {"name": "touch", "arguments": {"uri": "doc://other"}})
        assert "error" not in await session.call(2, "tools/call", {"name": "touch", "arguments": {"uri": "doc://readme"}})
        seen = await _lines_until(lines, lambda m: m.get("method") == "notifications/resources/updated")
        assert seen == [{"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "doc://readme"}}]


async def test_a_task_started_on_one_worker_is_polled_and_cancelled_through_the_others(
        http: httpx.AsyncClient, replicas: Replicas) -> None:
    markers = replicas.directory
    body, headers = modern_request("tools/call", {"name": "long_job", "arguments": {"label": "job1"}}, name="long_job")
    created = answer(await http.post(replicas.url(0), json=body, headers=headers))["result"]
    assert created["resultType"] == "task" and created["status"] == "working"
    task_id = created["taskId"]

    async def task_call(worker: int, method: str) -> dict[str, Any]:
        request, request_headers = modern_request(method, {"taskId": task_id}, name=task_id)
        return answer(await http.post(replicas.url(worker), json=request, headers=request_headers))

    assert (await task_call(1, "tasks/get"))["result"]["status"] == "working"
    replicas.kill(1)  # a worker that did not run the task restarts: the task is still there
    replicas.start(1)
    replicas.wait_ready(1)
    assert (await task_call(1, "tasks/get"))["result"]["status"] == "working"
    assert "error" not in await task_call(2, "tasks/cancel")
    assert (await task_call(1, "tasks/get"))["result"]["status"] == "cancelled"
    with anyio.fail_after(20):  # the work itself stopped, on the worker that ran it
        while not (markers / "job1.ended").exists():
            await anyio.sleep(0.02)
    assert (markers / "job1.started").read_text() == "worker0"
    assert (markers / "job1.ended").read_text() == "worker0"
    assert (await task_call(2, "tasks/get"))["result"]["status"] == "cancelled"


async def test_a_task_asking_for_input_on_one_worker_is_answered_through_another(
        http: httpx.AsyncClient, replicas: Replicas) -> None:
    body, headers = modern_request("tools/call", {"name": "ask_job", "arguments": {}}, name="ask_job")
    task_id = answer(await http.post(replicas.url(0), json=body, headers=headers))["result"]["taskId"]

    async def task_call(worker: int, method: str, **extra: Any) -> dict[str, Any]:
        request, request_headers = modern_request(method, {"taskId": task_id, **extra}, name=task_id)
        return answer(await http.post(replicas.url(worker), json=request, headers=request_headers))

    async def status_on(worker: int, wanted: str) -> dict[str, Any]:
        with anyio.fail_after(20):
            while (state := (await task_call(worker, "tasks/get"))["result"])["status"] != wanted:
                await anyio.sleep(0.02)
        return state

    asked = await status_on(1, "input_required")
    assert asked["inputRequests"] == {"q": {"method": "test/question", "params": {"text": "which number?"}}}
    assert "error" not in await task_call(2, "tasks/update", inputResponses={"q": {"value": 42}})
    done = await status_on(1, "completed")
    assert done["result"]["structuredContent"] == {"result": "worker0 got 42"}


async def test_a_stream_resumes_on_another_worker_after_its_worker_is_killed_nothing_lost_or_repeated(
        http: httpx.AsyncClient, replicas: Replicas, redis_server: RedisServer) -> None:
    session = Session(http, replicas)
    await session.initialize(0)
    body = {"jsonrpc": "2.0", "id": 42, "method": "tools/call",
            "params": {"name": "ticks", "arguments": {"count": 10_000}, "_meta": {"progressToken": "p"}}}
    first: list[tuple[str, int]] = []
    async with http.stream("POST", replicas.url(0), json=body, headers=session.headers()) as stream:
        event_id = None
        with anyio.fail_after(20):
            async for line in stream.aiter_lines():
                if line.startswith("id:"):
                    event_id = line[3:].strip()
                elif line.startswith("data:") and line[5:].strip():
                    message = json.loads(line[5:])
                    assert event_id is not None
                    first.append((event_id, message["params"]["progress"]))
                    if len(first) == 5:
                        break  # the connection drops; the call goes on, its events stored
    last_seen = first[-1][0]
    assert session.id is not None and all(session.id not in event_id for event_id, _ in first)
    tag = last_seen.rsplit("@", 1)[0]  # event ids and keys name the stream by a hash: no session id
    key = f"cluster:sse:{tag}"
    store = aioredis.Redis.from_url(redis_server.url)
    try:
        with anyio.fail_after(20):
            while await store.xlen(key) < 1 + len(first) + 5:  # priming event, seen ones, five more
                await anyio.sleep(0.02)
        replicas.kill(0)  # SIGKILL, mid-stream
        # what the dead worker stored after what the client saw: exactly what it must get
        # a client without decode_responses: ids and fields come back as bytes
        stored = cast("list[tuple[bytes, dict[bytes, bytes]]]",
                      await store.xrange(key, min=f"({last_seen.rsplit('@', 1)[1]}", max="+"))
        assert await store.keys(f"cluster:sse:*{session.id}*") == []
    finally:
        await store.aclose()
    expected = [(f"{tag}@{entry.decode()}", json.loads(fields[b"m"])["params"]["progress"])
                for entry, fields in stored if fields[b"m"]]
    assert expected, "the worker was killed before storing anything beyond what the client saw"
    resumed: list[tuple[str, int]] = []
    headers = dict(session.headers(), accept="text/event-stream", **{"last-event-id": last_seen})
    async with http.stream("GET", replicas.url(1), headers=headers) as stream:
        assert stream.status_code == 200
        event_id = None
        with anyio.fail_after(20):
            async for line in stream.aiter_lines():
                if line.startswith("id:"):
                    event_id = line[3:].strip()
                elif line.startswith("data:") and line[5:].strip():
                    assert event_id is not None
                    resumed.append((event_id, json.loads(line[5:])["params"]["progress"]))
                    if len(resumed) >= len(expected):
                        break
    assert resumed == expected
    progress = [p for _, p in first + resumed]
    assert progress == list(range(1, len(progress) + 1))  # in order, none lost, none twice
    replicas.start(0)
    replicas.wait_ready(0)


async def test_redis_restarted_mid_run_fails_requests_clearly_and_the_service_recovers_by_itself(
        http: httpx.AsyncClient, replicas: Replicas, redis_server: RedisServer) -> None:
    session = Session(http, replicas)
    await session.initialize(2)
    redis_server.stop()
    try:
        down = await session.request(1, "tools/call", {"name": "whoami", "arguments": {}})
        assert down.status_code == 503
        assert down.json()["error"] == {"code": -32603,
                                        "message": "Service unavailable: the shared state store cannot be reached"}
        assert down.json()["id"] is None  # a transport-level refusal names no request (as officially)
        body, headers = modern_request("tools/call", {"name": "whoami", "arguments": {}}, name="whoami")
        stateless = await http.post(replicas.url(1), json=body, headers=headers)  # needs no Redis: still served
        assert answer(stateless)["result"]["structuredContent"] == {"result": "worker1"}
    finally:
        redis_server.start()
    deadline = time.monotonic() + 20
    while True:
        response = await session.request(0, "tools/call", {"name": "whoami", "arguments": {}})
        if response.status_code == 200 or time.monotonic() > deadline:
            break
        await anyio.sleep(0.05)
    assert answer(response)["result"]["structuredContent"] == {"result": "worker0"}
    # pub/sub came back too: a change raised on worker 0 reaches a listener on worker 1
    listen, listen_headers = modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    with anyio.fail_after(30):
        while True:
            async with http.stream("POST", replicas.url(1), json=listen, headers=listen_headers) as stream:
                lines = stream.aiter_lines()
                await _lines_until(lines, lambda m: m.get("method") == "notifications/subscriptions/acknowledged")
                assert "error" not in await session.call(0, "tools/call", {"name": "announce", "arguments": {}})
                try:
                    with anyio.fail_after(2):
                        await _lines_until(lines, lambda m: m.get("method") == "notifications/tools/list_changed")
                    break
                except TimeoutError:  # worker 1's subscription was still reconnecting: try again
                    continue


def test_workers_logged_that_they_match_each_other(replicas: Replicas) -> None:
    for i in range(3):
        assert "replica matches the others sharing Redis prefix 'cluster'" in replicas.log(i)



