"""Resumable answers on Redis, over two real worker processes: an answer over Redis's 1 MiB value
bound of old (a 600 KB string is about 1.2 MB encoded) is replayed whole to a client resuming on
the other worker; one over the event bound (16 MiB) is answered live and replayed as an error
saying so, logged where it was stored, never silently lost. Event ids never show the session id."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import httpx
import pytest
from cluster import Replicas, Session, parse_sse
from redis_server import RedisServer

from mcp.server.event_store import DEFAULT_MAX_EVENT_BYTES

pytestmark = pytest.mark.anyio
MiB = 1024 * 1024


@pytest.fixture(scope="module")
def replicas(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicas]:
    cluster = Replicas(2, redis_server.url, "large", tmp_path_factory.mktemp("large"))
    try:
        cluster.start_all()
        yield cluster
    finally:
        cluster.stop_all()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as client:
        yield client


async def blob_then_resume_elsewhere(session: Session, size: int) -> tuple[list[str], dict[str, Any], list[Any]]:
    """(every event id, the answer) of a `blob` call answered by worker 0, and what a resumption
    from its priming event (the first id) on worker 1 replays."""
    response = await session.request(0, "tools/call", {"name": "blob", "arguments": {"size": size}})
    assert response.status_code == 200
    event_ids = [line[3:].strip() for line in response.text.splitlines() if line.startswith("id:")]
    answer = parse_sse(response.text)[-1][1]
    headers = dict(session.headers(), accept="text/event-stream", **{"last-event-id": event_ids[0]})
    with anyio.fail_after(30):
        resumed = await session.http.get(session.replicas.url(1), headers=headers)
    assert resumed.status_code == 200
    return event_ids, answer, [message for _, message in parse_sse(resumed.text)]


async def test_an_answer_over_one_mib_resumes_whole_on_another_worker(http: httpx.AsyncClient,
                                                                       replicas: Replicas) -> None:
    session = Session(http, replicas)
    await session.initialize(0)
    event_ids, answer, replayed = await blob_then_resume_elsewhere(session, 600_000)
    assert answer["result"]["content"][0]["text"] == "x" * 600_000
    assert replayed == [answer]
    assert len(event_ids) == 2 and session.id is not None and all(session.id not in e for e in event_ids)


async def test_an_answer_over_the_event_bound_is_answered_live_and_its_resumption_gets_an_error(
        http: httpx.AsyncClient, replicas: Replicas) -> None:
    session = Session(http, replicas)
    await session.initialize(0)
    _, answer, replayed = await blob_then_resume_elsewhere(session, 9 * MiB)  # about 18 MiB encoded
    assert answer["result"]["content"][0]["text"] == "x" * (9 * MiB)  # the live client got it whole
    assert len(replayed) == 1 and replayed[0]["id"] == answer["id"]
    error = replayed[0]["error"]
    assert error["code"] == -32603 and error["message"].startswith("Answer too large to resume:")
    assert error["data"]["limit"] == DEFAULT_MAX_EVENT_BYTES and error["data"]["size"] > DEFAULT_MAX_EVENT_BYTES
    assert "a client resuming past it gets an error instead" in replicas.log(0)
