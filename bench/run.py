#!/usr/bin/env python3
"""Benchmark mcpkit ("ours") against the official MCP Python SDK and FastMCP.

Run from the repository root:

    python3 bench/run.py [--quick] [--markdown FILE] [--json FILE] [--only ours,official,fastmcp,fastmcp-ours]

The driver uses the standard library only. It creates the peer virtualenvs under
bench/.venvs/ when missing, then talks raw newline-delimited JSON-RPC to each
server over stdio (no SDK on the client side), so every implementation is measured
by the same client code. See bench/README.md for what each row means.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import math
import os
import platform
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
VENVS = BENCH_DIR / ".venvs"
SERVERS = BENCH_DIR / "servers"
FLOOR_SERVER = SERVERS / "floor.py"  # the cold start floor: no SDK
PYCACHE = VENVS / "pycache"
PROTOCOL_VERSION = "2025-11-25"
MODERN_PROTOCOL_VERSION = "2026-07-28"  # only the one HTTP group that measures the per-request era uses it
CLK_TCK = os.sysconf("SC_CLK_TCK")

PEERS: dict[str, str] = {"official": "mcp==2.3.0", "fastmcp": "fastmcp==4.1.6"}
COLUMNS = ("ours", "official", "fastmcp", "fastmcp-ours")
"""`fastmcp`: FastMCP on the official SDK (its own dependency); `fastmcp-ours`: the same FastMCP
installed after mcpkit and its `mcp`/`mcp-types` stand-ins (`python -m mcp.stand_ins`), so its `mcp` is ours."""


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
    http_calls: dict[str, int]  # "c1": sequential calls, "cN": calls spread over `http_concurrency` clients
    http_warmup: dict[str, int]
    http_concurrency: int = 16
    http_idle_sessions: int = 200
    rounds: int = 10  # in-session work is split into this many chunks, alternating columns
    forecast_n: int = 100
    init_timeout: float = 30.0
    call_timeout: float = 20.0

    def calls_per_round(self, tool: str) -> int:
        return max(1, self.calls[tool] // self.rounds)

    def total_calls(self, tool: str) -> int:
        return self.calls_per_round(tool) * self.rounds

    def http_per_round(self, kind: str) -> int:
        return max(1, self.http_calls[kind] // self.rounds)

    def http_total(self, kind: str) -> int:
        return self.http_per_round(kind) * self.rounds

    @classmethod
    def full(cls) -> Config:
        return cls(
            import_runs=15,
            cold_runs=10,
            calls={
                "add": 3000,
                "weather": 3000,
                "forecast": 500,
                "lowlevel": 3000,
                "resource": 3000,
                "prompt": 3000,
            },
            warmup_calls={
                "add": 200,
                "weather": 200,
                "forecast": 20,
                "lowlevel": 200,
                "resource": 200,
                "prompt": 200,
            },
            register_runs=7,
            list_calls=100,
            http_calls={"c1": 2000, "cN": 4000},
            http_warmup={"c1": 100, "cN": 320},
        )

    @classmethod
    def quick(cls) -> Config:
        return cls(
            import_runs=3,
            cold_runs=3,
            calls={
                "add": 300,
                "weather": 300,
                "forecast": 60,
                "lowlevel": 300,
                "resource": 300,
                "prompt": 300,
            },
            warmup_calls={
                "add": 30,
                "weather": 30,
                "forecast": 5,
                "lowlevel": 30,
                "resource": 30,
                "prompt": 30,
            },
            register_runs=2,
            list_calls=12,
            http_calls={"c1": 300, "cN": 480},
            http_warmup={"c1": 30, "cN": 64},
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
    content: Path
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


def source_digest() -> str:
    """A digest of what `pip install .` would install (pyproject.toml and every file under src/)."""
    import hashlib

    digest = hashlib.sha256((REPO / "pyproject.toml").read_bytes())
    for path in sorted((REPO / "src").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(REPO)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def ensure_venv(name: str, pip_args: Sequence[str], python: str, stamp_extra: str = "") -> Path:
    """Create bench/.venvs/<name> and pip-install `pip_args` unless already done (the stamp records
    the arguments and `stamp_extra`); return its python."""
    venv = VENVS / name
    vpython = venv / "bin" / "python"
    stamp = venv / ".bench-installed"
    wanted = " ".join(pip_args) + (f" @{stamp_extra}" if stamp_extra else "")
    if vpython.exists() and stamp.exists() and stamp.read_text().strip() == wanted:
        return vpython
    VENVS.mkdir(parents=True, exist_ok=True)
    logfile = VENVS / f"{name}.log"
    log(f"creating venv {venv} with `pip install {wanted}` (log: {logfile})")
    with logfile.open("w") as fh:
        if not vpython.exists():
            subprocess.run([python, "-m", "venv", str(venv)], check=True, stdout=fh, stderr=subprocess.STDOUT)
        pip = [str(vpython), "-m", "pip", "install", "--disable-pip-version-check"]
        res = subprocess.run([*pip, *pip_args], stdout=fh, stderr=subprocess.STDOUT)
        if res.returncode == 0 and stamp_extra:  # same version number, new source: replace it
            res = subprocess.run([*pip, "--force-reinstall", "--no-deps", *pip_args], stdout=fh,
                                 stderr=subprocess.STDOUT)
    if res.returncode != 0:
        raise RuntimeError(f"pip install {wanted} failed (see {logfile})")
    stamp.write_text(wanted + "\n")
    return vpython


def ensure_fastmcp_on_ours(python: str) -> Path:
    """bench/.venvs/fastmcp-ours: this checkout installed, its stand-ins pinned by
    `python -m mcp.stand_ins`, then FastMCP, as a user installs FastMCP on mcpkit; mcpkit is
    reinstalled when the source changes."""
    venv = VENVS / "fastmcp-ours"
    vpython = venv / "bin" / "python"
    stamp = venv / ".bench-installed"
    wanted = f"{PEERS['fastmcp']} on mcpkit @{source_digest()}"
    if vpython.exists() and stamp.exists() and stamp.read_text().strip() == wanted:
        return vpython
    VENVS.mkdir(parents=True, exist_ok=True)
    logfile = VENVS / "fastmcp-ours.log"
    log(f"creating venv {venv}: {wanted} (log: {logfile})")
    pip = [str(vpython), "-m", "pip", "install", "--disable-pip-version-check"]
    with logfile.open("w") as fh:
        if not vpython.exists():
            subprocess.run([python, "-m", "venv", str(venv)], check=True, stdout=fh, stderr=subprocess.STDOUT)
        res = subprocess.run([*pip, str(REPO)], stdout=fh, stderr=subprocess.STDOUT)
        if res.returncode == 0:  # the stand-ins and their pin, from the installed mcpkit, as a user does
            res = subprocess.run([str(vpython), "-m", "mcp.stand_ins", "--pip"], stdout=fh, stderr=subprocess.STDOUT)
        if res.returncode == 0:
            res = subprocess.run([*pip, PEERS["fastmcp"]], stdout=fh, stderr=subprocess.STDOUT)
        if res.returncode == 0:  # same version number, new source: replace it
            res = subprocess.run([*pip, "--force-reinstall", "--no-deps", str(REPO)], stdout=fh, stderr=subprocess.STDOUT)
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
        if key in ("fastmcp", "fastmcp-ours"):
            impl = Impl(
                key,
                None,
                SERVERS / "weather_fastmcp.py",
                SERVERS / "many_tools_fastmcp.py",
                SERVERS / "content_fastmcp.py",
                "from fastmcp import FastMCP",
                env=fastmcp_env,
            )
        else:
            impl = Impl(
                key,
                None,
                SERVERS / "weather.py",
                SERVERS / "many_tools.py",
                SERVERS / "content.py",
                "from mcp.server import MCPServer",
            )
        try:
            if key == "ours" and ours_python:
                impl.python = Path(ours_python).absolute()  # not resolve(): keep the venv symlink
            elif key == "ours":
                # Installed like a user installs it (`pip install .`: no dev tools, no editable
                # finder), like the peers; reinstalled whenever the source changes.
                impl.python = ensure_venv("ours", [str(REPO)], python, stamp_extra=source_digest())
            elif key == "fastmcp-ours":
                impl.python = ensure_fastmcp_on_ours(python)
            else:
                impl.python = ensure_venv(key, [PEERS[key]], python)
        except Exception as exc:
            impl.error = f"setup failed: {exc}"
        if impl.python is not None:
            dists = {
                "ours": ["mcpkit", "pydantic", "uvicorn", "httptools"],
                "official": ["mcp", "pydantic", "uvicorn", "httptools"],
                "fastmcp": ["fastmcp", "mcp", "pydantic", "uvicorn", "httptools"],
                "fastmcp-ours": ["fastmcp", "mcpkit", "mcp", "pydantic", "uvicorn", "httptools"],
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
    # Exception-group tracebacks end in "+------" frames and prefix lines with "| ".
    lines = [ln.strip().lstrip("|+- ").strip() for ln in text.strip().splitlines()]
    lines = [ln for ln in lines if ln]
    return lines[-1] if lines else "(no output)"


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
# Streamable HTTP: server processes and a minimal asyncio HTTP/1.1 client (stdlib only)
# --------------------------------------------------------------------------------------


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HttpServer:
    """`script --http PORT *args` run by the implementation's interpreter (uvicorn on 127.0.0.1:PORT)."""

    def __init__(self, impl: Impl, script: Path, *args: str) -> None:
        assert impl.python is not None
        self.port = free_port()
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        self.proc = subprocess.Popen(
            [str(impl.python), str(script), "--http", str(self.port), *args],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            env=impl.child_env(),
            cwd=SERVERS,
        )
        self.pid = self.proc.pid

    def wait_ready(self, timeout: float) -> None:
        """Return once the port accepts connections; raise if the process exits or the timeout passes."""
        deadline = time.monotonic() + timeout
        while True:
            code = self.proc.poll()
            if code is not None:
                raise ServerFailed(f"HTTP server exited (code {code}); {self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1.0):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise ServerFailed(
                        f"HTTP server not listening after {timeout:.0f}s; {self.log_tail()}"
                    ) from None
                time.sleep(0.05)

    def log_tail(self) -> str:
        self._log.seek(0, os.SEEK_END)
        size = self._log.tell()
        self._log.seek(max(0, size - 4000))
        return "log: " + last_line(self._log.read().decode(errors="replace"))

    def close(self) -> None:
        """SIGTERM (uvicorn shuts down gracefully), then SIGKILL if it lingers."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


def _time_limit(seconds: float) -> contextlib.AbstractAsyncContextManager[Any]:
    """asyncio.timeout (no extra task per request) where available."""
    limit = getattr(asyncio, "timeout", None)
    return limit(seconds) if limit is not None else contextlib.nullcontext()


class HttpConnection:
    """One keep-alive HTTP/1.1 connection to 127.0.0.1:port (asyncio streams).

    Reconnects when the server closed it while idle (uvicorn's keep-alive timeout is 5 s,
    and columns wait for each other between chunks); a request that fails on a reused
    connection before any response byte arrives is sent once more on a fresh one.
    """

    SSE_DRAIN_SECONDS = 1.0

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def _connect(self) -> None:
        self.close()
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def post(self, data: bytes, rid: Any) -> tuple[int, dict[str, str], list[dict[str, Any]]]:
        """Send one complete request; return status, headers (lower-case names) and the JSON-RPC
        messages of the body. An SSE body is parsed event by event (`data:` lines) until the
        message answering `rid`; the rest of the stream is then drained, or the connection is
        dropped if the server keeps the stream open."""
        reused = self.reader is not None and not self.reader.at_eof()
        if not reused:
            await self._connect()
        try:
            status, headers = await self._send(data)
        except (ConnectionError, asyncio.IncompleteReadError):
            if not reused:
                raise
            await self._connect()
            status, headers = await self._send(data)
        messages: list[dict[str, Any]] = []
        if "text/event-stream" in headers.get("content-type", ""):
            messages = await self._read_sse(headers, rid)
        else:
            body = await self._read_body(headers)
            if body.strip():
                parsed: Any = json.loads(body)
                messages = cast("list[dict[str, Any]]", parsed) if isinstance(parsed, list) else [parsed]
        if headers.get("connection", "").lower() == "close":
            self.close()
        return status, headers, messages

    async def _send(self, data: bytes) -> tuple[int, dict[str, str]]:
        assert self.reader is not None and self.writer is not None
        self.writer.write(data)
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers: dict[str, str] = {}
        for ln in lines[1:]:
            if ln:
                k, _, v = ln.partition(":")
                headers[k.strip().lower()] = v.strip()
        return status, headers

    async def _next_chunk(self) -> bytes | None:
        """The next chunk of a chunked body, or None after the last one (trailers consumed)."""
        assert self.reader is not None
        size = int((await self.reader.readuntil(b"\r\n")).split(b";", 1)[0], 16)
        if size == 0:
            while await self.reader.readuntil(b"\r\n") != b"\r\n":
                pass
            return None
        return (await self.reader.readexactly(size + 2))[:-2]

    async def _read_body(self, headers: dict[str, str]) -> bytes:
        assert self.reader is not None
        if "chunked" in headers.get("transfer-encoding", "").lower():
            parts: list[bytes] = []
            while (chunk := await self._next_chunk()) is not None:
                parts.append(chunk)
            return b"".join(parts)
        if "content-length" in headers:
            n = int(headers["content-length"])
            return await self.reader.readexactly(n) if n else b""
        body = await self.reader.read()  # no framing: the body ends when the server closes
        self.close()
        return body

    async def _read_sse(self, headers: dict[str, str], rid: Any) -> list[dict[str, Any]]:
        if "chunked" not in headers.get("transfer-encoding", "").lower():
            return parse_sse(await self._read_body(headers))[0]
        messages: list[dict[str, Any]] = []
        buf = b""
        while (chunk := await self._next_chunk()) is not None:
            buf += chunk
            got, buf = parse_sse(buf)
            messages += got
            if any(m.get("id") == rid and ("result" in m or "error" in m) for m in got):
                try:
                    async with _time_limit(self.SSE_DRAIN_SECONDS):
                        while await self._next_chunk() is not None:
                            pass
                except TimeoutError:
                    self.close()  # the server keeps the stream open: this connection cannot be reused
                break
        return messages


def parse_sse(buf: bytes) -> tuple[list[dict[str, Any]], bytes]:
    """JSON messages of the complete events in `buf` (their `data:` lines), and the unparsed rest."""
    text = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    *events, rest = text.split(b"\n\n")
    messages: list[dict[str, Any]] = []
    for event in events:
        data = [ln[5:].removeprefix(b" ") for ln in event.split(b"\n") if ln.startswith(b"data:")]
        if data and b"".join(data).strip():
            messages.append(json.loads(b"\n".join(data)))
    return messages, rest


class HttpMcpClient:
    """MCP over Streamable HTTP on one keep-alive connection (which several sessions may share).

    Handshake era (default): `initialize` returns the `Mcp-Session-Id` (stateful servers) and
    later requests carry it plus `MCP-Protocol-Version`. With `modern=True` every request is a
    self-contained 2026-07-28 request: `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
    headers and the protocol version and client capabilities in `params._meta`, no session.
    """

    def __init__(self, port: int, *, modern: bool = False, conn: HttpConnection | None = None) -> None:
        self.port = port
        self.conn = conn or HttpConnection(port)
        self.modern = modern
        self.session_id: str | None = None
        self.protocol_version: str | None = MODERN_PROTOCOL_VERSION if modern else None
        self.content_types: set[str] = set()
        self._next_id = 0

    def _encode(self, msg: dict[str, Any]) -> bytes:
        body = json.dumps(msg, separators=(",", ":")).encode()
        head = [
            "POST /mcp HTTP/1.1",
            f"Host: 127.0.0.1:{self.port}",
            "Content-Type: application/json",
            "Accept: application/json, text/event-stream",
            f"Content-Length: {len(body)}",
        ]
        if self.protocol_version:
            head.append(f"MCP-Protocol-Version: {self.protocol_version}")
        if self.session_id:
            head.append(f"Mcp-Session-Id: {self.session_id}")
        if self.modern:
            head.append(f"Mcp-Method: {msg['method']}")
            params: dict[str, Any] = msg.get("params") or {}
            name = params.get("name", params.get("uri"))
            if name is not None:
                head.append(f"Mcp-Name: {name}")
        return ("\r\n".join(head) + "\r\n\r\n").encode() + body

    def _params(self, params: dict[str, Any] | None) -> dict[str, Any] | None:
        if not self.modern:
            return params
        meta: dict[str, Any] = {
            "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        return {**(params or {}), "_meta": meta}

    async def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30.0) -> Any:
        self._next_id += 1
        rid = self._next_id
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        p = self._params(params)
        if p is not None:
            msg["params"] = p
        try:
            async with _time_limit(timeout):
                status, headers, messages = await self.conn.post(self._encode(msg), rid)
        except TimeoutError:
            self.conn.close()
            raise ServerFailed(f"{method}: no HTTP response within {timeout:.0f}s") from None
        if status != 200:
            raise ServerFailed(f"{method}: HTTP {status} {json.dumps(messages)[:300]}")
        self.content_types.add(headers.get("content-type", "?").split(";")[0])
        if method == "initialize" and "mcp-session-id" in headers:
            self.session_id = headers["mcp-session-id"]
        for m in messages:
            if m.get("id") == rid and ("result" in m or "error" in m):
                if "error" in m:
                    raise ServerFailed(f"{method}: JSON-RPC error {m['error']}")
                return m["result"]
        raise ServerFailed(f"{method}: no response with id {rid} in the HTTP response")

    async def notify(self, method: str, timeout: float = 30.0) -> None:
        async with _time_limit(timeout):
            status, _, _ = await self.conn.post(self._encode({"jsonrpc": "2.0", "method": method}), None)
        if status not in (200, 202, 204):
            raise ServerFailed(f"{method}: HTTP {status}")

    async def initialize(self, timeout: float = 60.0) -> dict[str, Any]:
        """`initialize` (opens a session on a stateful server), then `notifications/initialized`."""
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "mcpkit-bench", "version": "0"},
        }
        result = await self.request("initialize", params, timeout)
        self.protocol_version = result.get("protocolVersion", PROTOCOL_VERSION)
        await self.notify("notifications/initialized", timeout)
        return result

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        result = await self.request("tools/call", {"name": name, "arguments": arguments}, timeout)
        if result.get("isError"):
            raise ServerFailed(f"tools/call {name}: isError result {json.dumps(result)[:300]}")
        return result


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
    only: tuple[str, ...] | None = None  # columns the group applies to (others show "—")


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


def proc_cpu_ns(pid: int) -> int:
    """CPU time of a process's live threads in ns (`/proc/<pid>/task/*/schedstat`): unlike the 10 ms
    ticks of `/proc/<pid>/stat`, precise enough for one cold start, and unlike wall time hardly moved
    by other work on the machine."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as fh:
                total += int(fh.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):  # a thread that just ended
            pass
    return total


def cold_start_seconds(impl: Impl, script: Path, cfg: Config) -> tuple[float, float]:
    """Spawn `script` → initialize → notifications/initialized → first tools/list answer: wall time
    and the server's CPU time up to that answer, in seconds."""
    client = spawn_stdio(impl, script)
    with client:
        client.initialize(cfg.init_timeout)
        tools = client.list_tools(cfg.init_timeout)
        elapsed = time.perf_counter() - client.spawned_at
        cpu = proc_cpu_ns(client.proc.pid) / 1e9
        names = sorted(t["name"] for t in tools)
        if names != ["add", "forecast", "weather"]:
            raise ServerFailed(f"unexpected tools {names}")
    return elapsed, cpu


def sample_cold_start(impl: Impl, cfg: Config) -> Sample:
    """The column's server cold start, and right after it the floor's (`servers/floor.py`: the same
    interpreter, pydantic and bench model answering with no SDK) with the same interpreter."""
    elapsed, cpu = cold_start_seconds(impl, impl.server, cfg)
    floor, floor_cpu = cold_start_seconds(impl, FLOOR_SERVER, cfg)
    return {"cold_start": elapsed, "cold_floor": floor, "cold_above_floor": max(elapsed - floor, 1e-6),
            "cold_cpu": cpu, "cold_cpu_above_floor": max(cpu - floor_cpu, 1e-6)}


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


def measure_sequential(
    ss: Sessions,
    cfg: Config,
    name: str,
    op: Callable[[StdioClient], Any],
    check: Callable[[Any], None],
    out: dict[str, Sample],
) -> None:
    """One operation, one request in flight: a checked first answer and `warmup_calls[name]` warm-up
    calls per column, then `rounds` chunks alternating between columns. Sets `<name>_cps` (median
    of the chunks' calls/s) and `<name>_cpu` (server utime+stime over the chunks / calls)."""

    def warm_up(key: str, c: StdioClient) -> None:
        check(op(c))
        for _ in range(cfg.warmup_calls[name]):
            op(c)

    ss.each(warm_up)
    per_round = cfg.calls_per_round(name)
    rates: dict[str, list[float]] = {key: [] for key in ss.clients}
    cpu: dict[str, float] = dict.fromkeys(ss.clients, 0.0)

    def chunk(key: str, c: StdioClient) -> None:
        assert c.server_pid is not None
        cpu0 = proc_cpu_seconds(c.server_pid)
        t0 = time.perf_counter()
        for _ in range(per_round):
            op(c)
        t1 = time.perf_counter()
        cpu[key] += proc_cpu_seconds(c.server_pid) - cpu0
        rates[key].append(per_round / (t1 - t0))

    for r in range(cfg.rounds):
        ss.each(chunk, rotate=r)
    for key in ss.clients:
        out[key][f"{name}_cps"] = statistics.median(rates[key])
        out[key][f"{name}_cpu"] = cpu[key] / (per_round * cfg.rounds)


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
            measure_sequential(
                ss,
                cfg,
                tool,
                lambda c, tool=tool, args=args: c.call_tool(tool, args, cfg.call_timeout),
                lambda result, tool=tool: check_result(tool, result, cfg),
                out,
            )
        return {key: out[key] for key in ss.clients}, ss.errors


def run_lowlevel(impls: list[Impl], cfg: Config) -> SessionResults:
    """`servers/lowlevel.py` (mcp.server.lowlevel.Server): sequential tools/call add over stdio."""
    out: dict[str, Sample] = {impl.key: {} for impl in impls}
    with Sessions(impls, lambda impl: spawn_stdio(impl, SERVERS / "lowlevel.py")) as ss:

        def setup(key: str, c: StdioClient) -> None:
            c.initialize(cfg.init_timeout)
            names = [t["name"] for t in c.list_tools(cfg.call_timeout)]
            if names != ["add"]:
                raise ServerFailed(f"unexpected tools {names}")

        ss.each(setup)
        measure_sequential(
            ss,
            cfg,
            "lowlevel",
            lambda c: c.call_tool("add", {"a": 2, "b": 3}, cfg.call_timeout),
            lambda result: check_result("add", result, cfg),
            out,
        )
        return {key: out[key] for key in ss.clients}, ss.errors


PROMPT_ARGS = {"code": "def inc(x):\n    return x + 1\n", "language": "python"}


def check_resource(result: dict[str, Any]) -> None:
    contents: list[dict[str, Any]] = result.get("contents") or []
    if len(contents) != 1 or not str(contents[0].get("text", "")).startswith("mcpkit benchmark resource."):
        raise ServerFailed(f"unexpected resources/read result: {json.dumps(result)[:300]}")


def check_prompt(result: dict[str, Any]) -> None:
    messages: list[dict[str, Any]] = result.get("messages") or []
    content: dict[str, Any] = (messages[0].get("content") or {}) if messages else {}
    text = str(content.get("text", ""))
    if len(messages) != 1 or PROMPT_ARGS["code"] not in text or "python" not in text:
        raise ServerFailed(f"unexpected prompts/get result: {json.dumps(result)[:300]}")


def run_content(impls: list[Impl], cfg: Config) -> SessionResults:
    """`servers/content*.py`: sequential resources/read, then sequential prompts/get, over stdio."""
    out: dict[str, Sample] = {impl.key: {} for impl in impls}
    with Sessions(impls, lambda impl: spawn_stdio(impl, impl.content)) as ss:

        def setup(key: str, c: StdioClient) -> None:
            c.initialize(cfg.init_timeout)

        ss.each(setup)
        measure_sequential(
            ss,
            cfg,
            "resource",
            lambda c: c.request("resources/read", {"uri": "bench://readme"}, cfg.call_timeout),
            check_resource,
            out,
        )
        measure_sequential(
            ss,
            cfg,
            "prompt",
            lambda c: c.request(
                "prompts/get", {"name": "review", "arguments": PROMPT_ARGS}, cfg.call_timeout
            ),
            check_prompt,
            out,
        )
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


@dataclass
class HttpColumn:
    """One column's HTTP server plus the clients the driver holds on it."""

    server: HttpServer
    c1: HttpMcpClient | None = None
    cn: list[HttpMcpClient] = field(default_factory=list[HttpMcpClient])

    def clients(self) -> list[HttpMcpClient]:
        return ([self.c1] if self.c1 else []) + self.cn

    def close(self) -> None:
        for c in self.clients():
            c.conn.close()
        self.server.close()


class HttpColumns:
    """The async counterpart of `Sessions`: one HTTP server per column, all running at once,
    driven in turns; a column whose step raises is shut down and its error recorded."""

    def __init__(self, impls: list[Impl], server_args: Sequence[str], cfg: Config) -> None:
        self.cols: dict[str, HttpColumn] = {}
        self.errors: dict[str, str] = {}
        for impl in impls:
            try:
                self.cols[impl.key] = HttpColumn(HttpServer(impl, impl.server, *server_args))
            except Exception as exc:
                self.errors[impl.key] = f"{type(exc).__name__}: {exc}"
        for key, col in list(self.cols.items()):  # the servers start in parallel
            try:
                col.server.wait_ready(cfg.init_timeout)
            except Exception as exc:
                self._fail(key, exc)

    def _fail(self, key: str, exc: Exception) -> None:
        self.errors[key] = f"{type(exc).__name__}: {exc}"
        self.cols.pop(key).close()

    async def each(self, step: Callable[[str, HttpColumn], Awaitable[None]], rotate: int = 0) -> None:
        items = list(self.cols.items())
        if items:
            k = rotate % len(items)
            items = items[k:] + items[:k]
        for key, col in items:
            try:
                await step(key, col)
            except Exception as exc:
                self._fail(key, exc)

    def close(self) -> None:
        for col in self.cols.values():
            col.close()


async def http_load(
    clients: list[HttpMcpClient],
    total: int,
    call: Callable[[HttpMcpClient], Awaitable[Any]],
    latencies: list[float] | None = None,
) -> float:
    """`total` calls spread over `clients`, each with one request in flight; wall seconds."""
    left = total

    async def worker(c: HttpMcpClient) -> None:
        nonlocal left
        while left > 0:
            left -= 1
            t0 = time.perf_counter()
            await call(c)
            if latencies is not None:
                latencies.append(time.perf_counter() - t0)

    t0 = time.perf_counter()
    tasks = [asyncio.ensure_future(worker(c)) for c in clients]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return time.perf_counter() - t0


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


HTTP_NOTES: list[str] = []  # what each server actually answered with, for the footer


def http_mode(
    name: str, title: str, server_args: tuple[str, ...], *, modern: bool = False, concurrent: bool = True
) -> Callable[[list[Impl], Config], SessionResults]:
    """A `run_all` for one Streamable HTTP mode: tools/call add at concurrency 1 (calls/s, latency
    percentiles, server CPU/call) and, when `concurrent`, at `cfg.http_concurrency`."""

    def run_all(impls: list[Impl], cfg: Config) -> SessionResults:
        return asyncio.run(_http_mode(impls, cfg, name, title, server_args, modern, concurrent))

    return run_all


async def _http_mode(
    impls: list[Impl],
    cfg: Config,
    name: str,
    title: str,
    server_args: tuple[str, ...],
    modern: bool,
    concurrent: bool,
) -> SessionResults:
    args = {"a": 2, "b": 3}

    async def add(c: HttpMcpClient) -> Any:
        return await c.call_tool("add", args, cfg.call_timeout)

    out: dict[str, Sample] = {impl.key: {} for impl in impls}
    cols = HttpColumns(impls, server_args, cfg)
    try:

        async def setup(key: str, col: HttpColumn) -> None:
            port = col.server.port
            col.c1 = HttpMcpClient(port, modern=modern)
            col.cn = [
                HttpMcpClient(port, modern=modern) for _ in range(cfg.http_concurrency if concurrent else 0)
            ]
            for c in col.clients():
                if not modern:
                    await c.initialize(cfg.init_timeout)
                check_result("add", await add(c), cfg)
            await http_load([col.c1], cfg.http_warmup["c1"], add)
            if col.cn:
                await http_load(col.cn, cfg.http_warmup["cN"], add)

        await cols.each(setup)
        per1, per_n = cfg.http_per_round("c1"), cfg.http_per_round("cN")
        rates1: dict[str, list[float]] = {key: [] for key in cols.cols}
        rates_n: dict[str, list[float]] = {key: [] for key in cols.cols}
        lat: dict[str, list[float]] = {key: [] for key in cols.cols}
        cpu: dict[str, float] = dict.fromkeys(cols.cols, 0.0)
        driver_cpu: dict[str, float] = dict.fromkeys(cols.cols, 0.0)

        async def chunk1(key: str, col: HttpColumn) -> None:
            assert col.c1 is not None
            cpu0 = proc_cpu_seconds(col.server.pid)
            elapsed = await http_load([col.c1], per1, add, lat[key])
            cpu[key] += proc_cpu_seconds(col.server.pid) - cpu0
            rates1[key].append(per1 / elapsed)

        async def chunk_n(key: str, col: HttpColumn) -> None:
            cpu0 = time.process_time()
            rates_n[key].append(per_n / await http_load(col.cn, per_n, add))
            driver_cpu[key] += time.process_time() - cpu0

        for r in range(cfg.rounds):
            await cols.each(chunk1, rotate=r)
            if concurrent:
                await cols.each(chunk_n, rotate=r)
        for key in cols.cols:
            out[key][f"{name}_c1_cps"] = statistics.median(rates1[key])
            if concurrent:
                out[key][f"{name}_cN_cps"] = statistics.median(rates_n[key])
            out[key][f"{name}_p50"] = percentile(lat[key], 50)
            out[key][f"{name}_p99"] = percentile(lat[key], 99)
            out[key][f"{name}_cpu"] = cpu[key] / (per1 * cfg.rounds)
        seen = "; ".join(
            f"{key} {'/'.join(sorted({t for c in col.clients() for t in c.content_types}))}"
            for key, col in cols.cols.items()
        )
        note = f"{title}: responses came as {seen}"
        if concurrent:
            note += f"; driver CPU/call at c={cfg.http_concurrency}: " + ", ".join(
                f"{key} {driver_cpu[key] / (per_n * cfg.rounds) * 1e6:.0f} µs" for key in cols.cols
            )
        HTTP_NOTES.append(note)
        return {key: out[key] for key in cols.cols}, cols.errors
    finally:
        cols.close()


def run_http_idle(impls: list[Impl], cfg: Config) -> SessionResults:
    return asyncio.run(_http_idle(impls, cfg))


async def _http_idle(impls: list[Impl], cfg: Config) -> SessionResults:
    """Default (stateful SSE) servers: RSS growth for `http_idle_sessions` sessions that are opened
    (initialize + notifications/initialized) and then left idle, never DELETEd."""
    out: dict[str, Sample] = {impl.key: {} for impl in impls}
    n = cfg.http_idle_sessions
    cols = HttpColumns(impls, (), cfg)
    try:

        async def open_sessions(col: HttpColumn, count: int) -> None:
            assert col.c1 is not None
            for _ in range(count):
                await HttpMcpClient(col.server.port, conn=col.c1.conn).initialize(cfg.init_timeout)

        async def setup(key: str, col: HttpColumn) -> None:
            col.c1 = HttpMcpClient(col.server.port)
            await col.c1.initialize(cfg.init_timeout)
            check_result("add", await col.c1.call_tool("add", {"a": 2, "b": 3}, cfg.call_timeout), cfg)
            await open_sessions(col, 20)  # warm-up: code paths, allocator pools

        async def measure(key: str, col: HttpColumn) -> None:
            await asyncio.sleep(0.3)
            rss0 = proc_rss_mib(col.server.pid)
            await open_sessions(col, n)
            await asyncio.sleep(0.3)
            out[key]["http_rss_base"] = rss0
            out[key]["http_rss_session"] = (proc_rss_mib(col.server.pid) - rss0) * 1024 / n

        await cols.each(setup)
        await cols.each(measure)
        return {key: out[key] for key in cols.cols}, cols.errors
    finally:
        cols.close()


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


def calls_rows(tool: str, label: str, method: str = "tools/call") -> list[Row]:
    return [
        Row(f"{tool}_cps", f"{method} {label}: calls/s", "calls/s", higher_is_better=True),
        Row(f"{tool}_cpu", f"{method} {label}: server CPU/call", "µs", scale=1e6),
    ]


def http_rows(name: str, title: str, cfg: Config, concurrent: bool = True) -> list[Row]:
    """calls/s at c=1 (and c=N), latency percentiles at c=1 (with c=N), server CPU/call at c=1."""
    prefix = f"HTTP {title}:"
    rows = [Row(f"{name}_c1_cps", f"{prefix} tools/call add, c=1: calls/s", "calls/s", higher_is_better=True)]
    if concurrent:
        n = cfg.http_concurrency
        rows += [
            Row(
                f"{name}_cN_cps", f"{prefix} tools/call add, c={n}: calls/s", "calls/s", higher_is_better=True
            ),
            Row(f"{name}_p50", f"{prefix} c=1 latency p50", "ms", scale=1e3),
            Row(f"{name}_p99", f"{prefix} c=1 latency p99", "ms", scale=1e3),
        ]
    rows.append(Row(f"{name}_cpu", f"{prefix} server CPU/call (c=1)", "µs", scale=1e6))
    return rows


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
                ),
                Row("cold_floor", "stdio cold start floor (no SDK: pydantic + bench model)", "ms", scale=1e3),
                Row("cold_above_floor", "stdio cold start above the floor", "ms", scale=1e3),
                Row("cold_cpu", "stdio cold start: server CPU to first tools/list", "ms", scale=1e3),
                Row("cold_cpu_above_floor", "stdio cold start: server CPU above the floor's", "ms", scale=1e3),
            ],
            note="driver-side wall time from Popen() to the tools/list response: interpreter startup, imports, "
            "tool registration, initialize + notifications/initialized, tools/list. The floor: `servers/floor.py` "
            "(the column's interpreter, pydantic and the bench model answering with no SDK), started right after "
            "each sample; above the floor = median of (cold start - floor) per sample. Server CPU: the server's "
            "threads' CPU time up to the tools/list answer (/proc/<pid>/task/*/schedstat, ns), less sensitive "
            "to other work on the machine than wall time.",
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
            "lowlevel",
            calls_rows("lowlevel", f"add ×{cfg.total_calls('lowlevel')}, low-level Server"),
            note='`servers/lowlevel.py`: `mcp.server.lowlevel.Server("bench-lowlevel", on_list_tools=..., '
            "on_call_tool=...)` with `async def handler(ctx, params)` handlers returning `CallToolResult(content="
            '[TextContent(text=...)], structured_content={"result": a+b})`, served by `async with stdio_server() '
            "as (r, w): await server.run(r, w, server.create_initialization_options())`; same file for ours and "
            "official; FastMCP has no low-level server API of its own (—). Measured like the tool calls rows.",
            run_all=run_lowlevel,
            only=("ours", "official"),
        ),
        Group(
            "resources prompts",
            [
                *calls_rows("resource", f"static text ×{cfg.total_calls('resource')}", "resources/read"),
                *calls_rows("prompt", f"2 string args ×{cfg.total_calls('prompt')}", "prompts/get"),
            ],
            note='`servers/content.py` (FastMCP: `content_fastmcp.py`): `@mcp.resource("bench://readme", '
            'mime_type="text/plain")` on a function returning a constant 216-character string, and '
            "`@mcp.prompt()` `review(code: str, language: str) -> str`; one stdio session per column, measured "
            "like the tool calls rows (first answer checked, warm-up, interleaved chunks).",
            run_all=run_content,
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
        Group(
            "http sse",
            http_rows("http_sse", "stateful SSE (default)", cfg),
            note=http_note(
                cfg,
                '`mcp.run(transport="streamable-http", host="127.0.0.1", port=P)` with defaults '
                '(FastMCP: `mcp.run(transport="http", ...)`), one session per client',
            ),
            run_all=http_mode("http_sse", "stateful SSE (default)", ()),
        ),
        Group(
            "http json",
            http_rows("http_json", "stateful JSON", cfg),
            note=http_note(cfg, "the same with `json_response=True`"),
            run_all=http_mode("http_json", "stateful JSON", ("--json",)),
        ),
        Group(
            "http stateless",
            http_rows("http_stateless", "stateless JSON", cfg),
            note=http_note(
                cfg,
                "the same with `json_response=True, stateless_http=True`; each client still "
                "sends initialize once (no session id comes back)",
            ),
            run_all=http_mode("http_stateless", "stateless JSON", ("--json", "--stateless")),
        ),
        Group(
            "http 2026",
            http_rows("http_modern", "2026-07-28 stateless JSON", cfg, concurrent=False),
            note=f"the stateless JSON server again, but every request is a self-contained 2026-07-28 request: "
            f"headers `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method: tools/call`, `Mcp-Name: add`, and "
            f"`params._meta` with `io.modelcontextprotocol/protocolVersion` and "
            f"`io.modelcontextprotocol/clientCapabilities: {{}}`; no initialize, no session. "
            f"{cfg.http_total('c1')} sequential calls in {cfg.rounds} interleaved chunks after "
            f"{cfg.http_warmup['c1']} warm-up calls.",
            run_all=http_mode(
                "http_modern",
                "2026-07-28 stateless JSON",
                ("--json", "--stateless"),
                modern=True,
                concurrent=False,
            ),
        ),
        Group(
            "http idle",
            [
                Row("http_rss_base", "HTTP stateful SSE: server RSS after warm-up", "MiB"),
                Row(
                    "http_rss_session",
                    f"HTTP stateful SSE: RSS per idle session (N={cfg.http_idle_sessions})",
                    "KiB",
                ),
            ],
            note=f"a fresh default-mode server per column; after one session with a tools/call and 20 warm-up "
            f"sessions, VmRSS before and 0.3 s after opening {cfg.http_idle_sessions} more sessions "
            f"(initialize + notifications/initialized each, on one keep-alive connection, never DELETEd, no GET "
            f"stream); (after - before) / {cfg.http_idle_sessions}.",
            run_all=run_http_idle,
        ),
    ]


