"""Size limits, variable descriptions and error details of `UriTemplate` (official API)."""

from __future__ import annotations

import pytest

import mcp
from mcp.shared import uri_template
from mcp.shared.uri_template import (
    DEFAULT_MAX_TEMPLATE_LENGTH,
    DEFAULT_MAX_URI_LENGTH,
    DEFAULT_MAX_VARIABLES,
    InvalidUriTemplate,
    UriTemplate,
    Variable,
)


def test_the_default_limits_are_the_official_ones() -> None:
    assert (DEFAULT_MAX_TEMPLATE_LENGTH, DEFAULT_MAX_VARIABLES, DEFAULT_MAX_URI_LENGTH) == (8192, 256, 65536)


def test_variables_describe_name_operator_and_explode_in_order() -> None:
    template = UriTemplate.parse("file://{+root}/{name}{.ext}{?q}")
    assert template.variables == [
        Variable(name="root", operator="+"),
        Variable(name="name", operator=""),
        Variable(name="ext", operator="."),
        Variable(name="q", operator="?"),
    ]
    assert UriTemplate.parse("/files{/segments*}").variables == [Variable("segments", "/", explode=True)]
    assert mcp.UriTemplate.parse("/a/{x}").variables == [Variable("x", "")]


def test_a_template_longer_than_max_length_is_rejected() -> None:
    with pytest.raises(InvalidUriTemplate, match="maximum length of 10") as raised:
        UriTemplate.parse("/abcdefghij/{x}", max_length=10)
    assert raised.value.template == "/abcdefghij/{x}"
    assert raised.value.position is None


def test_more_variables_than_max_variables_are_rejected_even_in_one_expression() -> None:
    with pytest.raises(InvalidUriTemplate, match="maximum of 2 variables"):
        UriTemplate.parse("/{a,b,c}", max_variables=2)
    assert UriTemplate.parse("/{a,b}", max_variables=2).variable_names == ["a", "b"]


def test_a_uri_longer_than_max_uri_length_does_not_match() -> None:
    template = UriTemplate.parse("/a/{x}")
    assert template.match("/a/bcd", max_uri_length=5) is None
    assert template.match("/a/bcd", max_uri_length=6) == {"x": "bcd"}


def test_invalid_uri_template_carries_the_template_and_the_position() -> None:
    with pytest.raises(InvalidUriTemplate) as raised:
        UriTemplate.parse("/x/{a")
    assert raised.value.template == "/x/{a"
    assert raised.value.position == 3
    error = InvalidUriTemplate("m", template="t", position=1)
    assert (str(error), error.template, error.position) == ("m", "t", 1)
    with pytest.raises(TypeError):
        InvalidUriTemplate("m", "t", 1)  # type: ignore[misc]  # keyword-only, as officially


def test_the_module_exports_the_official_names() -> None:
    assert set(uri_template.__all__) >= {
        "DEFAULT_MAX_TEMPLATE_LENGTH",
        "DEFAULT_MAX_URI_LENGTH",
        "DEFAULT_MAX_VARIABLES",
        "InvalidUriTemplate",
        "Operator",
        "UriTemplate",
        "Variable",
    }
    assert uri_template.InvalidUriTemplate is mcp.InvalidUriTemplate
