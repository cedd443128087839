"""From a Python function to an MCP handler: its arguments (the input schema) and where a `Context`
goes. Inspected once, at registration; the pydantic arguments model is built on first use.

Signatures made only of `int`, `str`, `float` and `bool` parameters (with JSON-native defaults)
also get a fast path: their input schema is written directly (identical to pydantic's, pinned by
tests) and arguments of exactly the declared types are accepted without a model; anything else
falls back to the model, so values and error messages stay pydantic's.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Annotated, Any, cast, get_origin

from mcp.server.mcpserver.hints import is_async_callable, is_context_annotation, resolve_hints
from mcp.shared.exceptions import InvalidSignature
from mcp.shared.json_schema_check import bounded_text, has_more_values_than

logger = logging.getLogger("mcp.server.tools")

_MISSING: Any = object()
_FAST_TYPES: dict[Any, str] = {int: "integer", str: "string", float: "number", bool: "boolean"}
_JSON_SCALARS = (type(None), bool, int, float, str)


def _arg_model_base() -> Any:
    global _arg_model_base_cache
    if _arg_model_base_cache is None:
        from pydantic import BaseModel, ConfigDict

        class ArgModelBase(BaseModel):
            """Base of generated `<fn>Arguments` models."""

            model_config = ConfigDict(arbitrary_types_allowed=True, validate_by_name=True, validate_by_alias=True)

            def model_dump_one_level(self) -> dict[str, Any]:
                """The fields as keyword arguments (by alias when a field has one), values kept as
                they are (sub-models are not dumped)."""
                fields = type(self).model_fields
                return {info.alias or name: getattr(self, name) for name, info in fields.items()}

        _arg_model_base_cache = ArgModelBase
    return _arg_model_base_cache


_arg_model_base_cache: Any = None


def __getattr__(name: str) -> Any:
    if name == "ArgModelBase":
        return _arg_model_base()
    raise AttributeError(name)


def _title(name: str) -> str:
    """pydantic's default field title."""
    return name.replace("_", " ").title()


class Signature:
    """What registration learned about a function."""

    __slots__ = ("_fast", "_fast_failing", "_model", "_renamed", "context_param", "fn", "hints", "is_async", "name", "params",
                 "resolvers", "return_annotation")

    def __init__(self, fn: Callable[..., Any], name: str, params: list[tuple[str, Any, Any]], context_param: str | None,
                 return_annotation: Any, is_async: bool, hints: dict[str, Any], resolvers: Any) -> None:
        self.fn = fn
        self.name = name
        self.params = params
        """(name, annotation, default or _MISSING) of every argument the client supplies."""
        self.context_param = context_param
        self.return_annotation = return_annotation
        self.is_async = is_async
        self.hints = hints
        self.resolvers = resolvers
        """The compiled `Resolve(...)` graph (`dependencies.ResolverGraph`), or None."""
        self._model: Any = None
        self._fast_failing: Any = None
        self._renamed: tuple[tuple[str, str], ...] | None = None
        fast = all(annotation in _FAST_TYPES and (default is _MISSING or type(default) in _JSON_SCALARS)
                   for _, annotation, default in params)
        self._fast: tuple[tuple[str, type, Any], ...] | None = (
            tuple((n, a, d) for n, a, d in params) if fast else None)

    @property
    def needs_context(self) -> bool:
        return self.context_param is not None or self.resolvers is not None

    @property
    def renamed(self) -> tuple[tuple[str, str], ...]:
        """(field name, parameter name) where a parameter shadows a BaseModel attribute."""
        if self._renamed is None:
            from pydantic import BaseModel

            self._renamed = tuple((f"{n}__field", n) for n, _, _ in self.params if hasattr(BaseModel, n))
        return self._renamed

    @property
    def arguments_model(self) -> Any:
        """The `<name>Arguments` pydantic model (built on first use)."""
        model = self._model
        if model is None:
            from pydantic import Field, create_model

            renamed = dict((param, field) for field, param in self.renamed)
            fields: dict[str, Any] = {}
            for name, annotation, default in self.params:
                if name in renamed:
                    annotation = Annotated[annotation, Field(alias=name)]
                fields[renamed.get(name, name)] = (annotation, ... if default is _MISSING else default)
            model = self._model = create_model(f"{self.name}Arguments", __base__=_arg_model_base(), **fields)
        return model

    def input_schema(self) -> dict[str, Any]:
        fast = self._fast
        if fast is None:
            return self.arguments_model.model_json_schema(by_alias=True)
        properties: dict[str, Any] = {}
        required: list[str] = []
        for name, annotation, default in fast:
            prop: dict[str, Any] = {"title": _title(name), "type": _FAST_TYPES[annotation]}
            if default is _MISSING:
                required.append(name)
            else:
                prop = {"default": default, **prop}
            properties[name] = prop
        schema: dict[str, Any] = {"properties": properties}
        if required:
            schema["required"] = required
        schema["title"] = f"{self.name}Arguments"
        schema["type"] = "object"
        return schema

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Keyword arguments for the function; raises pydantic's `ValidationError` on bad input."""
        fast = self._fast
        if fast is not None:
            kwargs: dict[str, Any] = {}
            for name, annotation, default in fast:
                value = arguments.get(name, _MISSING)
                if value is _MISSING:
                    if default is _MISSING:
                        break
                    value = default
                elif type(value) is not annotation:
                    break
                kwargs[name] = value
            else:
                return kwargs
        validated = self.validate_bounded(arguments)
        kwargs = dict(validated.__dict__)
        for field_name, param_name in self.renamed:
            kwargs[param_name] = kwargs.pop(field_name)
        return kwargs


    def validate_bounded(self, arguments: Any) -> Any:
        """The arguments model validated from `arguments`, the error report bounded by the schema,
        not by the input. pydantic collects every error: a million wrong-typed items in a
        `list[int]` made a million-entry report (about 1 GB, a 177 MB answer, seconds of the event
        loop). Arguments of at most `REPORT_EVERY_ERROR_UP_TO` values (counted in at most that
        many steps) are validated as before: a report has at most about that many errors, and its
        text is pydantic's own. Larger ones are first checked by a validator that stops at the first
        error of each collection (`fail_fast_checker`): when it finds errors, `BoundedValidationError`
        carries its report and says more may follow; when it finds none, the model's own validator
        runs (a large valid input is validated twice, each time in linear work)."""
        full = self.arguments_model.__pydantic_validator__
        if not has_more_values_than(arguments, REPORT_EVERY_ERROR_UP_TO):
            return full.validate_python(arguments)
        checker = self._fast_failing
        if checker is None:
            checker = self._fast_failing = fail_fast_checker(self.arguments_model) or full
        if checker is not full:
            from pydantic import ValidationError

            try:
                checker.validate_python(arguments)
            except ValidationError as exc:
                raise BoundedValidationError(bounded_text(
                    f"{exc}\n(the arguments hold more than {REPORT_EVERY_ERROR_UP_TO} values: only the first "
                    "error of each list, set, tuple or dict is reported)")) from None
            except Exception:  # a model validator that needs its model instance: the full check decides
                pass
        return full.validate_python(arguments)


