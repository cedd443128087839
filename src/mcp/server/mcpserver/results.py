"""From a tool's return value to `content` + `structured_content`: the structured-output rules.

At registration `compile_output` reads the return annotation once and picks an `OutputPlan`:

- no annotation, `structured_output=False`, content blocks/media/`CallToolResult` -> text only
  (`structured_output=True` forces the content-block classes' own schema; media still refuse);
- a BaseModel, TypedDict, dataclass or class with annotated fields -> its own object schema,
  not wrapped;
- `dict[str, X]` -> an object schema titled `<fn>DictOutput`, not wrapped;
- anything else (scalars, None, `list[X]`, tuple, union, Optional, `dict[int, X]`,
  `typing.Dict[...]`) -> wrapped in `{"result": ...}` with a schema titled `<fn>Output`;
- a bare builtin class (`dict`, `list`, `set`, `object`) or, on Python 3.11+ where it is a class,
  `Any` -> text only, as officially (on 3.10 `Any` is wrapped);
- a class with no annotations -> text only (with a registration warning naming the fix), or an
  `InvalidSignature` error when `structured_output=True`;
- `Annotated[CallToolResult, Model]` -> `Model`'s schema; the `CallToolResult` the tool builds
  is returned as is, its `structured_content` checked against the schema unless it is `is_error`.

Classification needs no pydantic; the schema and the validating model are built on first use.
Plain scalars (`int`, `str`, `float`, `bool`, `None`) returned with exactly their declared type
skip the model entirely (the result is the same value pydantic would produce).

At call time the plan validates the value against the schema's model and dumps it in JSON mode;
`to_wire_content` renders the same value as content blocks for the model.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import types
import typing
import warnings
from collections.abc import Callable
from typing import Any, cast, get_args, get_origin, get_type_hints

from typing_extensions import is_typeddict

from mcp.shared.exceptions import InvalidSignature

_SCALARS = (str, int, float, bool, bytes, type(None))
_FAST_SCALARS: dict[Any, str] = {int: "integer", str: "string", float: "number", bool: "boolean", type(None): "null"}


class OutputPlan:
    """How one tool's return value becomes structured content (no schema: text only)."""

    __slots__ = ("_build", "_built", "_fast_type", "_schema", "checks_results", "structured", "wrapped")

    def __init__(self, build: Callable[[], tuple[dict[str, Any], Callable[[Any], Any]]] | None,
                 *, schema: dict[str, Any] | None = None, fast_type: Any = None, wrapped: bool = False) -> None:
        self._build = build
        self._built: Callable[[Any], Any] | None = None
        self._schema = schema
        self._fast_type = fast_type
        self.structured = build is not None
        """Whether the tool has an output schema and structured content."""
        self.wrapped = wrapped
        """Whether the structured content is the value wrapped in `{"result": ...}`."""
        self.checks_results = False
        """`Annotated[CallToolResult, Model]`: a `CallToolResult` the tool builds (not `is_error`)
        has its `structured_content` checked against the schema."""

    def _ensure(self) -> Callable[[Any], Any]:
        built = self._built
        if built is None:
            assert self._build is not None
            schema, built = self._build()
            if self._schema is None:
                self._schema = schema
            self._built = built
        return built

    @property
    def output_schema(self) -> dict[str, Any] | None:
        if not self.structured:
            return None
        if self._schema is None:
            self._ensure()
        return self._schema

    @property
    def validate_and_dump(self) -> Callable[[Any], Any] | None:
        return self.dump if self.structured else None

    def dump(self, value: Any) -> Any:
        """Validate `value` against the schema and return its JSON form (raises ValidationError)."""
        if self._fast_type is not None and type(value) is self._fast_type:
            return {"result": value}
        return self._ensure()(value)

    def check(self, structured: Any) -> None:
        """Validate structured content as sent (already wrapped when the plan wraps) against the
        schema; raises `ValueError` (pydantic's ValidationError) when it does not fit."""
        if self.wrapped:
            if type(structured) is not dict or "result" not in structured:
                raise ValueError("structured content is not an object with a 'result' key")
            structured = cast("dict[str, Any]", structured)["result"]
        self.dump(structured)


