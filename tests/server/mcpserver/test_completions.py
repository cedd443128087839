"""The completion handler wrapper: what `@mcp.completion()` registers for `completion/complete`."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from mcp.server.mcpserver.completions import (
    MAX_COMPLETION_VALUES,
    CompletionHandler,
    RegisteredCompletion,
    to_complete_result,
)
from mcp.types import (
    CompleteResult,
    Completion,
    CompletionArgument,
    CompletionContext,
    PromptReference,
    ResourceTemplateReference,
)

LANGUAGES = ["go", "javascript", "python", "rust", "typescript"]
REPOS = {"modelcontextprotocol": ["python-sdk", "typescript-sdk", "inspector"]}


async def handler(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context: CompletionContext | None,
) -> Completion | None:
    if isinstance(ref, PromptReference) and ref.name == "review_code" and argument.name == "language":
        return Completion(values=[lang for lang in LANGUAGES if lang.startswith(argument.value)])
    if isinstance(ref, ResourceTemplateReference) and argument.name == "repo":
        owner = (context.arguments or {}).get("owner") if context else None
        if owner is None:
            return None
        return Completion(values=[r for r in REPOS.get(owner, []) if r.startswith(argument.value)])
    return None


def _wrapped() -> RegisteredCompletion:
    fn: CompletionHandler = handler
    return RegisteredCompletion(fn)


@pytest.mark.anyio
async def test_the_handler_values_are_returned_in_a_complete_result():
    result = await _wrapped().complete(
        PromptReference(name="review_code"), CompletionArgument(name="language", value="py"), None
    )
    assert isinstance(result, CompleteResult)
    assert result.completion.values == ["python"]
    assert result.to_wire() == {"completion": {"values": ["python"]}, "resultType": "complete"}


@pytest.mark.anyio
async def test_an_empty_prefix_gets_the_whole_list():
    result = await _wrapped()(
        PromptReference(name="review_code"), CompletionArgument(name="language", value=""), None
    )
    assert result.completion.values == LANGUAGES


@pytest.mark.anyio
async def test_none_from_the_handler_becomes_an_empty_list():
    result = await _wrapped().complete(
        PromptReference(name="review_code"), CompletionArgument(name="code", value="x"), None
    )
    assert result.completion.values == []
    assert result.completion.total is None
    assert result.completion.has_more is None


@pytest.mark.anyio
async def test_the_context_carries_already_resolved_arguments():
    ref = ResourceTemplateReference(uri="github://repos/{owner}/{repo}")
    argument = CompletionArgument(name="repo", value="")
    with_owner = await _wrapped().complete(
        ref, argument, CompletionContext(arguments={"owner": "modelcontextprotocol"})
    )
    without = await _wrapped().complete(ref, argument, None)
    assert with_owner.completion.values == ["python-sdk", "typescript-sdk", "inspector"]
    assert without.completion.values == []


@pytest.mark.anyio
async def test_plain_dicts_are_turned_into_the_models_the_handler_expects():
    seen: list[Any] = []

    async def record(ref: Any, argument: Any, context: Any) -> None:
        seen.extend([ref, argument, context])

    await RegisteredCompletion(record).complete(
        {"type": "ref/resource", "uri": "file:///{path}"},
        {"name": "path", "value": "a"},
        {"arguments": {"x": "1"}},
    )
    await RegisteredCompletion(record).complete(
        {"type": "ref/prompt", "name": "p"}, {"name": "a", "value": ""}
    )
    assert isinstance(seen[0], ResourceTemplateReference)
    assert isinstance(seen[1], CompletionArgument)
    assert seen[2] == CompletionContext(arguments={"x": "1"})
    assert isinstance(seen[3], PromptReference)
    assert seen[5] is None


@pytest.mark.anyio
async def test_total_and_has_more_set_by_the_handler_are_kept():
    async def sliced(ref: Any, argument: Any, context: Any) -> Completion:
        return Completion(values=["a", "b"], total=200, has_more=True)

    result = await RegisteredCompletion(sliced).complete(
        PromptReference(name="p"), CompletionArgument(name="a", value="")
    )
    assert result.to_wire() == {"completion": {"values": ["a", "b"], "total": 200, "hasMore": True},
                                "resultType": "complete"}


@pytest.mark.anyio
async def test_more_than_100_values_are_cut_to_100_with_total_and_has_more():
    async def many(ref: Any, argument: Any, context: Any) -> list[str]:
        return [f"v{i}" for i in range(250)]

    result = await RegisteredCompletion(many).complete(
        PromptReference(name="p"), CompletionArgument(name="a", value="")
    )
    assert len(result.completion.values) == MAX_COMPLETION_VALUES == 100
    assert result.completion.values[0] == "v0"
    assert result.completion.values[-1] == "v99"
    assert result.completion.total == 250
    assert result.completion.has_more is True


def test_a_handler_total_survives_truncation():
    oversized = Completion.model_construct(values=[str(i) for i in range(150)], total=1000, has_more=None)
    completion = to_complete_result(oversized).completion
    assert (len(completion.values), completion.total, completion.has_more) == (100, 1000, True)


def test_exactly_100_values_are_not_marked_as_truncated():
    completion = to_complete_result([str(i) for i in range(100)]).completion
    assert len(completion.values) == 100
    assert completion.total is None
    assert completion.has_more is None


def test_a_complete_result_and_a_completion_dict_are_accepted():
    ready = CompleteResult(completion=Completion(values=["x"]))
    assert to_complete_result(ready) is ready
    assert to_complete_result({"values": ["y"], "hasMore": False}).completion.has_more is False


def test_an_unsupported_return_value_raises_type_error():
    with pytest.raises(TypeError, match="Completion or None"):
        to_complete_result(42)


@pytest.mark.anyio
async def test_an_exception_from_the_handler_propagates():
    async def broken(ref: Any, argument: Any, context: Any) -> None:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await RegisteredCompletion(broken).complete(
            PromptReference(name="p"), CompletionArgument(name="a", value="")
        )


@pytest.mark.anyio
async def test_a_sync_handler_runs_on_a_worker_thread():
    threads: list[threading.Thread] = []

    def sync(ref: Any, argument: Any, context: Any) -> Completion:
        threads.append(threading.current_thread())
        return Completion(values=["s"])

    result = await RegisteredCompletion(sync).complete(
        PromptReference(name="p"), CompletionArgument(name="a", value="")
    )
    assert result.completion.values == ["s"]
    assert threads[0] is not threading.current_thread()
