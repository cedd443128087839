"""`mcp check TARGET`: list a server's tools with our `Client` and report, tool by tool, what a
named client is known to reject (the rules of `mcp.cli.client_rules`), with where the knowledge
comes from and the fix. Exit 1 on any finding, 0 when clean; `--json` for CI. A target that cannot
be reached is one line on stderr (a `CLIError`), as for the other client commands."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console

from mcp.cli import render
from mcp.cli.client_rules import Finding, ServerFacts, ToolFacts, client_names, default_clients, evaluate
from mcp.cli.interact import Interaction
from mcp.cli.loading import CLIError
from mcp.cli.schema_walk import Schema
from mcp.cli.talk import TalkOptions, all_pages, talk
from mcp.cli.target import Target


def portable_rewrite(schema: Schema) -> Schema:
    """One schema as `portable_schemas=True` publishes it (`make_portable`); a schema the switch
    cannot rewrite (over its size bound) is returned as it is, so its findings stay."""
    import warnings

    from mcp.server.mcpserver.tools.portable_schema import SchemaPortabilityError, make_portable

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a recursive model's warning is for the server author
        try:
            return make_portable(schema)
        except SchemaPortabilityError:
            return schema


PORTABLE_REWRITE: Callable[[Schema], Schema] | None = portable_rewrite
"""The portable-schemas switch's rewrite (issue 27 item 1): each finding says whether
`portable_schemas=True` clears it (`portableClears` in `--json`), checked by re-running the rule
on the rewritten schema. Replaceable (None: not reported)."""


def pick_clients(names: Sequence[str]) -> list[str]:
    """The clients to check: those named (each must be known), else every default one."""
    known = client_names()
    unknown = [name for name in names if name not in known]
    if unknown:
        raise CLIError(f"--client: unknown client {unknown[0]!r} (known: {', '.join(known)})", 2)
    return list(dict.fromkeys(names)) if names else default_clients()


def facts(server_name: str, tools: Sequence[Any]) -> ServerFacts:
    """The listed tools (wire models) as the rules see them."""
    listed = [ToolFacts(tool.name, dict(tool.input_schema or {}), server_name,
                        dict(tool.output_schema) if tool.output_schema else None) for tool in tools]
    return ServerFacts(server_name, listed)


def portable_clears(finding: Finding, server: ServerFacts) -> bool | None:
    """Whether `PORTABLE_REWRITE` makes the finding go away (None while the hook is not wired)."""
    if PORTABLE_REWRITE is None or finding.tool is None or finding.rule.check is None:
        return None
    tool = next(t for t in server.tools if t.name == finding.tool)
    output = PORTABLE_REWRITE(tool.output_schema) if tool.output_schema else None
    rewritten = ToolFacts(tool.name, PORTABLE_REWRITE(tool.input_schema), tool.server_name, output)
    return not finding.rule.check(rewritten)


def report_json(server: ServerFacts, clients: Sequence[str], findings: Sequence[Finding]) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for finding in findings:
        row: dict[str, Any] = {
            "tool": finding.tool, "client": finding.rule.client, "rule": finding.rule.id, "text": finding.rule.text,
            "locations": list(finding.locations), "source": finding.rule.source, "fix": finding.fix,
            "portableSchemasFix": finding.portable,
        }
        clears = portable_clears(finding, server)
        if clears is not None:
            row["portableClears"] = clears
        rows.append(row)
    return {"server": server.name, "clients": list(clients), "tools": len(server.tools),
            "clean": not findings, "findings": rows}


def report_text(server: ServerFacts, clients: Sequence[str], findings: Sequence[Finding]) -> list[str]:
    lines = [f"{server.name or 'server'}: {len(server.tools)} tool{'s' if len(server.tools) != 1 else ''}, "
             f"checked for {', '.join(clients)}"]
    current: object = object()
    for finding in findings:
        if finding.tool != current:
            current = finding.tool
            lines += ["", f"tool {finding.tool}" if finding.tool is not None else "the server as a whole"]
        lines.append(f"  {finding.rule.client}: {finding.rule.text}")
        lines.append(f"      at: {', '.join(finding.locations)}")
        lines.append(f"      source: {finding.rule.source}")
        lines.append(f"      fix: {finding.fix}")
        clears = portable_clears(finding, server)
        if clears is not None:
            lines.append(f"      portable_schemas=True clears it: {'yes' if clears else 'no'}")
    if findings:
        tools = {finding.tool for finding in findings if finding.tool is not None}
        parts = [f"{len(tools)} of {len(server.tools)} tools"] if tools else []
        parts += ["the server as a whole"] if any(finding.tool is None for finding in findings) else []
        lines += ["", f"{len(findings)} finding{'s' if len(findings) != 1 else ''} in {' and '.join(parts)}"]
    else:
        lines.append("clean: no known rejection")
    return lines


def check_target(target: Target, options: TalkOptions, client_filter: Sequence[str]) -> int:
    clients = pick_clients(client_filter)

    async def action(client: Any, _: Interaction, out: Console) -> int:
        capabilities = client.server_capabilities
        offers_tools = capabilities is None or getattr(capabilities, "tools", None) is not None
        tools = await all_pages(client.list_tools, "tools") if offers_tools else []  # no tools: nothing to reject
        info = client.server_info
        server = facts(str(getattr(info, "name", "") or ""), tools)
        findings = evaluate(server, clients)
        if options.json:
            render.print_json(out, report_json(server, clients, findings))
        else:
            for line in report_text(server, clients, findings):
                out.print(line, markup=False, highlight=False)
        return 1 if findings else 0

    return talk(target, options, "tools/list", action)
