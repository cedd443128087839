"""pydantic-ai's MCP client on mcpkit: `pydantic_ai.mcp.MCPToolset` (pydantic-ai 2.x's one MCP
client; its `MCPServerStdio` and `MCPServerStreamableHTTP` were folded into it) connects to one of
our servers over a real stdio subprocess and a real uvicorn on 127.0.0.1, lists its tools and calls
them with structured output, directly and from an agent run whose model is a local function (no
LLM). In a venv where `pydantic-ai-slim[mcp]` was installed after mcpkit and its stand-ins."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from venvs import run, serving

SCRIPTS = Path(__file__).parent / "scripts"
pytestmark = pytest.mark.timeout(900)


def drive(python: Path, *args: str) -> dict[str, Any]:
    done = run(python, str(SCRIPTS / "pydantic_ai_drive.py"), *args, timeout=180)
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(seen.pop("sdk")).resolve().is_relative_to(python.parent.parent.resolve())
    return seen


def check(seen: dict[str, Any]) -> None:
    assert seen["tools"] == ["add", "reading"]
    assert seen["add"] == 5  # structured {"result": 5}, unwrapped by pydantic-ai
    assert seen["reading"] == {"city": "Oslo", "celsius": 4}
    assert seen["agent_answer"] == {"city": "Cairo", "celsius": 34}
    schema = seen["output_schemas"]["reading"]
    assert schema["type"] == "object"
    assert set(schema["properties"]) == {"city", "celsius"}


def test_mcp_toolset_over_stdio_lists_and_calls_our_tools(pydantic_ai_python: Path) -> None:
    check(drive(pydantic_ai_python, "stdio", str(SCRIPTS / "ours_server.py")))


def test_mcp_toolset_over_streamable_http_lists_and_calls_our_tools(pydantic_ai_python: Path) -> None:
    with serving(pydantic_ai_python, SCRIPTS / "ours_server.py") as port:
        check(drive(pydantic_ai_python, "http", f"http://127.0.0.1:{port}/mcp"))


def test_pydantic_ai_installed_after_mcpkit_kept_our_mcp(pydantic_ai_python: Path) -> None:
    done = run(pydantic_ai_python, str(SCRIPTS / "which_mcp.py"))
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["mcp_owners"] == seen["mcp_types_owners"] == ["mcpkit"]
    assert "+mcpkit." in seen["mcp_version"]
    assert run(pydantic_ai_python, "-m", "pip", "check").returncode == 0