REPORT_EVERY_ERROR_UP_TO = 1_000
"""Arguments with at most this many JSON values get pydantic's full error report (so at most
about this many errors); larger ones the fail-fast report (`Signature.validate_bounded`)."""


class BoundedValidationError(ValueError):
    """Invalid arguments too large for a full report: pydantic's report of the first error of each
    collection, then a line saying so."""


_COLLECTIONS = frozenset({"list", "tuple", "set", "frozenset", "dict"})


def fail_fast_checker(model: Any) -> Any:
    """A validator accepting what `model`'s own accepts, stopping at the first error of every
    list, tuple, set, frozenset and dict (pydantic-core's `fail_fast`), or None when its schema
    cannot be rebuilt so. Its results are not the model's: a model schema (which pydantic-core
    would answer with the class's own, full validator) is replaced by its fields' schema."""
    from pydantic_core import SchemaValidator

    def rebuilt(node: Any) -> Any:
        if isinstance(node, dict):
            node = cast("dict[str, Any]", node)
            if node.get("type") == "model" and isinstance(node.get("schema"), dict):
                return rebuilt(node["schema"])
            copy = {key: rebuilt(value) for key, value in node.items()}
            if copy.get("type") in _COLLECTIONS and "fail_fast" not in copy:
                copy["fail_fast"] = True
            return copy
        if isinstance(node, list):
            return [rebuilt(item) for item in cast("list[Any]", node)]
        return node

    schema = model.__pydantic_core_schema__
    try:
        return SchemaValidator(rebuilt(schema), schema.get("config"))
    except Exception:  # an exotic schema: the model's validator alone (full reports, as before)
        logger.debug("No fail-fast checker for %s", model, exc_info=True)
        return None


def _resolver_marker(annotation: Any) -> Any:
    """`resolve_marker(annotation)`; only an `Annotated[...]` can carry a `Resolve`, so a plain
    annotation loads no dependency machinery (a server without resolvers never defines it)."""
    if get_origin(annotation) is not Annotated:
        return None
    from mcp.server.mcpserver.dependencies import resolve_marker

    return resolve_marker(annotation)


def inspect_function(fn: Callable[..., Any], name: str, *, skip: frozenset[str] = frozenset(),
                     free_form: bool = False) -> Signature:
    """Read the signature of `fn` once: client-supplied parameters, Context, resolvers."""
    hints = resolve_hints(fn)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise InvalidSignature(f"Cannot inspect the signature of {name!r}: {exc}") from exc
    params: list[tuple[str, Any, Any]] = []
    resolved: dict[str, Any] = {}
    context_param: str | None = None
    for param in sig.parameters.values():
        if param.name in skip:
            continue
        annotation = hints.get(param.name, Any)
        if is_context_annotation(annotation):
            context_param = param.name
            continue
        marker = _resolver_marker(annotation)
        if marker is not None:
            resolved[param.name] = marker
            continue
        if free_form and param.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise InvalidSignature(f"Function {name!r}: *args and **kwargs parameters are not supported")
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise InvalidSignature(f"Function {name!r}: positional-only parameter {param.name!r} is not supported")
        if param.name.startswith("_"):
            raise InvalidSignature(f"Function {name!r}: parameter {param.name!r} may not start with an underscore")
        params.append((param.name, annotation, _MISSING if param.default is inspect.Parameter.empty else param.default))
    graph = None
    if resolved:
        from mcp.server.mcpserver.dependencies import compile_graph

        graph = compile_graph(name, resolved, set(sig.parameters) - set(resolved))
    return_annotation = hints.get("return", inspect.Signature.empty)
    if "return" not in hints and sig.return_annotation is not inspect.Signature.empty:
        return_annotation = sig.return_annotation
    return Signature(fn, name, params, context_param, return_annotation, is_async_callable(fn), hints, graph)

