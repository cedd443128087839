"""docs/get-started/real-host.md: a host launches the server file as a stdio child process with one
command (`mcp run /abs/path/server.py`); `mcp run` finds the module-level `mcp` (or `server`, or
`app`, or `file.py:name`); the guarded `run()` never starts on import; `mcp install` writes the
launch command into Claude Desktop's config, and says `Claude app not found` without one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest

from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.anyio

MCP_COMMAND = str(Path(sys.executable).parent / "mcp")

LIBRARY = '''
from mcp.server import MCPServer

{name} = MCPServer("Lending Library")


@{name}.tool()
def borrow(title: str) -> str:
    """Borrow a book."""
    return f"You borrowed {{title}}."


@{name}.tool()
def renew(title: str, weeks: int = 2) -> str:
    """Renew a loan."""
    return f"{{title}} renewed for {{weeks}} weeks."


@{name}.resource("library://hours")
def hours() -> str:
    """Opening hours."""
    return "Mon-Fri 9-17"


if __name__ == "__main__":
    {name}.run()
'''


def write_server(folder: Path, name: str = "mcp") -> Path:
    path = folder / "server.py"
    path.write_text(textwrap.dedent(LIBRARY.format(name=name)))
    return path


def launch(spec: str, folder: Path) -> StdioServerParameters:
    """The host's launch command (`mcp run <absolute path>`), started from an unrelated directory."""
    return StdioServerParameters(command=MCP_COMMAND, args=["run", spec], cwd=str(folder))


async def drive_like_a_host(params: StdioServerParameters) -> None:
    with anyio.fail_after(60):
        async with Client(params) as client:
            assert sorted(t.name for t in (await client.list_tools()).tools) == ["borrow", "renew"]
            result = await client.call_tool("renew", {"title": "Emma"})
            assert result.structured_content == {"result": "Emma renewed for 2 weeks."}
            (content,) = (await client.read_resource("library://hours")).contents
            assert content.text == "Mon-Fri 9-17"  # type: ignore[union-attr]


async def test_mcp_run_with_an_absolute_path_serves_stdio_from_any_directory(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    server = write_server(tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    await drive_like_a_host(launch(str(server.resolve()), elsewhere))


@pytest.mark.parametrize("name", ["server", "app"])
async def test_mcp_run_also_finds_a_server_or_app_global(tmp_path: Path, name: str) -> None:
    await drive_like_a_host(launch(str(write_server(tmp_path, name)), tmp_path))


async def test_another_name_is_given_after_a_colon(tmp_path: Path) -> None:
    server = write_server(tmp_path, "bookshop")
    await drive_like_a_host(launch(f"{server}:bookshop", tmp_path))


def test_importing_the_file_does_not_start_a_server(tmp_path: Path) -> None:
    write_server(tmp_path)
    probe = "import server; print(type(server.mcp).__name__)"
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout.strip()) == (0, "MCPServer")


def run_install(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config"),
           "APPDATA": str(tmp_path / "home" / "AppData")}
    return subprocess.run([MCP_COMMAND, "install", *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)


def claude_folder(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Claude"
    if sys.platform == "win32":
        return home / "AppData" / "Claude"
    return home / ".config" / "Claude"


@pytest.mark.skipif(sys.platform not in ("linux", "darwin", "win32"), reason="Claude Desktop's platforms")
def test_install_writes_the_launch_command_with_an_absolute_path(tmp_path: Path) -> None:
    write_server(tmp_path)
    claude_folder(tmp_path).mkdir(parents=True)
    done = run_install(tmp_path, "server.py", "-v", "API_KEY=abc123")
    assert done.returncode == 0, done.stderr
    config = json.loads((claude_folder(tmp_path) / "claude_desktop_config.json").read_text())
    entry = config["mcpServers"]["Lending Library"]  # named after the server
    args = entry["args"]
    assert Path(entry["command"]).name.startswith("uv")
    assert args[:2] == ["run", "--frozen"] and "--with" in args
    assert args[-3:] == ["mcp", "run", str((tmp_path / "server.py").resolve())]
    assert entry["env"] == {"API_KEY": "abc123"}


@pytest.mark.skipif(sys.platform not in ("linux", "darwin", "win32"), reason="Claude Desktop's platforms")
def test_install_without_claude_desktop_says_claude_app_not_found(tmp_path: Path) -> None:
    write_server(tmp_path)
    done = run_install(tmp_path, "server.py")
    assert done.returncode != 0
    assert "Claude app not found" in done.stderr
