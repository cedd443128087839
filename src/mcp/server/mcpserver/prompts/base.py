"""Prompts: message templates the user picks (`@mcp.prompt()`).

A `Prompt` is compiled once, at registration: its wire arguments (a flat list of named strings,
no schema), the model that validates them, and where a `Context` goes. `render` is the
prompts/get path: check required arguments, call the function (sync ones on a worker thread),
turn whatever it returned into `Message`s (`UserMessage`/`AssistantMessage`, as officially).
"""

from __future__ import annotations

import functools
import inspect
import json
import types
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, cast, get_args, get_origin

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, TypeAdapter, ValidationError, field_validator

from mcp._engine.workers import run_sync
from mcp.server.mcpserver.media import Audio, Image
from mcp.server.mcpserver.signature import Signature, inspect_function
from mcp.shared.exceptions import MCPError, PromptRenderingFailed
from mcp.types import (
    AudioContent,
    ContentBlock,
    EmbeddedResource,
    Icon,
    ImageContent,
    InputRequiredResult,
    PromptMessage,
    ResourceLink,
    Role,
    TextContent,
)

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

    from mcp.types import GetPromptResult
    from mcp.types import Prompt as WirePrompt

__all__ = [
    "AssistantMessage",
    "Message",
    "Prompt",
    "PromptArgument",
    "PromptResult",
    "SyncPromptResult",
    "UserMessage",
    "message_validator",
    "prompt_result",
]

_CONTENT_TYPES = (TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource)


def _to_content(value: Any) -> Any:
    """`str` -> `TextContent`; `Image`/`Audio` -> their block; anything else is left to validation."""
    if isinstance(value, str):
        return TextContent(text=value)
    if isinstance(value, Image | Audio):
        return value.to_content_block()
    return value



class Message(BaseModel):
    """One message of a rendered prompt: a role and one content block.

    `content` accepts a `str` (wrapped in `TextContent`), any content block (text, image, audio,
    resource link, embedded resource), or an `Image`/`Audio` helper.
    """

    model_config = ConfigDict(validate_by_name=True, validate_by_alias=True)

    role: Role
    content: ContentBlock

    def __init__(self, content: Any = None, **data: Any) -> None:
        if content is not None:
            data["content"] = content
        super().__init__(**data)

    @field_validator("content", mode="before")
    @classmethod
    def _coerce_content(cls, value: Any) -> Any:
        return _to_content(value)

    def to_prompt_message(self) -> PromptMessage:
        """This message as the wire `PromptMessage`."""
        return PromptMessage.model_construct(role=self.role, content=self.content)


class UserMessage(Message):
    """A message from the user (`role="user"`)."""

    role: Literal["user", "assistant"] = "user"

    def __init__(self, content: Any = None, **data: Any) -> None:
        super().__init__(content, **data)


class AssistantMessage(Message):
    """A message from the assistant (`role="assistant"`): pre-fills the model's turn."""

    role: Literal["user", "assistant"] = "assistant"

    def __init__(self, content: Any = None, **data: Any) -> None:
        super().__init__(content, **data)


message_validator: TypeAdapter[UserMessage | AssistantMessage] = TypeAdapter(
    Annotated[UserMessage | AssistantMessage, Field(union_mode="left_to_right")]
)
"""Validates a prompt message (a dict with `role` and `content`) into a `UserMessage` or
`AssistantMessage`."""

_PromptResultItem = Union[str, ContentBlock, Image, Audio, Message, dict[str, Any]]  # noqa: UP007
SyncPromptResult = Union[_PromptResultItem, InputRequiredResult, Sequence[_PromptResultItem]]  # noqa: UP007
"""What a sync prompt function may return."""
PromptResult = Union[SyncPromptResult, Awaitable[SyncPromptResult]]  # noqa: UP007
"""What a prompt function may return (an async one: an awaitable of it)."""


class PromptArgument(BaseModel):
    """One argument a prompt takes (arguments are named strings; no schema)."""

    name: str = Field(description="Name of the argument")
    description: str | None = Field(None, description="Description of what the argument does")
    required: bool = Field(default=False, description="Whether the argument is required")


