"""`mcp install FILE[:OBJECT]` on a temporary HOME: Claude Desktop's config is merged, never
destroyed (existing, empty, corrupt files), and `--target` writes each other host's format."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from clikit import BOOKSHOP, mcp

UV = shutil.which("uv") or "uv"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return folder


def _install(home: Path, *args: str, cwd: Path | None = None) -> object:
    env = {key: value for key, value in os.environ.items() if key != "XDG_CONFIG_HOME"}
    env["HOME"] = str(home)
    return mcp("install", *args, env=env, cwd=cwd)


def _claude_config(home: Path) -> Path:
    return home / ".config" / "Claude" / "claude_desktop_config.json"


def _expected_args(spec: str) -> list[str]:
    """The launch command pins the SDK the tests run: from the folder it is installed from (this
    checkout, editable), else the exact released version."""
    from importlib.metadata import distribution

    installed = distribution("mcpkit")
    origin = json.loads(installed.read_text("direct_url.json") or "{}").get("url", "")
    requirement = f"mcpkit[cli] @ {origin}" if origin.startswith("file://") else f"mcpkit[cli]=={installed.version}"
    return ["run", "--frozen", "--with", requirement, "mcp", "run", spec]


def test_without_claude_desktop_install_says_claude_app_not_found(home: Path) -> None:
    out = _install(home, str(BOOKSHOP))
    assert out.returncode == 1  # type: ignore[attr-defined]
    assert out.stderr.startswith("mcp: Claude app not found")  # type: ignore[attr-defined]
    assert not (home / ".config" / "Claude").exists()


def test_install_writes_the_launch_command_under_the_servers_name(home: Path) -> None:
    _claude_config(home).parent.mkdir(parents=True)
    out = _install(home, str(BOOKSHOP))
    assert out.returncode == 0, out.stderr  # type: ignore[attr-defined]
    config = json.loads(_claude_config(home).read_text())
    assert config == {"mcpServers": {"Bookshop": {"command": UV, "args": _expected_args(str(BOOKSHOP))}}}


def test_install_merges_with_other_servers_and_settings_and_keeps_env(home: Path, tmp_path: Path) -> None:
    path = _claude_config(home)
    path.parent.mkdir(parents=True)
    existing = {"theme": "dark", "mcpServers": {
        "other": {"command": "node", "args": ["other.js"]},
        "shop": {"command": "old", "args": [], "env": {"API_KEY": "old", "REGION": "eu"}}}}
    path.write_text(json.dumps(existing))
    env_file = tmp_path / ".env"
    env_file.write_text("# secrets\nexport TOKEN='t0k'\nREGION=us\n")
    out = _install(home, f"{BOOKSHOP}:mcp", "--name", "shop", "-v", "API_KEY=new", "-f", str(env_file),
                   "--with", "httpx")
    assert out.returncode == 0, out.stderr  # type: ignore[attr-defined]
    config = json.loads(path.read_text())
    assert config["theme"] == "dark"
    assert config["mcpServers"]["other"] == existing["mcpServers"]["other"]
    shop = config["mcpServers"]["shop"]
    assert shop["env"] == {"API_KEY": "new", "REGION": "us", "TOKEN": "t0k"}
    assert shop["args"][-3:] == ["mcp", "run", f"{BOOKSHOP}:mcp"]
    assert shop["args"][2:4] == ["--with", "httpx"]


def test_install_into_an_empty_config_file(home: Path) -> None:
    path = _claude_config(home)
    path.parent.mkdir(parents=True)
    path.write_text("")
    out = _install(home, str(BOOKSHOP))
    assert out.returncode == 0, out.stderr  # type: ignore[attr-defined]
    assert list(json.loads(path.read_text())["mcpServers"]) == ["Bookshop"]


def test_a_corrupt_config_is_reported_and_left_untouched(home: Path) -> None:
    path = _claude_config(home)
    path.parent.mkdir(parents=True)
    path.write_text('{"mcpServers": {"other": ')
    out = _install(home, str(BOOKSHOP))
    assert out.returncode == 1  # type: ignore[attr-defined]
    assert out.stderr.strip().splitlines() == [  # type: ignore[attr-defined]
        f"mcp: {path} is not valid JSON (line 1, column 26: Expecting value); fix or move it, nothing was changed"]
    assert path.read_text() == '{"mcpServers": {"other": '
    assert list(path.parent.iterdir()) == [path]


def test_target_vscode_writes_servers_with_a_type_and_keeps_other_entries(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".vscode").mkdir(parents=True)
    (project / ".vscode" / "mcp.json").write_text(json.dumps({"servers": {"db": {"type": "http", "url": "x"}}}))
    out = _install(home, str(BOOKSHOP), "--target", "vscode", "--project", str(project))
    assert out.returncode == 0, out.stderr  # type: ignore[attr-defined]
    servers = json.loads((project / ".vscode" / "mcp.json").read_text())["servers"]
    assert servers["db"] == {"type": "http", "url": "x"}
    assert servers["Bookshop"] == {"type": "stdio", "command": UV, "args": _expected_args(str(BOOKSHOP))}


@pytest.mark.parametrize(("target", "file"), [("cursor", ".cursor/mcp.json"), ("claude-code", ".mcp.json")])
def test_target_cursor_and_claude_code_write_mcp_servers_in_the_project(home: Path, tmp_path: Path,
                                                                        target: str, file: str) -> None:
    out = _install(home, str(BOOKSHOP), "--target", target, "-n", "books", cwd=tmp_path)
    assert out.returncode == 0, out.stderr  # type: ignore[attr-defined]
    config = json.loads((tmp_path / file).read_text())
    assert config == {"mcpServers": {"books": {"command": UV, "args": _expected_args(str(BOOKSHOP))}}}


def test_target_mcp_json_prints_a_generic_config_and_writes_nothing(home: Path, tmp_path: Path) -> None:
    out = _install(home, str(BOOKSHOP), "--target", "mcp-json", "-v", "A=1", cwd=tmp_path)
    assert out.returncode == 0, out.stderr  # type: ignore[attr-defined]
    assert json.loads(out.stdout) == {"mcpServers": {"Bookshop": {  # type: ignore[attr-defined]
        "command": UV, "args": _expected_args(str(BOOKSHOP)), "env": {"A": "1"}}}}
    assert list(tmp_path.iterdir()) == [home]


def test_a_malformed_env_var_is_a_usage_error(home: Path) -> None:
    out = _install(home, str(BOOKSHOP), "--target", "mcp-json", "-v", "NOEQUALS")
    assert out.returncode == 2  # type: ignore[attr-defined]
    assert out.stderr.strip() == "mcp: --env-var expects KEY=VALUE, got 'NOEQUALS'"  # type: ignore[attr-defined]


def test_mcp_cli_claude_update_claude_config_merges_and_refuses_a_corrupt_file(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp.cli import claude

    monkeypatch.setenv("HOME", str(home))
    with pytest.raises(RuntimeError, match="Claude Desktop config directory not found"):
        claude.update_claude_config(str(BOOKSHOP), "shop")
    path = _claude_config(home)
    path.parent.mkdir(parents=True)
    assert claude.get_claude_config_path() == path.parent
    path.write_text(json.dumps({"mcpServers": {"shop": {"command": "x", "env": {"KEEP": "1"}}}}))
    assert claude.update_claude_config(str(BOOKSHOP), "shop", env_vars={"NEW": "2"}) is True
    entry = json.loads(path.read_text())["mcpServers"]["shop"]
    assert entry["env"] == {"KEEP": "1", "NEW": "2"}
    assert entry["args"] == _expected_args(str(BOOKSHOP))
    path.write_text("{not json")
    assert claude.update_claude_config(str(BOOKSHOP), "shop") is False
    assert path.read_text() == "{not json"