def http_note(cfg: Config, mode: str) -> str:
    return (
        f"{mode}. One uvicorn server per column (started by the column's own interpreter with its own "
        f"defaults: uvicorn access log on for the peers, off by default for ours), all running at once. Stdlib asyncio "
        f"HTTP/1.1 client, one keep-alive connection per client, SSE bodies parsed by `data:` lines; "
        f"handshake era (initialize with protocolVersion {PROTOCOL_VERSION}). c=1: one client, "
        f"{cfg.http_total('c1')} sequential calls in {cfg.rounds} chunks: calls/s = median over chunks, p50/p99 "
        f"over all calls, CPU/call = server utime+stime / calls. c={cfg.http_concurrency}: "
        f"{cfg.http_concurrency} clients (sessions) each with one request in flight, {cfg.http_total('cN')} "
        f"calls in {cfg.rounds} chunks. Chunks alternate between columns; warm-up {cfg.http_warmup['c1']} + "
        f"{cfg.http_warmup['cN']} calls after a checked first answer per client"
    )


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
    impls = [impl for impl in impls if group.only is None or impl.key in group.only]
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
    fastmcp_pair = "fastmcp" in keys and "fastmcp-ours" in keys
    if fastmcp_pair:
        header.append("fastmcp-ours vs fastmcp")
    body: list[list[str]] = []
    for group in all_groups:
        for row in group.rows:
            cells = [row.label, row.unit]
            vals: dict[str, float | None] = {}
            applies = {k: group.only is None or k in group.only for k in keys}
            for k in keys:
                v = results.values.get((row.key, k))
                vals[k] = v
                cells.append("—" if not applies[k] else fmt_value(v) if v is not None else "FAIL")
            if "ours" in keys:
                cells += [ratio(row, vals["ours"], vals[p]) if applies[p] else "—" for p in peers]
            if fastmcp_pair:
                cells.append(ratio(row, vals["fastmcp-ours"], vals["fastmcp"]) if applies["fastmcp"] else "—")
            body.append(cells)
    return header, body


