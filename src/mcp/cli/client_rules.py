"""What named MCP clients are known to reject in a tool, as data: one `Rule` per limit, with the
client, what it rejects, where that is known from (an issue or a documented limit; a rule that is
our inference says so in its source) and the fix. Each rule's checker is a small function over the
tool's wire JSON that returns where the tool breaks the rule (empty: it does not).

`mcp check` runs these against a live server; they need nothing beyond the standard library.
Knowledge dates from 2026; a client that fixes a bug makes its rule stale, so each source is
there to be re-read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from mcp.cli.schema_walk import Node, Schema, is_recursive, join, object_depth, types_of, walk

PORTABLE_FIX = ("set portable_schemas=True on MCPServer(...) (or on this @mcp.tool(...)): it inlines "
                "$defs/$ref")
"""The fix named where our portable-schemas switch is the answer (item 1 of issue 27)."""

RECURSIVE_FIX = ("a recursive model keeps its $defs even with portable_schemas=True (a cycle cannot be inlined): "
                 "break the recursion for this client (e.g. children as a list of ids, or a fixed depth of "
                 "nested models)")
"""The fix for a reference rule on a recursive schema, where the switch cannot help."""


@dataclass(frozen=True)
class ToolFacts:
    """One tool as a rule sees it: the wire fields, and the server it comes from."""

    name: str
    input_schema: Schema
    server_name: str = ""
    output_schema: Schema | None = None


@dataclass(frozen=True)
class ServerFacts:
    """Everything a server publishes, for rules about the whole list (a tool count)."""

    name: str
    tools: Sequence[ToolFacts]


ToolCheck = Callable[[ToolFacts], list[str]]
ServerCheck = Callable[[ServerFacts], list[str]]


@dataclass(frozen=True)
class Client:
    """A client (or model API behind clients) with rules of its own."""

    name: str
    title: str
    default: bool = True
    """Checked when `--client` is not given; an opt-in client applies only where a consumer
    turns a stricter mode on (OpenAI strict function calling)."""


@dataclass(frozen=True)
class Rule:
    """One thing one client rejects."""

    id: str
    client: str
    text: str
    source: str
    fix: str
    check: ToolCheck | None = None
    check_server: ServerCheck | None = None
    portable: bool = False
    """`portable_schemas=True` (the switch of issue 27 item 1) is the fix."""
    scope: Literal["tool", "server"] = field(default="tool")


CLIENTS: tuple[Client, ...] = (
    Client("copilot-cli", "GitHub Copilot CLI"),
    Client("codex", "OpenAI Codex CLI"),
    Client("openai-strict", "OpenAI strict function calling (Structured Outputs)", default=False),
    Client("gemini", "Gemini API function declarations"),
    Client("claude", "Claude (Anthropic Messages API: Claude Desktop, Claude Code, claude.ai)"),
    Client("cursor", "Cursor"),
    Client("kimi", "Kimi / Moonshot API (Kimi CLI, Kimi Code, and agents routing to Kimi models)"),
)


# -- small checkers ------------------------------------------------------------------------------


def _nodes(tool: ToolFacts) -> list[Node]:
    return list(walk(tool.input_schema))


def uses_refs(tool: ToolFacts) -> list[str]:
    """Where `$ref` points somewhere (and where `$defs`/`definitions` hold the targets)."""
    found = [join(n.location, "$ref") for n in _nodes(tool) if "$ref" in n.schema]
    found += [key for key in ("$defs", "definitions") if key in tool.input_schema]
    return found


def uses_refs_in_or_out(tool: ToolFacts) -> list[str]:
    """`uses_refs` for the input schema, and for the output schema (its locations start with
    `outputSchema.`)."""
    found = uses_refs(tool)
    if tool.output_schema:
        found += ["outputSchema." + where for where in uses_refs(ToolFacts(tool.name, tool.output_schema))]
    return found


def root_not_object(tool: ToolFacts) -> list[str]:
    return [] if types_of(tool.input_schema) == ["object"] else ["type"]


def root_combinator(tool: ToolFacts) -> list[str]:
    return [key for key in ("anyOf", "oneOf", "allOf") if key in tool.input_schema]


def object_without_properties(tool: ToolFacts) -> list[str]:
    return [n.location or "(root)" for n in _nodes(tool)
            if "object" in types_of(n.schema) and "properties" not in n.schema
            and not isinstance(n.schema.get("additionalProperties"), dict)]


def unions(tool: ToolFacts) -> list[str]:
    return [join(n.location, key) for n in _nodes(tool) for key in ("anyOf", "oneOf") if key in n.schema]


def objects_open(tool: ToolFacts) -> list[str]:
    """Objects that do not say `additionalProperties: false`."""
    return [n.location or "(root)" for n in _nodes(tool)
            if ("object" in types_of(n.schema) or "properties" in n.schema)
            and n.schema.get("additionalProperties") is not False]


def optional_properties(tool: ToolFacts) -> list[str]:
    """Properties not listed in their object's `required`."""
    found: list[str] = []
    for n in _nodes(tool):
        properties = n.schema.get("properties")
        if isinstance(properties, dict):
            required = set(cast(list[Any], n.schema.get("required") or []))
            found += [join(join(n.location, "properties"), name) for name in cast(Schema, properties)
                      if name not in required]
    return found


