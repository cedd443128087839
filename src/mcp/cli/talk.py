"""The client commands (`tools`, `resources`, `prompts`, `call`, `read`, `get-prompt`): connect
to a target with `Client`, do one thing, print it. A tool error, a protocol error or a target that
cannot be reached becomes a `CLIError` (one line on stderr, non-zero exit)."""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from rich.console import Console

from mcp.cli import render
from mcp.cli.interact import Interaction
from mcp.cli.loading import CLIError
from mcp.cli.target import Target, open_target


@dataclass
class TalkOptions:
    """The options every client command shares."""

    json: bool = False
    no_input: bool = False
    timeout: float | None = 60.0
    log_level: str | None = None
    mode: str = "auto"


Action = Callable[[Any, Interaction, Console], Awaitable[int]]


def talk(target: Target, options: TalkOptions, what: str, action: Action) -> int:
    """Run `action(client, interaction, stdout_console)` against `target`; its exit status."""
    import anyio

    return anyio.run(_talk, target, options, what, action)


async def _talk(target: Target, options: TalkOptions, what: str, action: Action) -> int:
    from mcp.client import Client
    from mcp.shared.exceptions import MCPError

    out = Console(soft_wrap=True)
    interaction = Interaction(Console(stderr=True), no_input=options.no_input)
    connected = False
    try:
        async with open_target(target) as server:
            try:
                client = Client(server, mode=options.mode, read_timeout_seconds=options.timeout,
                                log_level=cast("Any", options.log_level), logging_callback=interaction.on_log,
                                elicitation_callback=interaction.on_elicit)
            except ValueError as exc:
                raise CLIError(f"--mode: {exc}", 2) from exc
            async with client:
                connected = True
                try:
                    return await action(client, interaction, out)
                finally:
                    interaction.finish()
    except CLIError:
        raise
    except MCPError as exc:
        if connected:
            raise CLIError(f"{what} failed: {_one_line(exc.message)} (error {exc.code})") from exc
        raise CLIError(f"cannot connect to {target.describe()}: {_one_line(exc.message)} (error {exc.code}; "
                       "is it an MCP server?)") from exc
    except Exception as exc:
        if connected:
            raise CLIError(f"{what} failed: {_describe(exc)}") from exc
        raise CLIError(_connect_failure(target, exc)) from exc


