"""The `mcp` command: `mcp run FILE[:OBJECT] [--transport ...]` and `mcp version`."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

_DEFAULT_OBJECTS = ("mcp", "server", "app")


def load_server(spec: str) -> Any:
    """Import FILE and return OBJECT from it (or the first of mcp/server/app that exists)."""
    path_part, _, object_name = spec.partition(":") if not _is_windows_drive(spec) else (spec, "", "")
    path = Path(path_part).resolve()
    if not path.is_file():
        raise SystemExit(f"mcp: no such file: {path_part}")
    sys.path.insert(0, str(path.parent))
    module_spec = importlib.util.spec_from_file_location(path.stem, path)
    if module_spec is None or module_spec.loader is None:
        raise SystemExit(f"mcp: cannot import {path_part}")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[path.stem] = module
    module_spec.loader.exec_module(module)
    names = (object_name,) if object_name else _DEFAULT_OBJECTS
    for name in names:
        server = getattr(module, name, None)
        if server is not None:
            return server
    wanted = object_name or " / ".join(_DEFAULT_OBJECTS)
    raise SystemExit(f"mcp: {path_part} defines no server object named {wanted}")


def _is_windows_drive(spec: str) -> bool:
    return len(spec) > 2 and spec[1] == ":" and spec[2] in "\\/"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcpkit")
    except PackageNotFoundError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mcp", description="Model Context Protocol tools (mcpkit)")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run a server file")
    run.add_argument("file_spec", metavar="FILE[:OBJECT]")
    run.add_argument("-t", "--transport", choices=["stdio", "sse", "streamable-http"], default=None)
    commands.add_parser("version", help="print the installed version")
    args = parser.parse_args(argv)
    if args.command == "version":
        print(f"MCP version {_version()}")
        return 0
    server = load_server(args.file_spec)
    if args.transport is None:
        server.run()
    else:
        server.run(transport=args.transport)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
