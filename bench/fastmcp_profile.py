#!/usr/bin/env python3
"""Where a FastMCP server's time goes per stdio `tools/call`: FastMCP's own code, the `mcp` SDK under
it (ours or the official), pydantic, and the rest (asyncio, anyio, the standard library).

    python3 bench/fastmcp_profile.py [--calls 3000] [--columns fastmcp,fastmcp-ours]

Runs `servers/weather_fastmcp.py` under cProfile in each column's venv (bench/.venvs/<column>, made
by `bench/run.py --only <column>`), sends `initialize` and then `--calls` sequential `tools/call add`
over stdio, closes stdin and reads the profile; then once more with no call, and subtracts that
(start-up and import) from the first. The timer is the event-loop thread's CPU time
(`time.thread_time`): FastMCP's and the SDK's code run there; the worker threads (FastMCP runs a sync
tool in one, stdio reads in another) are not profiled. Prints, per column, the CPU per call split by
where the functions live (self time, summed by package) and the top functions. cProfile slows
everything down alike, so the shares are what to read, not the absolute times.
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
SERVER = BENCH / "servers" / "weather_fastmcp.py"
BUCKETS = (("fastmcp", "/fastmcp/"), ("mcp SDK (with mcp_types)", "/mcp/"), ("mcp SDK (with mcp_types)", "/mcp_types/"),
           ("pydantic", "/pydantic"), ("anyio", "/anyio/"), ("asyncio and the rest of the stdlib", "/python3."))


PROFILED = """
import cProfile, runpy, sys, time
profile = cProfile.Profile(time.thread_time)
sys.argv = [sys.argv[1]]
profile.enable()
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
finally:
    profile.disable()
    profile.dump_stats(OUT)
"""


def bucket(filename: str) -> str:
    filename = "/" + filename.split("site-packages/")[-1]
    for name, marker in BUCKETS:
        if marker in filename:
            return name
    return "other (builtins called at top level)"


def drive(python: Path, calls: int, out: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "VIRTUAL_ENV"}
    env.update(FASTMCP_SHOW_SERVER_BANNER="false", FASTMCP_CHECK_FOR_UPDATES="off")
    code = PROFILED.replace("OUT", repr(str(out)))
    proc = subprocess.Popen([str(python), "-c", code, str(SERVER)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=SERVER.parent)
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict[str, object]) -> None:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()

    def answer() -> dict[str, object]:
        assert proc.stdout is not None
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            message = json.loads(line)
            if "id" in message:
                return message

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "profile", "version": "1"}}})
    answer()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for i in range(1, calls + 1):
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "add", "arguments": {"a": i, "b": 1}}})
        reply = answer()
        if "result" not in reply:
            raise RuntimeError(f"tools/call failed: {reply}")
    proc.stdin.close()
    proc.wait(timeout=60)


Key = tuple[str, int, str]


def self_times(profile: Path) -> dict[Key, tuple[int, float]]:
    """(calls, self seconds) of every function in a profile."""
    raw: dict[Key, tuple[int, int, float, float, object]] = pstats.Stats(str(profile)).stats  # type: ignore[attr-defined]
    return {key: (ncalls, tottime) for key, (_cc, ncalls, tottime, _cum, _callers) in raw.items()}


def bucket_times(profile: Path) -> dict[str, float]:
    """Self seconds summed by package; a builtin's (C functions: `isinstance`, `dict.get`, ...)
    is shared among the packages that called it, by the time each caller's calls took."""
    raw: dict[Key, tuple[int, int, float, float, dict[Key, tuple[int, int, float, float]]]]
    raw = pstats.Stats(str(profile)).stats  # type: ignore[attr-defined]
    totals: dict[str, float] = {}
    for (filename, _line, _name), (_cc, _nc, tottime, _cum, callers) in raw.items():
        if filename == "~" and callers:
            for (caller_file, _l, _n), (_c, _k, caller_tt, _ct) in callers.items():
                totals[bucket(caller_file)] = totals.get(bucket(caller_file), 0.0) + caller_tt
        else:
            totals[bucket(filename)] = totals.get(bucket(filename), 0.0) + tottime
    return totals


def report(column: str, loaded: Path, idle: Path, calls: int, top: int) -> None:
    base = self_times(idle)
    steady = {key: (n - base.get(key, (0, 0.0))[0], t - base.get(key, (0, 0.0))[1])
              for key, (n, t) in self_times(loaded).items()}
    idle_buckets = bucket_times(idle)
    by_bucket = {name: t - idle_buckets.get(name, 0.0) for name, t in bucket_times(loaded).items()}
    busy = sum(by_bucket.values())
    print(f"\n{column}: {busy / calls * 1e6:.0f} µs of event-loop CPU per call (profiled; start-up subtracted)")
    for name, seconds in sorted(by_bucket.items(), key=lambda kv: -kv[1]):
        print(f"  {name:36} {seconds / calls * 1e6:7.0f} µs/call  {seconds / busy:6.1%}")
    print("  top functions by self time:")
    ranked = sorted(steady.items(), key=lambda kv: -kv[1][1])
    for (filename, line, name), (ncalls, tottime) in ranked[:top]:
        where = filename.split("site-packages/")[-1]
        print(f"    {tottime / calls * 1e6:6.1f} µs/call  {ncalls / calls:5.1f}×  {where}:{line}({name})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--columns", default="fastmcp,fastmcp-ours")
    parser.add_argument("--top", type=int, default=12)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for column in opts.columns.split(","):
            python = BENCH / ".venvs" / column / "bin" / "python"
            if not python.exists():
                print(f"{column}: no {python} (run `bench/run.py --quick --only {column}` first)", file=sys.stderr)
                return 1
            loaded, idle = Path(tmp) / f"{column}.prof", Path(tmp) / f"{column}-idle.prof"
            drive(python, opts.calls, loaded)
            drive(python, 0, idle)
            report(column, loaded, idle, opts.calls, opts.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
