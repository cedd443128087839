"""Claude Desktop helpers at the official module path `mcp.cli.claude`; the implementation is
`mcp.cli.install` (the home of every host's config)."""

from __future__ import annotations

from pathlib import Path

from mcp.cli.install import Launch, claude_config_dir, get_uv_path, mcp_requirement, merge_entry
from mcp.cli.loading import CLIError

__all__ = ["get_claude_config_path", "get_uv_path", "mcp_requirement", "update_claude_config"]


def get_claude_config_path() -> Path | None:
    """Claude Desktop's config folder on this platform, or None when it does not exist."""
    return claude_config_dir()


def update_claude_config(file_spec: str, server_name: str, *, with_editable: Path | None = None,
                         with_packages: list[str] | None = None, env_vars: dict[str, str] | None = None) -> bool:
    """Add or update `server_name` in `claude_desktop_config.json`, keeping everything else (an
    existing entry's env too, new values winning). False when the config cannot be updated (e.g.
    it is not valid JSON: it is left untouched); RuntimeError when Claude's folder is missing."""
    folder = claude_config_dir()
    if folder is None:
        raise RuntimeError("Claude Desktop config directory not found. Please ensure Claude Desktop"
                           " is installed and has been run at least once to initialize its config.")
    launch = Launch(file_spec, with_packages or [], with_editable, dict(env_vars or {}))
    try:
        merge_entry("claude-desktop", folder / "claude_desktop_config.json", server_name, launch)
    except (CLIError, OSError):
        return False
    return True
