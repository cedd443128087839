"""`mcp.shared.uri_template.UriTemplate`: the operator subset of the URI-templates page, parse-time
rejections, matching, expansion, and expand/match round trips."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp.shared.exceptions import InvalidUriTemplate
from mcp.shared.uri_template import UriTemplate

# -- the documented reference table --------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "uri", "expected"),
    [
        ("x://{name}", "x://alice", {"name": "alice"}),
        ("x://{name}", "x://docs/intro.md", None),
        ("x://{+path}", "x://docs/intro.md", {"path": "docs/intro.md"}),
        ("x://file{.ext}", "x://file.json", {"ext": "json"}),
        ("x://api{/segment}", "x://api/v2", {"segment": "v2"}),
        ("x://s{?key}", "x://s?key=value", {"key": "value"}),
        ("x://s{?a,b}", "x://s?a=1&b=2", {"a": "1", "b": "2"}),
        ("x://p{/path*}", "x://p/a/b/c", {"path": ["a", "b", "c"]}),
    ],
)
def test_the_documented_patterns_extract_the_documented_values(
    template: str, uri: str, expected: dict[str, object] | None
) -> None:
    assert UriTemplate(template).match(uri) == expected


def test_a_plain_variable_stops_at_the_first_slash() -> None:
    template = UriTemplate("books://{isbn}")
    assert template.match("books://978-0441172719") == {"isbn": "978-0441172719"}
    assert template.match("books://978/extra") is None


def test_a_reserved_variable_keeps_the_slashes() -> None:
    template = UriTemplate("manuals://{+path}")
    assert template.match("manuals://returns.md") == {"path": "returns.md"}
    assert template.match("manuals://printing/setup.md") == {"path": "printing/setup.md"}


def test_query_variables_are_optional_unordered_and_ignore_extras() -> None:
    template = UriTemplate("reviews://{isbn}{?limit,sort}")
    assert template.match("reviews://978") == {"isbn": "978"}
    assert template.match("reviews://978?sort=top") == {"isbn": "978", "sort": "top"}
    assert template.match("reviews://978?other=1&sort=top&limit=5") == {"isbn": "978", "sort": "top", "limit": "5"}
    assert template.query_variable_names == frozenset({"limit", "sort"})


def test_a_query_parameter_without_a_value_matches_as_empty_and_the_first_occurrence_wins() -> None:
    template = UriTemplate("s://x{?q}")
    assert template.match("s://x?q") == {"q": ""}
    assert template.match("s://x?q=1&q=2") == {"q": "1"}


def test_a_uri_with_a_query_does_not_match_a_template_without_query_variables() -> None:
    assert UriTemplate("books://{isbn}").match("books://1?x=2") is None


def test_a_reserved_variable_stops_at_the_query_when_the_template_has_one() -> None:
    assert UriTemplate("files://{+path}{?rev}").match("files://a/b.txt?rev=3") == {"path": "a/b.txt", "rev": "3"}


def test_query_continuation_after_a_literal_query() -> None:
    template = UriTemplate("search://items?type=book{&q}")
    assert template.match("search://items?type=book&q=dune") == {"q": "dune"}
    assert template.match("search://items?type=book") == {}
    assert template.match("search://items?type=film&q=dune") is None


def test_an_exploded_path_variable_gives_a_list_and_may_be_empty() -> None:
    template = UriTemplate("shelves://browse{/path*}")
    assert template.match("shelves://browse/fiction/sci-fi") == {"path": ["fiction", "sci-fi"]}
    assert template.match("shelves://browse") == {"path": []}
    assert template.match("shelves://browse/") is None


def test_label_and_path_parameter_operators() -> None:
    assert UriTemplate("f://{name}{.ext}").match("f://archive.tar.gz") == {"name": "archive.tar", "ext": "gz"}
    assert UriTemplate("m://x{.parts*}").match("m://x.a.b") == {"parts": ["a", "b"]}
    assert UriTemplate("m://x{;a,b}").match("m://x;a=1;b") == {"a": "1", "b": ""}
    assert UriTemplate("m://x{;v*}").match("m://x;v=1;v=2") == {"v": ["1", "2"]}


def test_fragment_and_multi_variable_expressions() -> None:
    assert UriTemplate("d://{page}{#section}").match("d://intro#a/b") == {"page": "intro", "section": "a/b"}
    assert UriTemplate("g://{x,y}").match("g://3,4") == {"x": "3", "y": "4"}
    assert UriTemplate("g://p{/x,y}").match("g://p/3/4") == {"x": "3", "y": "4"}


def test_a_reserved_path_before_a_label_takes_everything_up_to_the_last_dot() -> None:
    assert UriTemplate("manuals://{+path}{.ext}").match("manuals://a/b.c/d.md") == {"path": "a/b.c/d", "ext": "md"}
    assert UriTemplate("manuals://{+path}/{ext}").match("manuals://a/b/c") == {"path": "a/b", "ext": "c"}


def test_values_are_percent_decoded_without_safety_checks() -> None:
    template = UriTemplate("files://{name}")
    assert template.match("files://..%2Fetc%2Fpasswd") == {"name": "../etc/passwd"}
    assert template.match("files://a%20b") == {"name": "a b"}
    assert UriTemplate("s://x{?q}").match("s://x?q=a%26b") == {"q": "a&b"}


def test_plain_variables_never_match_an_empty_value() -> None:
    assert UriTemplate("users://{id}/profile").match("users:///profile") is None


def test_literal_text_must_match_exactly() -> None:
    template = UriTemplate("users://{id}/profile")
    assert template.match("users://1/profile") == {"id": "1"}
    assert template.match("users://1/profile/") is None
    assert template.match("admins://1/profile") is None
    assert UriTemplate("a.b://{x}").match("aXb://1") is None


def test_a_template_without_variables_matches_only_itself() -> None:
    template = UriTemplate("config://app")
    assert template.variable_names == []
    assert template.match("config://app") == {}
    assert template.match("config://apps") is None


# -- parse-time rejections ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("manuals://{+path}{ext}", "adjacent with no literal separator"),
        ("x://{a}{b}", "adjacent with no literal separator"),
        ("x://{+a}/{+b}", "more than one multi-segment"),
        ("x://{+a}/{/b*}", "more than one multi-segment"),
        ("x://{#a}/{+b}", "more than one multi-segment"),
        ("x://{a", "Unclosed"),
        ("x://a}", "Unmatched"),
        ("x://{}", "Empty"),
        ("x://{a}/{a}", "appears more than once"),
        ("x://{var:3}", "Prefix modifier"),
        ("x://s{?vars*}", r"Explode modifier on \{\?vars\*\}"),
        ("x://{a*}", "Explode modifier"),
        ("x://{/a*,b}", "alone"),
        ("x://{=a}", "reserved"),
        ("x://{a b}", "Invalid variable name"),
        ("x://{+}", "operator but no variables"),
        ("x://{?a}{?b}", r"more than one \{\?\.\.\.\} expression"),
    ],
)
def test_malformed_templates_are_rejected_at_parse_time(template: str, message: str) -> None:
    with pytest.raises(InvalidUriTemplate, match=message):
        UriTemplate.parse(template)


def test_the_two_ambiguity_rejections_use_the_documented_wording() -> None:
    with pytest.raises(InvalidUriTemplate) as adjacent:
        UriTemplate.parse("manuals://{+path}{ext}")
    assert str(adjacent.value) == (
        "Variables 'path' and 'ext' are adjacent with no literal separator; matching cannot "
        "determine where one ends and the other begins. Add a literal between them or use a single variable."
    )
    assert adjacent.value.position == len("manuals://{+path}")
    with pytest.raises(InvalidUriTemplate) as twice:
        UriTemplate.parse("copy://{+source}/to/{+destination}")
    assert str(twice.value) == (
        "Template contains more than one multi-segment variable ({+var}, {#var}, or explode modifier); "
        "matching would be ambiguous"
    )


def test_a_delimiting_operator_may_follow_a_variable_directly() -> None:
    assert UriTemplate("manuals://{+path}{.ext}").variable_names == ["path", "ext"]
    assert UriTemplate("x://{a}{/b}{?c}").variable_names == ["a", "b", "c"]


def test_invalid_uri_template_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        UriTemplate("x://{")


# -- identity ----------------------------------------------------------------------------------


def test_str_gives_back_the_template_and_equal_templates_compare_equal() -> None:
    template = UriTemplate.parse("books://{isbn}")
    assert str(template) == "books://{isbn}"
    assert repr(template) == "UriTemplate(template='books://{isbn}')"
    assert template == UriTemplate("books://{isbn}")
    assert template != UriTemplate("books://{id}")
    assert len({template, UriTemplate("books://{isbn}")}) == 1
    assert UriTemplate.is_template("books://{isbn}")
    assert not UriTemplate.is_template("config://app")


# -- expansion ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "values", "expected"),
    [
        ("x://{v}", {"v": "a b/c"}, "x://a%20b%2Fc"),
        ("x://{+v}", {"v": "a b/c%20d"}, "x://a%20b/c%20d"),
        ("x://{#v}", {"v": "a/b"}, "x://#a/b"),
        ("x://f{.v}", {"v": "json"}, "x://f.json"),
        ("x://p{/v*}", {"v": ["a", "b/c"]}, "x://p/a/b%2Fc"),
        ("x://p{/v}", {"v": ["a", "b"]}, "x://p/a,b"),
        ("x://p{;v*}", {"v": ["1", ""]}, "x://p;v=1;v"),
        ("x://p{;a,b}", {"a": 1, "b": ""}, "x://p;a=1;b"),
        ("x://s{?a,b}", {"a": "", "b": [1, 2]}, "x://s?a=&b=1,2"),
        ("x://s{?a,b}", {"b": "2"}, "x://s?b=2"),
        ("x://s{?a,b}", {}, "x://s"),
        ("x://s{&a}", {"a": "1"}, "x://s&a=1"),
        ("x://s{?m}", {"m": {"k": "v"}}, "x://s?m=k,v"),
        ("x://s{/m*}", {"m": {"k": "v"}}, "x://s/k=v"),
        ("x://s{/v*}", {"v": []}, "x://s"),
    ],
)
def test_expansion_follows_rfc_6570(template: str, values: dict[str, object], expected: str) -> None:
    assert UriTemplate(template).expand(values) == expected


def test_expand_accepts_keyword_values() -> None:
    assert UriTemplate("users://{id}/posts{?page}").expand(id=7, page=2) == "users://7/posts?page=2"
    assert UriTemplate("users://{id}").expand({"id": 1}, id=2) == "users://2"


# -- round trips -------------------------------------------------------------------------------

_TEXT = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=30)
_SAFE = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="/?#%&="), min_size=1, max_size=20)


@given(value=_TEXT)
def test_any_non_empty_value_round_trips_through_a_plain_variable(value: str) -> None:
    template = UriTemplate("items://{id}/detail")
    assert template.match(template.expand({"id": value})) == {"id": value}


@given(a=_TEXT, b=_TEXT, limit=st.one_of(st.none(), _TEXT))
def test_path_and_query_values_round_trip_together(a: str, b: str, limit: str | None) -> None:
    template = UriTemplate("items://{a}/{b}{?limit}")
    expected = {"a": a, "b": b} if limit is None else {"a": a, "b": b, "limit": limit}
    assert template.match(template.expand({"a": a, "b": b, "limit": limit})) == expected


@given(segments=st.lists(_SAFE, max_size=5))
def test_exploded_segments_round_trip(segments: list[str]) -> None:
    template = UriTemplate("tree://root{/path*}")
    assert template.match(template.expand({"path": segments})) == {"path": segments}


@given(path=st.lists(_SAFE, min_size=1, max_size=4).map("/".join))
def test_reserved_paths_without_percent_signs_round_trip(path: str) -> None:
    template = UriTemplate("files://{+path}")
    assert template.match(template.expand({"path": path})) == {"path": path}
