#!/usr/bin/env python3
"""Handshake-era Streamable HTTP `tools/call` with sessions in memory vs in Redis, in the same run,
and with one vs two worker processes sharing the Redis sessions.

    .venv/bin/python bench/redis_sessions.py [--calls 2000] [--clients 8] [--base-src DIR]

Columns (all servers up at once, chunks alternating between them): `memory` (the default: one
process, sessions in its memory), `redis 1w` (one process, `MCPServer(state=RedisState...)`),
`redis 2w` (two processes sharing the Redis sessions; every request goes to the other worker than
the one before, as a round-robin balancer would send it). The redis-server is the tests' own
(tests/redis/redis_server.py: 127.0.0.1, a free port, a temporary directory). c=1: one client,
sequential calls; c=N: N sessions with one call in flight each. CPU/call is the workers'
utime+stime (all processes of the column) over the calls; Redis CPU/call the redis-server's;
Redis commands/call from `INFO commandstats` (what the session store costs in round trips).
`--base-src DIR` adds a `memory, base` column: the same default server run from another source
tree (e.g. `git archive BASE src | tar -x -C DIR`), to check that the in-memory path did not get
slower.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests" / "redis"))

import run  # noqa: E402  (the benchmark driver's stdlib HTTP client and /proc readers)
from redis_server import RedisServer  # noqa: E402

ROUNDS = 10


class Column:
    def __init__(self, name: str, servers: list[run.HttpServer]) -> None:
        self.name = name
        self.servers = servers
        self.rates: dict[int, list[float]] = {}
        self.cpu: dict[int, float] = {}
        self.redis_cpu: dict[int, float] = {}
        self.commands: dict[int, float] = {}
        self.calls: dict[int, int] = {}

    def cpu_seconds(self) -> float:
        return sum(run.proc_cpu_seconds(s.pid) for s in self.servers)


class Rotating:
    """One session whose requests go to the column's workers in turn (one connection per worker)."""

    def __init__(self, servers: list[run.HttpServer]) -> None:
        self.clients = [run.HttpMcpClient(s.port) for s in servers]
        self.turn = 0

    async def initialize(self) -> None:
        first = self.clients[0]
        await first.initialize()
        for other in self.clients[1:]:
            other.session_id, other.protocol_version = first.session_id, first.protocol_version

    async def call(self) -> None:
        client = self.clients[self.turn % len(self.clients)]
        self.turn += 1
        result = await client.call_tool("add", {"a": 2, "b": 3})
        assert result["structuredContent"] == {"result": 5}, result


def commands(redis: RedisServer) -> int:
    info = redis.call("INFO", "commandstats").decode()
    total = 0
    for line in info.split("\r\n"):
        if line.startswith("cmdstat_"):
            total += int(line.split("calls=", 1)[1].split(",", 1)[0])
    return total - 1  # this INFO itself


def redis_cpu(redis: RedisServer) -> float:
    assert redis.process is not None
    return run.proc_cpu_seconds(redis.process.pid)


async def measure(columns: list[Column], redis: RedisServer, concurrency: int, calls: int) -> None:
    sessions = {c.name: [Rotating(c.servers) for _ in range(concurrency)] for c in columns}
    for column in columns:
        for session in sessions[column.name]:
            await session.initialize()
            for _ in range(50):  # warm-up
                await session.call()
    per_round = max(1, calls // ROUNDS // concurrency)
    for column in columns:
        column.rates[concurrency] = []
        column.cpu[concurrency] = column.redis_cpu[concurrency] = column.commands[concurrency] = 0.0
        column.calls[concurrency] = 0
    for _ in range(ROUNDS):
        for column in columns:
            async def worker(session: Rotating) -> None:
                for _ in range(per_round):
                    await session.call()

            cpu0, rcpu0, cmd0 = column.cpu_seconds(), redis_cpu(redis), commands(redis)
            started = time.perf_counter()
            await asyncio.gather(*(worker(s) for s in sessions[column.name]))
            elapsed = time.perf_counter() - started
            done = per_round * concurrency
            column.rates[concurrency].append(done / elapsed)
            column.cpu[concurrency] += column.cpu_seconds() - cpu0
            column.redis_cpu[concurrency] += redis_cpu(redis) - rcpu0
            column.commands[concurrency] += commands(redis) - cmd0 - 1  # the INFO before
            column.calls[concurrency] += done


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--base-src", type=Path, default=None)
    args = parser.parse_args()
    ours = run.Impl("ours", Path(sys.executable), BENCH / "servers" / "weather.py", BENCH / "servers" / "many_tools.py",
                    BENCH / "servers" / "content.py", "")
    script = BENCH / "servers" / "redis_sessions.py"
    with tempfile.TemporaryDirectory() as tmp:
        redis = RedisServer(Path(tmp))
        redis.start()
        servers: list[run.HttpServer] = []
        try:
            memory = run.HttpServer(ours, script)
            one = run.HttpServer(ours, script, redis.url, "bench1")
            two = [run.HttpServer(ours, script, redis.url, "bench2") for _ in range(2)]
            servers = [memory, one, *two]
            columns = [Column("memory", [memory]), Column("redis 1w", [one]), Column("redis 2w", two)]
            if args.base_src is not None:
                base_impl = dataclasses.replace(ours, env={"PYTHONPATH": str(args.base_src.resolve() / "src")})
                base = run.HttpServer(base_impl, script)
                servers.append(base)
                columns.insert(0, Column("memory, base", [base]))
            for server in servers:
                server.wait_ready(60)
            asyncio.run(measure(columns, redis, 1, args.calls))
            asyncio.run(measure(columns, redis, args.clients, args.calls * 2))
        finally:
            for server in servers:
                server.close()
            redis.kill()
    print("| column | c | calls/s (median of 10 chunks) | workers' CPU/call µs | Redis CPU/call µs | Redis commands/call |")
    print("|---|---:|---:|---:|---:|---:|")
    for c in (1, args.clients):
        for column in columns:
            n = column.calls[c]
            print(f"| {column.name} | {c} | {statistics.median(column.rates[c]):,.0f} | {column.cpu[c] / n * 1e6:,.0f} | "
                  f"{column.redis_cpu[c] / n * 1e6:,.0f} | {column.commands[c] / n:.2f} |")


if __name__ == "__main__":
    main()