class Prompt(BaseModel):
    """A registered prompt: its wire description and its compiled render plan."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = Field(description="Name of the prompt")
    title: str | None = Field(None, description="Human-readable title of the prompt")
    description: str | None = Field(None, description="Description of what the prompt does")
    arguments: list[PromptArgument] | None = Field(None, description="Arguments that can be passed to the prompt")
    fn: Callable[..., Any] = Field(exclude=True)
    icons: list[Icon] | None = Field(default=None, description="Optional list of icons for this prompt")
    context_kwarg: str | None = Field(None, description="Name of the kwarg that should receive context", exclude=True)
    _signature: Signature | None = PrivateAttr(default=None)

    @property
    def signature(self) -> Signature:
        """The compiled signature (inspected on first use when the prompt was built from fields)."""
        sig = self._signature
        if sig is None:
            skip = frozenset((self.context_kwarg,)) if self.context_kwarg else frozenset[str]()
            sig = self._signature = inspect_function(self.fn, self.name, skip=skip)
        return sig

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[Icon] | None = None,
        context_kwarg: str | None = None,
    ) -> Prompt:
        """Build a prompt from a function.

        The name defaults to the function's name and the description to its docstring. Each
        parameter (except the `Context` one, found by annotation or named by `context_kwarg`)
        becomes an argument: required when it has no default, described by
        `Field(description=...)` (plain default or inside `Annotated`). Raises `ValueError` for a
        lambda without a name and `InvalidSignature` for a signature that cannot be served.
        """
        fn_name = name or getattr(fn, "__name__", None) or type(fn).__name__
        if fn_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        skip: frozenset[str] = frozenset((context_kwarg,)) if context_kwarg else frozenset()
        signature = inspect_function(fn, fn_name, skip=skip)
        if context_kwarg is None:
            context_kwarg = signature.context_param
        aliases = dict(signature.renamed)
        model_fields: dict[str, FieldInfo] = signature.arguments_model.model_fields
        arguments = [
            PromptArgument(
                name=aliases.get(field_name, field_name),
                description=field.description,
                required=field.is_required(),
            )
            for field_name, field in model_fields.items()
        ]
        if description is None:
            description = inspect.getdoc(fn) or ""
        prompt = cls(
            fn=fn,
            name=fn_name,
            title=title,
            description=description,
            arguments=arguments,
            icons=icons,
            context_kwarg=context_kwarg,
        )
        prompt._signature = signature
        return prompt

    def to_wire(self) -> WirePrompt:
        """The `Prompt` listed by prompts/list."""
        from mcp.types import Prompt as WirePrompt
        from mcp.types import PromptArgument as WirePromptArgument

        return WirePrompt(
            name=self.name,
            title=self.title,
            description=self.description,
            arguments=[WirePromptArgument(name=a.name, description=a.description, required=a.required)
                       for a in self.arguments or ()],
            icons=self.icons,
        )

    async def render(
        self, arguments: dict[str, str] | None = None, context: Any = None
    ) -> list[Message] | InputRequiredResult:
        """Render the prompt: validate `arguments`, call the function, convert its return value
        into `Message`s.

        Raises `ValueError("Missing required arguments: {...}")` before the function runs when a
        required argument is absent, and `ValueError("Error rendering prompt <name>")` (the cause
        chained, never in the text) when validation, the function or the conversion fails. An
        `MCPError` raised by the function propagates unchanged. An `InputRequiredResult` returned
        by the function (a 2026-07-28 multi-round-trip prompt) is returned as is.
        """
        arguments = self._check_required(arguments)
        try:
            value = await self._invoke(self._kwargs(arguments, context))
            if isinstance(value, InputRequiredResult):
                return value
            return to_messages(value)
        except MCPError:
            raise
        except Exception as exc:
            raise PromptRenderingFailed(self.name) from exc

    @property
    def plain_sync(self) -> bool:
        """A sync function without a Context: rendering can run on a worker thread start to finish."""
        return not self.signature.is_async and self.context_kwarg is None

    def render_sync(self, arguments: dict[str, str] | None = None) -> list[Message]:
        """`render` for a `plain_sync` prompt, in the calling (worker) thread; raises as `render`."""
        arguments = self._check_required(arguments)
        try:
            value = self.fn(**self._kwargs(arguments, None))
            if inspect.isawaitable(value):
                if inspect.iscoroutine(value):
                    value.close()
                raise TypeError("a sync prompt function returned an awaitable")
            return to_messages(value)
        except MCPError:
            raise
        except Exception as exc:
            raise PromptRenderingFailed(self.name) from exc

    def _check_required(self, arguments: dict[str, str] | None) -> dict[str, str]:
        arguments = arguments or {}
        required = {arg.name for arg in self.arguments or () if arg.required}
        missing = required - arguments.keys()
        if missing:
            raise ValueError(f"Missing required arguments: {missing}")
        return arguments

    async def _invoke(self, kwargs: dict[str, Any]) -> Any:
        value: Any
        if self.signature.is_async:
            value = await self.fn(**kwargs)
        else:
            value = await run_sync(functools.partial(self.fn, **kwargs))
        if inspect.isawaitable(value):
            value = await value
        return value

    def _kwargs(self, arguments: dict[str, Any], context: Any) -> dict[str, Any]:
        """The function's keyword arguments: validated (JSON-decoded where a parameter is not a
        string), renamed back to parameter names, the Context added when it takes one."""
        sig = self.signature
        model = sig.arguments_model
        try:
            validated = model.model_validate(arguments)
        except ValidationError:
            parsed = _parse_json_arguments(model, dict(sig.renamed), arguments)
            if parsed is arguments:
                raise
            validated = sig.validate_bounded(parsed)  # decoded JSON may hold a million wrong items
        kwargs = {name: getattr(validated, name) for name in type(cast(BaseModel, validated)).model_fields}
        for field_name, param_name in sig.renamed:
            kwargs[param_name] = kwargs.pop(field_name)
        if self.context_kwarg is not None:
            kwargs[self.context_kwarg] = context
        return kwargs

    def __repr__(self) -> str:
        return f"Prompt(name={self.name!r}, arguments={[a.name for a in self.arguments or ()]!r})"


def _parse_json_arguments(
    model: type[BaseModel], aliases: dict[str, str], arguments: dict[str, Any]
) -> dict[str, Any]:
    """Prompt arguments arrive as strings: for parameters typed as something other than `str`,
    try a JSON reading of the value (`"[1, 2]"` for a `list[int]`). Returns `arguments` itself
    when nothing was parsed."""
    parsed: dict[str, Any] | None = None
    for field_name, field in model.model_fields.items():
        key = aliases.get(field_name, field_name)
        raw = arguments.get(key)
        if not isinstance(raw, str) or _accepts_str(field.annotation):
            continue
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if parsed is None:
            parsed = dict(arguments)
        parsed[key] = value
    return arguments if parsed is None else parsed


def _accepts_str(annotation: Any) -> bool:
    if annotation is str or annotation is Any:
        return True
    if get_origin(annotation) in (Union, types.UnionType):
        return any(_accepts_str(arg) for arg in get_args(annotation))
    return False


def to_messages(value: Any) -> list[Message]:
    """Turn what a prompt function returned into `Message`s.

    A `str`, a content block or an `Image`/`Audio` becomes one `UserMessage`; a `Message` stays
    itself; a wire `PromptMessage` becomes the `Message` of its role; a dict goes through
    `message_validator`; a list or tuple of any of these, messages in order. Any other value is
    sent as a user message of its JSON text.
    """
    items = cast("Sequence[Any]", value) if isinstance(value, list | tuple) else (value,)
    return [_to_message(item) for item in items]


def _to_message(item: Any) -> Message:
    if isinstance(item, Message):
        return item
    if isinstance(item, dict):
        return message_validator.validate_python(item)
    if isinstance(item, (str, Image, Audio, *_CONTENT_TYPES)):
        return UserMessage(item)
    if isinstance(item, PromptMessage):
        return (UserMessage if item.role == "user" else AssistantMessage)(item.content)
    text = pydantic_core.to_json(item, fallback=str, indent=2).decode()
    return UserMessage(text)


def prompt_result(description: str | None, messages: Sequence[Message]) -> GetPromptResult:
    """The prompts/get result for rendered `messages`."""
    from mcp.types import GetPromptResult

    return GetPromptResult(description=description, messages=[m.to_prompt_message() for m in messages])
