"""Each Redis store against a real Redis: values that are not ours are refused and logged (never
executed), an unreachable Redis is a clear error (naming the URL at startup, a JSON-RPC error
for a request), and replicas that do not match are logged when they start."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import httpx
import pytest
from redis_server import RedisServer, free_port

from mcp import Client
from mcp.client.caching import CacheConfig, CacheEntry, CacheKey
from mcp.redis import (
    RedisConnection,
    RedisEventStore,
    RedisResponseCacheStore,
    RedisSessionStore,
    RedisState,
    RedisSubscriptionBus,
    RedisTaskStore,
    RedisUnavailable,
)
from mcp.redis._events import stream_tag
from mcp.server.event_store import EventMessage
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp.server.session_store import SessionRecord, StoreUnavailable
from mcp.server.tasks import TaskState
from mcp.shared.subscriptions import ResourceUpdated, ServerEvent, ToolsListChanged
from mcp.types import ListToolsResult

pytestmark = pytest.mark.anyio

KEYS = [b"0123456789abcdef0123456789abcdef"]


def _dead_url() -> str:
    return f"redis://:hunter2@127.0.0.1:{free_port()}/0"


async def test_redis_unreachable_at_startup_is_an_error_naming_the_url_without_its_password() -> None:
    url = _dead_url()
    server = MCPServer("svc", state=RedisState.from_url(url, connect_timeout=1.0))
    with pytest.raises(RedisUnavailable) as raised:
        async with server._lowlevel_server.lifespan(server._lowlevel_server):
            pass
    assert url.replace(":hunter2@", "") in str(raised.value)
    assert "hunter2" not in str(raised.value)


async def test_a_request_needing_an_unreachable_redis_fails_with_a_json_rpc_error() -> None:
    store = RedisTaskStore(RedisConnection(_dead_url(), connect_timeout=1.0))
    with pytest.raises(StoreUnavailable) as raised:
        await store.get("t1")
    assert (raised.value.code, raised.value.message) == (-32603, "Service unavailable: the shared state store cannot be reached")


async def test_replicas_that_differ_in_name_or_request_state_keys_are_logged_at_startup(
        redis_server: RedisServer, prefix: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="mcp.redis")
    first = MCPServer("svc", state=RedisState.from_url(redis_server.url, prefix=prefix),
                      request_state_security=RequestStateSecurity(keys=KEYS))
    async with first._lowlevel_server.lifespan(first._lowlevel_server):
        pass
    assert "replica matches the others" in caplog.text
    caplog.clear()
    other = MCPServer("svc-renamed", state=RedisState.from_url(redis_server.url, prefix=prefix),
                      request_state_security=RequestStateSecurity(keys=[b"x" * 32]))
    async with other._lowlevel_server.lifespan(other._lowlevel_server):
        pass
    warning = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warning) == 1
    assert "name 'svc' there, 'svc-renamed' here" in warning[0]
    assert "requestStateKeys" in warning[0]
    assert "0123456789abcdef0123456789abcdef" not in caplog.text  # a fingerprint, never the key


async def test_a_replica_with_a_per_process_request_state_key_is_warned_at_startup(
        redis_server: RedisServer, prefix: str, caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("svc", state=RedisState.from_url(redis_server.url, prefix=prefix))
    async with server._lowlevel_server.lifespan(server._lowlevel_server):
        pass
    assert "random per-process key" in caplog.text and "RequestStateSecurity(keys=" in caplog.text


async def test_a_shared_session_whose_record_was_replaced_by_foreign_data_is_refused_and_logged(
        redis_server: RedisServer, prefix: str, caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("svc", state=RedisState.from_url(redis_server.url, prefix=prefix),
                       request_state_security=RequestStateSecurity(keys=KEYS))

    @server.tool()
    def ping_tool() -> str:
        return "pong"

    app = server.streamable_http_app(json_response=True)
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://127.0.0.1") as http:
        init = await http.post("/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        session_id = init.headers["mcp-session-id"]
        headers["mcp-session-id"] = session_id
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ping_tool", "arguments": {}}}
        assert (await http.post("/mcp", headers=headers, json=call)).json()["result"]["structuredContent"] == {"result": "pong"}
        for foreign in ("not json", json.dumps(["a", "list"]), json.dumps({"format": "pickle", "id": session_id}),
                        json.dumps({"format": "mcpkit.session/1", "id": session_id, "version": "1999-01-01"}),
                        json.dumps({"format": "mcpkit.session/1", "id": session_id, "version": "2025-11-25",
                                    "subscriptions": [], "owner": "alice"})):
            redis_server.call("SET", f"{prefix}:session:{session_id}", foreign)
            caplog.clear()
            refused = await http.post("/mcp", headers=headers, json=call)
            assert refused.status_code == 404, foreign
            assert f"refusing session record at {prefix}:session:{session_id}" in caplog.text
    await server.session_manager.close()


async def test_session_records_round_trip_and_many_are_read_at_once(redis_server: RedisServer, prefix: str) -> None:
    store = RedisSessionStore.from_url(redis_server.url, prefix=prefix)
    record = SessionRecord("s1", "2025-06-18", {"name": "c", "version": "1"}, {"roots": {}}, "info", ["a://1"],
                           {"client_id": "app", "issuer": None, "subject": "alice"})
    await store.create(record, ttl=30)
    assert await store.load("s1", ttl=30) == record
    record.log_level = "error"
    await store.save(record)
    assert await store.load_many(["s1", "unknown"]) == [record, None]
    await store.delete("s1")
    assert await store.load("s1", ttl=30) is None
    await store.save(record)  # a session deleted meanwhile stays deleted
    assert await store.load("s1", ttl=30) is None
    await store.connection.aclose()


async def test_task_states_are_shared_and_a_terminal_status_never_changes(redis_server: RedisServer, prefix: str,
                                                                          caplog: pytest.LogCaptureFixture) -> None:
    store = RedisTaskStore.from_url(redis_server.url, prefix=prefix)
    other = RedisTaskStore.from_url(redis_server.url, prefix=prefix)  # another worker's
    await store.create(TaskState("t1", ttl_ms=60_000))
    with pytest.raises(ValueError, match="already exists"):
        await store.create(TaskState("t1"))
    changed = await other.update("t1", status="input_required", input_requests={"q": {"method": "elicitation/create"}})
    assert changed is not None and changed.input_requests == {"q": {"method": "elicitation/create"}}
    assert await other.update("t1", status="cancelled", input_requests={}) is not None
    after = await store.update("t1", status="completed", result={"content": []})
    assert after is not None and after.status == "cancelled" and after.result is None
    assert (await store.get("t1")) == after
    redis_server.call("SET", f"{prefix}:task:t2", json.dumps({"format": "mcpkit.task/1", "task_id": "t2",
                                                              "status": "rm -rf /"}))
    assert await store.get("t2") is None
    assert f"refusing task state at {prefix}:task:t2" in caplog.text
    for connection in (store.connection, other.connection):
        await connection.aclose()


async def test_sse_events_replay_in_order_once_and_foreign_entries_are_refused(
        redis_server: RedisServer, prefix: str, caplog: pytest.LogCaptureFixture) -> None:
    store = RedisEventStore.from_url(redis_server.url, prefix=prefix)
    priming = await store.store_event("sess/ab", None)
    ids = [await store.store_event("sess/ab", {"jsonrpc": "2.0", "method": "m", "params": {"n": n}}) for n in range(3)]
    redis_server.call("XADD", f"{prefix}:sse:{stream_tag('sess/ab')}", "*", "m", json.dumps({"not": "json-rpc"}))
    final = await store.store_event("sess/ab", {"jsonrpc": "2.0", "id": 1, "result": {}})
    got: list[EventMessage] = []

    async def collect(event: EventMessage) -> None:
        got.append(event)

    assert await store.replay_events_after(priming, collect) == "sess/ab"
    assert [e.event_id for e in got] == [*ids, final]
    assert "refusing SSE event" in caplog.text and "not a JSON-RPC message" in caplog.text
    got.clear()
    assert await store.replay_events_after(ids[1], collect) == "sess/ab"
    # the store hands back wire dicts (EventMessage.message is typed as the model union)
    assert [e.message.get("params", {}).get("n") for e in got] == [2, None]  # pyright: ignore[reportAttributeAccessIssue]
    tag, entry = ids[0].split("@")
    for unknown in (f"{tag}@1-0", f"{stream_tag('sess/zz')}@{entry}", f"sess/ab@{entry}", "garbage", ""):
        assert await store.replay_events_after(unknown, collect) is None
    # an entry planted under a stream's key naming another stream is refused, not trusted
    planted = redis_server.call("XADD", f"{prefix}:sse:{tag}", "*", "m", "", "s", "other/ab").split(b"\r\n")[1].decode()
    assert await store.replay_events_after(f"{tag}@{planted}", collect) is None
    assert "does not name the stream its key stands for" in caplog.text
    got.clear()
    await store.follow(ids[1], collect)  # ends at the final response
    assert [e.event_id for e in got] == [ids[2], final]
    await store.connection.aclose()


async def test_change_events_cross_connections_and_foreign_messages_are_refused(
        redis_server: RedisServer, prefix: str, caplog: pytest.LogCaptureFixture) -> None:
    import anyio

    publisher = RedisSubscriptionBus.from_url(redis_server.url, prefix=prefix)
    listener = RedisSubscriptionBus.from_url(redis_server.url, prefix=prefix)
    heard: list[ServerEvent] = []
    both_heard = anyio.Event()

    def hear(event: ServerEvent) -> None:  # called in this event loop, by the hub's reader
        heard.append(event)
        if len(heard) == 2:
            both_heard.set()

    listener.subscribe(hear)
    assert await listener.connection.hub().ready(timeout=10)
    redis_server.call("PUBLISH", f"{prefix}:bus", json.dumps({"method": "tools/call", "params": {"name": "x"}}))
    redis_server.call("PUBLISH", f"{prefix}:bus", "\x80garbage")
    await publisher.publish(ToolsListChanged())
    await publisher.publish(ResourceUpdated(uri="doc://a"))
    with anyio.fail_after(10):
        await both_heard.wait()
    assert heard == [ToolsListChanged(), ResourceUpdated(uri="doc://a")]
    assert "'tools/call' is not a listen-stream event" in caplog.text
    for connection in (publisher.connection, listener.connection):
        await connection.aclose()


async def test_the_response_cache_is_shared_by_two_clients_and_foreign_entries_are_misses(
        redis_server: RedisServer, prefix: str, caplog: pytest.LogCaptureFixture) -> None:
    from mcp.server import CacheHint, Server

    listed = 0

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        nonlocal listed
        listed += 1
        return ListToolsResult(tools=[])

    server = Server("cached", cache_hints={"tools/list": CacheHint(ttl_ms=60_000, scope="public")},
                    on_list_tools=list_tools)
    store = RedisResponseCacheStore.from_url(redis_server.url, prefix=prefix)
    config = CacheConfig(store=store, partition="tenant-1", target_id="svc")
    for _ in range(2):  # two client processes' worth of clients, one store
        async with Client(server, cache=config) as client:
            assert (await client.list_tools()).tools == []
    assert listed == 1

    key = CacheKey("tools/list", "", "p")
    await store.set(key, CacheEntry(ListToolsResult(tools=[]), "private", time.time() + 60))
    assert (await store.get(key)) is not None
    redis_server.call("SET", store._key(key), json.dumps({"format": "mcpkit.cache/1", "key": ["tools/list", "", "p"],
                                                         "type": "os.system", "value": {}, "scope": "private"}))
    assert await store.get(key) is None
    assert "refusing cached response" in caplog.text
    await store.clear()
    assert redis_server.call("KEYS", f"{prefix}:cache:*") == b"*0\r\n"
    await store.connection.aclose()


def test_a_server_process_whose_redis_is_unreachable_exits_at_startup_naming_the_url(tmp_path: Any) -> None:
    import subprocess
    import sys
    from pathlib import Path

    port = free_port()
    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    script = Path(__file__).parent / "replica_server.py"
    done = subprocess.run([sys.executable, str(script), str(port), url, "dead", "worker", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert f"cannot reach Redis at {url.replace(':hunter2@', '')}" in done.stderr
    assert "hunter2" not in done.stderr + done.stdout
