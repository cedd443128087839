"""Bad input to the `mcp` command: one line on stderr saying what and where, a non-zero exit,
and no traceback unless `--debug`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from clikit import BOOKSHOP, mcp


def _one_error_line(out: object) -> str:
    stderr: str = out.stderr  # type: ignore[attr-defined]
    assert out.returncode != 0  # type: ignore[attr-defined]
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize("command", ["tools", "run"])
def test_a_syntax_error_names_the_file_and_line(tmp_path: Path, command: str) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from mcp.server import MCPServer\nmcp = MCPServer(\n")
    line = _one_error_line(mcp(command, str(bad)))
    assert line.startswith(f"mcp: syntax error in {bad}:2: ")


def test_a_file_without_a_server_object_says_which_names_were_tried(tmp_path: Path) -> None:
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    line = _one_error_line(mcp("tools", str(empty)))
    assert line == "mcp: empty.py defines no server object named mcp / server / app (name it with empty.py:OBJECT)"


def test_an_object_that_is_not_a_server_is_named_with_its_type(tmp_path: Path) -> None:
    other = tmp_path / "other.py"
    other.write_text("shop = 'a string'\n")
    line = _one_error_line(mcp("call", f"{other}:shop", "anything"))
    assert line == "mcp: other.py:shop is a str, not an MCPServer or a low-level Server"


def test_a_file_whose_import_raises_names_the_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import os\nraise RuntimeError('no database')\n")
    line = _one_error_line(mcp("prompts", str(broken)))
    assert line == f"mcp: importing {broken} failed at line 2: RuntimeError: no database"


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('no database')\n")
    out = mcp("--debug", "tools", str(broken))
    assert out.returncode == 1
    assert "Traceback" in out.stderr and "RuntimeError: no database" in out.stderr


def test_a_command_that_does_not_start_is_one_line() -> None:
    line = _one_error_line(mcp("tools", "--", "no-such-mcp-server-command"))
    assert line == "mcp: cannot start 'no-such-mcp-server-command': No such file or directory"


def test_a_command_that_exits_without_speaking_mcp_is_one_line() -> None:
    line = _one_error_line(mcp("tools", "--", sys.executable, "-c", "print('hello')"))
    assert line.startswith(f"mcp: cannot connect to {sys.executable} -c print('hello'): ")
    assert line.endswith("is it an MCP server?)")


def test_a_url_where_nothing_listens_is_one_line() -> None:
    from clikit import free_port

    line = _one_error_line(mcp("tools", f"http://127.0.0.1:{free_port()}/mcp"))
    assert line.startswith("mcp: cannot connect to http://127.0.0.1:")


def test_a_key_value_item_without_equals_is_a_usage_error() -> None:
    out = mcp("call", str(BOOKSHOP), "find_book", "dune")
    assert out.returncode == 2
    assert _one_error_line(out) == "mcp: expected KEY=VALUE or a JSON object, got 'dune'"


def test_call_without_a_tool_name_shows_the_usage() -> None:
    out = mcp("call", str(BOOKSHOP))
    assert out.returncode == 2
    assert _one_error_line(out) == "mcp: usage: mcp call TARGET TOOL [KEY=VALUE]..."


def test_run_names_a_low_level_server_as_unsupported(tmp_path: Path) -> None:
    low = tmp_path / "low.py"
    low.write_text("from mcp.server.lowlevel import Server\nserver = Server('low')\n")
    line = _one_error_line(mcp("run", str(low)))
    assert line == "mcp: low.py:server is a Server, not an MCPServer (this command serves an MCPServer only)"
    # The client commands do talk to a low-level Server; this one has no tools handler.
    assert _one_error_line(mcp("tools", str(low))) == "mcp: tools/list failed: Method not found (error -32601)"
