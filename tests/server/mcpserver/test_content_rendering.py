"""Return values rendered as content blocks (`to_wire_content`): a list renders as the blocks
of its items in order, whatever mix of types it holds."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from mcp.server.mcpserver.results import to_wire_content
from mcp.types import ImageContent, TextContent


class Point(BaseModel):
    x: int
    y: int


ITEMS = st.one_of(
    st.text(max_size=5),
    st.integers(-5, 5),
    st.booleans(),
    st.none(),
    st.builds(Point, x=st.integers(0, 3), y=st.integers(0, 3)),
    st.builds(lambda t: TextContent(text=t), st.text(max_size=3)),
    st.just(ImageContent(data="aGk=", mime_type="image/png")),
    st.dictionaries(st.text(max_size=2), st.integers(0, 2), max_size=2),
)
VALUES = st.recursive(ITEMS, lambda inner: st.lists(inner, max_size=6) | st.tuples(inner, inner), max_leaves=20)


@given(st.lists(VALUES, max_size=12))
def test_a_list_renders_as_the_blocks_of_its_items_in_order(items: list[Any]) -> None:
    expected: list[dict[str, Any]] = []
    for item in items:
        expected.extend(to_wire_content(item))
    assert to_wire_content(items) == expected


def test_runs_of_models_and_text_render_one_block_each() -> None:
    blocks = to_wire_content([Point(x=1, y=2), Point(x=3, y=4), "note", None, [Point(x=0, y=0)], 7, True])
    assert blocks == [
        {"type": "text", "text": '{\n  "x": 1,\n  "y": 2\n}'},
        {"type": "text", "text": '{\n  "x": 3,\n  "y": 4\n}'},
        {"type": "text", "text": "note"},
        {"type": "text", "text": '{\n  "x": 0,\n  "y": 0\n}'},
        {"type": "text", "text": "7"},
        {"type": "text", "text": "true"},
    ]


class Labelled(BaseModel):
    label: str
    extra: Any = None


@given(st.lists(st.builds(Labelled, label=st.text(max_size=4), extra=st.one_of(st.none(), st.integers(), st.just(object()))),
                min_size=1, max_size=8))
def test_a_list_of_one_model_renders_each_item_as_pydantic_writes_it_alone(items: list[Labelled]) -> None:
    import pydantic_core

    expected = [{"type": "text", "text": pydantic_core.to_json(item, fallback=str, indent=2).decode()} for item in items]
    assert to_wire_content(items) == expected
    assert to_wire_content(tuple(items)) == expected


def test_a_list_of_one_scalar_type_renders_one_block_per_item() -> None:
    assert to_wire_content(["a", "b"]) == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert to_wire_content([1, 2]) == [{"type": "text", "text": "1"}, {"type": "text", "text": "2"}]
    assert to_wire_content([None, None]) == []
    assert to_wire_content([[1], [2]]) == [{"type": "text", "text": "1"}, {"type": "text", "text": "2"}]
