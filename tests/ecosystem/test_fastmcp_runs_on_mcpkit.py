"""FastMCP 4.x on mcpkit: its quick start (a server with a tool, resources and a prompt, and its
`Client`) in memory, over a real stdio subprocess and over a real uvicorn on 127.0.0.1, in a venv
where FastMCP was installed after mcpkit (so `mcp` is ours)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from venvs import run, serving

QUICKSTART = Path(__file__).parent / "scripts" / "fastmcp_quickstart.py"
pytestmark = pytest.mark.timeout(900)

EXPECTED = {
    "tools": ["add"],
    "add_data": 5,
    "add_structured": {"result": 5},
    "resources": ["data://config"],
    "templates": ["greeting://{name}"],
    "greeting": "Hello, Ada!",
    "config": {"mode": "demo"},
    "prompts": ["review"],
    "prompt_text": "Please review this code:\n\nx = 1",
}


def quickstart_client(python: Path, target: str) -> dict[str, Any]:
    done = run(python, str(QUICKSTART), "client", target, timeout=180)
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(seen.pop("sdk")).resolve().is_relative_to(python.parent.parent.resolve())  # our mcp, in that venv
    return seen


@pytest.mark.parametrize("target", ["memory", "stdio"])
def test_the_fastmcp_quick_start_runs_on_mcpkit(fastmcp_python: Path, target: str) -> None:
    assert quickstart_client(fastmcp_python, target) == EXPECTED


def test_the_fastmcp_quick_start_runs_on_mcpkit_over_http(fastmcp_python: Path) -> None:
    with serving(fastmcp_python, QUICKSTART, "serve-http") as port:
        assert quickstart_client(fastmcp_python, f"http://127.0.0.1:{port}/mcp") == EXPECTED
