"""Dependencies: parameters filled by the server's own functions (`Annotated[T, Resolve(fn)]`).

The graph is compiled at registration (bad graphs raise `InvalidSignature` there) and run once per
call, each resolver at most once. A resolver may return a question instead of a value -
`Elicit(...)`, `Sample(...)` or `ListRoots()` - which the framework answers in the era's own way:
a server->client request on the handshake wire, an `InputRequiredResult` round on 2026-07-28
(answers recorded in the sealed `requestState`, each pinned to the exact question asked).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Generic, cast, get_args, get_origin

from typing_extensions import TypeVar

from mcp._engine.workers import run_sync
from mcp.server.mcpserver.hints import is_async_callable, is_context_annotation, resolve_hints
from mcp.server.validation import validate_tool_use_result_messages, wants_sampling_tools
from mcp.shared.exceptions import InvalidSignature, MCPError
from mcp.types.jsonrpc import MISSING_REQUIRED_CLIENT_CAPABILITY
from mcp.types.version import MODERN_VERSIONS

if TYPE_CHECKING:
    from mcp.types import ModelPreferences, SamplingMessage, Tool, ToolChoice
    from mcp.types._sampling import IncludeContext

T = TypeVar("T", default=Any)


class Resolve:
    """Marker: `Annotated[T, Resolve(fn)]` - the parameter's value is `fn`'s return value."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __repr__(self) -> str:
        return f"Resolve({getattr(self.fn, '__name__', self.fn)!r})"


class Elicit(Generic[T]):
    """A question for the user: a form described by a flat model (compared and hashed by identity,
    as officially, so a marker can key a dict)."""

    def __init__(self, message: str, schema: type[T]) -> None:
        self.message = message
        self.schema = schema


class Sample:
    """A question for the client's model (`sampling/createMessage`): `params` is the request's
    `CreateMessageRequestParams`. Tool results in `messages` must answer the tool uses of the
    message before them (`ValueError` otherwise, at construction)."""

    def __init__(
        self,
        messages: list[SamplingMessage],
        *,
        max_tokens: int,
        system_prompt: str | None = None,
        include_context: IncludeContext | None = None,
        temperature: float | None = None,
        stop_sequences: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        model_preferences: ModelPreferences | None = None,
        tools: list[Tool] | None = None,
        tool_choice: ToolChoice | None = None,
    ) -> None:
        from mcp.types import CreateMessageRequestParams

        validate_tool_use_result_messages(messages)
        self.params = CreateMessageRequestParams(
            messages=messages, max_tokens=max_tokens, system_prompt=system_prompt, include_context=include_context,
            temperature=temperature, stop_sequences=stop_sequences, metadata=metadata,
            model_preferences=model_preferences, tools=tools, tool_choice=tool_choice,
        )


class ListRoots:
    """A question for the client: its current roots (`roots/list`)."""


Question = Elicit[Any] | Sample | ListRoots


class NeedInput(Exception):
    """Raised inside a 2026-07-28 call when a question has no recorded answer yet."""

    def __init__(self, key: str, request: dict[str, Any], state: dict[str, Any]) -> None:
        super().__init__(key)
        self.key = key
        self.request = request
        self.state = state


class ResolverDeclined(Exception):
    """The user declined or cancelled a question whose consumer wanted the data itself."""


# -- compilation ------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Node:
    fn: Callable[..., Any]
    is_async: bool
    inputs: list[tuple[str, str, Any]]
    """(parameter, kind, source): kind is "context", "resolve" (source: fn) or "argument"."""
    annotations: dict[str, Any]


@dataclass(slots=True)
class ResolverGraph:
    nodes: dict[Any, _Node] = field(default_factory=dict[Any, _Node])
    targets: list[tuple[str, Any, Any]] = field(default_factory=list[tuple[str, Any, Any]])
    """(tool parameter, resolver fn, the parameter's annotation)."""


def resolve_marker(annotation: Any) -> tuple[Any, Resolve] | None:
    """(inner type, marker) for `Annotated[T, Resolve(fn)]`, else None."""
    if get_origin(annotation) is Annotated:
        args = get_args(annotation)
        for extra in args[1:]:
            if isinstance(extra, Resolve):
                return args[0], extra
    return None


