"""Virtual environments for the libraries built on `mcp`, each with mcpkit installed first.

One venv per library, outside the project's .venv (both would provide `mcp`), cached under
`${MCPKIT_ECOSYSTEM_HOME:-~/.cache/mcpkit-ecosystem}`: built the way a user would (the venv,
`pip install` of this checkout, `python -m mcp.stand_ins` for the two pinned stand-ins, then `pip
install` of the library at a fixed version), and reused while its inputs are unchanged. The key
covers the interpreter, the library pins, pyproject.toml and the stand-ins' generator
(`mcp/stand_ins/wheels.py`; not the checkout's path: CI's clone reuses
what a session built); a change to src/ alone reinstalls mcpkit (`--no-deps`, seconds) instead of
rebuilding. A file lock keeps two builders apart. A failed build raises: these tests never skip.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
STAND_INS_SOURCE = REPO / "src" / "mcp" / "stand_ins" / "wheels.py"
HOME = Path(os.environ.get("MCPKIT_ECOSYSTEM_HOME", Path.home() / ".cache" / "mcpkit-ecosystem"))

FASTMCP = "fastmcp==4.1.6"  # FastMCP 4.x: its client and server require mcp>=2.3,<3 and mcp-types>=2,<3
AGENTS = "openai-agents==0.24.0"  # the OpenAI Agents SDK: requires mcp>=1.19,<3 (httpx2 on mcp 2.x)
# pydantic-ai's MCP client (`pydantic_ai.mcp.MCPToolset`, on fastmcp-slim[client]); needs Python 3.11+
PYDANTIC_AI = "pydantic-ai-slim[mcp]==2.68.0"
FASTMCP_TASKS = "fastmcp-tasks==4.1.4"  # FastMCP's task server (SEP-2663), on the official SDK: what our tasks client meets
OFFICIAL_SDK = "mcp==2.3.0"  # the official SDK alone: its clients meet our servers (e.g. its OAuth client, our proxy)
HAS_PYDANTIC_AI = sys.version_info >= (3, 11)
MCPKIT = "<mcpkit>"
"""Stands for this checkout in an install step, followed by `python -m mcp.stand_ins`."""

VENVS: dict[str, list[list[str]]] = {
    # mcpkit first, then the library, each in a venv of its own
    "fastmcp": [[MCPKIT], [FASTMCP]],
    "openai-agents": [[MCPKIT], [AGENTS]],
    # mcpkit, then the libraries in one `pip install`
    "together": [[MCPKIT], [FASTMCP, AGENTS, *([PYDANTIC_AI] if HAS_PYDANTIC_AI else [])]],
    **({"pydantic-ai": [[MCPKIT], [PYDANTIC_AI]]} if HAS_PYDANTIC_AI else {}),
    "fastmcp-tasks": [[FASTMCP_TASKS]],
    "official-sdk": [[OFFICIAL_SDK]],
}
"""Each venv's install steps, in order (one `pip install` each)."""

_spec = importlib.util.spec_from_file_location("mcpkit_stand_in_wheels", STAND_INS_SOURCE)
assert _spec is not None and _spec.loader is not None
_wheels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_wheels)
MCPKIT_VERSION = next(line.split('"')[1] for line in (REPO / "pyproject.toml").read_text().splitlines()
                      if line.startswith("version = "))
STAND_IN_VERSION: str = _wheels.stand_in_version(MCPKIT_VERSION)


def clean_env() -> dict[str, str]:
    """The environment for the venv's processes: none of the caller's PYTHON* or VIRTUAL_ENV."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "VIRTUAL_ENV"}


def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()[:16]


def source_digest() -> str:
    """What a `pip install .` of this checkout installs: every file under src/."""
    files = sorted(p for p in (REPO / "src").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return _digest(*(bytes(str(p.relative_to(REPO)), "utf-8") + p.read_bytes() for p in files))


def _pip(python: Path, args: list[str], log: Path) -> None:
    with log.open("a") as out:
        out.write(f"$ pip {' '.join(args)}\n")
        out.flush()
        done = subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", *args],
                              stdout=out, stderr=subprocess.STDOUT, env=clean_env(), timeout=900)
    if done.returncode != 0:
        tail = log.read_text()[-3000:]
        raise RuntimeError(f"pip {' '.join(args)} failed in {python.parent.parent} (log {log}):\n{tail}")


def library_venv(name: str, steps: list[list[str]] | None = None) -> Path:
    """The python of the cached venv `name` of `VENVS` (or one with the given install `steps`),
    built or refreshed here. Steps without `MCPKIT` build a venv of the official SDK: no pin, and
    no mcpkit to refresh."""
    steps = VENVS[name] if steps is None else steps
    key = _digest(sys.version.encode(), repr(steps).encode(), (REPO / "pyproject.toml").read_bytes(),
                  STAND_INS_SOURCE.read_bytes())
    venv = HOME / f"{name}-{key}"
    HOME.mkdir(parents=True, exist_ok=True)
    with (HOME / f"{name}.lock").open("w") as lock:  # one builder at a time (checkouts share the cache)
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build(name, steps, venv)


def _build(name: str, steps: list[list[str]], venv: Path) -> Path:
    python = venv / "bin" / "python"
    stamp = venv / ".mcpkit-source"
    log = venv / "build.log"
    ours = any(MCPKIT in step for step in steps)
    source = source_digest() if ours else "official"
    if python.exists() and stamp.exists():
        if stamp.read_text() != source:  # same dependencies, new source: replace mcpkit alone
            _pip(python, ["install", "--quiet", "--no-deps", "--force-reinstall", str(REPO)], log)
            stamp.write_text(source)
        return python
    for old in HOME.glob(f"{name}-" + "[0-9a-f]" * 16):  # earlier keys of this venv (not of a longer name): superseded
        shutil.rmtree(old, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=clean_env(), timeout=300)
    for step in steps:
        _pip(python, ["install", "--quiet", *(str(REPO) if req == MCPKIT else req for req in step)], log)
        if MCPKIT in step:  # the stand-ins and their pin, as a user installs them
            stand_ins(python, log)
    stamp.write_text(source)
    return python


def stand_ins(python: Path, log: Path) -> None:
    """`python -m mcp.stand_ins` in the venv (pip, as its pip.conf pin), logged; raises when it fails."""
    done = run(python, "-m", "mcp.stand_ins", "--pip", timeout=300)
    with log.open("a") as out:
        out.write(f"$ python -m mcp.stand_ins --pip\n{done.stdout}{done.stderr}")
    if done.returncode != 0:
        raise RuntimeError(f"python -m mcp.stand_ins failed in {python.parent.parent}:\n{done.stdout}{done.stderr}")


def run(python: Path, *args: str, timeout: float = 120, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python args...` in the venv (bounded, `env` added to a clean environment), capturing its output."""
    return subprocess.run([str(python), *args], capture_output=True, text=True, env={**clean_env(), **(env or {})},
                          timeout=timeout)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serving(python: Path, script: Path, *args: str) -> Iterator[int]:
    """`python script args... PORT` in a child process (an HTTP server on 127.0.0.1:PORT), until
    its port accepts connections (bounded); yields the port and stops the process afterwards."""
    port = free_port()
    proc = subprocess.Popen([str(python), str(script), *args, str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=clean_env())
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            proc.kill()
            errors = proc.stderr.read().decode() if proc.stderr is not None else ""
            raise RuntimeError(f"{script.name} did not listen on 127.0.0.1:{port}: {errors[-2000:]}")
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