def keywords(names: frozenset[str]) -> ToolCheck:
    """A checker for schema keywords a client does not accept (`walk` yields schemas only, so a
    property that happens to be called `format` is not mistaken for the keyword)."""

    def check(tool: ToolFacts) -> list[str]:
        return [join(n.location, key) for n in _nodes(tool) for key in n.schema if key in names]

    return check


def keywords_outside(allowed: frozenset[str], also_allowed: frozenset[str]) -> ToolCheck:
    """A checker for any keyword not in the client's list (`also_allowed`: keywords that other
    rules of the same client report, so they are not reported twice)."""

    def check(tool: ToolFacts) -> list[str]:
        return [join(n.location, key) for n in _nodes(tool) for key in n.schema
                if key not in allowed and key not in also_allowed]

    return check


def formats_outside(allowed: frozenset[str]) -> ToolCheck:
    def check(tool: ToolFacts) -> list[str]:
        return [f"{join(n.location, 'format')} ({n.schema['format']})" for n in _nodes(tool)
                if isinstance(n.schema.get("format"), str) and n.schema["format"] not in allowed]

    return check


def deeper_than(levels: int) -> ToolCheck:
    def check(tool: ToolFacts) -> list[str]:
        depth = object_depth(tool.input_schema)
        return [f"(root): {depth} object levels"] if depth > levels else []

    return check


def more_properties_than(limit: int) -> ToolCheck:
    def check(tool: ToolFacts) -> list[str]:
        total = sum(len(cast(Schema, n.schema["properties"])) for n in _nodes(tool)
                    if isinstance(n.schema.get("properties"), dict))
        return [f"(root): {total} properties"] if total > limit else []

    return check


def more_enum_values_than(limit: int) -> ToolCheck:
    def check(tool: ToolFacts) -> list[str]:
        total = sum(len(cast(list[Any], n.schema["enum"])) for n in _nodes(tool)
                    if isinstance(n.schema.get("enum"), list))
        return [f"(root): {total} enum values"] if total > limit else []

    return check


def type_lists(tool: ToolFacts) -> list[str]:
    return [join(n.location, "type") for n in _nodes(tool) if isinstance(n.schema.get("type"), list)]


def name_outside(pattern: str) -> ToolCheck:
    """A checker for tool names outside `pattern` (compiled on first use, by `re`'s cache)."""

    def check(tool: ToolFacts) -> list[str]:
        return [] if re.fullmatch(pattern, tool.name) else [f"name ({tool.name!r})"]

    return check


def parameter_names_outside(pattern: str) -> ToolCheck:
    def check(tool: ToolFacts) -> list[str]:
        properties = tool.input_schema.get("properties")
        names = list(cast(Schema, properties)) if isinstance(properties, dict) else []
        return [join("properties", name) for name in names if not re.fullmatch(pattern, name)]

    return check


def untyped_values(tool: ToolFacts) -> list[str]:
    """Value schemas (properties, items, union branches) with no `type` and no union or
    reference that would carry one."""
    return [n.location for n in _nodes(tool)
            if n.parent_keyword in ("properties", "items", "anyOf", "oneOf", "prefixItems")
            and not types_of(n.schema) and not any(k in n.schema for k in ("anyOf", "oneOf", "allOf", "$ref"))]


def type_beside_union(tool: ToolFacts) -> list[str]:
    return [join(n.location, key) for n in _nodes(tool) for key in ("anyOf", "oneOf")
            if key in n.schema and "type" in n.schema]


