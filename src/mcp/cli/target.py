"""What a client command talks to: a server file (run in this process, in memory), a stdio
command (`-- cmd args`, started as a child process) or an `http(s)://` URL (Streamable HTTP, or
the legacy HTTP+SSE transport when the path ends in `/sse`)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from mcp.cli.loading import CLIError, load_server


@dataclass
class Target:
    """A parsed TARGET: exactly one of `url`, `command` or `file_spec` is set."""

    url: str | None = None
    command: list[str] = field(default_factory=list[str])
    file_spec: str | None = None
    env: dict[str, str] = field(default_factory=dict[str, str])
    headers: dict[str, str] = field(default_factory=dict[str, str])

    def describe(self) -> str:
        if self.url is not None:
            return self.url
        if self.command:
            return " ".join(self.command)
        return str(self.file_spec)


def parse_target(first: str | None, command: Sequence[str] | None, *, env: Sequence[str] = (),
                 headers: Sequence[str] = ()) -> Target:
    """`command` (what followed `--`) wins; otherwise `first` is a URL or a server file spec."""
    target = Target(env=parse_pairs(env, "=", "--env"), headers=parse_pairs(headers, ":", "--header"))
    if command:
        target.command = list(command)
    elif first is None:
        raise CLIError("missing TARGET: give a server file, an http(s):// URL, or -- COMMAND ARGS", 2)
    elif first.startswith(("http://", "https://")):
        target.url = first
    else:
        target.file_spec = first
    if target.headers and target.url is None:
        raise CLIError("--header applies to an http(s):// target only", 2)
    return target


def parse_pairs(items: Sequence[str], sep: str, option: str) -> dict[str, str]:
    """`KEY=VALUE` (or `Name: value`) items as a dict; a malformed one is a usage error."""
    pairs: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition(sep)
        if not found or not key.strip():
            raise CLIError(f"{option} expects KEY{sep}VALUE, got {item!r}", 2)
        pairs[key.strip()] = value.strip()
    return pairs


@asynccontextmanager
async def open_target(target: Target) -> AsyncIterator[Any]:
    """What to hand `Client(...)`: the server object, `StdioServerParameters`, or an HTTP transport."""
    if target.file_spec is not None:
        if target.env:
            os.environ.update(target.env)
        yield load_server(target.file_spec)
    elif target.command:
        from mcp.client.stdio import StdioServerParameters

        yield StdioServerParameters(command=target.command[0], args=target.command[1:],
                                    env={**os.environ, **target.env})
    else:
        assert target.url is not None
        if target.url.split("?", 1)[0].rstrip("/").endswith("/sse"):
            from mcp.client.sse import sse_client

            # The legacy HTTP+SSE transport, as the Inspector also guesses it from the path.
            yield sse_client(target.url, headers=target.headers or None)
            return
        if not target.headers:
            yield target.url
            return
        import httpx

        from mcp.client.streamable_http import streamable_http_client

        async with httpx.AsyncClient(headers=target.headers, timeout=httpx.Timeout(30, read=None)) as http:
            yield streamable_http_client(target.url, http_client=http)
