"""`mcp install`: put a server's launch command into a host's config file.

Hosts (`--target`): Claude Desktop (the default, as officially: the platform's
`claude_desktop_config.json`, key `mcpServers`), Claude Code (the project's `.mcp.json`, key
`mcpServers`), Cursor (`.cursor/mcp.json`, key `mcpServers`), VS Code (`.vscode/mcp.json`, key
`servers`, each entry with a `type`), or `mcp-json`: the generic `{"mcpServers": ...}` printed to
stdout. A config is merged, never replaced: other servers and other keys stay, an entry's existing
`env` is kept and only overridden key by key; a file that is not valid JSON is reported and left
as it is.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from mcp.cli.loading import CLIError, load_server, resolve_file, split_spec

DISTRIBUTION = "mcpkit"
"""The distribution that provides the `mcp` package and command: what a launch command installs."""

TARGETS = ("claude-desktop", "claude-code", "cursor", "vscode", "mcp-json")


def mcp_requirement(package: str = DISTRIBUTION) -> str:
    """What a host's fresh environment installs to get the SDK the user has: `package` pinned to
    the running version (`mcpkit[cli]==0.1.0`); `package @ file:///...` when it was installed
    from a local folder or file (PEP 610 `direct_url.json`), whose version an index may not have;
    unpinned for a dev/local build without such a record, or no metadata at all."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        installed = distribution(DISTRIBUTION)
    except PackageNotFoundError:
        return package
    origin = _local_origin(installed.read_text("direct_url.json"))
    if origin is not None:
        return f"{package} @ {origin}"
    version = installed.version
    if ".dev" in version or "+" in version:
        return package
    return f"{package}=={version}"


def _local_origin(direct_url: str | None) -> str | None:
    if not direct_url:
        return None
    try:
        url = json.loads(direct_url).get("url")
    except (ValueError, AttributeError):
        return None
    return url if isinstance(url, str) and url.startswith("file://") else None


def get_uv_path() -> str:
    """The absolute path of `uv` (hosts start servers with a minimal PATH), else plain `uv`."""
    return shutil.which("uv") or "uv"


def claude_config_dir() -> Path | None:
    """Claude Desktop's config folder on this platform, if it exists (Claude creates it on first run)."""
    home = Path.home()
    if sys.platform == "win32":
        path = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming", "Claude")
    elif sys.platform == "darwin":
        path = home / "Library" / "Application Support" / "Claude"
    elif sys.platform.startswith("linux"):
        path = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config", "Claude")
    else:
        return None
    return path if path.is_dir() else None


@dataclass
class Launch:
    """How a host starts the server: `uv run --frozen --with mcpkit[cli]==V ... mcp run /abs/file`."""

    file_spec: str
    with_packages: Sequence[str] = ()
    with_editable: Path | None = None
    env: dict[str, str] = field(default_factory=dict[str, str])

    def command(self) -> str:
        return get_uv_path()

    def args(self) -> list[str]:
        args = ["run", "--frozen"]
        for package in sorted({mcp_requirement(f"{DISTRIBUTION}[cli]"), *(p for p in self.with_packages if p)}):
            args += ["--with", package]
        if self.with_editable is not None:
            args += ["--with-editable", str(self.with_editable)]
        return [*args, "mcp", "run", absolute_spec(self.file_spec)]


def absolute_spec(spec: str) -> str:
    path, obj = split_spec(spec)
    absolute = str(Path(path).expanduser().resolve())
    return f"{absolute}:{obj}" if obj else absolute


def config_path(target: str, project: Path) -> Path:
    """The file a target's entry goes in (`mcp-json` has none: it prints)."""
    if target == "claude-desktop":
        folder = claude_config_dir()
        if folder is None:
            raise CLIError("Claude app not found: Claude Desktop's config folder does not exist yet "
                           "(install Claude Desktop and start it once), or use --target")
        return folder / "claude_desktop_config.json"
    return project / {"claude-code": ".mcp.json", "cursor": ".cursor/mcp.json", "vscode": ".vscode/mcp.json"}[target]