def results_json(
    all_groups: list[Group], impls: list[Impl], results: Results, notes: list[str], quick: bool
) -> dict[str, Any]:
    """The run as data (what `--json` writes): every row's raw value per column (None where the
    column failed or the group does not apply), its unit and direction, and the table's notes.
    The documentation's performance charts are drawn from this (scripts/docs_charts.py)."""
    rows: list[dict[str, Any]] = []
    for group in all_groups:
        for row in group.rows:
            values: dict[str, float | None] = {}
            for impl in impls:
                applies = group.only is None or impl.key in group.only
                values[impl.key] = results.values.get((row.key, impl.key)) if applies else None
            rows.append({"group": group.name, "key": row.key, "label": row.label, "unit": row.unit,
                         "higher_is_better": row.higher_is_better, "values": values})
    return {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "mode": "quick" if quick else "full",
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "columns": {impl.key: impl.info or impl.error or "" for impl in impls},
        "rows": rows,
        "notes": notes,
    }


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
        "peer/ours for times and CPU, ours/peer for calls/s); `fastmcp-ours vs fastmcp`: the same FastMCP "
        "server on mcpkit against on the official SDK.",
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
    if HTTP_NOTES:
        lines.append("Observed:")
        lines += [f"  HTTP {n}." for n in HTTP_NOTES]
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
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE (raw values)")
    parser.add_argument("--only", default=",".join(COLUMNS), help=f"comma-separated columns to run ({', '.join(COLUMNS)})")
    parser.add_argument("--groups", default="", help="comma-separated group names to run (default: all)")
    parser.add_argument(
        "--ours-python", metavar="PATH", help="interpreter for the ours column (default: bench/.venvs/ours, `pip install .` of this checkout)"
    )
    args = parser.parse_args(argv)

    cfg = Config.quick() if args.quick else Config.full()
    keys = [k.strip() for k in args.only.split(",") if k.strip()]
    unknown = set(keys) - set(COLUMNS)
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
    if args.json:
        data = results_json(all_groups, impls, results, notes, args.quick)
        Path(args.json).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        log(f"JSON written to {args.json}")
    log(f"total {time.perf_counter() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
