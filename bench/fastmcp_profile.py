#!/usr/bin/env python3
"""Where a FastMCP server's time goes per `tools/call` (stdio or Streamable HTTP): FastMCP's own
code, the `mcp` SDK under it (ours or the official), the HTTP server, the event loop.

    python3 bench/fastmcp_profile.py [--calls 3000] [--columns fastmcp,fastmcp-ours] [--http [--json]]
                                     [--tool add|weather|forecast] [--src DIR]

Runs `servers/weather_fastmcp.py` in each column's venv (bench/.venvs/<column>, made by
`bench/run.py --only <column>`), sends `initialize` and `--warm` calls, then turns cProfile on
(SIGUSR1) for `--calls` sequential `tools/call`, and off (SIGUSR2) before shutting down: start-up,
imports and first-call work stay out of the profile. The timer is the event-loop thread's CPU time
(`time.thread_time`): FastMCP's and the SDK's code run there; worker threads (FastMCP runs a sync
tool in one) are not profiled. `--src DIR` puts a checkout's `src` first on the server's path (for
the fastmcp-ours column: a working tree's mcpkit without reinstalling the venv).

Printed per column, as CPU per call and share:
  - by owner: each function's self time goes to FastMCP (its package and the libraries only it
    uses: opentelemetry, key_value, beartype, cachetools), the `mcp` SDK (with `mcp_types`), or
    uvicorn/starlette when the function is theirs; the time of any other function (pydantic,
    anyio, asyncio, builtins, ...) goes to its callers in proportion to the time each call edge
    took (as gprof does), up to the first owner; what reaches the event loop's `_run_once` with no
    owner on the way is "event loop".
  - by package: self time summed by where the function lives (a C builtin's goes to its callers).
  - the top functions by self time.
cProfile slows everything down alike, so the shares are what to read, not the absolute times.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import pstats
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

BENCH = Path(__file__).resolve().parent
SERVER = BENCH / "servers" / "weather_fastmcp.py"
PACKAGES = (
    ("fastmcp", ("/fastmcp/",)),
    (
        "FastMCP's own deps (otel, key_value, beartype)",
        ("/opentelemetry/", "/key_value/", "/beartype/", "/<@beartype", "/cachetools/"),
    ),
    ("mcp SDK (with mcp_types)", ("/mcp/", "/mcp_types/")),
    ("pydantic", ("/pydantic",)),
    ("anyio", ("/anyio/", "/sniffio/")),
    ("uvicorn/starlette", ("/uvicorn/", "/starlette/", "/httptools/", "/h11/")),
    ("asyncio and the rest of the stdlib", ("/python3.", "<frozen")),
)
OWNERS = {
    "fastmcp": "FastMCP",
    "FastMCP's own deps (otel, key_value, beartype)": "FastMCP",
    "mcp SDK (with mcp_types)": "mcp SDK",
    "uvicorn/starlette": "uvicorn/starlette",
}
TOOLS: dict[str, dict[str, Any]] = {
    "add": {"a": 1, "b": 2},
    "weather": {"city": "Paris"},
    "forecast": {"n": 100},
}

PROFILED = """
import cProfile, runpy, signal, sys, time
profile = cProfile.Profile(time.thread_time)
def start(*_):
    profile.enable()
def stop(*_):
    profile.disable()
    profile.dump_stats(OUT)
    open(OUT + ".done", "w").close()
signal.signal(signal.SIGUSR1, start)
signal.signal(signal.SIGUSR2, stop)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""

Key = tuple[str, int, str]
Edge = tuple[int, int, float, float]
Raw = dict[Key, tuple[int, int, float, float, dict[Key, Edge]]]


def package(filename: str) -> str:
    where = "/" + filename.split("site-packages/")[-1]
    if "/src/mcp" in filename:  # a checkout's src (--src)
        return "mcp SDK (with mcp_types)"
    for name, markers in PACKAGES:
        if any(m in where for m in markers):
            return name
    return "other"


