"""`mcp dev FILE`: a clear message when Node/npx is missing or too old, and, with a Node the
Inspector supports, the real MCP Inspector started on our server, up to its proxy relaying our
server's answer to `initialize`."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from clikit import BOOKSHOP, MCP, free_port, mcp


def test_without_npx_dev_says_which_node_to_install(tmp_path: Path) -> None:
    out = mcp("dev", str(BOOKSHOP), env={"PATH": str(tmp_path)})
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        "mcp: npx not found: mcp dev runs the MCP Inspector with Node.js; install Node.js 22.19 or newer from "
        "https://nodejs.org (or with your package manager, nvm or fnm) and make sure `node` and `npx` are on PATH"]


def test_a_node_too_old_for_the_inspector_is_named_with_its_version(tmp_path: Path) -> None:
    for name, script in (("node", "echo v18.20.1"), ("npx", "echo npx should not run >&2; exit 3")):
        tool = tmp_path / name
        tool.write_text(f"#!/bin/sh\n{script}\n")
        tool.chmod(0o755)
    out = mcp("dev", str(BOOKSHOP), env={"PATH": str(tmp_path)})
    assert out.returncode == 1
    assert out.stderr.startswith("mcp: the MCP Inspector needs Node.js 22.19 or newer, found 18.20; install")
    assert "npx should not run" not in out.stderr


def test_dev_reports_a_file_without_a_server_before_looking_for_node(tmp_path: Path) -> None:
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    out = mcp("dev", str(empty), env={"PATH": str(tmp_path)})
    assert out.returncode == 1
    assert out.stderr.strip() == "mcp: empty.py defines no server object named mcp / server / app (name it with empty.py:OBJECT)"


def _node_bin() -> str | None:
    """A folder holding a Node the Inspector supports: `MCP_TEST_NODE_BIN`, PATH's node, or the one
    `tests/cli/fetch_node.sh` and the conformance runner (`../shared/conformance/run.sh`) install
    from npm into their shared cache."""
    import shutil

    cache = Path(os.environ.get("CONFORMANCE_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
                 / "mcp-conformance")
    explicit = os.environ.get("MCP_TEST_NODE_BIN")
    candidates = [str(Path(explicit) / "node") if explicit else None, shutil.which("node"),
                  *(str(cache / "node22" / "node_modules" / f"node-{platform}" / "bin" / "node")
                    for platform in ("linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"))]
    for node in candidates:
        if node and Path(node).is_file():
            found = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
            match = re.match(r"v(\d+)\.(\d+)", found)
            if match and (int(match.group(1)), int(match.group(2))) >= (22, 19) and shutil.which("npx"):
                return str(Path(node).parent)
    return None


def _api(base: str, token: str, path: str, body: object | None = None) -> dict[str, object]:
    request = urllib.request.Request(
        base + path, data=None if body is None else json.dumps(body).encode(), method="GET" if body is None else "POST",
        headers={"x-mcp-remote-auth": f"Bearer {token}", "Origin": base, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


@pytest.mark.timeout(400)
def test_the_inspectors_proxy_relays_our_servers_initialize_answer(tmp_path: Path) -> None:
    node_bin = _node_bin()
    if node_bin is None:
        pytest.skip("no Node >= 22.19 with npx (the MCP Inspector's requirement); tests/cli/fetch_node.sh "
                    "installs one from npm")
    ui_port, sandbox_port = free_port(), free_port()
    log = tmp_path / "dev.log"
    env = {**os.environ, "PATH": node_bin + os.pathsep + os.environ["PATH"], "MCP_INSPECTOR_SECRET_STORE": "memory"}
    with log.open("w") as sink:
        proc = subprocess.Popen([*MCP, "dev", str(BOOKSHOP), "--no-browser", "--ui-port", str(ui_port),
                                 "--proxy-port", str(sandbox_port)], stdout=sink, stderr=subprocess.STDOUT,
                                env=env, start_new_session=True)
    try:
        token = None
        deadline = time.monotonic() + 360  # the first run has npx fetch the Inspector
        while token is None and time.monotonic() < deadline and proc.poll() is None:
            found = re.search(r"MCP_INSPECTOR_API_TOKEN=([0-9a-f]+)", log.read_text())
            token = found.group(1) if found else None
            time.sleep(0.2)
        assert token is not None, log.read_text()
        text = log.read_text()
        assert f"mcp dev: starting the MCP Inspector on Bookshop at http://localhost:{ui_port}" in text
        base = f"http://127.0.0.1:{ui_port}"
        config = _api(base, token, "/api/config")
        assert config["defaultCommand"] == sys.executable
        assert config["defaultArgs"] == ["-m", "mcp.cli", "run", str(BOOKSHOP)]
        session = _api(base, token, "/api/mcp/connect", {"config": {
            "type": "stdio", "command": config["defaultCommand"], "args": config["defaultArgs"]}})
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
        sent = _api(base, token, "/api/mcp/send", {"sessionId": session["sessionId"], "message": initialize})
        assert sent == {"ok": True}
        request = urllib.request.Request(f"{base}/api/mcp/events?sessionId={session['sessionId']}",
                                         headers={"x-mcp-remote-auth": f"Bearer {token}", "Origin": base})
        answer: dict[str, dict[str, object]] = {"result": {}}
        with urllib.request.urlopen(request, timeout=30) as events:
            for raw in events:
                line = raw.decode().strip()
                if line.startswith("data:") and '"result"' in line:
                    answer = json.loads(line[5:])["data"]
                    break
        assert answer["result"]["serverInfo"] == {"name": "Bookshop", "version": "1.0.0"}
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