UNSTRUCTURED = OutputPlan(None)


def compile_output(fn_name: str, annotation: Any, structured_output: bool | None) -> OutputPlan:
    if structured_output is False:
        return UNSTRUCTURED
    if annotation is inspect.Signature.empty:
        if structured_output:
            raise InvalidSignature(f"Function {fn_name}: return annotation required for structured output")
        return UNSTRUCTURED
    declared = _declared_by_call_tool_result(annotation)
    if declared is not None:  # `Annotated[CallToolResult, Model]`: Model is the output schema
        plan = compile_output(fn_name, declared, structured_output)
        if plan.structured:
            plan = OutputPlan(plan._build, schema=plan._schema, wrapped=plan.wrapped)
            plan.checks_results = True
        return plan
    bare = _strip_annotated(annotation)
    if bare is None:
        bare = annotation = type(None)
    if _is_content_like(bare):
        if not structured_output:
            return UNSTRUCTURED
        # Forced: the content-block classes are models and get their schema as any model does
        # (bare, or wrapped as list items / union arms); a `CallToolResult` is the result itself,
        # and the media helpers have no schema at all.
        if _is_class(bare) and bare.__name__ == "CallToolResult" and bare.__module__.startswith("mcp.types"):
            return UNSTRUCTURED
        if _mentions_media(bare):
            raise InvalidSignature(f"Function {fn_name}: return type {annotation} is not serializable for structured output")
    if bare in _FAST_SCALARS and bare is annotation:
        schema = {"properties": {"result": {"title": "Result", "type": _FAST_SCALARS[bare]}}, "required": ["result"],
                  "title": f"{fn_name}Output", "type": "object"}
        return OutputPlan(lambda: _wrapped(fn_name, annotation), schema=schema, fast_type=bare, wrapped=True)
    if _has_no_fields(bare):
        # `-> dict`, `-> list`, `-> set`, `-> object` and (3.11+, where it is a class) `-> Any`:
        # classes with no annotated fields, hence no schema, as officially (`dict[str, X]` is
        # structured below; `typing.Any` on 3.10 is not a class and is wrapped like a union).
        if structured_output:
            raise InvalidSignature(f"Function {fn_name}: return type {annotation} is not serializable for structured output")
        return UNSTRUCTURED
    if _is_class(bare) and _is_basemodel(bare):
        return OutputPlan(lambda: _model_plan(bare))
    if _is_class(bare) and is_typeddict(bare):
        return OutputPlan(lambda: _typeddict_plan(bare))
    if _is_class(bare) and dataclasses.is_dataclass(bare):
        return OutputPlan(lambda: _adapter_plan(bare))
    if _is_dict_with_str_keys(bare):
        return OutputPlan(lambda: _dict_plan(fn_name, annotation))
    # `typing.Any` is a class on Python 3.11+, hence the (to pyright, redundant) identity check.
    if (_is_class(bare) and bare is not Any  # pyright: ignore[reportUnnecessaryComparison]
            and not issubclass(bare, _SCALARS) and get_origin(bare) is None
            and not _is_builtin(bare)):
        fields = _class_fields(bare)
        if fields:
            return OutputPlan(lambda: _class_plan(bare, fields))
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
    return OutputPlan(lambda: _wrapped(fn_name, annotation), wrapped=True)


def _declared_by_call_tool_result(annotation: Any) -> Any:
    """For `Annotated[CallToolResult, Model, *rest]`: `Model` (or `Annotated[Model, *rest]`), the
    type its structured content is declared as; None for any other annotation."""
    if get_origin(annotation) is not typing.Annotated:
        return None
    inner, *metadata = get_args(annotation)
    if not metadata or not (_is_class(inner) and inner.__name__ == "CallToolResult"
                            and inner.__module__.startswith("mcp.types")):
        return None
    if len(metadata) == 1:
        return metadata[0]
    return typing.Annotated[tuple(metadata)]  # pyright: ignore[reportInvalidTypeArguments]


