"""The `mcp` command: `mcp version` and `mcp run FILE[:OBJECT]` over stdio."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[2] / "examples" / "weather_server.py"
MCP = [sys.executable, "-m", "mcp.cli"]
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def _run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MCP, *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_mcp_version_prints_the_installed_version() -> None:
    out = _run(["version"])
    assert out.returncode == 0
    assert out.stdout.startswith("MCP version 0.")


@pytest.mark.parametrize("spec", [str(EXAMPLE), f"{EXAMPLE}:mcp"])
def test_mcp_run_serves_the_file_over_stdio_until_eof(spec: str) -> None:
    requests = [INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "get_temperature", "arguments": {"city": "Cairo"}}}]
    out = _run(["run", spec], "".join(json.dumps(r) + "\n" for r in requests))
    assert out.returncode == 0, out.stderr
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert answers[0]["result"]["protocolVersion"] == "2025-06-18"
    assert answers[1]["result"]["structuredContent"] == {"result": 34}


def test_mcp_run_names_the_missing_object() -> None:
    out = _run(["run", f"{EXAMPLE}:nothing_here"])
    assert out.returncode != 0
    assert "no server object named nothing_here" in out.stderr


def test_mcp_run_names_a_missing_file() -> None:
    out = _run(["run", "does/not/exist.py"])
    assert out.returncode != 0
    assert "no such file" in out.stderr


def test_mcp_run_over_streamable_http_serves_a_tool_call() -> None:
    """`run(transport="streamable-http")` as users start it: a real uvicorn in a subprocess."""
    import socket
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = (f"import runpy; mcp = runpy.run_path({str(EXAMPLE)!r})['mcp']; "
            f"mcp.run(transport='streamable-http', host='127.0.0.1', port={port}, stateless_http=True, json_response=True)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "get_temperature", "arguments": {"city": "Cairo"}}}
        answer: dict[str, object] | None = None
        deadline = time.monotonic() + 30
        while answer is None and time.monotonic() < deadline and proc.poll() is None:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/mcp", data=json.dumps(call).encode(), method="POST",
                headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                         "MCP-Protocol-Version": "2025-06-18"})
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    answer = json.loads(response.read())
            except OSError:
                time.sleep(0.1)
        assert answer is not None, proc.stderr.read().decode() if proc.poll() is not None and proc.stderr else "no answer"
        assert answer["result"]["structuredContent"] == {"result": 34}  # type: ignore[index]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()