def entry_for(target: str, launch: Launch, existing: dict[str, Any] | None) -> dict[str, Any]:
    """The host's entry for the server; an existing entry's env is kept, new values win."""
    entry: dict[str, Any] = {"type": "stdio"} if target == "vscode" else {}
    entry |= {"command": launch.command(), "args": launch.args()}
    old_env: Any = (existing or {}).get("env")
    env: dict[str, Any] = {**(cast("dict[str, Any]", old_env) if isinstance(old_env, dict) else {}), **launch.env}
    if env:
        entry["env"] = env
    return entry


def read_config(path: Path) -> dict[str, Any]:
    """A host config as a dict: `{}` when the file is missing or empty; a file that is not a JSON
    object is a `CLIError` (and is never overwritten)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not text.strip():
        return {}
    try:
        config = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CLIError(f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                       "fix or move it, nothing was changed") from exc
    if not isinstance(config, dict):
        raise CLIError(f"{path} holds a JSON {type(config).__name__}, not an object; nothing was changed")
    return config  # pyright: ignore[reportUnknownVariableType]


def write_config(path: Path, config: dict[str, Any]) -> None:
    """Replace `path` atomically (a crash never leaves half a config)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(config, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def merge_entry(target: str, path: Path, name: str, launch: Launch) -> dict[str, Any]:
    """Read `path`, set the server's entry under the target's key, write it back; the entry."""
    config = read_config(path)
    key = "servers" if target == "vscode" else "mcpServers"
    servers = config.setdefault(key, {})
    if not isinstance(servers, dict):
        raise CLIError(f"{path}: {key!r} is a JSON {type(servers).__name__}, not an object; nothing was changed")
    existing = servers.get(name)  # pyright: ignore[reportUnknownMemberType,reportUnknownVariableType]
    entry = entry_for(target, launch, existing if isinstance(existing, dict) else None)  # pyright: ignore[reportUnknownArgumentType]
    servers[name] = entry
    write_config(path, config)
    return entry


def parse_env_file(path: Path) -> dict[str, str]:
    """`KEY=VALUE` lines of a `.env` file (`export` prefixes, `#` comments and quotes allowed)."""
    env: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from exc
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").strip()
        key, found, value = line.partition("=")
        if not found or not key.strip():
            raise CLIError(f"{path}:{number}: expected KEY=VALUE, got {raw.strip()!r}")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        env[key.strip()] = value
    return env


def server_name_and_dependencies(spec: str) -> tuple[str, list[str]]:
    """The server's `name` and `dependencies`; the file's stem when it cannot be imported here
    for a missing module (the host's environment may have it)."""
    path, _ = resolve_file(spec)
    try:
        server = load_server(spec, require_mcpserver=True)
    except CLIError as exc:
        if isinstance(exc.__cause__, ImportError):
            return path.stem, []
        raise
    return str(server.name), list(getattr(server, "dependencies", None) or [])


def install(spec: str, *, name: str | None, target: str, project: Path, with_packages: Sequence[str],
            with_editable: Path | None, env_vars: dict[str, str], env_file: Path | None) -> str:
    """Install the server for `target`; what to tell the user (stdout gets the JSON for `mcp-json`)."""
    found_name, dependencies = server_name_and_dependencies(spec)
    env = {**(parse_env_file(env_file) if env_file is not None else {}), **env_vars}
    launch = Launch(spec, [*with_packages, *dependencies], with_editable, env)
    server_name = name or found_name
    if target == "mcp-json":
        print(json.dumps({"mcpServers": {server_name: entry_for(target, launch, None)}}, indent=2))
        return ""
    path = config_path(target, project)
    merge_entry(target, path, server_name, launch)
    note = "" if shutil.which("uv") else (" (uv is not on PATH, so the entry runs plain `uv`: install it from "
                                         "https://docs.astral.sh/uv/ before starting the host)")
    return f"installed {server_name!r} in {path}{note}"
