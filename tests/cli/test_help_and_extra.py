"""`mcp --help` and each subcommand's help list every option with a description, and without the
`cli` extra (click, rich) `mcp run`/`mcp version` still work while the rest say what to install."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from clikit import BOOKSHOP, mcp

COMMANDS = ["run", "version", "dev", "install", "tools", "resources", "prompts", "call", "read", "get-prompt"]

# Imports of click and rich fail, as on an install without the `cli` extra.
WITHOUT_EXTRA = """
import sys
class Hide:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("click", "rich"):
            raise ImportError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Hide())
from mcp.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def test_top_level_help_lists_every_command() -> None:
    out = mcp("--help")
    assert out.returncode == 0
    for command in COMMANDS:
        assert f"  {command} " in out.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_of_every_command_has_a_description(command: str) -> None:
    from mcp.cli.commands import app

    group_command = app.commands[command]
    for param in group_command.params:
        if param.param_type_name == "option":
            assert getattr(param, "help", None), f"mcp {command} {param.opts} has no help"
    out = mcp(command, "--help")
    assert out.returncode == 0
    for param in group_command.params:
        if param.param_type_name == "option":
            assert param.opts[-1] in out.stdout


def _without_extra(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_EXTRA, *args], input=stdin, capture_output=True,
                          text=True, timeout=60)


def test_run_works_without_the_cli_extra() -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    out = _without_extra("run", str(BOOKSHOP), stdin=json.dumps(init) + "\n")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "Bookshop"
    assert _without_extra("version").stdout.startswith("MCP version ")


def test_other_commands_without_the_cli_extra_say_what_to_install() -> None:
    out = _without_extra("tools", str(BOOKSHOP))
    assert out.returncode == 1
    assert out.stderr.strip() == ('mcp: this command needs the cli extra (click is missing): '
                                  'pip install "mcpkit[cli]"')


def test_mcp_cli_app_is_the_command_group_as_officially() -> None:
    out = subprocess.run([sys.executable, "-c", "from mcp.cli import app; app(['version'])"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("MCP version ")
