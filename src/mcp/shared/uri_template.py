"""RFC 6570 URI templates, the subset chosen for matching `resources/read` URIs.

Supported expressions (any number of comma-separated variables unless noted):

    {x}   simple: one segment, never a `/`          {+x}  reserved: may contain `/`
    {#x}  fragment: `#` then a reserved value       {.x}  label: `.` then a value
    {/x}  path segment: `/` then a value            {;x}  path parameter: `;x=value`
    {?x}  query: `?x=value`                         {&x}  query continuation: `&x=value`
    {/x*} {.x*} {;x*}  exploded lists (alone in their expression)

A template is parsed once, at construction; malformed ones raise `InvalidUriTemplate`:
unclosed braces, empty or reserved operators, bad variable names, duplicate variables, the
unsupported prefix modifier (`{x:3}`) and query explode (`{?x*}`), two variables with nothing
between them (`{a}{b}`; `{a}{.b}` is fine since `.` is a delimiter), and more than one
multi-segment variable (`{+x}`, `{#x}` or an exploded one).

Matching takes, of all the ways a URI fits, the one that gives each value, left to right, as
many characters as the rest allows (what a greedy regular expression would pick), in time linear
in the URI's length: `mcp.shared._uri_matcher` scans instead of backtracking, so a long URI
against `{name}-{date}` cannot stall the server. Values are percent-decoded and returned as
strings (lists for exploded variables), with no path-safety checks (see `mcp.shared.path_security`).
Variables in the trailing `{?...}`/`{&...}` run are matched leniently: in any order, optional,
with unknown query parameters ignored. Every other variable must be present; a `{;x}` or a
strict `{&x}` value may be empty, any other value may not.

Standard library only (layer L0).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast
from urllib.parse import quote, unquote

from mcp.shared._uri_matcher import LITERAL, PARAM, PARAMS, RUN, SEGMENTS, Matcher, Step
from mcp.shared.exceptions import InvalidUriTemplate

__all__ = [
    "DEFAULT_MAX_TEMPLATE_LENGTH",
    "DEFAULT_MAX_URI_LENGTH",
    "DEFAULT_MAX_VARIABLES",
    "InvalidUriTemplate",
    "Operator",
    "UriTemplate",
    "Variable",
]

Operator = Literal["", "+", "#", ".", "/", ";", "?", "&"]
"""An RFC 6570 expression operator ("" is simple string expansion)."""

DEFAULT_MAX_TEMPLATE_LENGTH = 8_192
"""Longest template `UriTemplate.parse` accepts by default."""
DEFAULT_MAX_VARIABLES = 256
"""Most variables (over all expressions) `UriTemplate.parse` accepts by default."""
DEFAULT_MAX_URI_LENGTH = 65_536
"""Longest URI `UriTemplate.match` looks at by default; longer ones do not match."""


@dataclass(frozen=True, slots=True)
class _Operator:
    first: str
    """What the expression starts with when it expands to anything."""
    sep: str
    """Between the values of the expression."""
    named: bool
    """`name=value` pairs (`;`, `?`, `&`)."""
    if_empty: str
    """What follows the name of a named variable whose value is empty."""
    reserved: bool
    """Reserved characters pass through unencoded (`+`, `#`)."""


_OPERATORS: dict[str, _Operator] = {
    "": _Operator("", ",", False, "", False),
    "+": _Operator("", ",", False, "", True),
    "#": _Operator("#", ",", False, "", True),
    ".": _Operator(".", ".", False, "", False),
    "/": _Operator("/", "/", False, "", False),
    ";": _Operator(";", ";", True, "", False),
    "?": _Operator("?", "&", True, "=", False),
    "&": _Operator("&", "&", True, "=", False),
}
_RESERVED_OPERATORS = frozenset("=,!@|")
_EXPLODABLE = frozenset("/.;")
_QUERY_OPS = ("?", "&")
_VARNAME = re.compile(r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*")
_PCT_TRIPLET = re.compile(r"(%[0-9A-Fa-f]{2})")
_RESERVED_SAFE = ":/?#[]@!$&'()*+,;="


@dataclass(frozen=True)
class Variable:
    """One variable of a template expression: its name, its expression's operator, `*` or not."""

    name: str
    operator: Operator
    explode: bool = False