def _has_no_fields(annotation: Any) -> bool:
    """A builtin class other than the scalars (`dict`, `list`, `set`, `object`...), or `typing.Any`
    where it is a class (3.11+): nothing to build a schema from."""
    if annotation is Any:
        return sys.version_info >= (3, 11)
    return _is_class(annotation) and _is_builtin(annotation) and not issubclass(annotation, _SCALARS)


def _is_class(annotation: Any) -> bool:
    """A real class: on Python 3.10 `inspect.isclass` is also true for `list[X]` and the like,
    which `issubclass` then rejects."""
    return inspect.isclass(annotation) and get_origin(annotation) is None


def _is_basemodel(cls: type) -> bool:
    """No pydantic import: if pydantic was never imported, nothing can subclass BaseModel."""
    main = sys.modules.get("pydantic.main")
    return main is not None and issubclass(cls, main.BaseModel)


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
    """`dict[str, X]` (the builtin generic only: `typing.Dict[str, X]` is wrapped, as officially)."""
    if type(annotation) is not types.GenericAlias or get_origin(annotation) is not dict:
        return False
    args = get_args(annotation)
    return len(args) == 2 and args[0] is str


def _content_type_names() -> frozenset[str]:
    return frozenset({"TextContent", "ImageContent", "AudioContent", "ResourceLink", "EmbeddedResource",
                      "CallToolResult", "InputRequiredResult"})


def _is_content_like(annotation: Any) -> bool:
    """Content blocks, media helpers and `CallToolResult`, bare or as any item of a list/tuple or
    any arm of a union (one content arm is enough: such values render as blocks, not data)."""
    if _is_class(annotation):
        from mcp.server.mcpserver.media import Audio, Image

        if issubclass(annotation, Image | Audio):
            return True
        return annotation.__module__.startswith("mcp.types") and annotation.__name__ in _content_type_names()
    origin = get_origin(annotation)
    args = [a for a in get_args(annotation) if a is not type(None) and a is not Ellipsis]
    if origin in (list, tuple, typing.Union, types.UnionType) or (
        origin is not None and getattr(origin, "__name__", "") == "Sequence"
    ):
        return any(_is_content_like(_strip_annotated(a)) for a in args)
    return False


def _mentions_media(annotation: Any) -> bool:
    """`Image` or `Audio` (or `CallToolResult`) anywhere in the annotation: no schema can describe them."""
    if _is_class(annotation):
        from mcp.server.mcpserver.media import Audio, Image

        return issubclass(annotation, Image | Audio) or (
            annotation.__name__ == "CallToolResult" and annotation.__module__.startswith("mcp.types"))
    return any(_mentions_media(_strip_annotated(a)) for a in get_args(annotation) if a is not Ellipsis)


# -- plans (built on first use) -------------------------------------------------------------------------


def _model_plan(model: Any) -> tuple[dict[str, Any], Callable[[Any], Any]]:
    schema = model.model_json_schema(mode="serialization")
    validate = model.__pydantic_validator__.validate_python
    from mcp.types._base import model_serializer

    to_python = model_serializer(model).to_python

    def dump(value: Any) -> Any:
        if type(value) is not model:
            value = validate(value)
        return to_python(value, mode="json", by_alias=True)

    return schema, dump


def _dict_plan(fn_name: str, annotation: Any) -> tuple[dict[str, Any], Callable[[Any], Any]]:
    from pydantic import RootModel, create_model

    model = create_model(f"{fn_name}DictOutput", __base__=RootModel[annotation])  # type: ignore[valid-type]
    validate = model.__pydantic_validator__.validate_python
    serializer = model.__pydantic_serializer__
    return model.model_json_schema(mode="serialization"), lambda value: serializer.to_python(
        validate(value), mode="json", by_alias=True)


def _class_plan(cls: type, fields: dict[str, Any]) -> tuple[dict[str, Any], Callable[[Any], Any]]:
    from pydantic import ConfigDict, create_model

    model = create_model(cls.__name__, __config__=ConfigDict(from_attributes=True, arbitrary_types_allowed=True),
                         **fields)
    return _model_plan(model)