def _one_line(text: str, limit: int = 400) -> str:
    """A possibly multi-line message (a validation error, an HTML error page) folded onto one
    line, cut at `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _describe(exc: BaseException) -> str:
    text = _one_line(str(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _connect_failure(target: Target, exc: BaseException) -> str:
    if target.command and isinstance(exc, FileNotFoundError | PermissionError):
        return f"cannot start {target.command[0]!r}: {exc.strerror or exc}"
    if isinstance(exc, TimeoutError):
        return f"{target.describe()} did not answer initialize in time (is it an MCP server?)"
    return f"cannot connect to {target.describe()}: {_describe(exc)} (is it an MCP server?)"


# -- listing ------------------------------------------------------------------------------------


async def all_pages(fetch: Callable[..., Awaitable[Any]], field: str) -> list[Any]:
    """Every page of a list request."""
    items: list[Any] = []
    cursor: str | None = None
    while True:
        page = await fetch(cursor=cursor)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            return items


def list_tools(target: Target, options: TalkOptions) -> int:
    async def action(client: Any, _: Interaction, out: Console) -> int:
        tools = await all_pages(client.list_tools, "tools")
        if options.json:
            render.print_json(out, {"tools": [render.to_json(t) for t in tools]})
        else:
            out.print(render.tools_table(tools))
        return 0

    return talk(target, options, "tools/list", action)


def list_resources(target: Target, options: TalkOptions) -> int:
    async def action(client: Any, _: Interaction, out: Console) -> int:
        resources = await all_pages(client.list_resources, "resources")
        templates = await all_pages(client.list_resource_templates, "resource_templates")
        if options.json:
            render.print_json(out, {"resources": [render.to_json(r) for r in resources],
                                    "resourceTemplates": [render.to_json(t) for t in templates]})
        else:
            for table in render.resources_tables(resources, templates):
                out.print(table)
        return 0

    return talk(target, options, "resources/list", action)


def list_prompts(target: Target, options: TalkOptions) -> int:
    async def action(client: Any, _: Interaction, out: Console) -> int:
        prompts = await all_pages(client.list_prompts, "prompts")
        if options.json:
            render.print_json(out, {"prompts": [render.to_json(p) for p in prompts]})
        else:
            out.print(render.prompts_table(prompts))
        return 0

    return talk(target, options, "prompts/list", action)


# -- calling ------------------------------------------------------------------------------------


def parse_arguments(items: Sequence[str], whole: str | None, schema: dict[str, Any] | None) -> dict[str, Any]:
    """`key=value` items (values JSON where they parse, kept as text where the schema says the
    property is a string) and/or a whole JSON object (`--arguments` or a lone `{...}` item)."""
    arguments: dict[str, Any] = {}
    objects = [whole] if whole is not None else []
    properties: dict[str, Any] = (schema or {}).get("properties") or {}
    for item in items:
        if item.lstrip().startswith("{"):
            objects.append(item)
            continue
        key, found, raw = item.partition("=")
        if not found or not key:
            raise CLIError(f"expected KEY=VALUE or a JSON object, got {item!r}", 2)
        arguments[key] = _value(raw, properties.get(key))
    for text in objects:
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CLIError(f"the argument object is not valid JSON: {exc.msg} at column {exc.colno}", 2) from exc
        if not isinstance(parsed, dict):
            raise CLIError("the argument object must be a JSON object ({...})", 2)
        arguments = {**parsed, **arguments}
    return arguments


def _value(raw: str, prop: Any) -> Any:
    if isinstance(prop, dict) and prop.get("type") == "string":  # pyright: ignore[reportUnknownMemberType]
        return raw
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def call_tool(target: Target, options: TalkOptions, name: str, items: Sequence[str], whole: str | None) -> int:
    async def action(client: Any, interaction: Interaction, out: Console) -> int:
        tools = {tool.name: tool for tool in await all_pages(client.list_tools, "tools")}
        tool = tools.get(name)
        if tool is None:
            known = ", ".join(sorted(tools)) or "none"
            raise CLIError(f"{target.describe()} has no tool named {name!r} (tools: {known})")
        arguments = parse_arguments(items, whole, tool.input_schema)
        result = await client.call_tool(name, arguments, progress_callback=interaction.on_progress)
        interaction.finish()
        if options.json:
            render.print_json(out, result)
        elif not result.is_error:
            render.print_call_result(out, result)
        if result.is_error:
            detail = _one_line(" ".join(render.block_text(b) for b in result.content)) or "no details"
            raise CLIError(f"tool {name!r} returned an error: {detail}")
        return 0

    return talk(target, options, f"tools/call {name}", action)


def read_resource(target: Target, options: TalkOptions, uri: str, output: Path | None) -> int:
    async def action(client: Any, _: Interaction, out: Console) -> int:
        result = await client.read_resource(uri)
        if output is not None:
            data = b"".join(_contents_bytes(c) for c in result.contents)
            output.write_bytes(data)
            Console(stderr=True).print(f"wrote {len(data)} bytes to {output}", highlight=False)
        elif options.json:
            render.print_json(out, result)
        else:
            for contents in result.contents:
                out.print(render.contents_text(contents), markup=False, highlight=False)
        return 0

    return talk(target, options, f"resources/read {uri}", action)


def _contents_bytes(contents: Any) -> bytes:
    text = getattr(contents, "text", None)
    return text.encode() if text is not None else base64.b64decode(getattr(contents, "blob", ""))


def get_prompt(target: Target, options: TalkOptions, name: str, items: Sequence[str]) -> int:
    arguments: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition("=")
        if not found or not key:
            raise CLIError(f"expected KEY=VALUE, got {item!r}", 2)
        arguments[key] = value

    async def action(client: Any, _: Interaction, out: Console) -> int:
        result = await client.get_prompt(name, arguments or None)
        if options.json:
            render.print_json(out, result)
        else:
            render.print_prompt(out, result)
        return 0

    return talk(target, options, f"prompts/get {name}", action)
