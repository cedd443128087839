"""How results print: readable `rich` tables and text for people, or the result's JSON (`--json`)
for scripts. Everything here writes to stdout; errors and server chatter go to stderr elsewhere."""

from __future__ import annotations

import base64
import json
from typing import Any, cast

from rich.console import Console
from rich.table import Table


def to_json(model: Any) -> Any:
    """A result model as its wire JSON (camelCase, no unset optionals)."""
    dump = getattr(model, "model_dump", None)
    if dump is None:
        return model
    return dump(mode="json", by_alias=True, exclude_none=True)


def print_json(console: Console, value: Any) -> None:
    console.print_json(json.dumps(to_json(value), ensure_ascii=False), highlight=console.is_terminal)


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def _schema_args(schema: dict[str, Any] | None) -> str:
    """`city: string*, days: integer` from a JSON Schema object (`*` marks required)."""
    if not schema:
        return ""
    required = set(schema.get("required") or [])
    parts: list[str] = []
    properties: dict[str, Any] = schema.get("properties") or {}
    for name, prop in properties.items():
        kind: Any = cast("dict[str, Any]", prop).get("type") if isinstance(prop, dict) else None
        if isinstance(kind, list):
            kind = "|".join(str(k) for k in kind)  # pyright: ignore[reportUnknownVariableType,reportUnknownArgumentType]
        parts.append(f"{name}: {kind or 'any'}{'*' if name in required else ''}")
    return ", ".join(parts)


def tools_table(tools: list[Any]) -> Table:
    table = Table(title=f"{len(tools)} tool{'s' if len(tools) != 1 else ''}", title_justify="left")
    table.add_column("Name", style="bold", no_wrap=True)
    table.add_column("Arguments (* required)")
    table.add_column("Description")
    for tool in tools:
        table.add_row(tool.name, _schema_args(tool.input_schema), _first_line(tool.description or tool.title))
    return table


def resources_tables(resources: list[Any], templates: list[Any]) -> list[Table]:
    listed = Table(title=f"{len(resources)} resource{'s' if len(resources) != 1 else ''}", title_justify="left")
    for column in ("URI", "Name", "MIME type", "Description"):
        listed.add_column(column, no_wrap=column == "URI")
    for resource in resources:
        listed.add_row(str(resource.uri), resource.name, resource.mime_type or "", _first_line(resource.description))
    tables = [listed]
    if templates:
        shaped = Table(title=f"{len(templates)} resource template{'s' if len(templates) != 1 else ''}",
                       title_justify="left")
        for column in ("URI template", "Name", "MIME type", "Description"):
            shaped.add_column(column, no_wrap=column == "URI template")
        for template in templates:
            shaped.add_row(template.uri_template, template.name, template.mime_type or "",
                           _first_line(template.description))
        tables.append(shaped)
    return tables


def prompts_table(prompts: list[Any]) -> Table:
    table = Table(title=f"{len(prompts)} prompt{'s' if len(prompts) != 1 else ''}", title_justify="left")
    table.add_column("Name", style="bold", no_wrap=True)
    table.add_column("Arguments (* required)")
    table.add_column("Description")
    for prompt in prompts:
        arguments: list[Any] = list(prompt.arguments or [])
        args = ", ".join(f"{a.name}{'*' if a.required else ''}" for a in arguments)
        table.add_row(prompt.name, args, _first_line(prompt.description or prompt.title))
    return table


def block_text(block: Any) -> str:
    """One content block as text: the text itself, or a one-line summary of binary content."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return block.text
    if kind in ("image", "audio"):
        return f"[{kind} {block.mime_type}, {len(base64.b64decode(block.data))} bytes]"
    if kind == "resource_link":
        return f"[resource link {block.uri}]"
    if kind == "resource":
        return contents_text(block.resource)
    return json.dumps(to_json(block))


def contents_text(contents: Any) -> str:
    text = getattr(contents, "text", None)
    if text is not None:
        return text
    blob = getattr(contents, "blob", "")
    mime = getattr(contents, "mime_type", None) or "binary"
    return f"[{mime} blob, {len(base64.b64decode(blob))} bytes of {contents.uri}]"


def print_blocks(console: Console, blocks: list[Any]) -> None:
    for block in blocks:
        console.print(block_text(block), markup=False, highlight=False)


def print_call_result(console: Console, result: Any) -> None:
    """The tool's content; its structured content as JSON when there is no content to show."""
    if result.content:
        print_blocks(console, list(result.content))
    elif result.structured_content is not None:
        print_json(console, result.structured_content)


def print_prompt(console: Console, result: Any) -> None:
    if result.description:
        console.print(f"# {result.description}", markup=False, highlight=False)
    for message in result.messages:
        console.print(f"[bold]{message.role}:[/bold] ", end="", highlight=False)
        console.print(block_text(message.content), markup=False, highlight=False)
