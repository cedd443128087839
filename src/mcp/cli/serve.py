"""`mcp run`'s options: the transport and the HTTP settings (`--host`, `--port`, `--path`,
`--stateless`, `--json-response`), and `--reload`.

Arguments win over the `MCP_*` environment (see `mcp.server.mcpserver.run_environment`), which
wins over the server's defaults: the options given here are passed to `run()` explicitly, and an
explicit `--transport` is also written to `MCP_TRANSPORT` in this process so that `run()` keeps it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from mcp.cli.loading import CLIError, load_server, resolve_file
from mcp.server.mcpserver.run_environment import env_transport


@dataclass(frozen=True)
class RunOptions:
    """What `mcp run` was given (None: not given)."""

    transport: str | None = None
    host: str | None = None
    port: int | None = None
    path: str | None = None
    stateless: bool = False
    json_response: bool = False
    reload: bool = False

    def http_options(self, transport: str) -> dict[str, object]:
        """The `run()` keyword arguments for `transport`; CLIError for an option it does not take."""
        given = {"--host": self.host, "--port": self.port, "--path": self.path,
                 "--stateless": self.stateless or None, "--json-response": self.json_response or None}
        named = [name for name, value in given.items() if value is not None]
        if transport == "stdio":
            if named:
                raise CLIError(f"{', '.join(named)} only apply to the HTTP transports (add --transport streamable-http)", 2)
            return {}
        if transport == "sse" and (self.stateless or self.json_response):
            raise CLIError("--stateless and --json-response only apply to --transport streamable-http", 2)
        options: dict[str, object] = {}
        if self.host is not None:
            options["host"] = self.host
        if self.port is not None:
            options["port"] = self.port
        if self.path is not None:
            options["streamable_http_path" if transport == "streamable-http" else "sse_path"] = self.path
        if self.stateless:
            options["stateless_http"] = True
        if self.json_response:
            options["json_response"] = True
        return options

    def child_args(self) -> list[str]:
        """The HTTP options as `mcp run` arguments (for the child `--reload` supervises)."""
        args: list[str] = []
        for flag, value in (("--host", self.host), ("--port", self.port), ("--path", self.path)):
            if value is not None:
                args += [flag, str(value)]
        return args + ["--stateless"] * self.stateless + ["--json-response"] * self.json_response


def run_server(file_spec: str, options: RunOptions) -> None:
    """`mcp run`: import the file's MCPServer and serve it (under a supervisor with --reload)."""
    try:
        transport = options.transport or env_transport(os.environ) or "stdio"
    except ValueError as bad:
        raise CLIError(str(bad), 2) from None
    http = options.http_options(transport)
    if options.reload:
        from mcp.cli.reload import run_with_reload

        file, _ = resolve_file(file_spec)
        raise SystemExit(run_with_reload(file, file_spec, transport, options.child_args()))
    server = load_server(file_spec, require_mcpserver=True)
    if options.transport is not None:
        os.environ["MCP_TRANSPORT"] = options.transport
    if options.transport is None and not http:
        server.run()
    else:
        server.run(transport=transport, **http)  # pyright: ignore[reportArgumentType]
