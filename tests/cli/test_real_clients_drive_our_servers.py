"""Real clients that are not ours drive our server, started the way hosts start it (`mcp run`
over stdio) and over Streamable HTTP (a real uvicorn on 127.0.0.1): the MCP Inspector's CLI
(`npx @modelcontextprotocol/inspector --cli`, with the Node it needs) and the official Python SDK
(`mcp==2.3.0` in its own venv). tools/list, tools/call with structured output, resources, prompts.
Each skips with its reason when its client cannot be had on this machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from clikit import BOOKSHOP, bookshop_over_http
from test_dev import _node_bin  # pyright: ignore[reportPrivateUsage]

STDIO_SERVER = [sys.executable, "-m", "mcp.cli", "run", str(BOOKSHOP)]
REPO = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with bookshop_over_http() as address:
        yield address


# -- the MCP Inspector CLI ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def inspector_env() -> dict[str, str]:
    node_bin = _node_bin()
    if node_bin is None:
        pytest.skip("no Node >= 22.19 with npx (the MCP Inspector's requirement); tests/cli/fetch_node.sh "
                    "installs one from npm")
    return {**os.environ, "PATH": node_bin + os.pathsep + os.environ["PATH"], "MCP_INSPECTOR_SECRET_STORE": "memory"}


def _inspector(env: dict[str, str], target: list[str], *args: str) -> dict[str, object]:
    out = subprocess.run(["npx", "--yes", "@modelcontextprotocol/inspector", "--cli", *target, *args],
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout)


@pytest.mark.timeout(600)
def test_the_inspector_cli_drives_our_stdio_server(inspector_env: dict[str, str]) -> None:
    called = _inspector(inspector_env, STDIO_SERVER, "--method", "tools/call", "--tool-name", "find_book",
                        "--tool-arg", "slug=dune", "copies=2")
    assert called["structuredContent"] == {"slug": "dune", "title": "Dune", "copies": 2}
    read = _inspector(inspector_env, STDIO_SERVER, "--method", "resources/read", "--uri", "shop://catalog")
    assert read["contents"][0]["text"] == "Dune\nEmma"  # type: ignore[index]


@pytest.mark.timeout(600)
def test_the_inspector_cli_drives_our_http_server(inspector_env: dict[str, str], url: str) -> None:
    listed = _inspector(inspector_env, [url], "--method", "tools/list")
    assert "find_book" in {tool["name"] for tool in listed["tools"]}  # type: ignore[index,union-attr]
    called = _inspector(inspector_env, [url], "--method", "tools/call", "--tool-name", "find_book",
                        "--tool-arg", "slug=emma")
    assert called["structuredContent"] == {"slug": "emma", "title": "Emma", "copies": 1}
    prompt = _inspector(inspector_env, [url], "--method", "prompts/get", "--prompt-name", "recommend",
                        "--prompt-args", "genre=scifi")
    assert prompt["messages"][0]["content"]["text"] == "Recommend a cheerful scifi book."  # type: ignore[index]


# -- the official Python SDK ----------------------------------------------------------------------

OFFICIAL_SCRIPT = """
import json, sys, anyio
from mcp import Client, StdioServerParameters

async def main():
    target = sys.argv[1]
    server = target if target.startswith("http") else StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with Client(server) as client:
        tools = await client.list_tools()
        called = await client.call_tool("find_book", {"slug": "dune", "copies": 3})
        resources = await client.list_resources()
        read = await client.read_resource("shop://books/emma")
        prompt = await client.get_prompt("recommend", {"genre": "poetry"})
    print(json.dumps({
        "tools": sorted(t.name for t in tools.tools),
        "structured": called.structured_content,
        "resources": [str(r.uri) for r in resources.resources],
        "read": read.contents[0].text,
        "prompt": prompt.messages[0].content.text,
    }))

anyio.run(main)
"""


def _official_python() -> str:
    candidates = [os.environ.get("MCP_OFFICIAL_PYTHON"), str(REPO / "bench" / ".venvs" / "official" / "bin" / "python"),
                  "/root/.cache/mcp-compat/official-2.3.0/bin/python"]
    for python in candidates:
        if python and Path(python).is_file():
            return python
    pytest.skip("no venv with the official mcp==2.3.0 (set MCP_OFFICIAL_PYTHON, or build bench/.venvs/official)")


@pytest.mark.parametrize("wire", ["stdio", "http"])
def test_the_official_python_client_drives_our_server(wire: str, request: pytest.FixtureRequest) -> None:
    python = _official_python()
    target = [request.getfixturevalue("url")] if wire == "http" else STDIO_SERVER
    # Run from a neutral folder so the official interpreter imports its own `mcp`, not this checkout's.
    out = subprocess.run([python, "-c", OFFICIAL_SCRIPT, *target], capture_output=True, text=True, timeout=120,
                         cwd=Path(python).parent)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen == {
        "tools": ["echo_text", "find_book", "greet_customer", "out_of_stock", "restock"],
        "structured": {"slug": "dune", "title": "Dune", "copies": 3},
        "resources": ["shop://catalog", "shop://cover.png"],
        "read": "Emma (emma)",
        "prompt": "Recommend a cheerful poetry book.",
    }