@dataclass(frozen=True, slots=True)
class _Expression:
    operator: str
    variables: tuple[Variable, ...]

    def __str__(self) -> str:
        return "{" + self.operator + ",".join(v.name + ("*" if v.explode else "") for v in self.variables) + "}"


@dataclass(frozen=True, init=False, slots=True)
class UriTemplate:
    """A parsed RFC 6570 URI template: `expand(values)` builds a URI, `match(uri)` takes one apart.
    Immutable (a frozen dataclass, as officially); equal and hashed by the template string alone."""

    template: str
    """The template string as written."""
    _parts: list[str | _Expression] = field(repr=False, compare=False)
    _variables: tuple[Variable, ...] = field(repr=False, compare=False)
    _variable_names: tuple[str, ...] = field(repr=False, compare=False)
    _query_names: frozenset[str] = field(repr=False, compare=False)
    _matcher: Matcher = field(repr=False, compare=False)

    def __init__(
        self,
        template: str,
        *,
        max_length: int = DEFAULT_MAX_TEMPLATE_LENGTH,
        max_variables: int = DEFAULT_MAX_VARIABLES,
    ) -> None:
        if not isinstance(template, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise InvalidUriTemplate(
                f"URI template must be a string, not {type(template).__name__}", template=repr(template)
            )
        if len(template) > max_length:
            raise InvalidUriTemplate(f"Template exceeds maximum length of {max_length}", template=template)
        parts = _parse(template, max_variables)
        variables = tuple(v for part in parts if isinstance(part, _Expression) for v in part.variables)
        query_names, matcher = _compile(parts)
        init = object.__setattr__  # frozen: set once, here
        init(self, "template", template)
        init(self, "_parts", parts)
        init(self, "_variables", variables)
        init(self, "_variable_names", tuple(v.name for v in variables))
        init(self, "_query_names", query_names)
        init(self, "_matcher", matcher)

    @classmethod
    def parse(
        cls,
        template: str,
        *,
        max_length: int = DEFAULT_MAX_TEMPLATE_LENGTH,
        max_variables: int = DEFAULT_MAX_VARIABLES,
    ) -> UriTemplate:
        """Parse `template`; raises `InvalidUriTemplate` when it is malformed or longer than
        `max_length` characters or has more than `max_variables` variables (guards against
        resource exhaustion by untrusted templates)."""
        return cls(template, max_length=max_length, max_variables=max_variables)

    @staticmethod
    def is_template(value: str) -> bool:
        """Whether `value` has a `{` with a `}` somewhere after it (no validation)."""
        opening = value.find("{")
        return opening != -1 and value.find("}", opening) != -1

    @property
    def variables(self) -> list[Variable]:
        """Every variable, in order of appearance."""
        return list(self._variables)

    @property
    def variable_names(self) -> list[str]:
        """Every variable's name, in order of appearance (a new list, as officially)."""
        return list(self._variable_names)

    @property
    def query_variable_names(self) -> frozenset[str]:
        """The variables of the trailing `{?...}`/`{&...}` run: optional when matching, so a
        handler parameter bound to one needs a default (a frozenset, as officially)."""
        return self._query_names

    def __str__(self) -> str:
        return self.template

    # -- expansion ---------------------------------------------------------------------------

    def expand(self, values: Mapping[str, Any] | None = None, /, **kwargs: Any) -> str:
        """Build a URI. Values may be strings (or anything `str()` accepts), lists or mappings;
        missing and `None` values expand to nothing, as RFC 6570 specifies for undefined ones."""
        merged: Mapping[str, Any] = {**values, **kwargs} if values and kwargs else (values or kwargs)
        out: list[str] = []
        for part in self._parts:
            if isinstance(part, str):
                out.append(part)
            else:
                out.append(_expand_expression(part, merged))
        return "".join(out)

    # -- matching ----------------------------------------------------------------------------

    def match(self, uri: str, *, max_uri_length: int = DEFAULT_MAX_URI_LENGTH) -> dict[str, str | list[str]] | None:
        """The percent-decoded variable values if `uri` fits the template, else `None`.
        Optional query variables the URI leaves out are absent from the result. A URI longer than
        `max_uri_length` does not match (it is not even scanned). Time is linear in the URI's
        length (see `mcp.shared._uri_matcher`)."""
        if len(uri) > max_uri_length:
            return None
        return self._match(uri, None)

    def _match(self, uri: str, work: list[int] | None) -> dict[str, str | list[str]] | None:
        """`match` without the length cap; `work[0]` grows by the scan's cost (for tests)."""
        found = self._matcher.scan(uri, work)
        if found is None:
            return None
        starts, path_end = found
        steps = self._matcher.steps
        result: dict[str, str | list[str]] = {}
        for index, step in enumerate(steps):
            if not step.name:
                continue
            start = starts[index]
            stop = starts[index + 1] if index + 1 < len(steps) else path_end
            if step.kind == RUN:
                result[step.name] = unquote(uri[start:stop])
            elif step.kind == PARAM:  # ";x" or ";x=value"
                value_at = start + len(step.text) + 1
                result[step.name] = unquote(uri[value_at:stop]) if stop >= value_at else ""
            elif step.kind == SEGMENTS:  # "/a/b" or ".a.b"
                result[step.name] = [unquote(item) for item in uri[start:stop].split(step.text)[1:]]
            else:  # PARAMS: ";x=a;x=b"
                items: list[str] = []
                for chunk in uri[start:stop].split(";")[1:]:
                    _, eq, value = chunk.partition("=")
                    items.append(unquote(value) if eq else "")
                result[step.name] = items
        if self._query_names and path_end < len(uri):
            wanted = self._query_names
            for pair in uri[path_end + 1 :].split("&"):
                key, eq, value = pair.partition("=")
                key = unquote(key)
                if key in wanted and key not in result:
                    result[key] = unquote(value) if eq else ""
        return result


def _compile(parts: list[str | _Expression]) -> tuple[frozenset[str], Matcher]:
    """The names of the trailing query run, and the matcher for everything before it."""
    # The trailing run of query expressions (no literal between them) is matched leniently.
    tail: list[_Expression] = []
    for part in reversed(parts):
        if not (isinstance(part, _Expression) and part.operator in _QUERY_OPS):
            break
        tail.insert(0, part)
    head = parts[: len(parts) - len(tail)]
    query_names = frozenset(v.name for e in tail for v in e.variables)

    steps: list[Step] = []
    in_query = False
    for i, part in enumerate(head):
        if isinstance(part, str):
            _add_literal(steps, part)
            in_query = in_query or "?" in part
            continue
        rest = head[i + 1 :]
        later_query = bool(tail) or any(
            (isinstance(p, str) and "?" in p) or (isinstance(p, _Expression) and p.operator in _QUERY_OPS) for p in rest
        )
        later_fragment = any(
            (isinstance(p, str) and "#" in p) or (isinstance(p, _Expression) and p.operator == "#") for p in rest
        )
        _add_expression(steps, part, in_query, later_query, later_fragment)
        in_query = in_query or part.operator in _QUERY_OPS
    return query_names, Matcher(tuple(steps), ("&" if in_query else "?") if tail else "")


# -- parsing -----------------------------------------------------------------------------------


def _parse(template: str, max_variables: int) -> list[str | _Expression]:
    parts: list[str | _Expression] = []
    count = 0
    seen: set[str] = set()
    multi_segment: list[str] = []
    query_seen = False
    pos = 0
    length = len(template)
    while pos < length:
        brace = template.find("{", pos)
        literal = template[pos:] if brace < 0 else template[pos:brace]
        if literal:
            stray = literal.find("}")
            if stray >= 0:
                raise InvalidUriTemplate(
                    f"Unmatched '}}' at position {pos + stray} in URI template {template!r}",
                    template=template,
                    position=pos + stray,
                )
            parts.append(literal)
        if brace < 0:
            break
        close = template.find("}", brace + 1)
        if close < 0:
            raise InvalidUriTemplate(f"Unclosed expression at position {brace}", template=template, position=brace)
        expression = _parse_expression(template, template[brace + 1 : close], brace)
        count += len(expression.variables)
        if count > max_variables:
            raise InvalidUriTemplate(f"Template exceeds maximum of {max_variables} variables", template=template)
        if parts and isinstance(parts[-1], _Expression) and not _OPERATORS[expression.operator].first:
            raise InvalidUriTemplate(  # the official wording, which users match on
                f"Variables {parts[-1].variables[-1].name!r} and {expression.variables[0].name!r} are adjacent "
                "with no literal separator; matching cannot determine where one ends and the other begins. "
                "Add a literal between them or use a single variable.",
                template=template,
                position=brace,
            )
        for variable in expression.variables:
            if variable.name in seen:
                raise InvalidUriTemplate(
                    f"Variable {variable.name!r} appears more than once; repeated variables are not supported",
                    template=template,
                    position=brace,
                )
            seen.add(variable.name)
            if variable.explode or expression.operator in ("+", "#"):
                multi_segment.append(variable.name)
        if len(multi_segment) > 1:
            raise InvalidUriTemplate(  # the official wording
                "Template contains more than one multi-segment variable ({+var}, {#var}, or explode modifier); "
                "matching would be ambiguous",
                template=template,
                position=brace,
            )
        if expression.operator == "?":
            if query_seen:  # two `?` would expand to a URI with two query strings
                raise InvalidUriTemplate(
                    "Template contains more than one {?...} expression; "
                    "use {?a,b} or {?a}{&b} for multiple query parameters",
                    template=template,
                    position=brace,
                )
            query_seen = True
        parts.append(expression)
        pos = close + 1
    return parts


def _parse_expression(template: str, body: str, position: int) -> _Expression:
    where = f"expression {{{body}}} at position {position} in URI template {template!r}"

    def invalid(message: str) -> InvalidUriTemplate:
        return InvalidUriTemplate(message, template=template, position=position)

    if not body:
        raise invalid(f"Empty expression at position {position}")
    operator = ""
    if body[0] in _OPERATORS:
        operator, body = body[0], body[1:]
    elif body[0] in _RESERVED_OPERATORS:
        raise invalid(f"Operator {body[0]!r} is reserved by RFC 6570 and not supported: {where}")
    if not body:
        raise invalid(f"Expression has operator but no variables at position {position}")
    variables: list[Variable] = []
    for spec in body.split(","):
        if ":" in spec:
            raise invalid(f"Prefix modifier {{var:N}} is not supported (in {spec!r} at position {position})")
        explode = spec.endswith("*")
        name = spec[:-1] if explode else spec
        if not _VARNAME.fullmatch(name):
            raise invalid(f"Invalid variable name {name!r} at position {position}")
        if explode and operator not in _EXPLODABLE:  # `{?var*}` included: no order-free query matching
            raise invalid(f"Explode modifier on {{{operator}{name}*}} is not supported for matching")
        variables.append(Variable(name, cast(Operator, operator), explode))
    if len(variables) > 1 and any(v.explode for v in variables):
        raise invalid(f"An exploded variable must be alone in its expression: {where}")
    return _Expression(operator, tuple(variables))


# -- matcher steps -----------------------------------------------------------------------------
# Which characters end a value follows RFC 6570's expansion: a simple value never holds an
# unencoded `/`, `?` or `#` (nor `&` inside a query, nor the separator between several values of
# one expression), a label never holds `.`, a reserved value stops only at a later query/fragment.


def _add_literal(steps: list[Step], text: str) -> None:
    if not text:
        return
    if steps and steps[-1].kind == LITERAL:
        steps[-1] = Step(LITERAL, steps[-1].text + text)
    else:
        steps.append(Step(LITERAL, text))


def _add_expression(
    steps: list[Step], expression: _Expression, in_query: bool, later_query: bool, later_fragment: bool
) -> None:
    op = _OPERATORS[expression.operator]
    variables = expression.variables
    if variables[0].explode:  # alone in its expression (enforced at parse time)
        name = variables[0].name
        if op.named:
            steps.append(Step(PARAMS, ";" + name, ";/?#", 0, name))
        else:
            steps.append(Step(SEGMENTS, op.sep, "/?#" + ("." if op.sep == "." else ""), 1, name))
        return

    if op.reserved:  # `+` / `#`: exactly one variable (multi-segment rule)
        stops = ("?" if later_query else "") + ("#" if later_fragment else "")
        _add_literal(steps, op.first)
        steps.append(Step(RUN, "", stops, 1, variables[0].name))
        return

    if op.named:
        for index, variable in enumerate(variables):
            if expression.operator == ";":
                steps.append(Step(PARAM, ";" + variable.name, ";/?#", 0, variable.name))
            else:  # a `?`/`&` expression that is not in the trailing run: matched strictly
                _add_literal(steps, (op.first if index == 0 else op.sep) + variable.name + "=")
                steps.append(Step(RUN, "", "&#", 0, variable.name))
        return

    stops = "/?#"
    if in_query:
        stops += "&"
    if (len(variables) > 1 or op.sep == ".") and op.sep not in stops:
        stops += op.sep
    for index, variable in enumerate(variables):
        _add_literal(steps, op.first if index == 0 else op.sep)
        steps.append(Step(RUN, "", stops, 1, variable.name))


# -- expansion ---------------------------------------------------------------------------------


def _encode(value: str, reserved: bool) -> str:
    if not reserved:
        return quote(value, safe="")
    # Reserved expansion: reserved characters and existing %XX triplets pass through.
    return "".join(
        piece if _PCT_TRIPLET.fullmatch(piece) else quote(piece, safe=_RESERVED_SAFE)
        for piece in _PCT_TRIPLET.split(value)
    )


def _expand_expression(expression: _Expression, values: Mapping[str, Any]) -> str:
    op = _OPERATORS[expression.operator]
    items: list[str] = []
    for variable in expression.variables:
        value = values.get(variable.name)
        if value is None:
            continue
        name = variable.name
        if isinstance(value, Mapping):
            mapping = cast("Mapping[Any, Any]", value)
            pairs = [(str(k), str(v)) for k, v in mapping.items()]
            if not pairs:
                continue
            if variable.explode:
                items.extend(f"{_encode(k, op.reserved)}={_encode(v, op.reserved)}" for k, v in pairs)
            else:
                joined = ",".join(f"{_encode(k, op.reserved)},{_encode(v, op.reserved)}" for k, v in pairs)
                items.append(f"{name}={joined}" if op.named else joined)
        elif isinstance(value, (list, tuple)):
            elements = [str(v) for v in cast("list[Any]", value)]
            if not elements:
                continue
            if variable.explode:
                for element in elements:
                    encoded = _encode(element, op.reserved)
                    items.append((f"{name}={encoded}" if encoded else name + op.if_empty) if op.named else encoded)
            else:
                joined = ",".join(_encode(element, op.reserved) for element in elements)
                items.append(f"{name}={joined}" if op.named else joined)
        else:
            encoded = _encode(str(value), op.reserved)
            if op.named:
                items.append(f"{name}={encoded}" if encoded else name + op.if_empty)
            else:
                items.append(encoded)
    if not items:
        return ""
    return op.first + op.sep.join(items)
