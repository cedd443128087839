"""Parameter descriptions from a tool's docstring (`parameter_docs=True`).

A docstring's parameter section, in any of the three common styles, is read into
`{parameter: description}`:

- Google: an `Args:` (or `Arguments:`, `Parameters:`, `Keyword Args:`...) line, then indented
  `name (type): text` entries, continuation lines indented further;
- NumPy: a `Parameters` line underlined with dashes, then `name : type` entries with the text
  indented below;
- Sphinx (reST field lists): `:param name: text` or `:param type name: text`.

The tool's description keeps only the summary: the text before the first such section (or, for
Sphinx, the first field line). A parameter whose schema already has a `description` (written with
`Field(description=...)` or `Annotated[..., Field(description=...)]`) keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

_GOOGLE_HEADER = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Kwargs|Other Parameters)\s*:\s*$"
)
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}([A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:(?:\s+(.*))?$")
_NUMPY_HEADERS = frozenset({"Parameters", "Other Parameters", "Keyword Arguments", "Arguments"})
_NUMPY_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
_NUMPY_ENTRY = re.compile(r"^\*{0,2}([A-Za-z_]\w*(?:\s*,\s*\*{0,2}[A-Za-z_]\w*)*)\s*(?::.*)?$")
_SPHINX_FIELD = re.compile(
    r"^\s*:(param|parameter|arg|argument|key|keyword|type|raises?|except|exception|returns?|rtype|yields?|"
    r"ytype|var|ivar|cvar|vartype|meta)\b"
)
_SPHINX_PARAM = re.compile(
    r"^:(?:param|parameter|arg|argument|key|keyword)\s+(?:[^:]*\s)?\*{0,2}([A-Za-z_]\w*)\s*:(.*)$"
)


@dataclass(frozen=True)
class Docstring:
    """A docstring split into its summary and its parameter descriptions."""

    summary: str
    params: dict[str, str] = field(default_factory=dict[str, str])


def parse_docstring(doc: str | None) -> Docstring:
    """The summary and parameter descriptions of a docstring (already dedented, as
    `inspect.getdoc` returns it). A docstring with no parameter section is all summary."""
    if not doc:
        return Docstring("")
    lines = doc.expandtabs().splitlines()
    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if line.strip() in _NUMPY_HEADERS and _NUMPY_UNDERLINE.match(following):
            return Docstring(_summary(lines[:index]), _numpy(lines, index + 2))
        if _GOOGLE_HEADER.match(line):
            return Docstring(_summary(lines[:index]), _google(lines, index + 1, _indent(line)))
        if _SPHINX_FIELD.match(line):
            return Docstring(_summary(lines[:index]), _sphinx(lines[index:]))
    return Docstring(doc.strip())


def with_parameter_docs(schema: Mapping[str, Any], params: Mapping[str, str]) -> dict[str, Any]:
    """`schema` (a tool's input schema) with each documented parameter's description added to
    its property, unless the property has one already. `schema` itself is not changed."""
    properties = schema.get("properties")
    if not params or not isinstance(properties, Mapping):
        return dict(schema)
    props = dict(cast("Mapping[str, Any]", properties))
    for name, text in params.items():
        prop = props.get(name)
        if isinstance(prop, Mapping) and text and "description" not in prop:
            props[name] = {**cast("Mapping[str, Any]", prop), "description": text}
    return {**schema, "properties": props}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _summary(lines: list[str]) -> str:
    return "\n".join(lines).strip()


def _text(lines: list[str]) -> str:
    """Entry text: its lines joined by spaces, paragraphs (blank lines) kept apart."""
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            paragraphs[-1].append(line.strip())
        elif paragraphs[-1]:
            paragraphs.append([])
    return "\n\n".join(" ".join(p) for p in paragraphs if p)


def _google(lines: list[str], start: int, header_indent: int) -> dict[str, str]:
    params: dict[str, str] = {}
    entry_indent: int | None = None
    name: str | None = None
    body: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            body.append("")
            continue
        indent = _indent(line)
        if indent <= header_indent:
            break  # the next section (Returns:, Raises:, ...) or plain text
        if entry_indent is None:
            entry_indent = indent
        if indent <= entry_indent:
            match = _GOOGLE_ENTRY.match(line.strip())
            if match is None:
                break
            if name is not None:
                params[name] = _text(body)
            name, body = match.group(1), [match.group(2) or ""]
        else:
            body.append(line)
    if name is not None:
        params[name] = _text(body)
    return params


def _numpy(lines: list[str], start: int) -> dict[str, str]:
    params: dict[str, str] = {}
    names: list[str] = []
    body: list[str] = []
    rest = lines[start:]
    for index, line in enumerate(rest):
        following = rest[index + 1] if index + 1 < len(rest) else ""
        if line.strip() and _NUMPY_UNDERLINE.match(following):
            break  # the next section's header
        if not line.strip() or _indent(line) > 0:
            body.append(line)
            continue
        match = _NUMPY_ENTRY.match(line.strip())
        if match is None:
            break
        for name in names:
            params[name] = _text(body)
        names = [n.strip().lstrip("*") for n in match.group(1).split(",")]
        body = []
    for name in names:
        params[name] = _text(body)
    return params


def _sphinx(lines: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    name: str | None = None
    body: list[str] = []
    for line in lines:
        if _SPHINX_FIELD.match(line) or not line.strip() or _indent(line) == 0:
            if name is not None:
                params[name] = _text(body)
                name = None
            match = _SPHINX_PARAM.match(line.strip())
            if match is not None:
                name, body = match.group(1), [match.group(2)]
            continue
        if name is not None:
            body.append(line)
    if name is not None:
        params[name] = _text(body)
    return params
