#!/usr/bin/env python3
"""Benchmark mcpkit ("ours") against the official MCP Python SDK and FastMCP.

Run from the repository root:

    python3 bench/run.py [--quick] [--markdown FILE] [--only ours,official,fastmcp]

The driver uses the standard library only. It creates the peer virtualenvs under
bench/.venvs/ when missing, then talks raw newline-delimited JSON-RPC to each
server over stdio (no SDK on the client side), so every implementation is measured
by the same client code. See bench/README.md for what each row means.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import selectors
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
VENVS = BENCH_DIR / ".venvs"
SERVERS = BENCH_DIR / "servers"
PYCACHE = VENVS / "pycache"
PROTOCOL_VERSION = "2025-11-25"
CLK_TCK = os.sysconf("SC_CLK_TCK")

PEERS: dict[str, str] = {"official": "mcp==2.3.0", "fastmcp": "fastmcp==4.1.6"}


def log(msg: str) -> None:
    """Progress output goes to stderr so stdout holds only the table."""
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------
# Configuration and implementations
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    """How many repetitions / calls each measurement uses."""

    import_runs: int
    cold_runs: int
    calls: dict[str, int]
    warmup_calls: dict[str, int]
    register_runs: int
    list_calls: int
    rounds: int = 10  # in-session work is split into this many chunks, alternating columns
    forecast_n: int = 100
    init_timeout: float = 30.0
    call_timeout: float = 20.0

    def calls_per_round(self, tool: str) -> int:
        return max(1, self.calls[tool] // self.rounds)

    def total_calls(self, tool: str) -> int:
        return self.calls_per_round(tool) * self.rounds

    @classmethod
    def full(cls) -> Config:
        return cls(
            import_runs=15,
            cold_runs=10,
            calls={"add": 3000, "weather": 3000, "forecast": 500},
            warmup_calls={"add": 200, "weather": 200, "forecast": 20},
            register_runs=7,
            list_calls=100,
        )

    @classmethod
    def quick(cls) -> Config:
        return cls(
            import_runs=3,
            cold_runs=3,
            calls={"add": 300, "weather": 300, "forecast": 60},
            warmup_calls={"add": 30, "weather": 30, "forecast": 5},
            register_runs=2,
            list_calls=12,
            rounds=3,
            init_timeout=15.0,
            call_timeout=10.0,
        )


@dataclass
class Impl:
    """One column of the table: an interpreter plus the server files it runs."""

    key: str
    python: Path | None
    server: Path
    many_tools: Path
    import_stmt: str
    env: dict[str, str] = field(default_factory=dict[str, str])
    error: str | None = None  # set when the implementation is unusable (setup/import failed)
    info: str = ""

    def child_env(self) -> dict[str, str]:
        """Environment for every child process: identical for all columns except `env`.

        Every PYTHON* variable of the caller (PYTHONUNBUFFERED, PYTHONDONTWRITEBYTECODE, ...)
        and VIRTUAL_ENV are dropped. The bytecode cache goes to one shared prefix
        (bench/.venvs/pycache) for every column, so no column runs without .pyc files and
        the source tree stays clean.
        """
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "VIRTUAL_ENV"}
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
        env.update(self.env)
        return env


def base_python() -> str:
    """The interpreter the project's .venv was built from (so all venvs share one Python)."""
    project_python = REPO / ".venv" / "bin" / "python"
    if project_python.exists():
        out = subprocess.run(
            [str(project_python), "-c", "import sys; print(sys._base_executable)"],
            capture_output=True,
            text=True,
        )
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    return sys.executable


