"""Pruning newest-shape messages for peers on older protocol revisions (`mcp._protocol.revisions`)."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from jsonschema import validators

from mcp._protocol import _revision_shapes as shapes
from mcp._protocol.revisions import prune_params, prune_result
from mcp.types.version import SUPPORTED_PROTOCOL_VERSIONS

REPO = Path(__file__).resolve().parents[2]
GENERATOR = REPO / "scripts" / "gen_revision_shapes.py"
OLDER = SUPPORTED_PROTOCOL_VERSIONS[:-1]
NEWEST = SUPPORTED_PROTOCOL_VERSIONS[-1]


@cache
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_revision_shapes", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def spec_dir() -> Path:
    path: Path = generator().default_spec_dir()
    if not (path / NEWEST / "schema.json").exists():
        pytest.skip(f"MCP schemas not found in {path} (set MCP_SPEC_DIR)")
    return path


# -- newest-shape fixtures ------------------------------------------------------------------------

META = {"com.example/trace": "abc", "progressToken": 1}
ICON = {"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "light"}
ANNOTATIONS = {"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"}
IMPLEMENTATION = {
    "name": "srv",
    "version": "1.0",
    "title": "Server",
    "description": "A server",
    "websiteUrl": "https://example.com",
    "icons": [ICON],
}
CAPABILITIES = {
    "experimental": {"x": {"on": True}},
    "logging": {},
    "completions": {},
    "prompts": {"listChanged": True},
    "resources": {"subscribe": True, "listChanged": True},
    "tools": {"listChanged": True},
    "extensions": {"io.modelcontextprotocol/tasks": {}},
    "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
}
INPUT_SCHEMA = {
    "type": "object",
    "title": "Args",
    "properties": {"x": {"type": "string", "title": "X", "icons": "not a field here"}},
    "required": ["x"],
    "resultType": "kept: a JSON Schema is free-form",
}
TOOL = {
    "name": "t",
    "title": "T",
    "description": "d",
    "inputSchema": INPUT_SCHEMA,
    "outputSchema": {"type": "object", "properties": {"y": {"type": "number"}}},
    "annotations": {
        "title": "T",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    },
    "icons": [ICON],
    "execution": {"taskSupport": "optional"},
    "_meta": META,
}
TEXT_CONTENTS = {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "a", "_meta": META}
BLOB_CONTENTS = {
    "uri": "file:///a.bin",
    "mimeType": "application/octet-stream",
    "blob": "AA==",
    "_meta": META,
}
BLOCKS = {
    "text": {"type": "text", "text": "hi", "annotations": ANNOTATIONS, "_meta": META},
    "image": {
        "type": "image",
        "data": "AA==",
        "mimeType": "image/png",
        "annotations": ANNOTATIONS,
        "_meta": META,
    },
    "audio": {
        "type": "audio",
        "data": "AA==",
        "mimeType": "audio/wav",
        "annotations": ANNOTATIONS,
        "_meta": META,
    },
    "resource_link": {
        "type": "resource_link",
        "uri": "file:///a.txt",
        "name": "a",
        "title": "A",
        "description": "d",
        "mimeType": "text/plain",
        "size": 1,
        "icons": [ICON],
        "annotations": ANNOTATIONS,
        "_meta": META,
    },
    "resource": {"type": "resource", "resource": TEXT_CONTENTS, "annotations": ANNOTATIONS, "_meta": META},
}
BLOCK_DEFINITIONS = {"audio": "AudioContent", "resource_link": "ResourceLink"}
RESOURCE = {
    "uri": "file:///a.txt",
    "name": "a",
    "title": "A",
    "description": "d",
    "mimeType": "text/plain",
    "size": 1,
    "icons": [ICON],
    "annotations": ANNOTATIONS,
    "_meta": META,
}
TEMPLATE = {
    "uriTemplate": "file:///{name}",
    "name": "files",
    "title": "Files",
    "description": "d",
    "mimeType": "text/plain",
    "icons": [ICON],
    "annotations": ANNOTATIONS,
    "_meta": META,
}
PROMPT = {
    "name": "p",
    "title": "P",
    "description": "d",
    "arguments": [{"name": "a", "title": "A", "description": "d", "required": True}],
    "icons": [ICON],
    "_meta": META,
}
TASK = {
    "taskId": "task-1",
    "status": "working",
    "statusMessage": "busy",
    "createdAt": "2025-01-01T00:00:00Z",
    "lastUpdatedAt": "2025-01-01T00:00:01Z",
    "ttl": 60000,
    "pollInterval": 500,
}
RESULT = {"resultType": "complete", "_meta": META}
CACHEABLE = {**RESULT, "ttlMs": 1000, "cacheScope": "private"}


def blocks(version: str) -> list[dict[str, Any]]:
    """One content block of every type `version` knows, each with every field any revision defines."""
    defs = definitions(version)
    return [block for kind, block in BLOCKS.items() if BLOCK_DEFINITIONS.get(kind, "TextContent") in defs]


def maximal_result(method: str, version: str) -> dict[str, Any]:
    """The result of `method` as we build it: the newest shape, every optional field set."""
    results: dict[str, dict[str, Any]] = {
        "initialize": {
            **RESULT,
            "protocolVersion": version,
            "capabilities": CAPABILITIES,
            "serverInfo": IMPLEMENTATION,
            "instructions": "i",
        },
        "server/discover": {
            **CACHEABLE,
            "supportedVersions": list(SUPPORTED_PROTOCOL_VERSIONS),
            "capabilities": CAPABILITIES,
            "instructions": "i",
        },
        "ping": RESULT,
        "logging/setLevel": RESULT,
        "resources/subscribe": RESULT,
        "resources/unsubscribe": RESULT,
        "resources/list": {**CACHEABLE, "resources": [RESOURCE], "nextCursor": "c"},
        "resources/templates/list": {**CACHEABLE, "resourceTemplates": [TEMPLATE], "nextCursor": "c"},
        "resources/read": {**CACHEABLE, "contents": [TEXT_CONTENTS, BLOB_CONTENTS]},
        "prompts/list": {**CACHEABLE, "prompts": [PROMPT], "nextCursor": "c"},
        "prompts/get": {
            **RESULT,
            "description": "d",
            "messages": [{"role": "user", "content": block} for block in blocks(version)],
        },
        "tools/list": {**CACHEABLE, "tools": [TOOL], "nextCursor": "c"},
        "tools/call": {
            **RESULT,
            "content": blocks(version),
            "structuredContent": {"y": 1, "title": "kept", "resultType": "kept"},
            "isError": False,
        },
        "completion/complete": {**RESULT, "completion": {"values": ["a"], "total": 1, "hasMore": False}},
        "subscriptions/listen": {
            "resultType": "complete",
            "_meta": {
                "io.modelcontextprotocol/subscriptionId": "sub-1",
                "io.modelcontextprotocol/serverInfo": IMPLEMENTATION,
            },
        },
        "tasks/get": {**RESULT, **TASK},
        "tasks/cancel": {**RESULT, **TASK, "status": "cancelled"},
        "tasks/list": {**RESULT, "tasks": [TASK], "nextCursor": "c"},
        "tasks/result": {**RESULT, "content": [BLOCKS["text"]], "isError": False},
        "sampling/createMessage": {
            **RESULT,
            "role": "assistant",
            "content": BLOCKS["text"],
            "model": "m",
            "stopReason": "endTurn",
        },
        "elicitation/create": {**RESULT, "action": "accept", "content": {"name": "x", "resultType": "kept"}},
        "roots/list": {**RESULT, "roots": [{"uri": "file:///", "name": "root", "_meta": META}]},
    }
    return copy.deepcopy(results[method])


# -- schema validation ----------------------------------------------------------------------------


@cache
def schema_document(version: str) -> dict[str, Any]:
    """The parsed schema of `version` (shared: copy before changing it)."""
    return json.loads((spec_dir() / version / "schema.json").read_text("utf-8"))


def definitions(version: str) -> dict[str, Any]:
    document = schema_document(version)
    return document.get("$defs") or document["definitions"]


FREE_FORM = frozenset({"_meta", "inputSchema", "outputSchema", "requestedSchema", "structuredContent"})


def strict(schema: Any) -> Any:
    """A copy of `schema` whose objects reject properties they do not declare.

    The schemas leave `additionalProperties` open, so a leaked field would validate anyway; closing every
    object with declared properties (except free-form values) makes the validation catch leaks. `_meta` is
    allowed everywhere: we never prune it.
    """
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: value if key in FREE_FORM else strict(value) for key, value in schema.items()}
    if "properties" in schema:
        out["properties"] = {
            name: value if name in FREE_FORM else strict(value)
            for name, value in schema["properties"].items()
        }
        out["properties"].setdefault("_meta", {"type": "object"})
        out.setdefault("additionalProperties", False)
    return out


@cache
def closed_document(version: str) -> dict[str, Any]:
    """The schema of `version` with every definition closed by `strict` (checked against its metaschema)."""
    document = copy.deepcopy(schema_document(version))
    key = "$defs" if "$defs" in document else "definitions"
    defs = document[key]
    for name, schema in list(defs.items()):
        if "allOf" in schema:  # closing each part would reject the other parts' properties: merge them
            parts = [defs[part["$ref"].rsplit("/", 1)[-1]] for part in schema["allOf"]]
            defs[name] = {
                "type": "object",
                "properties": {k: v for part in parts for k, v in part.get("properties", {}).items()},
                "required": [r for part in parts for r in part.get("required", [])],
            }
    closed = {
        name: schema if name.endswith("MetaObject") else strict(schema) for name, schema in defs.items()
    }
    closed["Result"]["additionalProperties"] = False  # open for extensions, yet resultType is 2026-07-28 only
    root = {"$schema": document["$schema"], key: closed}
    validators.validator_for(root).check_schema(root)
    return root


@cache
def validator(version: str, name: str) -> Any:
    """A validator of definition `name` of `version` (with the right draft), resolving $refs in the same file."""
    document = closed_document(version)
    key = "$defs" if "$defs" in document else "definitions"
    root = {**document, "$ref": f"#/{key}/{name}"}
    return validators.validator_for(root)(root)


def result_methods() -> list[tuple[str, str, str]]:
    """(revision, method, result definition) for every result a server or a client sends."""
    return list(
        dict.fromkeys(
            (version, method, name)
            for version in SUPPORTED_PROTOCOL_VERSIONS
            for table in (shapes.SERVER_RESULTS, shapes.CLIENT_RESULTS)
            for method, name in table[version].items()
        )
    )


@pytest.mark.parametrize(("version", "method", "name"), result_methods(), ids=lambda value: str(value))
def test_maximal_result_pruned_for_each_revision_validates_against_its_schema(
    version: str, method: str, name: str
) -> None:
    result = maximal_result(method, version)
    pruned = prune_result(method, result, version)
    errors = sorted(validator(version, name).iter_errors(pruned), key=lambda error: list(error.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)
    declared = set(definitions(version)[name].get("properties", {}))
    assert {key for key in result if key in declared} <= set(pruned)  # nothing the revision knows was lost
    assert result == maximal_result(method, version)  # the input is never mutated


def test_schema_validation_catches_leaked_fields() -> None:
    leaked = maximal_result("tools/list", "2024-11-05")
    messages = [error.message for error in validator("2024-11-05", "ListToolsResult").iter_errors(leaked)]
    assert any("title" in message and "icons" in message for message in messages)
    assert any("resultType" in message for message in messages)


# -- behaviour ------------------------------------------------------------------------------------


def test_tool_title_and_icons_are_dropped_for_2024_11_05() -> None:
    result = {"tools": [TOOL], "ttlMs": 0, "cacheScope": "public", "resultType": "complete"}
    pruned = prune_result("tools/list", result, "2024-11-05")
    assert pruned == {
        "tools": [{"name": "t", "description": "d", "inputSchema": INPUT_SCHEMA, "_meta": META}]
    }


def test_tool_keeps_title_and_output_schema_but_not_icons_for_2025_06_18() -> None:
    (tool,) = prune_result("tools/list", {"tools": [TOOL]}, "2025-06-18")["tools"]
    assert set(tool) == {
        "name",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
        "_meta",
    }


def test_tool_execution_is_kept_only_for_2025_11_25() -> None:
    kept = [
        v
        for v in SUPPORTED_PROTOCOL_VERSIONS
        if "execution" in prune_result("tools/list", {"tools": [TOOL]}, v)["tools"][0]
    ]
    assert kept == ["2025-11-25"]


def test_structured_content_survives_for_2025_06_18() -> None:
    result = {"content": [], "structuredContent": {"y": 1}, "isError": False}
    assert prune_result("tools/call", result, "2025-06-18") is result


def test_structured_content_is_dropped_for_2025_03_26() -> None:
    result = {"content": [], "structuredContent": {"y": 1}}
    assert prune_result("tools/call", result, "2025-03-26") == {"content": []}


def test_content_blocks_are_pruned_by_their_type() -> None:
    link, text = BLOCKS["resource_link"], BLOCKS["text"]
    pruned = prune_result("tools/call", {"content": [link, text]}, "2025-06-18")["content"]
    assert pruned[0] == {key: value for key, value in link.items() if key != "icons"}
    assert pruned[1] is text  # lastModified exists in 2025-06-18: nothing to do
    older = prune_result("tools/call", {"content": [text]}, "2025-03-26")["content"][0]
    assert older["annotations"] == {"audience": ["user"], "priority": 0.5}


def test_content_block_of_a_type_the_revision_lacks_is_left_alone() -> None:
    result = {"content": [BLOCKS["audio"]]}
    assert prune_result("tools/call", result, "2024-11-05") is result


def test_embedded_resource_contents_are_pruned_in_2024_11_05_annotations() -> None:
    pruned = prune_result("tools/call", {"content": [BLOCKS["resource"]]}, "2024-11-05")["content"][0]
    assert pruned["annotations"] == {"audience": ["user"], "priority": 0.5}
    assert pruned["resource"] is TEXT_CONTENTS


@pytest.mark.parametrize("version", SUPPORTED_PROTOCOL_VERSIONS)
def test_input_schema_contents_are_never_pruned(version: str) -> None:
    (tool,) = prune_result("tools/list", {"tools": [TOOL]}, version)["tools"]
    assert tool["inputSchema"] is INPUT_SCHEMA


@pytest.mark.parametrize("version", SUPPORTED_PROTOCOL_VERSIONS)
def test_free_form_values_are_never_pruned(version: str) -> None:
    structured = {"title": "x", "icons": [], "resultType": "y"}
    result = {"content": [], "structuredContent": structured}
    assert prune_result("tools/call", result, version).get("structuredContent", structured) is structured
    arguments = {"task": 1, "requestState": "s", "_meta": {}}
    assert (
        prune_params("tools/call", {"name": "t", "arguments": arguments}, version)["arguments"] is arguments
    )


@pytest.mark.parametrize(
    ("version", "method"),
    [
        (version, method)
        for version in SUPPORTED_PROTOCOL_VERSIONS
        for method in ("tools/call", "tools/list", "resources/read", "prompts/get", "ping", "initialize")
        if method in shapes.SERVER_RESULTS[version]
    ],
)
def test_result_type_is_kept_only_for_2026_07_28(version: str, method: str) -> None:
    pruned = prune_result(method, maximal_result(method, version), version)
    assert ("resultType" in pruned) is (version == "2026-07-28")


@pytest.mark.parametrize("version", OLDER)
def test_cache_hints_are_dropped_before_2026_07_28(version: str) -> None:
    pruned = prune_result("resources/list", maximal_result("resources/list", version), version)
    assert not {"ttlMs", "cacheScope", "resultType"} & set(pruned)


def test_unchanged_result_is_returned_as_is() -> None:
    result = {"content": [BLOCKS["text"]], "structuredContent": {"y": 1}, "isError": False, "_meta": META}
    assert prune_result("tools/call", result, "2025-11-25") is result
    newest = maximal_result("tools/call", NEWEST)
    assert prune_result("tools/call", newest, NEWEST) is newest


def test_untouched_parts_of_a_pruned_result_are_shared_not_copied() -> None:
    result = {"content": [BLOCKS["text"]], "isError": False, "resultType": "complete"}
    pruned = prune_result("tools/call", result, "2025-06-18")
    assert pruned == {"content": [BLOCKS["text"]], "isError": False}
    assert pruned["content"] is result["content"]
    assert "resultType" in result


@pytest.mark.parametrize("version", SUPPORTED_PROTOCOL_VERSIONS)
def test_meta_is_never_pruned(version: str) -> None:
    meta = {"anything": {"title": 1, "resultType": 2}}
    result = {"content": [{"type": "text", "text": "hi", "_meta": meta}], "_meta": meta}
    pruned = prune_result("tools/call", result, version)
    assert pruned["_meta"] is meta
    assert pruned["content"][0]["_meta"] is meta
    (tool,) = prune_result("tools/list", {"tools": [{**TOOL, "_meta": meta}]}, version)["tools"]
    assert tool["_meta"] is meta
    listed = prune_result("roots/list", {"roots": [], "_meta": meta}, version)
    assert listed["_meta"] is meta  # 2026-07-28 ListRootsResult declares no _meta: kept anyway


@pytest.mark.parametrize("version", OLDER[:2])
def test_implementation_keeps_only_name_and_version_before_2025_06_18(version: str) -> None:
    pruned = prune_result("initialize", maximal_result("initialize", version), version)
    assert pruned["serverInfo"] == {"name": "srv", "version": "1.0"}
    assert set(pruned["capabilities"]) <= {
        "experimental",
        "logging",
        "completions",
        "prompts",
        "resources",
        "tools",
    }


def test_implementation_description_icons_and_website_are_dropped_for_2025_06_18() -> None:
    pruned = prune_result("initialize", maximal_result("initialize", "2025-06-18"), "2025-06-18")
    assert pruned["serverInfo"] == {"name": "srv", "version": "1.0", "title": "Server"}


def test_server_capabilities_tasks_are_kept_only_for_2025_11_25() -> None:
    caps = {v: prune_result("initialize", maximal_result("initialize", v), v)["capabilities"] for v in OLDER}
    assert [v for v in OLDER if "tasks" in caps[v]] == ["2025-11-25"]
    assert not any("extensions" in c for c in caps.values())
    assert caps["2025-11-25"]["tasks"] == CAPABILITIES["tasks"]


def test_task_answer_to_a_tool_call_keeps_its_task_for_2025_11_25() -> None:
    result = {"task": TASK, "_meta": META, "resultType": "complete"}
    assert prune_result("tools/call", result, "2025-11-25") == {"task": TASK, "_meta": META}


def test_input_required_answer_keeps_its_fields_for_2026_07_28() -> None:
    result = {
        "resultType": "input_required",
        "inputRequests": {"a": {"method": "roots/list"}},
        "requestState": "s",
    }
    assert prune_result("tools/call", result, NEWEST) is result


def test_keys_no_revision_defines_pass_through() -> None:
    result = {"content": [], "com.example/extra": 1, "resultType": "complete"}
    assert prune_result("tools/call", result, "2024-11-05") == {"content": [], "com.example/extra": 1}


def test_client_request_params_are_pruned_for_older_servers() -> None:
    params = {
        "name": "t",
        "arguments": {"x": 1},
        "task": {"ttl": 1000},
        "requestState": "s",
        "inputResponses": {},
        "_meta": META,
    }
    assert prune_params("tools/call", params, "2024-11-05") == {
        "name": "t",
        "arguments": {"x": 1},
        "_meta": META,
    }
    assert set(prune_params("tools/call", params, "2025-11-25")) == {"name", "arguments", "task", "_meta"}
    assert set(prune_params("tools/call", params, NEWEST)) == {
        "name",
        "arguments",
        "requestState",
        "inputResponses",
        "_meta",
    }


def test_completion_params_are_pruned_through_their_reference() -> None:
    params = {
        "ref": {"type": "ref/prompt", "name": "p", "title": "P"},
        "argument": {"name": "a", "value": "v"},
        "context": {"arguments": {"b": "c"}},
    }
    assert prune_params("completion/complete", params, "2024-11-05") == {
        "ref": {"type": "ref/prompt", "name": "p"},
        "argument": {"name": "a", "value": "v"},
    }
    assert prune_params("completion/complete", params, "2025-06-18") is params


def test_initialize_params_drop_client_info_fields_the_server_revision_lacks() -> None:
    params = {
        "protocolVersion": "2024-11-05",
        "capabilities": {"roots": {"listChanged": True}, "tasks": {}},
        "clientInfo": IMPLEMENTATION,
    }
    pruned = prune_params("initialize", params, "2024-11-05")
    assert pruned == {
        "protocolVersion": "2024-11-05",
        "capabilities": {"roots": {"listChanged": True}},
        "clientInfo": {"name": "srv", "version": "1.0"},
    }


def test_server_notification_params_are_pruned() -> None:
    progress = {"progressToken": 1, "progress": 0.5, "total": 1.0, "message": "half"}
    assert prune_params("notifications/progress", progress, "2024-11-05") == {
        "progressToken": 1,
        "progress": 0.5,
        "total": 1.0,
    }
    assert prune_params("notifications/progress", progress, "2025-03-26") is progress


def test_elicitation_params_drop_the_mode_for_2025_06_18() -> None:
    params = {"mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {}}}
    assert prune_params("elicitation/create", params, "2025-06-18") == {
        "message": "m",
        "requestedSchema": params["requestedSchema"],
    }
    assert prune_params("elicitation/create", params, "2025-11-25") is params


def test_sampling_message_content_is_pruned_for_older_clients() -> None:
    params = {
        "messages": [{"role": "user", "content": BLOCKS["text"]}],
        "maxTokens": 10,
        "tools": [TOOL],
        "toolChoice": {"mode": "auto"},
    }
    pruned = prune_params("sampling/createMessage", params, "2025-03-26")
    assert pruned == {
        "messages": [
            {
                "role": "user",
                "content": {**BLOCKS["text"], "annotations": {"audience": ["user"], "priority": 0.5}},
            }
        ],
        "maxTokens": 10,
    }


@pytest.mark.parametrize(
    ("method", "version"),
    [("no/such/method", "2024-11-05"), ("tools/call", "1999-01-01"), ("initialize", NEWEST)],
)
def test_unknown_method_or_revision_returns_the_input_unchanged(method: str, version: str) -> None:
    result = {"content": [], "resultType": "complete", "title": "x"}
    assert prune_result(method, result, version) is result
    assert prune_params(method, result, version) is result


def test_method_maps_name_the_result_definitions() -> None:
    for version in SUPPORTED_PROTOCOL_VERSIONS:
        server = shapes.SERVER_RESULTS[version]
        assert server["tools/call"] == "CallToolResult"
        assert server["tools/list"] == "ListToolsResult"
        assert server["resources/read"] == "ReadResourceResult"
        assert server["prompts/get"] == "GetPromptResult"
        assert server["completion/complete"] == "CompleteResult"
        assert shapes.CLIENT_RESULTS[version]["sampling/createMessage"] == "CreateMessageResult"
        assert shapes.CLIENT_RESULTS[version]["roots/list"] == "ListRootsResult"
    for version in OLDER:
        assert shapes.SERVER_RESULTS[version]["initialize"] == "InitializeResult"
        assert shapes.SERVER_RESULTS[version]["ping"] == "EmptyResult"
        assert shapes.SERVER_RESULTS[version]["logging/setLevel"] == "EmptyResult"
    assert shapes.SERVER_RESULTS[NEWEST]["server/discover"] == "DiscoverResult"
    assert "initialize" not in shapes.SERVER_RESULTS[NEWEST]
    assert all("elicitation/create" in shapes.CLIENT_RESULTS[v] for v in SUPPORTED_PROTOCOL_VERSIONS[2:])
    assert shapes.PARAMS["2024-11-05"]["tools/call"] == "CallToolRequest.params"
    assert shapes.PARAMS["2025-11-25"]["tools/call"] == "CallToolRequestParams"


def test_generated_revisions_are_the_supported_ones() -> None:
    assert tuple(shapes.OBJECTS) == SUPPORTED_PROTOCOL_VERSIONS
    assert tuple(generator().REVISIONS) == SUPPORTED_PROTOCOL_VERSIONS


def test_generated_module_is_up_to_date(tmp_path: Path) -> None:
    out = tmp_path / "_revision_shapes.py"
    assert generator().main(["--spec-dir", str(spec_dir()), "--out", str(out)]) == 0
    current = (REPO / "src" / "mcp" / "_protocol" / "_revision_shapes.py").read_text("utf-8")
    assert out.read_text("utf-8") == current, "stale: run python scripts/gen_revision_shapes.py"


def test_generated_module_is_imported_only_on_first_use() -> None:
    code = (
        "import sys\n"
        "import mcp._protocol.revisions as revisions\n"
        "assert 'mcp._protocol._revision_shapes' not in sys.modules\n"
        "revisions.prune_result('ping', {}, '2024-11-05')\n"
        "assert 'mcp._protocol._revision_shapes' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
