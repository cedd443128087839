"""`UriTemplate.match` gives the results of the greedy regular expression the matcher replaced,
and its work grows linearly with the URI's length, for every template the parser accepts.

The oracle below is the regex builder `UriTemplate` used before (issue 15: `{name}-{date}` took
1.5 s for a 16k-character URI that fails to match). Cost is the matcher's own deterministic
counter (states, candidate ends and characters scanned), never wall-clock time.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mcp.shared import _uri_matcher
from mcp.shared.exceptions import InvalidUriTemplate
from mcp.shared.uri_template import _OPERATORS, UriTemplate, _Expression

# -- the oracle: the old regex semantics -------------------------------------------------------


def _oracle(template: UriTemplate, uri: str) -> dict[str, Any] | None:
    parts: list[Any] = template._parts
    tail: list[_Expression] = []
    for part in reversed(parts):
        if not (isinstance(part, _Expression) and part.operator in ("?", "&")):
            break
        tail.insert(0, part)
    head = parts[: len(parts) - len(tail)]
    captures: list[tuple[str, str, str]] = []  # (name, kind, sep)
    pattern: list[str] = []
    in_query = False
    for i, part in enumerate(head):
        if isinstance(part, str):
            pattern.append(re.escape(part))
            in_query = in_query or "?" in part
            continue
        rest = head[i + 1 :]
        later_query = bool(tail) or any(
            (isinstance(p, str) and "?" in p) or (isinstance(p, _Expression) and p.operator in ("?", "&")) for p in rest
        )
        later_fragment = any(
            (isinstance(p, str) and "#" in p) or (isinstance(p, _Expression) and p.operator == "#") for p in rest
        )
        op = _OPERATORS[part.operator]
        names = [v.name for v in part.variables]
        if part.variables[0].explode:
            if op.named:
                captures.append((names[0], "named-list", ";"))
                pattern.append(f"((?:;{re.escape(names[0])}(?:=[^;/?#]*)?)*)")
            else:
                captures.append((names[0], "list", op.sep))
                excluded = "/?#" + ("." if op.sep == "." else "")
                pattern.append(f"((?:{re.escape(op.sep)}[^{re.escape(excluded)}]+)*)")
        elif op.reserved:
            excluded = ("?" if later_query else "") + ("#" if later_fragment else "")
            captures.append((names[0], "scalar", ""))
            pattern.append(re.escape(op.first) + (f"([^{re.escape(excluded)}]+)" if excluded else "(.+)"))
        elif op.named:
            for index, name in enumerate(names):
                if part.operator == ";":
                    captures.append((name, "optional", ""))
                    pattern.append(f";{re.escape(name)}(?:=([^;/?#]*))?")
                else:
                    captures.append((name, "scalar", ""))
                    lead = op.first if index == 0 else op.sep
                    pattern.append(f"{re.escape(lead)}{re.escape(name)}=([^&#]*)")
        else:
            excluded = "/?#" + ("&" if in_query else "")
            if (len(names) > 1 or op.sep == ".") and op.sep not in excluded:
                excluded += op.sep
            value = f"([^{re.escape(excluded)}]+)"
            pattern.append(re.escape(op.first) + re.escape(op.sep).join(value for _ in names))
            captures.extend((name, "scalar", "") for name in names)
        in_query = in_query or part.operator in ("?", "&")
    if tail:
        pattern.append(f"(?:{'&' if in_query else chr(92) + '?'}([^#]*))?")
    m = re.compile("".join(pattern), re.DOTALL).fullmatch(uri)
    if m is None:
        return None
    result: dict[str, Any] = {}
    for index, (name, kind, sep) in enumerate(captures, 1):
        raw = m.group(index)
        if kind == "scalar":
            result[name] = unquote(raw)
        elif kind == "optional":
            result[name] = unquote(raw) if raw is not None else ""
        elif kind == "list":
            result[name] = [unquote(item) for item in raw.split(sep)[1:]] if raw else []
        else:
            result[name] = [unquote(c.partition("=")[2]) if "=" in c else "" for c in raw.split(";")[1:]]
    if tail and m.group(len(captures) + 1):
        wanted = {v.name for e in tail for v in e.variables}
        for pair in m.group(len(captures) + 1).split("&"):
            key, eq, value = pair.partition("=")
            key = unquote(key)
            if key in wanted and key not in result:
                result[key] = unquote(value) if eq else ""
    return result


# -- strategies --------------------------------------------------------------------------------

_LITERALS = ["x", "-", ".", "/", ",", ";", "?", "&", "=", "#", "a", "%2F", "ab", "-x", "/a."]
_URI_PIECES = ["x", "y", "-", ".", "/", ",", ";", "?", "&", "=", "#", "%2F", "a", "b", "a=", ";a", "\n"]


@st.composite
def templates(draw: st.DrawFn) -> UriTemplate:
    names = iter("abcdefghij")
    text = "s://"
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            text += draw(st.sampled_from(_LITERALS))
        op = draw(st.sampled_from(["", "", "+", "#", ".", "/", ";", "?", "&"]))
        if op in ("/", ".", ";") and draw(st.integers(0, 3)) == 0:
            text += "{" + op + next(names) + "*}"
        else:
            text += "{" + op + ",".join(next(names) for _ in range(draw(st.integers(1, 2)))) + "}"
    if draw(st.booleans()):
        text += draw(st.sampled_from(_LITERALS))
    try:
        return UriTemplate.parse(text)
    except InvalidUriTemplate:
        assume(False)
        raise


_VALUES = st.text(st.sampled_from(["x", "-", ".", "/", ",", ";", "=", "&", "?", "#", "a", "é"]), max_size=4)


@st.composite
def template_and_uri(draw: st.DrawFn) -> tuple[UriTemplate, str]:
    template = draw(templates())
    if draw(st.booleans()):  # a URI the template produced, perhaps edited
        values: dict[str, Any] = {}
        for variable in template.variables:
            if variable.explode:
                values[variable.name] = draw(st.lists(_VALUES, max_size=3))
            else:
                values[variable.name] = draw(st.one_of(st.none(), _VALUES))
        uri = template.expand(values)
        if uri and draw(st.booleans()):
            at = draw(st.integers(0, len(uri)))
            uri = uri[:at] + draw(st.sampled_from(_URI_PIECES)) + uri[at:]
    else:
        uri = "s://" + "".join(draw(st.lists(st.sampled_from(_URI_PIECES), max_size=12)))
    return template, uri


@pytest.mark.parametrize("prune_from", [_uri_matcher.PRUNE_FROM, 0], ids=["short-uris-unpruned", "always-pruned"])
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(case=template_and_uri())
def test_matching_agrees_with_the_greedy_regular_expression(prune_from: int, case: tuple[UriTemplate, str]) -> None:
    template, uri = case
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_uri_matcher, "PRUNE_FROM", prune_from)
        assert template.match(uri) == _oracle(template, uri)


@pytest.mark.parametrize(
    ("template", "uri", "expected"),
    [
        ("pair://{name}-{date}", "pair://report-2024-01-01", {"name": "report-2024-01", "date": "01"}),
        ("x://{a}.{b}", "x://a.b.c", {"a": "a.b", "b": "c"}),
        ("x://{a},{b}", "x://1,2,3", {"a": "1,2", "b": "3"}),
        ("x://{a}/{b,c}", "x://1/2,3,4", None),  # `,` cannot be in the values of one expression
        ("x://{a}-{+b}", "x://1-2-3/4", {"a": "1-2", "b": "3/4"}),
        ("x://{+a}-{b}", "x://1-2/3-4", {"a": "1-2/3", "b": "4"}),
        ("x://p{/a*}/{b}", "x://p/1/2/3", {"a": ["1", "2"], "b": "3"}),
        ("x://p{;a*}x", "x://p;a=1;a;a=2x", {"a": ["1", "", "2"]}),
        ("x://p{;a}=b", "x://p;a=b", {"a": ""}),
        ("x://{a}?k={b}{&c}", "x://1?k=2&c=3&c=4", {"a": "1", "b": "2", "c": "3"}),
    ],
)
def test_values_are_as_long_as_the_rest_of_the_template_allows_left_to_right(
    template: str, uri: str, expected: dict[str, Any] | None
) -> None:
    parsed = UriTemplate.parse(template)
    assert parsed.match(uri) == expected == _oracle(parsed, uri)


# -- linear cost -------------------------------------------------------------------------------


def _work(template: UriTemplate, uri: str) -> int:
    counter = [0]
    template._match(uri, counter)
    return counter[0]


@pytest.mark.parametrize(
    ("template", "unit", "end"),
    [
        ("pair://{name}-{date}", "-", "/"),
        ("pair://{name}-{date}", "-", ""),
        ("x://{a}.{b}", ".", "/?#"),
        ("x://{a},{b}", ",", "/"),
        ("x://{+a}-{b}", "-", "/"),
        ("x://{a}-{b}-{c}", "-a", "/"),
        ("x://{a}-{+b}/{c}", "-/", "?"),
        ("x://{a}{.b*}", ".a", "/"),
        ("x://{a}{;b*}", ";b=", "/"),
        ("x://{a}{/b,c}", "/a", "#"),
        ("x://{a}{?q}", "?q=", "#"),
        ("x://s{&q}{/p*}-{r}", "&q=/-", "/"),
        ("x://{a}=b{;c}=d", "=b;c=d", ""),
    ],
)
@pytest.mark.parametrize("prune_from", [_uri_matcher.PRUNE_FROM, 1 << 62], ids=["pruned", "search-alone"])
def test_the_work_of_a_failing_match_grows_linearly_with_the_uri(
    template: str, unit: str, end: str, prune_from: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_uri_matcher, "PRUNE_FROM", prune_from)
    parsed = UriTemplate.parse(template)
    prefix = template.split("{")[0]
    assert (prefix + unit * 2).startswith(parsed._matcher.steps[0].text)  # not refused on its scheme
    small = _work(parsed, prefix + unit * 2_000 + end)
    large = _work(parsed, prefix + unit * 16_000 + end)
    # Eight times the URI, at most about eight times the work (a quadratic matcher: 64 times).
    assert large <= 9 * small + 1_000


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(template=templates(), chunk=st.lists(st.sampled_from(_URI_PIECES), min_size=1, max_size=4).map("".join))
def test_the_work_of_any_match_is_bounded_by_uri_length_times_template_size(template: UriTemplate, chunk: str) -> None:
    steps = len(template._matcher.steps) + 1
    for repeat in (50, 400):
        uri = "s://" + chunk * repeat
        assert _work(template, uri) <= 12 * (len(uri) + 1) * steps
    small = _work(template, "s://" + chunk * 300)  # both past PRUNE_FROM: the same path
    assert _work(template, "s://" + chunk * 2_400) <= 9 * small + 1_000


def test_a_long_uri_is_matched_when_the_caller_raises_the_length_cap() -> None:
    template = UriTemplate.parse("pair://{name}-{date}")
    uri = "pair://" + "-" * 1_000_000 + "x"
    assert template.match(uri) is None  # longer than DEFAULT_MAX_URI_LENGTH
    assert template.match(uri, max_uri_length=2_000_000) == {"name": "-" * 999_999, "date": "x"}
    assert template.match(uri + "/", max_uri_length=2_000_000) is None