def ensure_venv(name: str, pip_args: Sequence[str], python: str) -> Path:
    """Create bench/.venvs/<name> and pip-install `pip_args` unless already done; return its python."""
    venv = VENVS / name
    vpython = venv / "bin" / "python"
    stamp = venv / ".bench-installed"
    wanted = " ".join(pip_args)
    if vpython.exists() and stamp.exists() and stamp.read_text().strip() == wanted:
        return vpython
    VENVS.mkdir(parents=True, exist_ok=True)
    logfile = VENVS / f"{name}.log"
    log(f"creating venv {venv} with `pip install {wanted}` (log: {logfile})")
    with logfile.open("w") as fh:
        if not vpython.exists():
            subprocess.run([python, "-m", "venv", str(venv)], check=True, stdout=fh, stderr=subprocess.STDOUT)
        res = subprocess.run(
            [str(vpython), "-m", "pip", "install", "--disable-pip-version-check", *pip_args],
            stdout=fh,
            stderr=subprocess.STDOUT,
        )
    if res.returncode != 0:
        raise RuntimeError(f"pip install {wanted} failed (see {logfile})")
    stamp.write_text(wanted + "\n")
    return vpython


def describe(python: Path, dists: Sequence[str]) -> str:
    """Python version and installed versions of `dists`, as seen by `python`."""
    code = (
        "import sys, importlib.metadata as m\n"
        "def v(d):\n"
        "    try: return m.version(d)\n"
        "    except Exception: return '-'\n"
        f"print('Python ' + sys.version.split()[0] + ', ' + ', '.join(d + ' ' + v(d) for d in {list(dists)!r}))\n"
    )
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else f"(unknown: {out.stderr.strip()[-200:]})"


def setup_impls(keys: Sequence[str], ours_python: str | None = None) -> list[Impl]:
    """Locate or create the interpreter of each implementation; failures are recorded, not raised."""
    python = base_python()
    fastmcp_env = {"FASTMCP_SHOW_SERVER_BANNER": "false", "FASTMCP_CHECK_FOR_UPDATES": "off"}
    impls: list[Impl] = []
    for key in keys:
        if key == "fastmcp":
            impl = Impl(
                key,
                None,
                SERVERS / "weather_fastmcp.py",
                SERVERS / "many_tools_fastmcp.py",
                "from fastmcp import FastMCP",
                env=fastmcp_env,
            )
        else:
            impl = Impl(
                key,
                None,
                SERVERS / "weather.py",
                SERVERS / "many_tools.py",
                "from mcp.server import MCPServer",
            )
        try:
            if key == "ours" and ours_python:
                impl.python = Path(ours_python).absolute()  # not resolve(): keep the venv symlink
            elif key == "ours":
                project_python = REPO / ".venv" / "bin" / "python"
                impl.python = (
                    project_python
                    if project_python.exists()
                    else ensure_venv("ours", ["-e", str(REPO)], python)
                )
            else:
                impl.python = ensure_venv(key, [PEERS[key]], python)
        except Exception as exc:
            impl.error = f"setup failed: {exc}"
        if impl.python is not None:
            dists = {
                "ours": ["mcpkit", "pydantic"],
                "official": ["mcp", "pydantic"],
                "fastmcp": ["fastmcp", "mcp", "pydantic"],
            }
            impl.info = describe(impl.python, dists[key])
        impls.append(impl)
    return impls


