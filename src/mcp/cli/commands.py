"""The `mcp` command's subcommands and options (click). Needs the `cli` extra (click, rich);
`mcp run` and `mcp version` also work without it (see `mcp.cli.main`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from mcp.cli.loading import CLIError

SPEC_HELP = "FILE[:OBJECT]: a Python file and, optionally, the name of its server object (default: mcp, server or app)."
TARGET_HELP = ("TARGET is a server file (FILE[:OBJECT], run in this process), an http(s):// URL "
               "(Streamable HTTP), or -- COMMAND ARGS... at the end (a stdio server to start).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
def app(debug: bool) -> None:
    """MCP development tools: run, inspect, install and talk to MCP servers."""


# -- the official commands ----------------------------------------------------------------------


@app.command()
def version() -> None:
    """Show the MCP version."""
    from mcp.cli import version_text

    click.echo(version_text())


@app.command(epilog=SPEC_HELP)
@click.argument("file_spec", metavar="FILE[:OBJECT]")
@click.option("-t", "--transport", type=click.Choice(["stdio", "sse", "streamable-http"]), default=None,
              help="Transport to serve on (default: $MCP_TRANSPORT, else stdio).")
@click.option("--host", default=None, help="HTTP: address to listen on (default: $MCP_HOST, else 127.0.0.1).")
@click.option("--port", type=click.IntRange(0, 65535), default=None, help="HTTP: port (default: $MCP_PORT, else 8000).")
@click.option("--path", default=None, help="HTTP: endpoint path (default: $MCP_PATH, else /mcp, or /sse for sse).")
@click.option("--stateless", is_flag=True, help="Streamable HTTP: no sessions (default: $MCP_STATELESS_HTTP).")
@click.option("--json-response", is_flag=True, help="Streamable HTTP: answer with JSON, not SSE (default: $MCP_JSON_RESPONSE).")
@click.option("--reload", is_flag=True, help="Restart the server when its files change, keeping the host's connection.")
def run(file_spec: str, transport: str | None, host: str | None, port: int | None, path: str | None,
        stateless: bool, json_response: bool, reload: bool) -> None:
    """Run an MCP server (imports the file and calls its server's run()).

    Arguments win over the MCP_* environment variables, which win over the server's defaults.
    With --reload, a supervisor restarts the server when FILE or a .py file beside it changes;
    over stdio it keeps the host's connection, replays the handshake and tells the host which
    lists changed.
    """
    from mcp.cli.serve import RunOptions, run_server

    run_server(file_spec, RunOptions(transport, host, port, path, stateless, json_response, reload))


@app.command("stand-ins", add_help_option=False,
             context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.pass_context
def stand_ins(ctx: click.Context) -> None:
    """Install the `mcp` and `mcp-types` stand-ins (metadata only, pinned) for libraries built on mcp."""
    from mcp.stand_ins import main as stand_ins_main

    raise SystemExit(stand_ins_main(list(ctx.args), prog="mcp stand-ins"))


_with_option = click.option("--with", "with_packages", multiple=True, metavar="PKG",
                            help="Extra package for the server's environment (repeatable).")
_editable_option = click.option("-e", "--with-editable", type=click.Path(exists=True, file_okay=False, resolve_path=True,
                                path_type=Path), default=None, help="Project folder to install in editable mode.")
_env_var_option = click.option("-v", "--env-var", "env_vars", multiple=True, metavar="KEY=VALUE",
                               help="Environment variable for the server (repeatable).")


@app.command(epilog=SPEC_HELP)
@click.argument("file_spec", metavar="FILE[:OBJECT]")
@_editable_option
@_with_option
@_env_var_option
@click.option("--ui-port", type=int, default=None, help="Port of the Inspector's web UI (default 6274).")
@click.option("--proxy-port", type=int, default=None, help="Port of the Inspector's proxy (default 6277).")
@click.option("--no-browser", is_flag=True, help="Do not open a browser.")
def dev(file_spec: str, with_editable: Path | None, with_packages: tuple[str, ...], env_vars: tuple[str, ...],
        ui_port: int | None, proxy_port: int | None, no_browser: bool) -> None:
    """Run an MCP server under the MCP Inspector (needs Node.js; uses npx)."""
    from mcp.cli.dev import dev as run_dev
    from mcp.cli.target import parse_pairs

    code = run_dev(file_spec, with_packages=with_packages, with_editable=with_editable,
                   env=parse_pairs(env_vars, "=", "--env-var"), ui_port=ui_port, proxy_port=proxy_port,
                   open_browser=not no_browser)
    raise SystemExit(code)


@app.command(epilog=SPEC_HELP)
@click.argument("file_spec", metavar="FILE[:OBJECT]")
@click.option("-n", "--name", "server_name", default=None, help="Name of the entry (default: the server's name).")
@_editable_option
@_with_option
@_env_var_option
@click.option("-f", "--env-file", type=click.Path(exists=True, dir_okay=False, resolve_path=True, path_type=Path),
              default=None, help="Load environment variables from a .env file.")
@click.option("--target", type=click.Choice(["claude-desktop", "claude-code", "cursor", "vscode", "mcp-json"]),
              default="claude-desktop", show_default=True,
              help="Host to install for; mcp-json prints a generic mcp.json entry to stdout.")
@click.option("--project", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              help="Project folder for claude-code/cursor/vscode (default: the current folder).")
def install(file_spec: str, server_name: str | None, with_editable: Path | None, with_packages: tuple[str, ...],
            env_vars: tuple[str, ...], env_file: Path | None, target: str, project: Path) -> None:
    """Install an MCP server in Claude Desktop (or another host with --target).

    Existing config is merged, never replaced; an entry's environment variables are kept and
    only updated when new values are given.
    """
    from mcp.cli.install import install as run_install
    from mcp.cli.target import parse_pairs

    message = run_install(file_spec, name=server_name, target=target, project=project.resolve(),
                          with_packages=with_packages, with_editable=with_editable,
                          env_vars=parse_pairs(env_vars, "=", "--env-var"), env_file=env_file)
    if message:
        click.echo(f"mcp: {message}", err=True)


# -- talking to any server -----------------------------------------------------------------------


def _talk_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The options every client command takes."""
    for option in reversed([
        click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (for scripts)."),
        click.option("--no-input", is_flag=True, help="Decline the server's questions instead of asking."),
        click.option("--timeout", type=float, default=60.0, show_default=True,
                     help="Seconds to wait for each answer."),
        click.option("--log-level", type=click.Choice(["debug", "info", "notice", "warning", "error", "critical",
                                                        "alert", "emergency"]),
                     default=None, help="Ask the server to send logs from this level (shown on stderr)."),
        click.option("--mode", default="auto", show_default=True, metavar="auto|legacy|VERSION",
                     help="Protocol era: auto-negotiate, legacy (handshake, 2025-11-25 and earlier) or a version."),
        click.option("--env", "env", multiple=True, metavar="KEY=VALUE",
                     help="Environment variable for a file or command target (repeatable)."),
        click.option("-H", "--header", "headers", multiple=True, metavar="'NAME: VALUE'",
                     help="HTTP header for a URL target (repeatable)."),
    ]):
        function = option(function)
    return function


def _target_and_rest(args: tuple[str, ...], *, needs: int, usage: str) -> tuple[Any, list[str]]:
    """Split positionals into the TARGET and the rest; a `--` command (see `main`) is the target."""
    from mcp.cli.target import parse_target

    ctx = click.get_current_context()
    root_obj: dict[str, Any] = ctx.find_root().obj or {}
    command: list[str] | None = root_obj.get("command")
    params = ctx.params
    first: str | None = None
    rest = list(args)
    if not command:
        first = rest.pop(0) if rest else None
    target = parse_target(first, command, env=params.get("env", ()), headers=params.get("headers", ()))
    if len(rest) < needs:
        raise CLIError(f"usage: mcp {ctx.info_name} {usage}", 2)
    return target, rest


def _options(params: dict[str, Any]) -> Any:
    from mcp.cli.talk import TalkOptions

    return TalkOptions(json=params["as_json"], no_input=params["no_input"], timeout=params["timeout"],
                       log_level=params["log_level"], mode=params["mode"])


@app.command(epilog=TARGET_HELP)
@click.argument("args", nargs=-1, metavar="TARGET")
@_talk_options
def tools(args: tuple[str, ...], **params: Any) -> None:
    """List a server's tools."""
    from mcp.cli.talk import list_tools

    target, _ = _target_and_rest(args, needs=0, usage="TARGET")
    raise SystemExit(list_tools(target, _options(params)))


@app.command(epilog=TARGET_HELP)
@click.argument("args", nargs=-1, metavar="TARGET")
@_talk_options
def resources(args: tuple[str, ...], **params: Any) -> None:
    """List a server's resources and resource templates."""
    from mcp.cli.talk import list_resources

    target, _ = _target_and_rest(args, needs=0, usage="TARGET")
    raise SystemExit(list_resources(target, _options(params)))


@app.command(epilog=TARGET_HELP)
@click.argument("args", nargs=-1, metavar="TARGET")
@_talk_options
def prompts(args: tuple[str, ...], **params: Any) -> None:
    """List a server's prompts."""
    from mcp.cli.talk import list_prompts

    target, _ = _target_and_rest(args, needs=0, usage="TARGET")
    raise SystemExit(list_prompts(target, _options(params)))


@app.command(epilog="Values are parsed as JSON where they parse (n=3, ok=true, tags='[\"a\"]'), else kept as "
                    "text; a property the tool declares as a string always stays text. " + TARGET_HELP)
@click.argument("args", nargs=-1, metavar="TARGET TOOL [KEY=VALUE | JSON-OBJECT]...")
@click.option("-a", "--arguments", "whole", default=None, metavar="JSON",
              help="The whole argument object as JSON (KEY=VALUE items override its keys).")
@_talk_options
def call(args: tuple[str, ...], whole: str | None, **params: Any) -> None:
    """Call a tool and print its result (exit 1 if the tool reports an error)."""
    from mcp.cli.talk import call_tool

    target, rest = _target_and_rest(args, needs=1, usage="TARGET TOOL [KEY=VALUE]...")
    raise SystemExit(call_tool(target, _options(params), rest[0], rest[1:], whole))


@app.command(epilog=TARGET_HELP)
@click.argument("args", nargs=-1, metavar="TARGET URI")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the contents (decoded, for binary) to this file.")
@_talk_options
def read(args: tuple[str, ...], output: Path | None, **params: Any) -> None:
    """Read a resource and print its contents."""
    from mcp.cli.talk import read_resource

    target, rest = _target_and_rest(args, needs=1, usage="TARGET URI")
    if len(rest) > 1:
        raise CLIError(f"read takes one URI, got {len(rest)}", 2)
    raise SystemExit(read_resource(target, _options(params), rest[0], output))


@app.command("get-prompt", epilog=TARGET_HELP)
@click.argument("args", nargs=-1, metavar="TARGET NAME [KEY=VALUE]...")
@_talk_options
def get_prompt(args: tuple[str, ...], **params: Any) -> None:
    """Render a prompt with its arguments and print its messages."""
    from mcp.cli.talk import get_prompt as render_prompt

    target, rest = _target_and_rest(args, needs=1, usage="TARGET NAME [KEY=VALUE]...")
    raise SystemExit(render_prompt(target, _options(params), rest[0], rest[1:]))


@app.command(epilog="Clients: copilot-cli, codex, gemini, claude, cursor, kimi (the default set), and "
                    "openai-strict (only when named: it applies where a consumer turns strict mode on). "
                    + TARGET_HELP)
@click.argument("args", nargs=-1, metavar="TARGET")
@click.option("-c", "--client", "clients", multiple=True, metavar="NAME",
              help="Check for this client (repeatable; default: every client but openai-strict).")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON (for CI).")
@click.option("--timeout", type=float, default=60.0, show_default=True, help="Seconds to wait for each answer.")
@click.option("--mode", default="auto", show_default=True, metavar="auto|legacy|VERSION",
              help="Protocol era: auto-negotiate, legacy (handshake, 2025-11-25 and earlier) or a version.")
@click.option("--env", "env", multiple=True, metavar="KEY=VALUE",
              help="Environment variable for a file or command target (repeatable).")
@click.option("-H", "--header", "headers", multiple=True, metavar="'NAME: VALUE'",
              help="HTTP header for a URL target (repeatable).")
def check(args: tuple[str, ...], clients: tuple[str, ...], as_json: bool, timeout: float, mode: str,
          **_: Any) -> None:
    """Report each tool schema feature that a named client is known to reject.

    Each finding names the client, the rule, where that is known from (an issue or a documented
    limit) and the fix. Exit 1 on any finding, 0 when clean.
    """
    from mcp.cli.check import check_target
    from mcp.cli.talk import TalkOptions

    target, _rest = _target_and_rest(args, needs=0, usage="TARGET")
    if _rest:
        raise CLIError(f"check takes one TARGET, got {len(args)} arguments", 2)
    raise SystemExit(check_target(target, TalkOptions(json=as_json, no_input=True, timeout=timeout, mode=mode),
                                  clients))
