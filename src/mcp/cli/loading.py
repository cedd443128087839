"""Find the server a `FILE[:OBJECT]` spec names: import the file and pick the object.

Every failure (missing file, syntax error, an import that raises, no such object, an object that
is not a server) becomes a `CLIError` whose one-line message says what went wrong and where, so
the command prints it instead of a traceback.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path
from typing import Any

DEFAULT_OBJECTS = ("mcp", "server", "app")
"""The module-level names tried, in order, when the spec names no object (as officially)."""


class CLIError(Exception):
    """A user-facing failure: the command prints `mcp: <message>` on stderr and exits non-zero."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def split_spec(spec: str) -> tuple[str, str | None]:
    """`"server.py:app"` -> `("server.py", "app")`; a Windows drive (`C:\\x.py`) is not an object."""
    head = 2 if len(spec) > 2 and spec[1] == ":" and spec[2] in "\\/" else 0
    if ":" in spec[head:]:
        path, _, obj = spec.rpartition(":")
        return path, obj or None
    return spec, None


def resolve_file(spec: str) -> tuple[Path, str | None]:
    """The absolute path of the spec's file (which must exist) and the object it names."""
    path_part, obj = split_spec(spec)
    path = Path(path_part).expanduser().resolve()
    if not path.exists():
        raise CLIError(f"no such file: {path_part}")
    if not path.is_file():
        raise CLIError(f"not a file: {path_part}")
    return path, obj


def import_file(path: Path) -> Any:
    """Import `path` as a module (its folder first on `sys.path`, so its own imports resolve)."""
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module_spec = importlib.util.spec_from_file_location(path.stem, path)
    if module_spec is None or module_spec.loader is None:
        raise CLIError(f"cannot import {path} (not a Python file?)")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[path.stem] = module
    try:
        module_spec.loader.exec_module(module)
    except SyntaxError as exc:
        where = f"{exc.filename or path}:{exc.lineno}" if exc.lineno else str(path)
        raise CLIError(f"syntax error in {where}: {exc.msg}") from exc
    except SystemExit as exc:
        raise CLIError(f"importing {path} called sys.exit({exc.code!r})") from exc
    except Exception as exc:
        raise CLIError(f"importing {path} failed{_where(exc, path)}: {type(exc).__name__}: {exc}") from exc
    return module


def _where(exc: BaseException, path: Path) -> str:
    """` at line N` of the last traceback frame inside the user's file, if any."""
    lines = [frame.lineno for frame in traceback.extract_tb(exc.__traceback__) if Path(frame.filename) == path]
    return f" at line {lines[-1]}" if lines else ""


def is_server(value: Any) -> bool:
    """An `MCPServer` or a low-level `Server`: what `Client(...)` connects to in memory."""
    from mcp.server import MCPServer
    from mcp.server.lowlevel.server import Server

    return isinstance(value, MCPServer | Server)


def load_server(spec: str, *, require_mcpserver: bool = False) -> Any:
    """Import the spec's file and return its server object: the named one, or the first of
    `mcp`/`server`/`app` that is a server. `require_mcpserver` (for `run`, `dev`, `install`, which
    call `.run()`) refuses a low-level `Server`."""
    path, obj = resolve_file(spec)
    module = import_file(path)
    names = (obj,) if obj else DEFAULT_OBJECTS
    rejected: list[str] = []
    for name in names:
        if not hasattr(module, name):
            continue
        value = getattr(module, name)
        if _acceptable(value, require_mcpserver):
            return value
        rejected.append(f"{path.name}:{name} is a {type(value).__name__}, not {_wanted(require_mcpserver)}")
    if rejected:
        lowlevel = require_mcpserver and any(is_server(getattr(module, n, None)) for n in names)
        raise CLIError(rejected[0] + (" (this command serves an MCPServer only)" if lowlevel else ""))
    if obj:
        raise CLIError(f"{path.name} defines no server object named {obj}")
    raise CLIError(f"{path.name} defines no server object named {' / '.join(DEFAULT_OBJECTS)} "
                   f"(name it with {path.name}:OBJECT)")


def _acceptable(value: Any, require_mcpserver: bool) -> bool:
    if require_mcpserver:
        from mcp.server import MCPServer

        return isinstance(value, MCPServer)
    return is_server(value)


def _wanted(require_mcpserver: bool) -> str:
    return "an MCPServer" if require_mcpserver else "an MCPServer or a low-level Server"