def compile_graph(tool_name: str, resolved: dict[str, tuple[Any, Resolve]], argument_names: set[str]) -> ResolverGraph:
    graph = ResolverGraph()
    visiting: list[Any] = []

    def visit(fn: Callable[..., Any]) -> None:
        if fn in graph.nodes:
            return
        if fn in visiting:
            cycle = " -> ".join(getattr(f, "__name__", repr(f)) for f in [*visiting[visiting.index(fn):], fn])
            raise InvalidSignature(f"Tool {tool_name!r}: resolver cycle {cycle}")
        visiting.append(fn)
        hints = resolve_hints(fn)
        inputs: list[tuple[str, str, Any]] = []
        for param in inspect.signature(fn).parameters.values():
            hint = hints.get(param.name, Any)
            marker = resolve_marker(hint)
            if is_context_annotation(hint):
                inputs.append((param.name, "context", None))
            elif marker is not None:
                visit(marker[1].fn)
                inputs.append((param.name, "resolve", marker[1].fn))
            elif param.name in argument_names:
                inputs.append((param.name, "argument", param.name))
            else:
                raise InvalidSignature(
                    f"Tool {tool_name!r}: resolver {getattr(fn, '__name__', fn)!r} parameter {param.name!r} is not a "
                    "Context, a Resolve(...) or one of the tool's arguments"
                )
        visiting.pop()
        graph.nodes[fn] = _Node(fn, is_async_callable(fn), inputs, hints)

    for param_name, (inner, marker) in resolved.items():
        visit(marker.fn)
        graph.targets.append((param_name, marker.fn, inner))
    return graph


# -- running ----------------------------------------------------------------------------------------


def _wants_full_elicitation(annotation: Any) -> bool:
    from mcp.server.elicitation import (
        AcceptedElicitation,
        CancelledElicitation,
        DeclinedElicitation,
        is_elicitation_result,
    )

    if is_elicitation_result(annotation):
        return True
    options = get_args(annotation) if get_origin(annotation) is not None else (annotation,)
    for option in options:
        origin = get_origin(option) or option
        if inspect.isclass(origin) and issubclass(origin, AcceptedElicitation | DeclinedElicitation | CancelledElicitation):
            return True
    return False


class Asker:
    """Answers questions for one call, in the era of the request."""

    def __init__(self, context: Any, recorded: dict[str, Any] | None) -> None:
        self.context = context
        ctx = context.request_context
        self.modern = ctx.protocol_version in MODERN_VERSIONS
        state = recorded or {}
        answers: dict[str, Any] = dict(state.get("answers") or {})
        asked: dict[str, str] = state.get("asked") or {}
        params = context.request_context.params  # the wire answers: they are recorded as they came
        responses: Any = (params.get("inputResponses") if params is not None else None) or {}
        if isinstance(responses, dict):
            for key, response in responses.items():  # pyright: ignore[reportUnknownVariableType]
                digest = asked.get(key)  # pyright: ignore[reportUnknownArgumentType]
                if digest is not None:
                    answers[digest] = response
        self.answers = answers

    def _require(self, question: Question, resolver: str) -> None:
        """Refuse (-32021) a question the client declared no capability for, naming the resolver
        and the capability: a bare `elicitation: {}` counts as form support, url-only does not;
        sampling with tools needs `sampling.tools`."""
        caps = self.context.client_capabilities
        declared: dict[str, Any] = caps.model_dump(exclude_none=True) if caps is not None else {}
        required: dict[str, Any]
        if isinstance(question, Elicit):
            elicitation = declared.get("elicitation")
            if elicitation is not None and ("form" in elicitation or "url" not in elicitation):
                return
            name = "form elicitation"
            required = {"elicitation": {"form": {}}}
        elif isinstance(question, Sample):
            sampling = declared.get("sampling")
            wants_tools = wants_sampling_tools(question.params.tools, question.params.tool_choice)
            if sampling is not None and (not wants_tools or "tools" in sampling):
                return
            name = "sampling.tools" if wants_tools else "sampling"
            required = {"sampling": {"tools": {}} if wants_tools else {}}
        else:
            if "roots" in declared:
                return
            name = "roots"
            required = {"roots": {}}
        raise MCPError(MISSING_REQUIRED_CLIENT_CAPABILITY,
                       f"Client did not declare the {name} capability required by resolver {resolver!r}",
                       {"requiredCapabilities": required})

    async def ask(self, key: str, question: Question, resolver: str = "") -> Any:
        """The raw answer (ElicitResult / CreateMessageResult / ListRootsResult as a dict)."""
        method, params = self._render(question)
        if self.modern:
            digest = hashlib.sha256(json.dumps([method, params], sort_keys=True, default=str).encode()).hexdigest()
            if digest in self.answers:
                return self.answers[digest]
            self._require(question, resolver or key)
            raise NeedInput(key, {"method": method, "params": params},
                            {"answers": self.answers, "asked": {key: digest}})
        session = self.context.session
        if not getattr(session, "has_back_channel", True):  # stateless HTTP: nothing can reach the client
            from mcp.shared.exceptions import NoBackChannelError

            raise NoBackChannelError(method)
        self._require(question, resolver or key)
        return await session.send_request(method, params)

    def _render(self, question: Question) -> tuple[str, dict[str, Any]]:
        if isinstance(question, Elicit):
            from mcp.server.elicitation import form_schema

            return "elicitation/create", {"mode": "form", "message": question.message,
                                          "requestedSchema": form_schema(question.schema)}
        if isinstance(question, Sample):
            return "sampling/createMessage", question.params.to_wire()
        return "roots/list", {}