def qualified_name_longer_than(limit: int) -> ToolCheck:
    def check(tool: ToolFacts) -> list[str]:
        total = len(tool.server_name) + len(tool.name)
        return [f"name ({tool.server_name!r} + {tool.name!r} = {total} characters)"] if total > limit else []

    return check


def more_tools_than(limit: int) -> ServerCheck:
    def check(server: ServerFacts) -> list[str]:
        return [f"{len(server.tools)} tools"] if len(server.tools) > limit else []

    return check


# -- the table -----------------------------------------------------------------------------------

_OPENAI_GUIDE = "OpenAI docs, Structured Outputs, Supported schemas (platform.openai.com/docs/guides/structured-outputs)"
_GEMINI_SCHEMA = ("Gemini/Vertex AI reference, Schema: 'a select subset of an OpenAPI 3.0 schema object' "
                  "(cloud.google.com/vertex-ai/docs/reference/rest/v1/Schema)")
_GEMINI_DECLARATION = "Gemini/Vertex AI reference, FunctionDeclaration (cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration)"
_ANTHROPIC_TOOL = "Anthropic Messages API reference, tools[].name and tools[].input_schema (docs.anthropic.com/en/api/messages)"

_OPENAI_UNSUPPORTED = frozenset({
    "allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",  # composition
    "minLength", "maxLength", "patternProperties", "unevaluatedProperties", "propertyNames", "minProperties",
    "maxProperties", "unevaluatedItems", "contains", "minContains", "maxContains", "uniqueItems",
})
_OPENAI_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
_GEMINI_FIELDS = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
    "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
    "default", "items", "minimum", "maximum",
})
_REPORTED_ELSEWHERE = frozenset({"$ref", "$defs", "definitions", "additionalProperties"})

_UNION_FIX = ("give the parameter one type: `x: int = 0` rather than `x: int | None = None`; a choice between "
              "models becomes one model with a `kind` enum, or one tool per shape")