def _adapter_plan(cls: Any) -> tuple[dict[str, Any], Callable[[Any], Any]]:
    from pydantic import TypeAdapter

    adapter = TypeAdapter(cls)
    validate = adapter.validate_python
    dump = adapter.dump_python
    return adapter.json_schema(mode="serialization"), lambda value: dump(validate(value), mode="json", by_alias=True)


def _typeddict_plan(cls: type) -> tuple[dict[str, Any], Callable[[Any], Any]]:
    """A TypedDict (also `typing.TypedDict` before 3.12, which pydantic refuses) as a model of the
    same name; keys that are not required may be absent from the value."""
    from pydantic import ConfigDict, create_model

    required: frozenset[str] = getattr(cls, "__required_keys__", frozenset())
    fields: dict[str, Any] = {}
    for name, hint in get_type_hints(cls, include_extras=True).items():
        bare, needed = _without_qualifiers(hint, name in required)
        fields[name] = (bare, ... if needed else None)
    model = create_model(cls.__name__, __config__=ConfigDict(arbitrary_types_allowed=True),
                         __doc__=cls.__doc__, **fields)
    validate = model.__pydantic_validator__.validate_python
    serializer = model.__pydantic_serializer__
    schema = model.model_json_schema(mode="serialization")
    for name, prop in schema.get("properties", {}).items():
        if name not in fields or fields[name][1] is None:  # an optional key has no default, it is absent
            prop.pop("default", None)
    return schema, lambda value: serializer.to_python(validate(value), mode="json", by_alias=True, exclude_unset=True)


def _without_qualifiers(hint: Any, required: bool) -> tuple[Any, bool]:
    """`NotRequired[X]` / `Required[X]` / `ReadOnly[X]` -> (`X`, whether the key is required):
    `get_type_hints` keeps them with `include_extras=True` and pydantic refuses them on a model
    field. The qualifier decides over `__required_keys__`, which misses it when annotations are
    strings (`from __future__ import annotations` before Python 3.12)."""
    import typing_extensions

    qualifiers = {typing_extensions.NotRequired, typing_extensions.Required, typing_extensions.ReadOnly,
                  getattr(typing, "NotRequired", None), getattr(typing, "Required", None),
                  getattr(typing, "ReadOnly", None)} - {None}
    while (origin := get_origin(hint)) is not None and origin in qualifiers:
        if origin in (typing_extensions.NotRequired, getattr(typing, "NotRequired", None)):
            required = False
        elif origin in (typing_extensions.Required, getattr(typing, "Required", None)):
            required = True
        hint = get_args(hint)[0]
    return hint, required


def _wrapped(fn_name: str, annotation: Any) -> tuple[dict[str, Any], Callable[[Any], Any]]:
    from pydantic import ConfigDict, create_model

    model = create_model(f"{fn_name}Output", result=(annotation, ...), __config__=ConfigDict(arbitrary_types_allowed=True))
    validate = model.__pydantic_validator__.validate_python
    serializer = model.__pydantic_serializer__
    return model.model_json_schema(mode="serialization"), lambda value: serializer.to_python(
        validate({"result": value}), mode="json", by_alias=True)


# -- content --------------------------------------------------------------------------------------------