def preflight(impl: Impl) -> None:
    """Mark the implementation unusable if its import statement fails."""
    if impl.error or impl.python is None:
        return
    if not impl.python.exists():
        impl.error = f"no interpreter at {impl.python}"
        return
    res = subprocess.run(
        [str(impl.python), "-c", impl.import_stmt],
        capture_output=True,
        text=True,
        env=impl.child_env(),
        cwd=SERVERS,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    if res.returncode != 0:
        impl.error = f"`{impl.import_stmt}` failed: {last_line(res.stderr)}"


def last_line(text: str) -> str:
    """The last non-empty line of `text` (usually the exception message)."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else "(no output)"


# --------------------------------------------------------------------------------------
# Raw JSON-RPC clients (no SDK). New transports subclass RpcClient.
# --------------------------------------------------------------------------------------


class ServerFailed(Exception):
    """The server died, timed out or answered with an error."""


class RpcClient:
    """Transport-independent JSON-RPC client logic; subclasses provide `_send`/`_receive`."""

    server_pid: int | None = None

    def __init__(self) -> None:
        self._next_id = 0

    def _send(self, msg: dict[str, Any]) -> None:
        raise NotImplementedError

    def _receive(self, deadline: float) -> dict[str, Any]:
        """Return the next message from the server; raise ServerFailed past `deadline` (monotonic)."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> RpcClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self._send(msg)

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30.0) -> Any:
        """Send a request and wait for its response; other messages are skipped (server requests get an answer)."""
        self._next_id += 1
        rid = self._next_id
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self._send(msg)
        deadline = time.monotonic() + timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == rid and ("result" in reply or "error" in reply):
                if "error" in reply:
                    raise ServerFailed(f"{method}: JSON-RPC error {reply['error']}")
                return reply["result"]
            if "method" in reply and "id" in reply:  # a server-to-client request
                if reply["method"] == "ping":
                    self._send({"jsonrpc": "2.0", "id": reply["id"], "result": {}})
                else:
                    err = {"code": -32601, "message": "not supported by the bench client"}
                    self._send({"jsonrpc": "2.0", "id": reply["id"], "error": err})

    def initialize(self, timeout: float = 60.0) -> dict[str, Any]:
        """MCP handshake: `initialize` then `notifications/initialized`."""
        result = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "mcpkit-bench", "version": "0"},
            },
            timeout=timeout,
        )
        self.notify("notifications/initialized")
        return result

    def call_tool(self, name: str, arguments: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        """`tools/call`; a result with isError=true is a failure."""
        result = self.request("tools/call", {"name": name, "arguments": arguments}, timeout=timeout)
        if result.get("isError"):
            raise ServerFailed(f"tools/call {name}: isError result {json.dumps(result)[:300]}")
        return result

    def list_tools(self, timeout: float = 30.0) -> list[dict[str, Any]]:
        """`tools/list`, following pagination cursors."""
        tools: list[dict[str, Any]] = []
        params: dict[str, Any] | None = None
        while True:
            result = self.request("tools/list", params, timeout=timeout)
            tools.extend(result.get("tools", []))
            cursor = result.get("nextCursor")
            if not cursor:
                return tools
            params = {"cursor": cursor}


class StdioClient(RpcClient):
    """Spawns a server process and speaks newline-delimited JSON-RPC over its stdin/stdout."""

    def __init__(self, argv: Sequence[str], env: dict[str, str], cwd: Path) -> None:
        super().__init__()
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        self.spawned_at = time.perf_counter()
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            cwd=cwd,
            bufsize=0,
        )
        self.server_pid = self.proc.pid
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        os.set_blocking(self._out, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._out, selectors.EVENT_READ)
        self._buf = bytearray()

    def _send(self, msg: dict[str, Any]) -> None:
        data = memoryview(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
        try:
            while data:
                n = os.write(self._in, data)
                data = data[n:]
        except BrokenPipeError:
            raise ServerFailed(f"server stdin closed; {self.stderr_tail()}") from None

    def _receive(self, deadline: float) -> dict[str, Any]:
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line = bytes(self._buf[:nl])
                del self._buf[: nl + 1]
                if not line.strip():
                    continue
                try:
                    return json.loads(line)
                except json.JSONDecodeError:
                    raise ServerFailed(f"non-JSON line on stdout: {line[:200]!r}") from None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ServerFailed(f"timed out waiting for the server; {self.stderr_tail()}")
            if not self._selector.select(remaining):
                continue
            chunk = os.read(self._out, 1 << 16)
            if not chunk:
                code = self.proc.wait(timeout=5)
                raise ServerFailed(f"server exited (code {code}); {self.stderr_tail()}")
            self._buf += chunk

    def stderr_tail(self) -> str:
        """Last line of the server's stderr, for error messages."""
        self._stderr.seek(0)
        return "stderr: " + last_line(self._stderr.read()[-4000:].decode(errors="replace"))

    def stderr_text(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def close(self) -> None:
        """Close stdin (the stdio way to stop a server), then terminate/kill if it lingers."""
        with contextlib.suppress(OSError):
            self.proc.stdin.close()  # type: ignore[union-attr]
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._selector.close()
        self.proc.stdout.close()  # type: ignore[union-attr]
        self._stderr.close()


def spawn_stdio(impl: Impl, script: Path, *args: str) -> StdioClient:
    """Start `script` with the implementation's interpreter as a stdio server."""
    assert impl.python is not None
    return StdioClient([str(impl.python), str(script), *args], impl.child_env(), SERVERS)


def proc_cpu_seconds(pid: int) -> float:
    """utime+stime of a process (all its threads) from /proc/<pid>/stat, in seconds."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # fields 14 and 15 of stat(5)


def proc_rss_mib(pid: int) -> float:
    """Resident set size of a process, MiB."""
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise ServerFailed("no VmRSS")


# --------------------------------------------------------------------------------------
# Measurements. A Group runs samples (fresh process or one session) and feeds Rows.
# --------------------------------------------------------------------------------------

Sample = dict[str, float]
SessionResults = tuple[dict[str, Sample], dict[str, str]]  # samples and errors, by implementation


@dataclass(frozen=True)
class Row:
    """One table row: aggregates the `source` values of a group's samples."""

    key: str
    label: str
    unit: str
    higher_is_better: bool = False
    agg: str = "median"  # "median" or "min"
    scale: float = 1.0  # multiply seconds etc. into `unit`
    source: str = ""

    def value(self, samples: list[Sample]) -> float:
        vals = [s[self.source or self.key] for s in samples]
        v = min(vals) if self.agg == "min" else statistics.median(vals)
        return v * self.scale


@dataclass(frozen=True)
class Group:
    """A measurement feeding some rows, in one of two styles.

    - `sample(impl, cfg)`: one fresh-process sample, run `reps(cfg)` times per
      implementation, implementations interleaved rep by rep (after one discarded
      warm-up sample each, for the bytecode and page caches, when `warmup`).
    - `run_all(impls, cfg)`: drives all implementations at once (see `Sessions`) and
      returns one sample per implementation plus the errors of those that failed.
    """

    name: str
    rows: list[Row]
    note: str = ""
    sample: Callable[[Impl, Config], Sample] | None = None
    reps: Callable[[Config], int] = lambda cfg: 1
    warmup: bool = True
    run_all: Callable[[list[Impl], Config], SessionResults] | None = None


def sample_import(impl: Impl, cfg: Config) -> Sample:
    """Fresh interpreter; perf_counter around the framework import only."""
    assert impl.python is not None
    code = (
        f"import time\nt0 = time.perf_counter()\n{impl.import_stmt}\nprint(repr(time.perf_counter() - t0))\n"
    )
    res = subprocess.run(
        [str(impl.python), "-c", code],
        capture_output=True,
        text=True,
        env=impl.child_env(),
        cwd=SERVERS,
        timeout=cfg.init_timeout,
        stdin=subprocess.DEVNULL,
    )
    if res.returncode != 0:
        raise ServerFailed(last_line(res.stderr))
    return {"import": float(res.stdout.strip().splitlines()[-1])}


def sample_cold_start(impl: Impl, cfg: Config) -> Sample:
    """Spawn → initialize → notifications/initialized → first tools/list answer."""
    client = spawn_stdio(impl, impl.server)
    with client:
        client.initialize(cfg.init_timeout)
        tools = client.list_tools(cfg.init_timeout)
        elapsed = time.perf_counter() - client.spawned_at
        names = sorted(t["name"] for t in tools)
        if names != ["add", "forecast", "weather"]:
            raise ServerFailed(f"unexpected tools {names}")
    return {"cold_start": elapsed}


def check_result(tool: str, result: dict[str, Any], cfg: Config) -> None:
    """Sanity-check a warm-up answer so that no column is timed doing something different."""
    structured: dict[str, Any] = result.get("structuredContent") or {}
    content: list[dict[str, Any]] = result.get("content") or []
    if tool == "add":
        ok = structured.get("result") == 5 or any(c.get("text") == "5" for c in content)
    elif tool == "weather":
        ok = structured.get("city") == "Paris"
    else:
        items: Any = structured.get("result")
        ok = isinstance(items, list) and len(items) == cfg.forecast_n  # pyright: ignore[reportUnknownArgumentType]
    if not ok:
        raise ServerFailed(f"unexpected {tool} result: {json.dumps(result)[:300]}")


class Sessions:
    """One open stdio session per implementation, driven in turns (round-robin).

    Used by the in-session groups: alternating short chunks of work between the
    columns spreads background load and clock drift evenly over all of them. A
    session whose step raises is closed and its error recorded; the others go on.
    """

    def __init__(self, impls: list[Impl], spawn: Callable[[Impl], StdioClient]) -> None:
        self.clients: dict[str, StdioClient] = {}
        self.errors: dict[str, str] = {}
        for impl in impls:
            try:
                self.clients[impl.key] = spawn(impl)
            except Exception as exc:
                self.errors[impl.key] = f"{type(exc).__name__}: {exc}"

    def each(self, step: Callable[[str, StdioClient], None], rotate: int = 0) -> None:
        """Run `step(key, client)` for every live session, starting at offset `rotate`."""
        items = list(self.clients.items())
        if items:
            k = rotate % len(items)
            items = items[k:] + items[:k]
        for key, client in items:
            try:
                step(key, client)
            except Exception as exc:
                self.errors[key] = f"{type(exc).__name__}: {exc}"
                del self.clients[key]
                client.close()

    def __enter__(self) -> Sessions:
        return self

    def __exit__(self, *exc: object) -> None:
        for client in self.clients.values():
            client.close()


def run_calls(impls: list[Impl], cfg: Config) -> SessionResults:
    """Sequential tools/call per tool: `rounds` interleaved chunks per column; wall time and server CPU."""
    arguments: dict[str, dict[str, Any]] = {
        "add": {"a": 2, "b": 3},
        "weather": {"city": "Paris"},
        "forecast": {"n": cfg.forecast_n},
    }
    out: dict[str, Sample] = {impl.key: {} for impl in impls}
    with Sessions(impls, lambda impl: spawn_stdio(impl, impl.server)) as ss:

        def setup(key: str, c: StdioClient) -> None:
            c.initialize(cfg.init_timeout)
            c.list_tools(cfg.call_timeout)
            assert c.server_pid is not None
            out[key]["rss"] = proc_rss_mib(c.server_pid)

        ss.each(setup)
        for tool, args in arguments.items():

            def warm_up(key: str, c: StdioClient, tool: str = tool, args: dict[str, Any] = args) -> None:
                check_result(tool, c.call_tool(tool, args, cfg.call_timeout), cfg)
                for _ in range(cfg.warmup_calls[tool]):
                    c.call_tool(tool, args, cfg.call_timeout)

            ss.each(warm_up)
            per_round = cfg.calls_per_round(tool)
            rates: dict[str, list[float]] = {key: [] for key in ss.clients}
            cpu: dict[str, float] = dict.fromkeys(ss.clients, 0.0)

            def chunk(
                key: str,
                c: StdioClient,
                tool: str = tool,
                args: dict[str, Any] = args,
                per_round: int = per_round,
                rates: dict[str, list[float]] = rates,
                cpu: dict[str, float] = cpu,
            ) -> None:
                assert c.server_pid is not None
                cpu0 = proc_cpu_seconds(c.server_pid)
                t0 = time.perf_counter()
                for _ in range(per_round):
                    c.call_tool(tool, args, cfg.call_timeout)
                t1 = time.perf_counter()
                cpu[key] += proc_cpu_seconds(c.server_pid) - cpu0
                rates[key].append(per_round / (t1 - t0))

            for r in range(cfg.rounds):
                ss.each(chunk, rotate=r)
            for key in ss.clients:
                out[key][f"{tool}_cps"] = statistics.median(rates[key])
                out[key][f"{tool}_cpu"] = cpu[key] / (per_round * cfg.rounds)
        return {key: out[key] for key in ss.clients}, ss.errors


def run_list_many(impls: list[Impl], cfg: Config) -> SessionResults:
    """500-tool servers: median latency of a full tools/list, after 3 warm-up lists, interleaved in rounds."""
    latencies: dict[str, list[float]] = {impl.key: [] for impl in impls}
    with Sessions(impls, lambda impl: spawn_stdio(impl, impl.many_tools, "--serve")) as ss:

        def setup(key: str, c: StdioClient) -> None:
            c.initialize(cfg.init_timeout)
            counts = [len(c.list_tools(cfg.call_timeout)) for _ in range(3)]
            if counts[-1] != 500:
                raise ServerFailed(f"tools/list returned {counts[-1]} tools, expected 500")

        def chunk(key: str, c: StdioClient) -> None:
            for _ in range(max(1, cfg.list_calls // cfg.rounds)):
                t0 = time.perf_counter()
                c.list_tools(cfg.call_timeout)
                latencies[key].append(time.perf_counter() - t0)

        ss.each(setup)
        for r in range(cfg.rounds):
            ss.each(chunk, rotate=r)
        return {key: {"list_many": statistics.median(latencies[key])} for key in ss.clients}, ss.errors


def sample_register(impl: Impl, cfg: Config) -> Sample:
    """Fresh process; the server file times its own 500 registrations and prints them to stderr."""
    assert impl.python is not None
    res = subprocess.run(
        [str(impl.python), str(impl.many_tools)],
        capture_output=True,
        text=True,
        env=impl.child_env(),
        cwd=SERVERS,
        timeout=cfg.init_timeout * 2,
        stdin=subprocess.DEVNULL,
    )
    for line in res.stderr.splitlines():
        if line.startswith("BENCH_REGISTER_SECONDS="):
            return {"register": float(line.split("=", 1)[1])}
    raise ServerFailed(f"no timing printed (exit {res.returncode}): {last_line(res.stderr)}")


def calls_rows(tool: str, label: str) -> list[Row]:
    return [
        Row(f"{tool}_cps", f"tools/call {label}: calls/s", "calls/s", higher_is_better=True),
        Row(f"{tool}_cpu", f"tools/call {label}: server CPU/call", "µs", scale=1e6),
    ]


def groups(cfg: Config) -> list[Group]:
    """All measurements, in run order. New rows (e.g. HTTP transport) are new groups here."""
    tick_ms = 1000 // CLK_TCK
    return [
        Group(
            "import",
            [
                Row(
                    "import_best",
                    f"import time, best of {cfg.import_runs}",
                    "ms",
                    agg="min",
                    scale=1e3,
                    source="import",
                ),
                Row(
                    "import_median",
                    f"import time, median of {cfg.import_runs}",
                    "ms",
                    scale=1e3,
                    source="import",
                ),
            ],
            note="fresh interpreter; time.perf_counter() around `from mcp.server import MCPServer` "
            "(FastMCP: `from fastmcp import FastMCP`); interpreter startup excluded.",
            sample=sample_import,
            reps=lambda c: c.import_runs,
        ),
        Group(
            "cold start",
            [
                Row(
                    "cold_start",
                    f"stdio cold start to first tools/list, median of {cfg.cold_runs}",
                    "ms",
                    scale=1e3,
                )
            ],
            note="driver-side wall time from Popen() to the tools/list response: interpreter startup, imports, "
            "tool registration, initialize + notifications/initialized, tools/list.",
            sample=sample_cold_start,
            reps=lambda c: c.cold_runs,
        ),
        Group(
            "tool calls",
            [
                *calls_rows("add", f"add ×{cfg.total_calls('add')}"),
                *calls_rows("weather", f"weather ×{cfg.total_calls('weather')}"),
                *calls_rows("forecast", f"forecast(n={cfg.forecast_n}) ×{cfg.total_calls('forecast')}"),
                Row("rss", "server RSS after initialize + tools/list", "MiB"),
            ],
            note=f"one stdio session per column, all open at once; sequential tools/call (one in flight) in "
            f"{cfg.rounds} chunks alternating between columns, after a checked first answer and warm-up calls. "
            "calls/s = median over chunks; CPU/call = total utime+stime of the server process (all threads, "
            f"/proc/<pid>/stat, {tick_ms} ms ticks) over the timed chunks / calls.",
            run_all=run_calls,
        ),
        Group(
            "register",
            [
                Row(
                    "register",
                    f"register 500 tools (in-process), median of {cfg.register_runs}",
                    "ms",
                    scale=1e3,
                )
            ],
            note="fresh process; perf_counter around 500 `@mcp.tool(name=...)` decorator calls on generated "
            "functions, after framework import and server construction (both excluded), printed to stderr.",
            sample=sample_register,
            reps=lambda c: c.register_runs,
        ),
        Group(
            "list 500",
            [Row("list_many", "tools/list with 500 tools, median latency", "ms", scale=1e3)],
            note=f"one stdio session per column on the 500-tool server; median of "
            f"{(cfg.list_calls // cfg.rounds) * cfg.rounds} full tools/list calls (all pages), "
            f"alternating between columns, after 3 warm-up lists.",
            run_all=run_list_many,
        ),
    ]


# --------------------------------------------------------------------------------------
# Running and reporting
# --------------------------------------------------------------------------------------


@dataclass
class Results:
    """Row values per implementation, or the failure reason per (group, implementation)."""

    values: dict[tuple[str, str], float] = field(
        default_factory=dict[tuple[str, str], float]
    )  # (row key, impl key)
    failures: dict[tuple[str, str], str] = field(
        default_factory=dict[tuple[str, str], str]
    )  # (group name, impl key)


def run_group(group: Group, impls: list[Impl], cfg: Config, results: Results) -> None:
    """Run one group, interleaving implementations rep by rep so drift affects all alike."""
    samples: dict[str, list[Sample]] = {impl.key: [] for impl in impls}
    failed: dict[str, str] = {impl.key: "unavailable (see above)" for impl in impls if impl.error}
    t_start = time.perf_counter()
    if group.run_all is not None:
        live = [impl for impl in impls if impl.key not in failed]
        got, errors = group.run_all(live, cfg)
        for key, reason in errors.items():
            failed[key] = reason
            log(f"  {group.name} [{key}] FAILED: {reason[:300]}")
        for key, s in got.items():
            samples[key].append(s)
    reps = group.reps(cfg) if group.sample is not None else 0
    for rep in range(-1 if group.warmup and reps else 0, reps):
        for impl in impls:
            if impl.key in failed:
                continue
            try:
                assert group.sample is not None
                s = group.sample(impl, cfg)
            except Exception as exc:
                failed[impl.key] = f"{type(exc).__name__}: {exc}"
                log(f"  {group.name} [{impl.key}] FAILED: {failed[impl.key][:300]}")
                continue
            if rep >= 0:
                samples[impl.key].append(s)
    for impl in impls:
        if impl.key in failed:
            results.failures[(group.name, impl.key)] = failed[impl.key]
            continue
        for row in group.rows:
            results.values[(row.key, impl.key)] = row.value(samples[impl.key])
    log(f"  {group.name}: done in {time.perf_counter() - t_start:.1f}s")


def fmt_value(v: float) -> str:
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def ratio(row: Row, ours: float | None, peer: float | None) -> str:
    """How many times better ours is (>1 = ours better), whatever the row's direction."""
    if ours is None or peer is None or ours <= 0 or peer <= 0:
        return "n/a"
    r = ours / peer if row.higher_is_better else peer / ours
    return f"{r:.2f}×"


def build_table(
    all_groups: list[Group], impls: list[Impl], results: Results
) -> tuple[list[str], list[list[str]]]:
    """Header and body cells of the results table."""
    keys = [impl.key for impl in impls]
    header = ["metric", "unit", *keys]
    peers = [k for k in ("official", "fastmcp") if k in keys]
    if "ours" in keys:
        header += [f"ours vs {p}" for p in peers]
    body: list[list[str]] = []
    for group in all_groups:
        for row in group.rows:
            cells = [row.label, row.unit]
            vals: dict[str, float | None] = {}
            for k in keys:
                v = results.values.get((row.key, k))
                vals[k] = v
                cells.append(fmt_value(v) if v is not None else "FAIL")
            if "ours" in keys:
                cells += [ratio(row, vals["ours"], vals[p]) for p in peers]
            body.append(cells)
    return header, body


def render_text(header: list[str], body: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), sep, *(line(r) for r in body)])


def render_markdown(header: list[str], body: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(out)


def footer(
    all_groups: list[Group], impls: list[Impl], results: Results, quick: bool, load: tuple[float, float]
) -> list[str]:
    """Legend: environment, versions, what each row measures, failures."""
    lines = [
        f"Run: {datetime.datetime.now().isoformat(timespec='seconds')}, {'--quick' if quick else 'full'} mode, "
        f"{os.cpu_count()} CPUs, {platform.platform()}; 1-min load average {load[0]:.2f} before, "
        f"{load[1]:.2f} after (other work on the machine skews the numbers).",
        "Ratios: how many times better ours is than the peer (>1 = ours faster / cheaper; "
        "peer/ours for times and CPU, ours/peer for calls/s).",
        "Columns:",
    ]
    for impl in impls:
        lines.append(f"  {impl.key}: {impl.python} ({impl.info or 'n/a'})")
    lines.append("Rows:")
    for g in all_groups:
        lines.append(f"  {g.name}: {g.note}")
    lines.append(
        "All columns: same driver, same base Python, same stdio client, same shared bytecode cache; "
        "FastMCP runs with FASTMCP_SHOW_SERVER_BANNER=false and FASTMCP_CHECK_FOR_UPDATES=off (no network at startup)."
    )
    broken = {impl.key: impl.error for impl in impls if impl.error}
    group_failures = {k: r for k, r in results.failures.items() if k[1] not in broken}
    if broken or group_failures:
        lines.append("Failures:")
        for key, reason in broken.items():
            lines.append(f"  {key} (all rows): {reason[:400]}")
        for (gname, key), reason in group_failures.items():
            lines.append(f"  {key} / {gname}: {reason[:400]}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="far fewer repetitions/calls (about a minute)")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table as markdown to FILE")
    parser.add_argument("--only", default="ours,official,fastmcp", help="comma-separated columns to run")
    parser.add_argument("--groups", default="", help="comma-separated group names to run (default: all)")
    parser.add_argument(
        "--ours-python", metavar="PATH", help="interpreter for the ours column (default: .venv/bin/python)"
    )
    args = parser.parse_args(argv)

    cfg = Config.quick() if args.quick else Config.full()
    keys = [k.strip() for k in args.only.split(",") if k.strip()]
    unknown = set(keys) - {"ours", "official", "fastmcp"}
    if unknown:
        parser.error(f"unknown column(s): {', '.join(sorted(unknown))}")
    t0 = time.perf_counter()
    load_before = os.getloadavg()[0]
    impls = setup_impls(keys, args.ours_python)
    PYCACHE.mkdir(parents=True, exist_ok=True)
    for impl in impls:
        preflight(impl)
        log(
            f"{impl.key}: {impl.python} — {impl.info}"
            + (f" — UNAVAILABLE: {impl.error}" if impl.error else "")
        )

    all_groups = groups(cfg)
    if args.groups:
        wanted = {g.strip() for g in args.groups.split(",")}
        all_groups = [g for g in all_groups if g.name in wanted]
    results = Results()
    for group in all_groups:
        log(f"running {group.name} ...")
        run_group(group, impls, cfg, results)

    header, body = build_table(all_groups, impls, results)
    notes = footer(all_groups, impls, results, args.quick, (load_before, os.getloadavg()[0]))
    print(render_text(header, body))
    print()
    print("\n".join(notes))
    if args.markdown:
        md = [
            render_markdown(header, body),
            "",
            *(f"- {n.strip()}" if not n.startswith("  ") else f"  - {n.strip()}" for n in notes),
        ]
        Path(args.markdown).write_text("\n".join(md) + "\n")
        log(f"markdown written to {args.markdown}")
    log(f"total {time.perf_counter() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
