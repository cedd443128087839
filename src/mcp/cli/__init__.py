"""The `mcp` command. `mcp run FILE[:OBJECT]` and `mcp version` need nothing beyond the SDK; the
other commands (`dev`, `install`, `tools`, `resources`, `prompts`, `call`, `read`, `get-prompt`,
`check`) need the `cli` extra (`pip install "mcpkit[cli]"`: click and rich). `mcp stand-ins` (the `mcp`
and `mcp-types` stand-ins for libraries built on `mcp`, `mcp.stand_ins`) needs nothing either.

Errors a user can fix print as one line, `mcp: <what went wrong>`, on stderr with a non-zero exit;
`--debug` (anywhere before a `--`) shows the traceback too.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from typing import TYPE_CHECKING, Any

from mcp.cli.loading import CLIError, load_server

if TYPE_CHECKING:
    from click import Group

    app: Group

__all__ = ["app", "load_server", "main"]

_CLIENT_COMMANDS = frozenset({"tools", "resources", "prompts", "call", "read", "get-prompt", "check"})


def __getattr__(name: str) -> Any:
    # `mcp.cli.app` is the click group (the official module exposes its command group as `app`);
    # imported on first use so `mcp run` works without click installed.
    if name == "app":
        from mcp.cli.commands import app

        return app
    raise AttributeError(f"module 'mcp.cli' has no attribute {name!r}")


def version_text() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"MCP version {version('mcpkit')}"
    except PackageNotFoundError:
        return "MCP version unknown (package not installed)"


def _minimal(argv: list[str]) -> int:
    """`run` and `version` with argparse, for installs without the `cli` extra."""
    parser = argparse.ArgumentParser(prog="mcp", description="MCP development tools (install mcpkit[cli] for more)")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="Run an MCP server (imports the file and calls its server's run()).")
    run.add_argument("file_spec", metavar="FILE[:OBJECT]", help="a Python file, optionally with :OBJECT")
    run.add_argument("-t", "--transport", choices=["stdio", "sse", "streamable-http"], default=None,
                     help="transport to serve on (default: $MCP_TRANSPORT, else stdio)")
    run.add_argument("--host", default=None, help="HTTP: address to listen on (default: $MCP_HOST, else 127.0.0.1)")
    run.add_argument("--port", type=int, default=None, help="HTTP: port (default: $MCP_PORT, else 8000)")
    run.add_argument("--path", default=None, help="HTTP: endpoint path (default: $MCP_PATH, else /mcp)")
    run.add_argument("--stateless", action="store_true", help="Streamable HTTP: no sessions ($MCP_STATELESS_HTTP)")
    run.add_argument("--json-response", action="store_true",
                     help="Streamable HTTP: answer with JSON, not SSE ($MCP_JSON_RESPONSE)")
    run.add_argument("--reload", action="store_true", help="restart the server when its files change")
    commands.add_parser("version", help="Show the MCP version.")
    args = parser.parse_args(argv)
    if args.command == "version":
        print(version_text())
    else:
        from mcp.cli.serve import RunOptions, run_server

        run_server(args.file_spec, RunOptions(args.transport, args.host, args.port, args.path, args.stateless,
                                              args.json_response, args.reload))
    return 0


def _split_command(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """For a client command, what follows the first `--` is the stdio server command."""
    if "--" in argv and any(arg in _CLIENT_COMMANDS for arg in argv[: argv.index("--")]):
        at = argv.index("--")
        return argv[:at], argv[at + 1:]
    return argv, None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `mcp` console script; the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    args, command = _split_command(args)
    debug = "--debug" in args
    args = [arg for arg in args if arg != "--debug"]
    if args and args[0] == "stand-ins":
        from mcp.stand_ins import main as stand_ins

        return stand_ins(args[1:], prog="mcp stand-ins")
    try:
        try:
            import click  # noqa: F401  # pyright: ignore[reportUnusedImport]
            import rich  # noqa: F401  # pyright: ignore[reportUnusedImport]
        except ImportError as missing:
            if args and args[0] in ("run", "version", "-h", "--help"):
                return _minimal(args)
            raise CLIError(f"this command needs the cli extra ({missing.name} is missing): "
                           'pip install "mcpkit[cli]"') from missing
        return _run_click(args, command)
    except CLIError as exc:
        if debug:
            traceback.print_exception(exc.__cause__ or exc)
        print(f"mcp: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("mcp: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if debug:
            raise
        text = str(exc).strip().splitlines()
        print(f"mcp: unexpected error: {type(exc).__name__}{': ' + text[0] if text else ''} "
              "(run with --debug for the traceback)", file=sys.stderr)
        return 1


def _run_click(args: list[str], command: list[str] | None) -> int:
    import click

    from mcp.cli.commands import app

    try:
        app.main(args, prog_name="mcp", standalone_mode=False, obj={"command": command})
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as usage:
        usage.show()
        return usage.exit_code
    except click.exceptions.Abort:
        print("mcp: aborted", file=sys.stderr)
        return 1
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