def drive(python: Path, opts: argparse.Namespace, out: Path) -> float:
    """Run the server, profile `opts.calls` calls after `opts.warm`; return the wall seconds of the profiled calls."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "VIRTUAL_ENV"}
    env.update(FASTMCP_SHOW_SERVER_BANNER="false", FASTMCP_CHECK_FOR_UPDATES="off")
    if opts.src:
        env["PYTHONPATH"] = str(Path(opts.src).resolve())
    argv = [str(python), "-c", PROFILED.replace("OUT", repr(str(out))), str(SERVER)]
    done = Path(str(out) + ".done")
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "profile", "version": "1"},
        },
    }
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}

    def call_message(i: int) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {"name": opts.tool, "arguments": TOOLS[opts.tool]},
        }

    def profiled(proc: subprocess.Popen[bytes], call: Callable[[int], None]) -> float:
        for i in range(1, opts.warm + 1):
            call(i)
        proc.send_signal(signal.SIGUSR1)
        time.sleep(0.2)  # the handler runs on the loop thread at its next bytecode
        t0 = time.perf_counter()
        for i in range(opts.warm + 1, opts.warm + opts.calls + 1):
            call(i)
        wall = time.perf_counter() - t0
        proc.send_signal(signal.SIGUSR2)
        deadline = time.monotonic() + 60
        while not done.exists():
            if time.monotonic() > deadline:
                raise RuntimeError("the server wrote no profile")
            time.sleep(0.05)
        return wall

    if not opts.http:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=SERVER.parent,
        )
        assert proc.stdin is not None and proc.stdout is not None
        stdin, stdout = proc.stdin, proc.stdout

        def send(message: dict[str, Any]) -> None:
            stdin.write((json.dumps(message) + "\n").encode())
            stdin.flush()

        def answer() -> dict[str, Any]:
            while True:
                line = stdout.readline()
                if not line:
                    raise RuntimeError("the server closed its output")
                message = json.loads(line)
                if "id" in message:
                    return message

        def stdio_call(i: int) -> None:
            send(call_message(i))
            reply = answer()
            if "result" not in reply:
                raise RuntimeError(f"tools/call failed: {reply}")

        try:
            send(initialize)
            answer()
            send(initialized)
            return profiled(proc, stdio_call)
        finally:
            stdin.close()
            proc.wait(timeout=60)

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv += ["--http", str(port), *(["--json"] if opts.json else [])]
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=SERVER.parent,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.connect()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.1)
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
        }

        def post(message: dict[str, Any]) -> tuple[http.client.HTTPResponse, bytes]:
            conn.request("POST", "/mcp", json.dumps(message), headers)
            response = conn.getresponse()
            return response, response.read()

        response, _ = post(initialize)
        session = response.getheader("mcp-session-id")
        if session:
            headers["mcp-session-id"] = session
        post(initialized)

        def http_call(i: int) -> None:
            _, body = post(call_message(i))
            if b'"result"' not in body:
                raise RuntimeError(f"tools/call failed: {body[:300]!r}")

        return profiled(proc, http_call)
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def by_owner(raw: Raw) -> dict[str, float]:
    """Self seconds by owner (see the module docstring): non-owner functions pass their time up the
    call graph, split by edge time."""
    shares: dict[Key, dict[str, float]] = {}

    def owner_shares(key: Key, depth: int = 0) -> dict[str, float]:
        if key in shares:
            return shares[key]
        owner = OWNERS.get(package(key[0]))
        callers = raw[key][4] if key in raw else {}
        if owner is not None:
            result = {owner: 1.0}
        elif key[2] == "_run_once" or not callers or depth > 60:
            result = {"event loop": 1.0}
        else:
            shares[key] = {"event loop": 1.0}  # a cycle reaching back here counts as the loop's
            total = sum(edge[3] for edge in callers.values()) or 1.0
            result: dict[str, float] = {}
            for caller, edge in callers.items():
                weight = (edge[3] or total / len(callers)) / total
                for name, part in owner_shares(caller, depth + 1).items():
                    result[name] = result.get(name, 0.0) + weight * part
        shares[key] = result
        return result

    totals: dict[str, float] = {}
    for key, (_cc, _nc, tottime, _cum, _callers) in raw.items():
        for name, part in owner_shares(key).items():
            totals[name] = totals.get(name, 0.0) + tottime * part
    return totals


def by_package(raw: Raw) -> dict[str, float]:
    """Self seconds by package; a builtin's is shared among the packages that called it."""
    totals: dict[str, float] = {}
    for (filename, _line, _name), (_cc, _nc, tottime, _cum, callers) in raw.items():
        if filename == "~" and callers:
            for (caller_file, _l, _n), (_c, _k, caller_tt, _ct) in callers.items():
                totals[package(caller_file)] = totals.get(package(caller_file), 0.0) + caller_tt
        else:
            totals[package(filename)] = totals.get(package(filename), 0.0) + tottime
    return totals


def report(column: str, profile: Path, calls: int, wall: float, top: int) -> None:
    raw = cast(Raw, pstats.Stats(str(profile)).stats)  # type: ignore[attr-defined]
    busy = sum(entry[2] for entry in raw.values())
    print(
        f"\n{column}: {busy / calls * 1e6:.0f} µs of event-loop CPU per call, {calls / wall:.0f} calls/s (profiled)"
    )
    for title, totals in (("by owner", by_owner(raw)), ("by package", by_package(raw))):
        print(f"  {title}:")
        for name, seconds in sorted(totals.items(), key=lambda kv: -kv[1]):
            print(f"    {name:48} {seconds / calls * 1e6:7.0f} µs/call  {seconds / busy:6.1%}")
    print("  top functions by self time:")
    ranked = sorted(raw.items(), key=lambda kv: -kv[1][2])
    for (filename, line, name), (_cc, ncalls, tottime, _cum, _callers) in ranked[:top]:
        where = filename.split("site-packages/")[-1].split("/src/")[-1]
        print(f"    {tottime / calls * 1e6:6.1f} µs/call  {ncalls / calls:5.1f}×  {where}:{line}({name})")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--warm", type=int, default=200, help="calls before profiling starts")
    parser.add_argument("--columns", default="fastmcp,fastmcp-ours")
    parser.add_argument("--tool", choices=sorted(TOOLS), default="add")
    parser.add_argument(
        "--http", action="store_true", help="Streamable HTTP (stateful, SSE answers) instead of stdio"
    )
    parser.add_argument("--json", action="store_true", help="with --http: json_response=True")
    parser.add_argument("--src", help="a checkout's src directory, first on the fastmcp-ours server's path")
    parser.add_argument("--top", type=int, default=12)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for column in opts.columns.split(","):
            python = BENCH / ".venvs" / column / "bin" / "python"
            if not python.exists():
                print(
                    f"{column}: no {python} (run `bench/run.py --quick --only {column}` first)",
                    file=sys.stderr,
                )
                return 1
            out = Path(tmp) / f"{column}.prof"
            column_opts = argparse.Namespace(
                **{**vars(opts), "src": opts.src if column == "fastmcp-ours" else None}
            )
            wall = drive(python, column_opts, out)
            report(column, out, opts.calls, wall, opts.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
