"""From a tool's return value to `content` + `structured_content`: the structured-output rules.

At registration `compile_output` reads the return annotation once and picks an `OutputPlan`:

- no annotation, `structured_output=False`, content blocks/media/`CallToolResult` -> text only;
- a BaseModel, TypedDict, dataclass or class with annotated fields -> its own object schema,
  not wrapped;
- `dict[str, X]` -> an object schema titled `<fn>DictOutput`, not wrapped;
- anything else (scalars, None, list, tuple, union, Optional, `dict[int, X]`) -> wrapped in
  `{"result": ...}` with a schema titled `<fn>Output`;
- a class with no annotations -> text only (with a registration warning naming the fix), or an
  `InvalidSignature` error when `structured_output=True`.

At call time the plan validates the value against the schema's model and dumps it in JSON mode;
`to_content` renders the same value as content blocks for the model.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
import warnings
from collections.abc import Callable
from typing import Any, get_args, get_origin, get_type_hints

import pydantic_core
from pydantic import BaseModel, ConfigDict, RootModel, TypeAdapter, create_model
from typing_extensions import is_typeddict

from mcp.shared.exceptions import InvalidSignature

_SCALARS = (str, int, float, bool, bytes, type(None))


class OutputPlan:
    """How one tool's return value becomes structured content (None schema: text only)."""

    __slots__ = ("output_schema", "validate_and_dump")

    def __init__(self, output_schema: dict[str, Any] | None, validate_and_dump: Callable[[Any], Any] | None) -> None:
        self.output_schema = output_schema
        self.validate_and_dump = validate_and_dump


UNSTRUCTURED = OutputPlan(None, None)


def compile_output(fn_name: str, annotation: Any, structured_output: bool | None) -> OutputPlan:
    if structured_output is False:
        return UNSTRUCTURED
    if annotation is inspect.Signature.empty:
        if structured_output:
            raise InvalidSignature(f"Function {fn_name}: return annotation required for structured output")
        return UNSTRUCTURED
    bare = _strip_annotated(annotation)
    if _is_content_like(bare):
        if structured_output:
            raise InvalidSignature(f"Function {fn_name}: return type {annotation} is not serializable for structured output")
        return UNSTRUCTURED
    if inspect.isclass(bare) and issubclass(bare, BaseModel):
        return _model_plan(bare)
    if inspect.isclass(bare) and is_typeddict(bare):
        return _typeddict_plan(bare)
    if inspect.isclass(bare) and dataclasses.is_dataclass(bare):
        return _adapter_plan(TypeAdapter(bare))
    if _is_dict_with_str_keys(bare):
        model = create_model(f"{fn_name}DictOutput", __base__=RootModel[annotation])  # type: ignore[valid-type]
        return _model_plan(model, root=True)
    if (inspect.isclass(bare) and bare is not Any and not issubclass(bare, _SCALARS) and get_origin(bare) is None
            and not _is_builtin(bare)):
        fields = _class_fields(bare)
        if fields:
            model = create_model(bare.__name__, __config__=ConfigDict(from_attributes=True, arbitrary_types_allowed=True), **fields)
            return _model_plan(model)
        if structured_output:
            raise InvalidSignature(f"Function {fn_name}: return type {annotation} is not serializable for structured output")
        warnings.warn(
            f"Tool {fn_name!r} returns {bare.__qualname__}, a class with no annotated fields, so it gets no "
            f"output schema and its result is sent as text only. Annotate the class's fields (or make it a "
            f"dataclass or BaseModel), or pass structured_output=False to opt out explicitly.",
            UserWarning,
            stacklevel=4,
        )
        return UNSTRUCTURED
    model = create_model(f"{fn_name}Output", result=(annotation, ...), __config__=ConfigDict(arbitrary_types_allowed=True))
    return _wrapped_plan(model)


def _strip_annotated(annotation: Any) -> Any:
    while get_origin(annotation) is typing.Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _is_builtin(cls: type) -> bool:
    return cls.__module__ == "builtins"


def _class_fields(cls: type) -> dict[str, Any]:
    try:
        hints = get_type_hints(cls, include_extras=True)
    except Exception:
        hints = dict(getattr(cls, "__annotations__", {}))
    fields: dict[str, Any] = {}
    for name, hint in hints.items():
        if name.startswith("_") or get_origin(hint) is typing.ClassVar:
            continue
        fields[name] = (hint, getattr(cls, name, ...))
    return fields


