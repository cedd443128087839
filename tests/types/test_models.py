"""How the models behave: naming and aliases, unknown fields, unions, and the generic bases."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import TypeAdapter, ValidationError

import mcp.types as types


def test_a_model_is_built_from_python_names_or_wire_names_alike() -> None:
    by_name = types.Resource(uri="file:///a", name="a", mime_type="text/plain", meta={"k": 1})
    by_alias = types.Resource.model_validate(
        {"uri": "file:///a", "name": "a", "mimeType": "text/plain", "_meta": {"k": 1}}
    )
    assert by_name == by_alias
    camel = types.Resource(uri="file:///a", name="a", mimeType="text/plain")  # pyright: ignore[reportCallIssue]
    assert camel == by_name.model_copy(update={"meta": None})


def test_meta_is_spelled_underscore_meta_on_the_wire_and_meta_in_python() -> None:
    params = types.CallToolRequestParams(name="t", _meta={"progressToken": 7})  # type: ignore[call-arg]
    assert params.meta == {"progress_token": 7}
    assert params.to_wire() == {"_meta": {"progressToken": 7}, "name": "t"}
    assert "_meta" in types.ResourceUpdatedNotificationParams(uri="u", meta={"x": 1}).to_wire()


def test_unknown_fields_are_ignored_by_data_models() -> None:
    prompt = types.Prompt.model_validate(
        {"name": "p", "futureField": 1, "arguments": [{"name": "a", "x": 2}]}
    )
    assert not hasattr(prompt, "futureField")
    assert prompt.to_wire() == {"name": "p", "arguments": [{"name": "a"}]}


def test_unknown_fields_of_results_are_dropped_and_those_of_subscription_filters_kept() -> None:
    result = types.ListPromptsResult.model_validate({"prompts": [], "vendorHint": {"a": 1}})
    assert "vendorHint" not in result.to_wire()
    flt = types.SubscriptionFilter.model_validate({"toolsListChanged": True, "taskIds": ["t1"]})
    assert flt.to_wire() == {"toolsListChanged": True, "taskIds": ["t1"]}


def test_model_dump_without_nones_prints_python_names() -> None:
    params = types.ReadResourceRequestParams(
        uri="file:///x", request_state="s", input_responses={"k": types.ElicitResult(action="decline")}
    )
    assert params.model_dump(exclude_none=True) == {
        "uri": "file:///x",
        "request_state": "s",
        "input_responses": {"k": {"action": "decline"}},
    }
    assert params.to_wire() == {
        "uri": "file:///x",
        "requestState": "s",
        "inputResponses": {"k": {"action": "decline"}},
    }


def test_validating_by_alias_only_ignores_python_names() -> None:
    template = types.ResourceTemplate.model_validate(
        {"name": "t", "uriTemplate": "file:///{p}", "mime_type": "text/plain"}, by_name=False
    )
    assert template.mime_type is None
    with pytest.raises(ValidationError):
        types.ResourceTemplate.model_validate({"name": "t", "uri_template": "file:///{p}"}, by_name=False)


def test_input_responses_are_parsed_into_the_result_each_answers() -> None:
    params = types.CallToolRequestParams.model_validate(
        {
            "name": "book",
            "inputResponses": {
                "confirm": {"action": "accept", "content": {"seats": 2, "window": True, "name": "Ada"}},
                "roots": {"roots": [{"uri": "file:///home"}]},
                "draft": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"},
            },
            "requestState": "opaque",
        }
    )
    responses = params.input_responses
    assert responses is not None
    confirm = responses["confirm"]
    assert isinstance(confirm, types.ElicitResult)
    content = confirm.content or {}
    assert content == {"seats": 2, "window": True, "name": "Ada"}
    assert type(content["seats"]) is int and type(content["window"]) is bool
    assert isinstance(responses["roots"], types.ListRootsResult)
    assert isinstance(responses["draft"], types.CreateMessageResult)
    assert isinstance(params, types.InputResponseRequestParams)


def test_an_input_required_result_defaults_its_result_type() -> None:
    result = types.InputRequiredResult(
        input_requests={
            "ask": types.ElicitRequest(params=types.ElicitRequestFormParams(message="m", requested_schema={}))
        },
        request_state="s",
    )
    assert result.to_wire() == {
        "resultType": "input_required",
        "inputRequests": {
            "ask": {
                "method": "elicitation/create",
                "params": {"mode": "form", "message": "m", "requestedSchema": {}},
            }
        },
        "requestState": "s",
    }
    with pytest.raises(ValidationError):
        types.InputRequiredResult.model_validate({"resultType": "complete"})


def test_elicitation_params_are_told_apart_by_mode() -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(types.ElicitRequestParams)
    form = adapter.validate_python({"message": "m", "requestedSchema": {"type": "object", "properties": {}}})
    url = adapter.validate_python({"mode": "url", "message": "m", "url": "https://x", "elicitationId": "e1"})
    assert isinstance(form, types.ElicitRequestFormParams)
    assert isinstance(url, types.ElicitRequestURLParams) and url.elicitation_id == "e1"
    request = types.ElicitRequest(params=types.ElicitRequestURLParams(message="m", url="https://x"))
    assert request.to_wire() == {
        "method": "elicitation/create",
        "params": {"mode": "url", "message": "m", "url": "https://x"},
    }


def test_form_schema_properties_are_told_apart_by_type_and_enum_keys() -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(types.PrimitiveSchemaDefinition)
    cases = [
        ({"type": "string", "format": "email"}, types.StringSchema),
        ({"type": "integer", "minimum": 1}, types.NumberSchema),
        ({"type": "boolean", "default": False}, types.BooleanSchema),
        ({"type": "string", "enum": ["a"]}, types.UntitledSingleSelectEnumSchema),
        ({"type": "string", "enum": ["a"], "enumNames": ["A"]}, types.LegacyTitledEnumSchema),
        ({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}, types.TitledSingleSelectEnumSchema),
        ({"type": "array", "items": {"type": "string", "enum": ["a"]}}, types.UntitledMultiSelectEnumSchema),
        (
            {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}},
            types.TitledMultiSelectEnumSchema,
        ),
    ]
    for data, model in cases:
        value = adapter.validate_python(data)
        assert type(value) is model
        assert adapter.validate_python(value) is value
        assert value.to_wire() == data


def test_sampling_content_is_one_block_or_a_list() -> None:
    one = types.SamplingMessage.model_validate({"role": "user", "content": {"type": "text", "text": "hi"}})
    many = types.CreateMessageResultWithTools.model_validate(
        {
            "role": "assistant",
            "model": "m",
            "content": [{"type": "tool_use", "id": "1", "name": "t", "input": {}}],
            "stopReason": "toolUse",
        }
    )
    assert isinstance(one.content, types.TextContent) and one.content_as_list == [one.content]
    assert isinstance(many.content_as_list[0], types.ToolUseContent)
    with pytest.raises(ValidationError):  # the tool-less result holds one plain block
        types.CreateMessageResult.model_validate({"role": "assistant", "model": "m", "content": [{"type": "text", "text": "x"}]})


def test_sampling_tools_are_full_tool_models() -> None:
    params = types.CreateMessageRequestParams.model_validate(
        {
            "messages": [],
            "maxTokens": 10,
            "tools": [{"name": "t", "inputSchema": {"type": "object"}}],
            "toolChoice": {"mode": "auto"},
        }
    )
    assert params.tools is not None and isinstance(params.tools[0], types.Tool)
    assert params.to_wire()["tools"] == [{"name": "t", "inputSchema": {"type": "object"}}]
    with pytest.raises(ValidationError):
        types.CreateMessageRequestParams.model_validate(
            {"messages": [], "maxTokens": 1, "tools": [{"name": "t"}]}
        )


def test_required_nullable_members_are_sent_as_null() -> None:
    task = types.Task(
        task_id="t", status="working", created_at="2025-01-01", last_updated_at="2025-01-01", ttl=None
    )
    assert task.to_wire()["ttl"] is None
    assert types.GetTaskResult.model_validate(task.to_wire()).to_wire()["ttl"] is None
    log = types.LoggingMessageNotificationParams(level="info", data=None)
    assert log.to_wire() == {"level": "info", "data": None}


def test_references_are_told_apart_by_type() -> None:
    params = types.CompleteRequestParams.model_validate(
        {"ref": {"type": "ref/resource", "uri": "file:///{p}"}, "argument": {"name": "p", "value": "a"}}
    )
    assert isinstance(params.ref, types.ResourceTemplateReference)
    assert types.ResourceReference is types.ResourceTemplateReference
    with pytest.raises(ValidationError):
        types.CompleteRequestParams.model_validate(
            {"ref": {"type": "ref/x"}, "argument": {"name": "p", "value": ""}}
        )


def test_completion_values_and_model_priorities_are_not_bounded_by_the_models() -> None:
    assert len(types.Completion(values=["v"] * 101).values) == 101
    assert types.ModelPreferences(cost_priority=1.5).cost_priority == 1.5


def test_a_vendor_request_subclasses_the_generic_request() -> None:
    class JobParams(types.RequestParams):
        job_id: str

    class JobStatusRequest(types.Request[JobParams, Literal["com.example/jobs.status"]]):
        method: Literal["com.example/jobs.status"] = "com.example/jobs.status"
        params: JobParams
        name_param = "jobId"

    request = JobStatusRequest(params=JobParams(job_id="job-7"))
    assert request.to_wire() == {"method": "com.example/jobs.status", "params": {"jobId": "job-7"}}
    assert JobStatusRequest.name_param == "jobId"
    assert "name_param" not in JobStatusRequest.model_fields
    with pytest.raises(ValidationError):
        JobStatusRequest.model_validate({"method": "other", "params": {"jobId": "x"}})


def test_core_requests_leave_name_param_unset_for_extension_requests_to_declare() -> None:
    assert types.CallToolRequest.name_param is None
    assert types.GetPromptRequest.name_param is None
    assert types.ReadResourceRequest.name_param is None
    assert types.ListToolsRequest.name_param is None
    assert types.Request.name_param is None


def test_a_result_subclass_can_pin_a_result_type_for_a_claim() -> None:
    class Receipt(types.Result):
        result_type: Literal["receipt"]  # pyright: ignore[reportIncompatibleVariableOverride, reportGeneralTypeIssues]
        receipt_token: str

    receipt = Receipt.model_validate({"resultType": "receipt", "receiptToken": "r1"})
    assert receipt.to_wire() == {"resultType": "receipt", "receiptToken": "r1"}
    with pytest.raises(ValidationError):
        Receipt.model_validate({"resultType": "complete", "receiptToken": "r1"})


def test_typed_requests_default_their_method_and_optional_params() -> None:
    assert types.PingRequest().to_wire() == {"method": "ping"}
    assert types.ListToolsRequest().to_wire() == {"method": "tools/list"}
    assert types.ToolListChangedNotification().to_wire() == {"method": "notifications/tools/list_changed"}
    assert types.ListResourcesRequest(params=types.ListResourcesRequestParams(cursor="c")).to_wire() == {
        "method": "resources/list",
        "params": {"cursor": "c"},
    }


def test_client_requests_and_notifications_are_told_apart_by_method() -> None:
    request = types.client_request_adapter.validate_python(
        {"method": "tools/call", "params": {"name": "t", "arguments": {"a": 1}}}
    )
    assert isinstance(request, types.CallToolRequest)
    assert isinstance(
        types.server_request_adapter.validate_python({"method": "roots/list"}), types.ListRootsRequest
    )
    note = types.client_notification_adapter.validate_python({"method": "notifications/initialized"})
    assert isinstance(note, types.InitializedNotification)
    with pytest.raises(ValidationError):
        types.client_request_adapter.validate_python({"method": "roots/list"})


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "serverInfo": {"name": "s", "version": "1"},
            },
            "InitializeResult",
        ),
        ({"supportedVersions": ["2026-07-28"], "capabilities": {}}, "DiscoverResult"),
        ({"completion": {"values": []}}, "CompleteResult"),
        ({"messages": []}, "GetPromptResult"),
        ({"prompts": []}, "ListPromptsResult"),
        ({"resources": []}, "ListResourcesResult"),
        ({"resourceTemplates": []}, "ListResourceTemplatesResult"),
        ({"contents": []}, "ReadResourceResult"),
        ({"content": [], "isError": True}, "CallToolResult"),
        ({"tools": [], "ttlMs": 5, "cacheScope": "public"}, "ListToolsResult"),
        ({"resultType": "input_required", "requestState": "s"}, "InputRequiredResult"),
        ({}, "EmptyResult"),
        ({"resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": "l"}}, "EmptyResult"),
    ],
)
def test_a_server_result_is_recognised_by_its_required_member(data: dict[str, Any], expected: str) -> None:
    result = types.server_result_adapter.validate_python(data)
    assert type(result).__name__ == expected
    wire = result.to_wire()
    assert {key: wire[key] for key in data} == data
    assert set(wire) - set(data) <= _DEFAULTED_RESULT_KEYS


_DEFAULTED_RESULT_KEYS = {"resultType", "isError", "ttlMs", "cacheScope"}
"""What a result model adds on its own: its tag and the defaults of `isError` and the cache hints."""


def test_client_results_are_recognised_and_models_pass_through_unchanged() -> None:
    adapter = types.client_result_adapter
    assert isinstance(adapter.validate_python({"action": "cancel"}), types.ElicitResult)
    assert isinstance(adapter.validate_python({"roots": []}), types.ListRootsResult)
    assert isinstance(adapter.validate_python({}), types.EmptyResult)
    result = types.CallToolResult(content=[types.TextContent(text="3")], structured_content={"result": 3})
    assert types.server_result_adapter.validate_python(result) is result


def test_jsonrpc_messages_are_told_apart_by_their_keys() -> None:
    adapter = types.jsonrpc_message_adapter
    assert isinstance(
        adapter.validate_python({"jsonrpc": "2.0", "id": 1, "method": "ping"}), types.JSONRPCRequest
    )
    assert isinstance(adapter.validate_python({"jsonrpc": "2.0", "method": "n"}), types.JSONRPCNotification)
    assert isinstance(
        adapter.validate_python({"jsonrpc": "2.0", "id": "a", "result": {}}), types.JSONRPCResponse
    )
    error = adapter.validate_python({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}})
    assert isinstance(error, types.JSONRPCError) and error.id is None
    assert error.to_wire() == {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}}
    assert (
        types.JSONRPCErrorResponse is types.JSONRPCError
        and types.JSONRPCResultResponse is types.JSONRPCResponse
    )
    with pytest.raises(ValidationError):
        adapter.validate_python({"jsonrpc": "1.0", "id": 1, "method": "ping"})


def test_the_tasks_capabilities_are_their_capability_models() -> None:
    wire = {"tasks": {"list": {}, "requests": {"tools": {"call": {}}}}}
    caps = types.ServerCapabilities.model_validate(wire)
    tasks = caps.tasks
    assert isinstance(tasks, types.ServerTasksCapability)
    assert tasks.requests is not None and tasks.requests.tools is not None and tasks.requests.tools.call is not None
    assert caps.to_wire() == wire
    client = types.ClientCapabilities(tasks=types.ClientTasksCapability(list=types.TasksListCapability()))
    assert client.to_wire() == {"tasks": {"list": {}}}


def test_an_unparametrized_request_or_notification_keeps_raw_params() -> None:
    request = types.Request(method="vendor/x", params={"a": 1})
    assert request.to_wire() == {"method": "vendor/x", "params": {"a": 1}}
    note = types.Notification(method="vendor/n", params={"b": [1]})
    assert note.to_wire() == {"method": "vendor/n", "params": {"b": [1]}}