def to_wire_content(value: Any) -> list[dict[str, Any]]:
    """Render a return value as wire content blocks: text as is, lists flattened one block per
    item, media and content blocks passed through, anything else as JSON indented by 2."""
    kind = cast("type[Any]", type(value))
    if kind is str:
        return [{"type": "text", "text": value}]
    if value is None:
        return []
    if kind is list or kind is tuple:
        items = cast("list[Any]", value)
        if items and len(set(map(type, items))) == 1:
            blocks = _blocks_of_one_kind(items)
            if blocks is not None:
                return blocks
        out: list[dict[str, Any]] = []
        append = out.append
        last: Any = None
        text: Callable[[Any], str] | None = None
        render: Callable[[Any], list[dict[str, Any]]] | None = None
        for item in cast("list[Any]", value):
            item_kind = cast("type[Any]", type(item))
            if item_kind is not last:  # runs of one type look their renderer up once
                last = item_kind
                if item_kind is str:
                    text, render = str, None
                elif item_kind is list or item_kind is tuple or item is None:
                    text = render = None
                else:
                    text, render = _RENDERERS.get(item_kind) or _renderer(item_kind)
            if text is not None:  # one text block per item, built right here
                append({"type": "text", "text": text(item)})
            else:
                out.extend(to_wire_content(item) if render is None else render(item))
        return out
    text, render = _RENDERERS.get(kind) or _renderer(kind)
    return [{"type": "text", "text": text(value)}] if text is not None else render(value)


def _blocks_of_one_kind(items: list[Any]) -> list[dict[str, Any]] | None:
    """A list whose items are all of one type that renders as one text block each, in one tight
    pass (a tool returning `list[Model]` of 100 items pays the renderer lookup once and no
    per-item dispatch); None when that type renders otherwise (blocks, nested lists, None)."""
    kind = cast("type[Any]", type(items[0]))
    if kind is str:
        return [{"type": "text", "text": item} for item in items]
    if kind is list or kind is tuple or kind is type(None):
        return None
    text = (_RENDERERS.get(kind) or _renderer(kind))[0]
    if text is None:
        return None
    serializer = getattr(kind, "__pydantic_serializer__", None)
    if text is _MODEL_TEXTS.get(kind) and serializer is not None:  # the model's own serializer, as `text` does
        to_json = serializer.to_json
        return [{"type": "text", "text": to_json(item, fallback=str, indent=2).decode()} for item in items]
    return [{"type": "text", "text": text(item)} for item in items]


_MODEL_TEXTS: dict[type[Any], Callable[[Any], str]] = {}
"""The text functions `_text_for` made from a model's own serializer, by model class."""

_RENDERERS: dict[type[Any], tuple[Callable[[Any], str] | None, Callable[[Any], list[dict[str, Any]]]]] = {}
"""How each non-container type renders, decided once per type (content lists are often long and
homogeneous: a list of 100 models is 100 lookups, not 100 rounds of type inspection): as one text
block from its text, or (no text function) as the blocks its renderer returns."""


def _renderer(kind: type[Any]) -> tuple[Callable[[Any], str] | None, Callable[[Any], list[dict[str, Any]]]]:
    entry = _RENDERERS[kind] = _renderer_for(kind)
    return entry


def _renderer_for(kind: type[Any]) -> tuple[Callable[[Any], str] | None, Callable[[Any], list[dict[str, Any]]]]:
    if _is_block_type(kind):
        return None, lambda value: [value.to_wire()]
    if callable(getattr(kind, "to_content_block", None)):
        return None, lambda value: [value.to_content_block().to_wire()]
    text = _text_for(kind)
    return text, lambda value: [{"type": "text", "text": text(value)}]


def _text_for(kind: type[Any]) -> Callable[[Any], str]:
    """The text of a value that renders as one text block: ints and bools as JSON, anything else
    as JSON indented by 2 (a built pydantic model through its own serializer, skipping inference)."""
    if kind is int:
        return str
    if kind is bool:
        return lambda value: "true" if value else "false"
    import pydantic_core

    if isinstance(getattr(kind, "__pydantic_serializer__", None), pydantic_core.SchemaSerializer):
        text: Callable[[Any], str] = lambda value: kind.__pydantic_serializer__.to_json(  # noqa: E731
            value, fallback=str, indent=2).decode()
        _MODEL_TEXTS[kind] = text
        return text
    to_json = pydantic_core.to_json
    return lambda value: to_json(value, fallback=str, indent=2).decode()


def _is_block_type(kind: type[Any]) -> bool:
    if not kind.__module__.startswith("mcp.types"):
        return False
    from mcp.types import AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextContent

    return issubclass(kind, TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource)
