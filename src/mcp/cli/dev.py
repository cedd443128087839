"""`mcp dev`: run a server file under the MCP Inspector (`npx @modelcontextprotocol/inspector`),
which starts the server over stdio and serves its web UI on localhost."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from mcp.cli.loading import CLIError, load_server, resolve_file

INSPECTOR = "@modelcontextprotocol/inspector"
INSPECTOR_NODE = (22, 19)
"""The oldest Node.js the current Inspector release declares (`engines.node >= 22.19.0`)."""

NODE_HINT = ("install Node.js {need} or newer from https://nodejs.org (or with your package manager, "
             "nvm or fnm) and make sure `node` and `npx` are on PATH")
DEFAULT_UI_PORT = 6274


def find_npx() -> str | None:
    """The `npx` on PATH (`npx.cmd` on Windows)."""
    names = ("npx.cmd", "npx.exe", "npx") if sys.platform == "win32" else ("npx",)
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


def node_version(npx: str) -> tuple[int, int] | None:
    """(major, minor) of the `node` that runs `npx` (the first on PATH, else the one beside it);
    None when it cannot be told."""
    node = shutil.which("node") or shutil.which("node", path=str(Path(npx).parent))
    if node is None:
        return None
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"v?(\d+)\.(\d+)", out.strip())
    return (int(match.group(1)), int(match.group(2))) if match else None


def check_node() -> str:
    """The npx to use, or a `CLIError` saying what Node the Inspector needs and how to get it."""
    need = ".".join(map(str, INSPECTOR_NODE))
    npx = find_npx()
    if npx is None:
        raise CLIError(f"npx not found: mcp dev runs the MCP Inspector with Node.js; {NODE_HINT.format(need=need)}")
    found = node_version(npx)
    if found is not None and found < INSPECTOR_NODE and not os.environ.get("MCP_DEV_SKIP_NODE_CHECK"):
        raise CLIError(f"the MCP Inspector needs Node.js {need} or newer, found {found[0]}.{found[1]}; "
                       + NODE_HINT.format(need=need))
    return npx


def server_command(spec: str, with_packages: Sequence[str], with_editable: Path | None) -> list[str]:
    """How the Inspector starts the server: this interpreter's `mcp run`, or `uv run` layered on
    this interpreter when extra packages (`--with`, `-e`, the server's dependencies) are asked for."""
    path, obj = resolve_file(spec)
    absolute = f"{path}:{obj}" if obj else str(path)
    run = [sys.executable, "-m", "mcp.cli", "run", absolute]
    if not with_packages and with_editable is None:
        return run
    uv = shutil.which("uv")
    if uv is None:
        raise CLIError("--with / --with-editable (or the server's dependencies) need uv to install them: "
                       "https://docs.astral.sh/uv/ (or install the packages yourself and drop the option)")
    command = [uv, "run", "--no-project", "--python", sys.executable]
    for package in sorted(set(with_packages)):
        command += ["--with", package]
    if with_editable is not None:
        command += ["--with-editable", str(with_editable)]
    return [*command, *run]


def inspector_command(npx: str, server: Sequence[str], env: dict[str, str]) -> list[str]:
    command = [npx, "--yes", INSPECTOR]
    for key, value in env.items():
        command += ["-e", f"{key}={value}"]
    return [*command, *server]


def dev(spec: str, *, with_packages: Sequence[str], with_editable: Path | None, env: dict[str, str],
        ui_port: int | None, proxy_port: int | None, open_browser: bool) -> int:
    """Start the Inspector on the server and wait for it; its exit status."""
    server = load_server(spec, require_mcpserver=True)
    dependencies: list[str] = list(getattr(server, "dependencies", None) or [])
    packages = [*with_packages, *dependencies]
    command = inspector_command(check_node(), server_command(spec, packages, with_editable), env)
    child_env = dict(os.environ)
    if ui_port is not None:
        child_env["CLIENT_PORT"] = str(ui_port)
    if proxy_port is not None:
        child_env["SERVER_PORT"] = str(proxy_port)
    if not open_browser:
        child_env["MCP_AUTO_OPEN_ENABLED"] = "false"
    port = ui_port or int(child_env.get("CLIENT_PORT") or DEFAULT_UI_PORT)
    print(f"mcp dev: starting the MCP Inspector on {server.name} at http://localhost:{port} "
          "(open the URL with the session token the Inspector prints below)", file=sys.stderr, flush=True)
    try:
        return subprocess.call(command, env=child_env)
    except FileNotFoundError as exc:
        raise CLIError(f"cannot start {command[0]}: {exc.strerror or exc}") from exc
    except KeyboardInterrupt:
        return 130
