"""The OpenAI Agents SDK's MCP integration on mcpkit: `MCPServerStdio` and `MCPServerStreamableHttp`
connect to one of our servers (a real stdio subprocess, a real uvicorn on 127.0.0.1), list its
tools and call them, structured output included. No model is called: the MCP server objects are
driven directly, in a venv where the Agents SDK was installed after mcpkit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from venvs import run, serving

SCRIPTS = Path(__file__).parent / "scripts"
pytestmark = pytest.mark.timeout(900)


def drive(python: Path, *args: str) -> dict[str, Any]:
    done = run(python, str(SCRIPTS / "agents_drive.py"), *args, timeout=180)
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(seen.pop("sdk")).resolve().is_relative_to(python.parent.parent.resolve())
    return seen


def check(seen: dict[str, Any]) -> None:
    assert seen["tools"] == ["add", "reading"]
    assert seen["add_text"] == "5"
    assert seen["add_structured"] == {"result": 5}
    assert seen["reading_structured"] == {"city": "Oslo", "celsius": 4}
    assert seen["reading_error"] is False
    schema = seen["output_schemas"]["reading"]
    assert schema["type"] == "object"
    assert set(schema["properties"]) == {"city", "celsius"}


def test_mcp_server_stdio_lists_and_calls_our_tools(agents_python: Path) -> None:
    check(drive(agents_python, "stdio", str(SCRIPTS / "ours_server.py")))


def test_mcp_server_streamable_http_lists_and_calls_our_tools(agents_python: Path) -> None:
    with serving(agents_python, SCRIPTS / "ours_server.py") as port:
        check(drive(agents_python, "http", f"http://127.0.0.1:{port}/mcp"))
