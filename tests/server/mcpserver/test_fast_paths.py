"""The pydantic-free fast paths give exactly what pydantic gives: schemas, values, errors."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from mcp.server.mcpserver.results import compile_output
from mcp.server.mcpserver.signature import inspect_function

SIMPLE = [int, str, float, bool]
DEFAULTS: dict[Any, Any] = {int: 3, str: "x", float: 1.5, bool: True}


def _make(name: str, spec: list[tuple[str, Any, bool]]) -> Any:
    params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=t,
                                default=DEFAULTS[t] if has_default else inspect.Parameter.empty)
              for n, t, has_default in spec]
    # defaults must come last
    params.sort(key=lambda p: p.default is not inspect.Parameter.empty)

    def fn(**kwargs: Any) -> Any:
        return kwargs

    fn.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    fn.__annotations__ = {p.name: p.annotation for p in params}
    fn.__name__ = name
    return fn


specs = st.lists(
    st.tuples(st.sampled_from(["a", "b", "city", "max_tokens", "x_y_z", "value2"]), st.sampled_from(SIMPLE),
              st.booleans()),
    max_size=5, unique_by=lambda t: t[0],
)


@settings(max_examples=200, deadline=None)
@given(specs)
def test_the_hand_written_input_schema_equals_pydantics(spec: list[tuple[str, Any, bool]]) -> None:
    sig = inspect_function(_make("tool", spec), "tool")
    assert sig._fast is not None
    assert sig.input_schema() == sig.arguments_model.model_json_schema(by_alias=True)


values = st.one_of(st.integers(), st.text(max_size=5), st.floats(allow_nan=False), st.booleans(), st.none(),
                   st.lists(st.integers(), max_size=2))


@settings(max_examples=300, deadline=None)
@given(specs, st.dictionaries(st.sampled_from(["a", "b", "city", "max_tokens", "x_y_z", "value2", "extra"]), values))
def test_fast_argument_validation_agrees_with_pydantic(spec: list[tuple[str, Any, bool]], arguments: dict[str, Any]) -> None:
    sig = inspect_function(_make("tool", spec), "tool")
    try:
        expected: Any = dict(sig.arguments_model.model_validate(arguments).__dict__)
    except ValidationError as exc:
        expected = str(exc)
    try:
        got: Any = sig.validate(arguments)
    except ValidationError as exc:
        got = str(exc)
    assert got == expected
    if isinstance(got, dict):
        assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in expected.items()}


@pytest.mark.parametrize("annotation", [int, str, float, bool, None])
def test_the_hand_written_scalar_output_schema_equals_pydantics(annotation: Any) -> None:
    from pydantic import create_model

    plan = compile_output("tool", annotation, None)
    model = create_model("toolOutput", result=(type(None) if annotation is None else annotation, ...))
    assert plan.output_schema == model.model_json_schema(mode="serialization")


@pytest.mark.parametrize(
    ("annotation", "value"),
    [(int, 3), (int, True), (int, "4"), (float, 2), (float, 2.5), (str, "s"), (bool, True), (bool, 1), (None, None)],
)
def test_scalar_outputs_dump_exactly_as_pydantic_does(annotation: Any, value: Any) -> None:
    from pydantic import create_model

    plan = compile_output("tool", annotation, None)
    model = create_model("toolOutput", result=(type(None) if annotation is None else annotation, ...))
    expected = model.model_validate({"result": value}).model_dump(mode="json")
    got = plan.dump(value)
    assert got == expected
    assert type(got["result"]) is type(expected["result"])


def test_a_parameter_defaulting_to_none_keeps_its_annotated_metadata_on_every_python() -> None:
    """Python 3.10's `get_type_hints` wraps such a hint in `Optional[...]`, which would push
    `json_schema_extra` (e.g. `x-mcp-header`) into a nested `anyOf`; 3.11+ does not."""
    from typing import Annotated

    from pydantic import Field

    def locate(query: str, region: Annotated[str | None, Field(json_schema_extra={"x-mcp-header": "Region"})] = None,
               limit: int = None) -> str:  # type: ignore[assignment]  # noqa: RUF013
        return query

    schema = inspect_function(locate, "locate").input_schema()
    assert schema["properties"]["region"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "Region", "x-mcp-header": "Region"}
    assert schema["properties"]["limit"] == {"default": None, "title": "Limit", "type": "integer"}