async def run_graph(graph: ResolverGraph, arguments: dict[str, Any], context: Any, recorded: Any) -> dict[str, Any]:
    """Values for every resolved tool parameter (raises NeedInput / ResolverDeclined / MCPError)."""
    asker = Asker(context, recorded)
    done: dict[Any, Any] = {}

    async def value_of(fn: Any, key: str) -> Any:
        if fn in done:
            return done[fn]
        node = graph.nodes[fn]
        kwargs: dict[str, Any] = {}
        for name, kind, source in node.inputs:
            if kind == "context":
                kwargs[name] = context
            elif kind == "argument":
                kwargs[name] = arguments.get(source)
            else:
                kwargs[name] = await consume(name, source, node.annotations.get(name))
        if node.is_async:
            out = await fn(**kwargs)
        else:
            out = await run_sync(functools.partial(fn, **kwargs))
        if isinstance(out, Elicit | Sample | ListRoots):
            question = cast("Elicit[Any] | Sample | ListRoots", out)
            out = (question, await asker.ask(key, question, _resolver_name(fn)))
        done[fn] = out
        return out

    async def consume(param: str, fn: Any, annotation: Any) -> Any:
        value = await value_of(fn, param)
        if not isinstance(value, tuple) or len(value) != 2 or not isinstance(value[0], Elicit | Sample | ListRoots):  # pyright: ignore
            # A value the resolver produced itself counts as accepted.
            plain = cast("Any", value)
            return _accepted(plain) if _wants_full_elicitation(annotation) else plain
        question, answer = value  # pyright: ignore[reportUnknownVariableType]
        return _convert(param, question, answer, annotation)

    values: dict[str, Any] = {}
    for param, fn, annotation in graph.targets:
        values[param] = await consume(param, fn, annotation)
    return values


def _resolver_name(fn: Any) -> str:
    """`module:qualname` of a resolver (a callable object's type's), as errors name it."""
    qualname = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    module = getattr(fn, "__module__", None) or type(fn).__module__
    return f"{module}:{qualname}"


def _accepted(value: Any) -> Any:
    """`value` as the accepted outcome a parameter annotated `ElicitationResult[T]` receives
    (an outcome already is one)."""
    from mcp.server.elicitation import (
        AcceptedElicitation,
        CancelledElicitation,
        DeclinedElicitation,
    )

    if isinstance(value, AcceptedElicitation | DeclinedElicitation | CancelledElicitation):
        return cast("Any", value)
    return AcceptedElicitation[Any](data=value)


def _convert(param: str, question: Any, answer: Any, annotation: Any) -> Any:
    from pydantic import ValidationError

    from mcp.server.elicitation import to_result
    from mcp.types import CreateMessageResult, CreateMessageResultWithTools, ListRootsResult

    if not isinstance(answer, dict):
        raise ResolverDeclined(f"Resolver for parameter '{param}' could not resolve: the answer is not an object")
    try:
        if isinstance(question, Elicit):
            result = to_result(question.schema, answer)  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
            if _wants_full_elicitation(annotation):
                return result
            if result.action != "accept":
                raise ResolverDeclined(f"Resolver for parameter '{param}' could not resolve: elicitation was {result.action}")
            return result.data
        if isinstance(question, Sample):
            tools_mode = wants_sampling_tools(question.params.tools, question.params.tool_choice)
            model = CreateMessageResultWithTools if tools_mode else CreateMessageResult
            result = model.model_validate(answer)
        else:
            result = ListRootsResult.model_validate(answer)
        return _accepted(result) if _wants_full_elicitation(annotation) else result
    except ValidationError as exc:
        raise ResolverDeclined(f"Resolver for parameter '{param}' could not resolve: invalid answer: {exc}") from None