RULES: tuple[Rule, ...] = (
    # GitHub Copilot CLI
    Rule("copilot-cli/ref", "copilot-cli",
         "$defs/$ref in inputSchema: the references are not resolved, so the arguments cannot be built "
         "('X is a required property')",
         "github/copilot-cli#1876 (open): https://github.com/github/copilot-cli/issues/1876",
         PORTABLE_FIX, uses_refs, portable=True),
    Rule("copilot-cli/object-without-properties", "copilot-cli",
         "an object schema without `properties` fails every model call ('object schema missing properties')",
         "github/copilot-cli#1825 (open): https://github.com/github/copilot-cli/issues/1825",
         "give every object schema `properties` (`{}` for a tool without arguments; MCPServer tools always do)",
         object_without_properties),
    # OpenAI Codex CLI
    Rule("codex/ref", "codex",
         "$ref in inputSchema: Codex shows the parameter as a plain string instead of its schema",
         "openai/codex#3152 (open): https://github.com/openai/codex/issues/3152",
         PORTABLE_FIX, uses_refs, portable=True),
    Rule("codex/union", "codex",
         "anyOf/oneOf: Codex sanitizes the property to `string` before the model sees it",
         "openai/codex#13768 (open): https://github.com/openai/codex/issues/13768",
         _UNION_FIX, unions),
    Rule("codex/object-without-properties", "codex",
         "an object schema without `properties` is rejected as a function schema",
         "reported by a server that fixed it: https://github.com/nnemirovsky/iwdp-mcp/pull/3",
         "give every object schema `properties` (`{}` for a tool without arguments; MCPServer tools always do)",
         object_without_properties),
    # OpenAI strict function calling (opt-in: where the consumer sets strict: true)
    Rule("openai-strict/root-object", "openai-strict",
         "the root must be an object, and not anyOf", _OPENAI_GUIDE,
         "take arguments as named parameters (the root is then an object)",
         lambda tool: root_not_object(tool) + root_combinator(tool)),
    Rule("openai-strict/additional-properties", "openai-strict",
         "every object must set additionalProperties: false", _OPENAI_GUIDE,
         "portable_schemas=True (its strict-consumer rewrites close every object); for your own models alone, "
         "model_config = ConfigDict(extra='forbid')", objects_open, portable=True),
    Rule("openai-strict/all-required", "openai-strict",
         "every property must be listed in `required` (optional means nullable: type [T, 'null'])", _OPENAI_GUIDE,
         "make the parameter required and nullable: `x: int | None` with no default", optional_properties),
    Rule("openai-strict/unsupported-keyword", "openai-strict",
         "keywords outside the supported subset (allOf, not, if/then/else, minLength/maxLength, uniqueItems, "
         "patternProperties, min/maxProperties, ...)", _OPENAI_GUIDE,
         "drop the constraint from the annotation (e.g. Field(min_length=...)) and check it in the tool body",
         keywords(_OPENAI_UNSUPPORTED)),
    Rule("openai-strict/format", "openai-strict",
         "`format` outside date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid", _OPENAI_GUIDE,
         "annotate as plain `str` (pydantic's AnyUrl emits format: uri) and parse in the tool",
         formats_outside(_OPENAI_FORMATS)),
    Rule("openai-strict/depth", "openai-strict",
         "more than 10 levels of nested objects (5 in the earlier published limit)", _OPENAI_GUIDE,
         "flatten the nested models", deeper_than(10)),
    Rule("openai-strict/size", "openai-strict",
         "more than 5000 object properties in one schema (100 in the earlier published limit)", _OPENAI_GUIDE,
         "split the tool", more_properties_than(5000)),
    Rule("openai-strict/enum-size", "openai-strict",
         "more than 1000 enum values in one schema", _OPENAI_GUIDE,
         "take a free string and check it in the tool", more_enum_values_than(1000)),
    Rule("openai-strict/name", "openai-strict",
         "function names must match ^[a-zA-Z0-9_-]{1,64}$",
         "OpenAI API reference, function tools: name 'a-z, A-Z, 0-9, underscores and dashes, at most 64'",
         "rename the tool: @mcp.tool(name='...')", name_outside(r"[a-zA-Z0-9_-]{1,64}")),
    # Gemini function declarations (the `parameters` field, an OpenAPI 3.0 subset)
    Rule("gemini/ref", "gemini",
         "$defs/$ref in parameters: the API answers 400 'reference to undefined schema'",
         "google-gemini/gemini-cli#13326: https://github.com/google-gemini/gemini-cli/issues/13326",
         PORTABLE_FIX, uses_refs, portable=True),
    Rule("gemini/additional-properties", "gemini",
         "additionalProperties: 400 'Unknown name \"additionalProperties\"'",
         "promptfoo/promptfoo#6902: https://github.com/promptfoo/promptfoo/issues/6902; " + _GEMINI_SCHEMA,
         "avoid dict[...] parameters and extra='forbid' models (a list of key/value models instead)",
         keywords(frozenset({"additionalProperties"}))),
    Rule("gemini/unsupported-keyword", "gemini",
         "keywords outside the Schema object's fields (const, oneOf, allOf, exclusiveMinimum, multipleOf, "
         "uniqueItems, $schema, ...); clients that send parametersJsonSchema instead accept more (our inference)",
         _GEMINI_SCHEMA + "; $schema: https://github.com/promptfoo/promptfoo/pull/4200",
         "use what the subset has: a one-value enum for a Literal (pydantic emits const), ge/le for gt/lt, "
         "anyOf for a union", keywords_outside(_GEMINI_FIELDS, _REPORTED_ELSEWHERE)),
    Rule("gemini/type-list", "gemini",
         "`type` as a list: Schema.type is one type (nullable says null); our inference from the reference",
         _GEMINI_SCHEMA, "one type per schema (`x: int = 0`)", type_lists),
    Rule("gemini/name", "gemini",
         "function names must start with a letter or underscore, then a-z A-Z 0-9 _ . -, at most 64",
         _GEMINI_DECLARATION, "rename the tool: @mcp.tool(name='...')",
         name_outside(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}")),
    Rule("gemini/parameter-name", "gemini",
         "parameter names must start with a letter or underscore, then a-z A-Z 0-9 _, at most 64",
         _GEMINI_DECLARATION, "rename the parameter (Field(alias=...) keeps the Python name)",
         parameter_names_outside(r"[A-Za-z_][A-Za-z0-9_]{0,63}")),
    # Claude (Anthropic Messages API)
    Rule("claude/name", "claude", "tool names must match ^[a-zA-Z0-9_-]{1,64}$", _ANTHROPIC_TOOL,
         "rename the tool: @mcp.tool(name='...')", name_outside(r"[a-zA-Z0-9_-]{1,64}")),
    Rule("claude/root-object", "claude", "input_schema must be a JSON Schema of type object", _ANTHROPIC_TOOL,
         "take arguments as named parameters (the root is then an object)", root_not_object),
    Rule("claude/root-combinator", "claude",
         "oneOf/allOf/anyOf at the top level: 400 'input_schema does not support oneOf, allOf, or anyOf at the "
         "top level' on every request",
         "anthropics/claude-code#5319: https://github.com/anthropics/claude-code/issues/5319 (the API's error)",
         "express the choice inside a property, not at the root", root_combinator),
    # Cursor
    Rule("cursor/ref", "cursor",
         "$defs/$ref in inputSchema or outputSchema: tool loading fails with 'can't resolve reference "
         "#/$defs/...'",
         "reported for Cursor 3.4 in davideast/stitch-mcp#184: https://github.com/davideast/stitch-mcp/issues/184",
         PORTABLE_FIX, uses_refs_in_or_out, portable=True),
    Rule("cursor/name-length", "cursor",
         "server name + tool name longer than 60 characters (Cursor warns and may drop the tool); the server "
         "name Cursor uses is the mcp.json key, taken here to be the server's own name (our inference)",
         "Cursor's warning, as reported in https://www.reddit.com/r/mcp/comments/1mcf0ig/ and "
         "https://easymanage.com/res/docs/tutorials/ai-agent/chapter-3-mcp-advanced",
         "shorten the tool name (@mcp.tool(name='...')) or the server name",
         qualified_name_longer_than(60)),
    Rule("cursor/tool-count", "cursor",
         "more than 40 tools: Cursor gives the agent at most 40 tools across all servers",
         "https://github.com/modelcontextprotocol/.github/discussions/360",
         "publish fewer tools (group related operations into one tool)",
         check_server=more_tools_than(40), scope="server"),
    # Kimi / Moonshot
    Rule("kimi/ref", "kimi",
         "$defs/$ref: 400 'not a valid moonshot flavored json schema' on every turn",
         "CommandCodeAI/command-code#566: https://github.com/CommandCodeAI/command-code/issues/566",
         PORTABLE_FIX, uses_refs, portable=True),
    Rule("kimi/untyped", "kimi",
         "a property, item or union branch without `type`: 400 'type is not defined'",
         "MoonshotAI/kimi-cli#1595: https://github.com/MoonshotAI/kimi-cli/issues/1595",
         "annotate the parameter with a concrete type (`Any` emits no type)", untyped_values),
    Rule("kimi/type-beside-union", "kimi",
         "`type` next to anyOf/oneOf: 400 'type should be defined in anyOf items instead of the parent schema'",
         "MoonshotAI/kimi-cli#2531: https://github.com/MoonshotAI/kimi-cli/issues/2531",
         "put the type in each branch only", type_beside_union),
    Rule("kimi/name-digit", "kimi", "a tool name that starts with a digit: 400",
         "MoonshotAI/kimi-cli#2531: https://github.com/MoonshotAI/kimi-cli/issues/2531",
         "rename the tool so it starts with a letter: @mcp.tool(name='...')", name_outside(r"[^0-9].*")),
)


def client_names() -> list[str]:
    return [client.name for client in CLIENTS]


def default_clients() -> list[str]:
    return [client.name for client in CLIENTS if client.default]


@dataclass(frozen=True)
class Finding:
    """One rule one tool (or the whole server, `tool` None) breaks, where, and the fix for this
    tool (the rule's, unless the switch cannot apply to it)."""

    rule: Rule
    tool: str | None
    locations: tuple[str, ...]
    fix: str
    portable: bool
    """`portable_schemas=True` fixes this finding."""


def evaluate(server: ServerFacts, clients: Sequence[str]) -> list[Finding]:
    """Every finding for the named clients, tool by tool in the server's order, then the
    server-wide ones."""
    rules = [rule for rule in RULES if rule.client in clients]
    findings: list[Finding] = []
    for tool in server.tools:
        recursive = is_recursive(tool.input_schema) or is_recursive(tool.output_schema or {})
        for rule in rules:
            if rule.check is not None and (where := rule.check(tool)):
                if rule.check in (uses_refs, uses_refs_in_or_out) and recursive:
                    findings.append(Finding(rule, tool.name, tuple(where), RECURSIVE_FIX, False))
                else:
                    findings.append(Finding(rule, tool.name, tuple(where), rule.fix, rule.portable))
    for rule in rules:
        if rule.check_server is not None and (where := rule.check_server(server)):
            findings.append(Finding(rule, None, tuple(where), rule.fix, rule.portable))
    return findings
