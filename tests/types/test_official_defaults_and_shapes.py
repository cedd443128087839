"""The models answer as the official SDK's do: defaults, bases, union aliases, narrowed types."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import FileUrl

import mcp.types as types


def test_a_call_tool_result_is_not_an_error_unless_it_says_so() -> None:
    result = types.CallToolResult(content=[])
    assert result.is_error is False
    assert result == types.CallToolResult(content=[], is_error=False)
    assert types.CallToolResult.model_validate({"content": []}).is_error is False
    assert types.CallToolResult.model_json_schema()["required"] == ["content"]


def test_complete_results_are_tagged_complete_and_the_empty_result_dumps_empty() -> None:
    for result in (
        types.CallToolResult(content=[]),
        types.GetPromptResult(messages=[]),
        types.CompleteResult(completion=types.Completion(values=[])),
        types.ListToolsResult(tools=[]),
        types.ReadResourceResult(contents=[]),
        types.SubscriptionsListenResult(),
    ):
        assert result.result_type == "complete"
    assert types.EmptyResult().model_dump(by_alias=True, exclude_none=True) == {}
    assert "result_type" not in types.InitializeResult.model_fields
    assert "result_type" not in types.Result.model_fields


def test_cacheable_results_default_to_immediately_stale_and_private() -> None:
    listed = types.ListToolsResult(tools=[])
    assert (listed.ttl_ms, listed.cache_scope) == (0, "private")
    assert listed.model_dump(by_alias=True, exclude_none=True) == {
        "ttlMs": 0, "cacheScope": "private", "tools": [], "resultType": "complete"}
    with pytest.raises(ValueError):
        types.CacheableResult(ttl_ms=-1)


def test_unknown_members_of_results_and_capabilities_are_ignored() -> None:
    result = types.CallToolResult.model_validate({"content": [], "vendor": 1})
    assert "vendor" not in result.model_dump()
    caps = types.ServerCapabilities.model_validate({"tools": {"listChanged": True, "x": 1}, "y": {}})
    assert caps.to_wire() == {"tools": {"listChanged": True}}


@pytest.mark.parametrize(
    ("alias", "member"),
    [
        ("ContentBlock", types.TextContent(text="x")),
        ("SamplingContent", types.TextContent(text="x")),
        ("SamplingMessageContentBlock", types.ToolUseContent(id="1", name="t", input={})),
        ("ServerResult", types.CallToolResult(content=[])),
        ("ClientRequest", types.ListToolsRequest()),
        ("ServerNotification", types.ToolListChangedNotification()),
        ("InputResponse", types.ElicitResult(action="cancel")),
        ("ElicitRequestParams", types.ElicitRequestFormParams(message="m", requested_schema={})),
    ],
)
def test_union_aliases_work_with_isinstance(alias: str, member: Any) -> None:
    union = getattr(types, alias)
    assert isinstance(member, union)
    assert not isinstance(types.Root(uri=FileUrl("file:///x")), union)


def test_content_without_its_type_is_the_block_it_fits() -> None:
    result = types.CallToolResult.model_validate({"content": [{"text": "x"}]})
    assert isinstance(result.content[0], types.TextContent)
    message = types.PromptMessage.model_validate({"role": "user", "content": {"text": "x"}})
    assert isinstance(message.content, types.TextContent)


def test_list_requests_take_paginated_request_params() -> None:
    for request_class in (
        types.ListToolsRequest,
        types.ListPromptsRequest,
        types.ListResourcesRequest,
        types.ListResourceTemplatesRequest,
    ):
        request = request_class(params=types.PaginatedRequestParams(cursor="c"))
        assert isinstance(request, types.PaginatedRequest)
        assert request.model_dump(by_alias=True, exclude_none=True)["params"] == {"cursor": "c"}
    assert types.DiscoverRequest(params=types.RequestParams()).params == types.RequestParams()
    assert types.InitializedNotification(params=types.NotificationParams()).params is not None


def test_the_official_base_classes_hold() -> None:
    assert issubclass(types.ResourceLink, types.Resource)
    assert issubclass(types.Tool, types.BaseMetadata) and issubclass(types.Implementation, types.BaseMetadata)
    for name in ("ListToolsResult", "ListPromptsResult", "ListResourcesResult", "ListResourceTemplatesResult"):
        assert issubclass(getattr(types, name), types.PaginatedResult)
        assert issubclass(getattr(types, name), types.CacheableResult)
    link = types.ResourceLink(name="n", uri="file:///a")
    assert link.to_wire() == {"name": "n", "uri": "file:///a", "type": "resource_link"}


def test_a_progress_token_is_snake_case_in_python_and_camel_case_on_the_wire() -> None:
    params = types.RequestParams.model_validate({"_meta": {"progressToken": 5, "app/x": 1}})
    assert params.meta == {"progress_token": 5, "app/x": 1}
    assert params.to_wire() == {"_meta": {"progressToken": 5, "app/x": 1}}
    built = types.RequestParams(meta={"progress_token": 5})
    assert built.to_wire() == {"_meta": {"progressToken": 5}}


def test_a_root_uri_is_a_file_url() -> None:
    root = types.Root(uri=FileUrl("file:///x"))
    assert isinstance(root.uri, FileUrl) and root.uri.path == "/x"
    assert root.to_wire() == {"uri": "file:///x"}


def test_the_tasks_capabilities_are_models() -> None:
    client = types.ClientCapabilities.model_validate({"tasks": {"list": {}}})
    assert isinstance(client.tasks, types.ClientTasksCapability)
    server = types.ServerCapabilities(tasks=types.ServerTasksCapability())
    assert server.to_wire() == {"tasks": {}}


def test_a_sampling_answer_with_tool_use_is_the_with_tools_result() -> None:
    raw = {"role": "assistant", "model": "m", "content": {"type": "tool_use", "id": "1", "name": "t", "input": {}}}
    assert type(types.client_result_adapter.validate_python(raw)) is types.CreateMessageResultWithTools
    plain = {"role": "assistant", "model": "m", "content": {"type": "text", "text": "hi"}}
    assert type(types.client_result_adapter.validate_python(plain)) is types.CreateMessageResult


def test_completion_values_and_priorities_are_not_limited_by_the_models() -> None:
    assert len(types.Completion(values=["v"] * 101).values) == 101
    assert types.ModelPreferences(cost_priority=2).cost_priority == 2


def test_the_core_result_types_are_complete_and_input_required() -> None:
    assert frozenset({"complete", "input_required"}) == types.CORE_RESULT_TYPES


def test_every_mcp_types_name_is_the_mcp_types_object() -> None:
    import mcp_types

    assert [name for name in types.__all__ if getattr(mcp_types, name) is not getattr(types, name)] == []
    assert sorted(mcp_types.__all__) == sorted(types.__all__)