def _is_dict_with_str_keys(annotation: Any) -> bool:
    origin = get_origin(annotation)
    if annotation is dict:
        return True
    if origin is dict:
        args = get_args(annotation)
        return not args or args[0] is str
    return False


def _content_types() -> tuple[type, ...]:
    from mcp.server.mcpserver.media import Audio, Image
    from mcp.types import (
        AudioContent,
        CallToolResult,
        EmbeddedResource,
        ImageContent,
        ResourceLink,
        TextContent,
    )

    return (TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource, CallToolResult, Image, Audio)


def _is_content_like(annotation: Any) -> bool:
    """Content blocks, media helpers, `CallToolResult`, and lists/unions made only of them."""
    if inspect.isclass(annotation):
        return issubclass(annotation, _content_types())
    origin = get_origin(annotation)
    args = [a for a in get_args(annotation) if a is not type(None) and a is not Ellipsis]
    if origin in (list, tuple, typing.Union, types.UnionType) or (
        origin is not None and getattr(origin, "__name__", "") == "Sequence"
    ):
        return bool(args) and all(_is_content_like(_strip_annotated(a)) for a in args)
    return False


def _model_plan(model: type[BaseModel], *, root: bool = False) -> OutputPlan:
    schema = model.model_json_schema(mode="serialization")
    validate = model.__pydantic_validator__.validate_python

    if root:
        def dump_root(value: Any) -> Any:
            return validate(value).model_dump(mode="json", by_alias=True)

        return OutputPlan(schema, dump_root)

    def dump(value: Any) -> Any:
        if type(value) is not model:
            value = validate(value)
        return value.model_dump(mode="json", by_alias=True)

    return OutputPlan(schema, dump)


def _adapter_plan(adapter: TypeAdapter[Any]) -> OutputPlan:
    schema = adapter.json_schema(mode="serialization")
    validate = adapter.validate_python
    dump = adapter.dump_python

    def run(value: Any) -> Any:
        return dump(validate(value), mode="json", by_alias=True)

    return OutputPlan(schema, run)


def _typeddict_plan(cls: type) -> OutputPlan:
    """A TypedDict (also `typing.TypedDict` before 3.12, which pydantic refuses) as a model of the
    same name; keys that are not required may be absent from the value."""
    required: frozenset[str] = getattr(cls, "__required_keys__", frozenset())
    fields = {name: (hint, ... if name in required else None)
              for name, hint in get_type_hints(cls, include_extras=True).items()}
    model = create_model(cls.__name__, __config__=ConfigDict(arbitrary_types_allowed=True), **fields)
    schema = model.model_json_schema(mode="serialization")
    validate = model.__pydantic_validator__.validate_python

    def run(value: Any) -> Any:
        return validate(value).model_dump(mode="json", by_alias=True, exclude_unset=True)

    return OutputPlan(schema, run)


def _wrapped_plan(model: type[BaseModel]) -> OutputPlan:
    schema = model.model_json_schema(mode="serialization")
    validate = model.__pydantic_validator__.validate_python

    def run(value: Any) -> Any:
        return validate({"result": value}).model_dump(mode="json", by_alias=True)

    return OutputPlan(schema, run)


# -- content --------------------------------------------------------------------------------------


def to_content(value: Any) -> list[Any]:
    """Render a return value as content blocks: text as is, lists flattened one block per item,
    media and content blocks passed through, anything else as JSON indented by 2."""
    from mcp.types import TextContent

    if value is None:
        return []
    if isinstance(value, str):
        return [TextContent(text=value)]
    if isinstance(value, list | tuple):
        out: list[Any] = []
        for item in value:  # pyright: ignore[reportUnknownVariableType]
            out.extend(to_content(item))
        return out
    if isinstance(value, BaseModel) and _is_block(value):
        return [value]
    media = getattr(value, "to_content_block", None)
    if media is not None:
        return [media()]
    return [TextContent(text=pydantic_core.to_json(value, fallback=str, indent=2).decode())]


def _is_block(value: BaseModel) -> bool:
    from mcp.types import AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextContent

    return isinstance(value, TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource)
