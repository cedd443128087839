"""`max_sessions_per_client` with several workers sharing `RedisState`: one count for the
client on every worker (was: the cap per worker, so N workers gave a client N times the cap),
checked atomically when a session is created (clients racing at the cap cannot pass it), and a
session leaves the count when it ends, by DELETE on any worker or by expiring. Two real worker
processes (`capped_server.py`: 3 sessions per client, clients by address), one real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import anyio
import httpx
import pytest
from cluster import ACCEPT, HANDSHAKE, Replicas, answer
from redis_server import RedisServer

from mcp.server.http_limits import client_digest

pytestmark = pytest.mark.anyio
CAP = 3
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
HEADERS = dict(ACCEPT, **{"mcp-protocol-version": HANDSHAKE})
COUNT_KEY = f"capped:client-sessions:{client_digest(('address', '127.0.0.1'))}"


@pytest.fixture(scope="module")
def replicas(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicas]:
    cluster = Replicas(2, redis_server.url, "capped", tmp_path_factory.mktemp("capped"), script="capped_server.py")
    try:
        cluster.start_all()
        yield cluster
    finally:
        cluster.stop_all()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as client:
        yield client


async def initialize(http: httpx.AsyncClient, replicas: Replicas, worker: int) -> str | None:
    """The new session's id, or None when refused (429 up front, or a JSON-RPC error once the
    shared count was found full as the session was created)."""
    response = await http.post(replicas.url(worker), json=INIT, headers=HEADERS)
    if response.status_code == 429:
        assert response.json()["error"]["data"] == {"limit": CAP}
        return None
    assert response.status_code == 200, response.text
    reply = answer(response)
    if "error" in reply:
        assert reply["error"]["data"] == {"limit": CAP} and "mcp-session-id" not in response.headers
        return None
    return response.headers["mcp-session-id"]


async def delete(http: httpx.AsyncClient, replicas: Replicas, worker: int, session_id: str) -> None:
    response = await http.delete(replicas.url(worker), headers=dict(HEADERS, **{"mcp-session-id": session_id}))
    assert response.status_code == 200


def counted(redis_server: RedisServer) -> int:
    """The ids in the client's shared count (ended sessions leave it at the next count)."""
    return int(redis_server.call("SCARD", COUNT_KEY).strip()[1:])


async def test_a_client_gets_the_cap_across_all_workers_not_the_cap_on_each(
        http: httpx.AsyncClient, replicas: Replicas, redis_server: RedisServer) -> None:
    opened = [await initialize(http, replicas, worker) for worker in (0, 1, 0)]
    assert None not in opened
    assert [await initialize(http, replicas, worker) for worker in (1, 0, 1)] == [None, None, None]
    assert counted(redis_server) == CAP
    await delete(http, replicas, 1, str(opened[0]))  # made on worker 0, ended through worker 1
    again = await initialize(http, replicas, 0)
    assert again is not None and await initialize(http, replicas, 1) is None
    # a session that expires leaves the count too (its record gone from Redis, as the TTL does it)
    redis_server.call("PEXPIRE", f"capped:session:{opened[1]}", "1")
    with anyio.fail_after(10):
        while redis_server.call("EXISTS", f"capped:session:{opened[1]}").strip() != b":0":
            await anyio.sleep(0.01)
    last = await initialize(http, replicas, 1)
    assert last is not None and await initialize(http, replicas, 0) is None
    for session_id in (opened[2], again, last):  # every test ends with no session open
        await delete(http, replicas, 0, str(session_id))


async def test_clients_racing_at_the_cap_on_both_workers_get_exactly_the_cap(
        http: httpx.AsyncClient, replicas: Replicas, redis_server: RedisServer) -> None:
    results: list[str | None] = []

    async def one(worker: int) -> None:
        results.append(await initialize(http, replicas, worker))

    async with anyio.create_task_group() as tg:
        for n in range(12):
            tg.start_soon(one, n % 2)
    opened = [session_id for session_id in results if session_id is not None]
    assert len(results) == 12 and len(opened) == CAP
    assert counted(redis_server) == CAP
    for n, session_id in enumerate(opened):
        await delete(http, replicas, n % 2, session_id)
    assert await initialize(http, replicas, 0) is not None
