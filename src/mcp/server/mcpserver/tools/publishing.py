"""The schemas a tool publishes when `portable_schemas` or `parameter_docs` is on: computed once,
at registration, from the generated ones (`RegisteredTool.publish_schemas`)."""

from __future__ import annotations

import inspect
import warnings
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver.tools.parameter_docs import parse_docstring, with_parameter_docs
from mcp.server.mcpserver.tools.portable_schema import (
    SchemaPortabilityError,
    SchemaPortabilityWarning,
    make_portable,
    recursive_definitions,
)

if TYPE_CHECKING:
    from mcp.server.mcpserver.tools.registered import RegisteredTool


def published_schemas(
    tool: RegisteredTool, given: dict[str, Any] | None, *, portable_schemas: bool, parameter_docs: bool
) -> tuple[str, tuple[dict[str, Any], dict[str, Any] | None]]:
    """(the docstring's summary, (input schema, output schema)) as `tool` publishes them. `given`:
    the schema `input_schema=` gave verbatim (the author's own: no parameter docs are added)."""
    doc = parse_docstring(inspect.getdoc(tool.fn))
    inputs = given if given is not None else tool.signature.input_schema()
    if parameter_docs and given is None:
        inputs = with_parameter_docs(inputs, doc.params)
    outputs = tool.output.output_schema
    if portable_schemas:
        inputs = _portable(tool.name, "input", inputs)
        if outputs is not None:
            outputs = _portable(tool.name, "output", outputs)
    return doc.summary, (inputs, outputs)


def _portable(tool: str, which: str, schema: dict[str, Any]) -> dict[str, Any]:
    """`make_portable(schema)`, with a `SchemaPortabilityWarning` naming what stays unportable
    (the schema as generated when the rewrite refuses it)."""
    try:
        portable = make_portable(schema)
    except SchemaPortabilityError as exc:
        warnings.warn(
            f"Tool {tool!r}: its {which} schema is published as generated (portable_schemas "
            f"cannot rewrite it): {exc}",
            SchemaPortabilityWarning,
            stacklevel=5,
        )
        return schema
    for name, cycle in recursive_definitions(schema).items():
        warnings.warn(
            f"Tool {tool!r}: model {name!r} in its {which} schema is recursive ({' -> '.join(cycle)}), so it "
            "cannot be inlined: its definition stays in $defs, which clients that do not resolve $ref "
            "(Copilot CLI, Kimi, Gemini function declarations) reject; a depth-limited model "
            "(fixed levels) would be portable",
            SchemaPortabilityWarning,
            stacklevel=5,
        )
    return portable
