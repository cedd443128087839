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
