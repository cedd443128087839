"""The 2026-07-28 wire over HTTP: routing headers checked against the body (-32020), header value
rules (trimming, case-insensitive names, `=?base64?...?=`), `x-mcp-header` tool parameters, and
which HTTP status carries which JSON-RPC error."""

import json
from typing import Any

import anyio
import httpx
import pytest
from httpkit import (
    MODERN,
    build_server,
    connect,
    modern,
    modern_headers,
    modern_meta,
    modern_tool_call,
    notification,
    raw_http,
    request,
)

from mcp.client.streamable_http import encode_header_value

pytestmark = pytest.mark.anyio


def assert_error(response: Any, status: int, code: int, request_id: Any) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["id"] == request_id
    assert body["error"]["code"] == code, body
    return body["error"]


async def post(client: Any, message: dict[str, Any], headers: dict[str, str]) -> Any:
    return await client.post("/mcp", json=message, headers=headers)


async def test_routing_headers_that_disagree_with_the_body_are_400_header_mismatch(wire: str) -> None:
    mcp = build_server()
    tools_list = modern(1, "tools/list")
    call = modern_tool_call(2, "echo", {"text": "x"})
    base = modern_headers()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            assert_error(await post(client, tools_list, {**base, "mcp-method": "prompts/list"}), 400, -32020, 1)
            assert_error(await post(client, tools_list, base), 400, -32020, 1)  # no Mcp-Method
            assert_error(await post(client, tools_list, {**base, "mcp-method": "TOOLS/LIST"}), 400, -32020, 1)
            assert_error(await post(client, call, {**base, "mcp-method": "tools/call", "mcp-name": "wrong_tool"}),
                         400, -32020, 2)
            assert_error(await post(client, call, {**base, "mcp-method": "tools/call"}), 400, -32020, 2)  # no Mcp-Name
            read = modern(3, "resources/read", {"uri": "test://a"})
            assert_error(await post(client, read, {**base, "mcp-method": "resources/read", "mcp-name": "test://b"}),
                         400, -32020, 3)


async def test_header_values_are_trimmed_and_header_names_are_case_insensitive(wire: str) -> None:
    mcp = build_server()
    call = modern_tool_call(1, "echo", {"text": "trim"})
    tools_list = modern(2, "tools/list")
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            padded = {**modern_headers(), "Mcp-Method": " tools/call\t", "Mcp-Name": "  echo  "}
            if wire == "uvicorn":  # httpx refuses to send padded values: write the request by hand
                status, _, body = await raw_http(str(client.base_url), "POST", "/mcp", list(padded.items()),
                                                 json.dumps(call).encode())
                assert status == 200
                assert json.loads(body)["result"]["content"][0]["text"] == "trim"
            else:
                response = await post(client, call, padded)
                assert response.status_code == 200
                assert response.json()["result"]["content"][0]["text"] == "trim"
            for name in ("mcp-method", "MCP-METHOD", "Mcp-Method"):
                headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                           "MCP-Protocol-Version": MODERN, name: "tools/list"}
                response = await post(client, tools_list, headers)
                assert response.status_code == 200, name
                assert "error" not in response.json()


async def test_a_base64_wrapped_mcp_name_is_decoded_and_an_invalid_one_is_a_header_mismatch(wire: str) -> None:
    """Regression: an `Mcp-Name` that was not valid base64 crashed the request (HTTP 500)."""
    mcp = build_server()
    call = modern_tool_call(1, "echo", {"text": "b64"})
    base = {**modern_headers(), "mcp-method": "tools/call"}
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            response = await post(client, call, {**base, "mcp-name": "=?base64?ZWNobw==?="})  # "echo"
            assert response.status_code == 200
            assert response.json()["result"]["content"][0]["text"] == "b64"
            for bad in ("=?base64?!!!?=", "=?base64?ZWNobw?=", "=?base64?/w==?="):  # bad chars, padding, not UTF-8
                assert_error(await post(client, call, {**base, "mcp-name": bad}), 400, -32020, 1)


@pytest.mark.parametrize(("header", "region", "accepted"), [
    ("eu-west", "eu-west", True),
    ("  eu-west  ", "eu-west", True),
    ("=?base64?SGVsbG8=?=", "Hello", True),
    (encode_header_value("Zürich"), "Zürich", True),
    ("SGVsbG8=", "SGVsbG8=", True),  # not wrapped: a literal
    ("=?base64?SGVsbG8=", "=?base64?SGVsbG8=", True),  # no closing marker: a literal
    ("=?base64?SGVsbG8?=", "Hello", False),  # bad padding
    ("=?base64?SGVs!!!bG8=?=", "Hello", False),  # bad characters
    ("us-east", "eu-west", False),  # mismatch
    (None, "test-value", False),  # missing while the argument is present
])
async def test_x_mcp_header_parameters_must_be_mirrored_in_mcp_param_headers(
    wire: str, header: str | None, region: str, accepted: bool
) -> None:
    mcp = build_server()
    call = modern_tool_call(5, "locate", {"query": "q", "region": region})
    headers = modern_headers(call)
    if header is not None:
        headers["Mcp-Param-Region"] = header
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            if wire == "uvicorn":
                status, response_headers, body = await raw_http(str(client.base_url), "POST", "/mcp",
                                                                list(headers.items()), json.dumps(call).encode())
                response: Any = httpx.Response(status, headers=response_headers, content=body)
            else:
                response = await post(client, call, headers)
            if accepted:
                assert response.status_code == 200, response.text
                assert response.json()["result"]["content"][0]["text"] == f"q@{region}"
            else:
                assert_error(response, 400, -32020, 5)


async def test_an_x_mcp_header_parameter_left_out_of_the_call_needs_no_header(wire: str) -> None:
    mcp = build_server()
    call = modern_tool_call(6, "locate", {"query": "q"})
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            listed = modern(1, "tools/list")
            tools = (await post(client, listed, modern_headers(listed))).json()["result"]["tools"]
            locate = next(tool for tool in tools if tool["name"] == "locate")
            assert locate["inputSchema"]["properties"]["region"]["x-mcp-header"] == "Region"
            response = await post(client, call, modern_headers(call))
            assert response.status_code == 200
            assert response.json()["result"]["content"][0]["text"] == "q@<none>"


@pytest.mark.parametrize("method", ["initialize", "ping", "logging/setLevel", "resources/subscribe",
                                    "resources/unsubscribe", "unknown/method"])
async def test_unknown_and_removed_methods_are_404_method_not_found(wire: str, method: str) -> None:
    mcp = build_server()
    params: dict[str, Any] = {}
    if method == "logging/setLevel":
        params = {"level": "info"}
    elif method.startswith("resources/"):
        params = {"uri": "test://x"}
    elif method == "initialize":
        params = {"protocolVersion": MODERN, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
    message = modern(11, method, params)
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            assert_error(await post(client, message, modern_headers(message)), 404, -32601, 11)


async def test_an_unsupported_version_is_400_with_the_supported_versions(wire: str) -> None:
    mcp = build_server()
    message = modern(301, "server/discover", meta={**modern_meta(), "io.modelcontextprotocol/protocolVersion": "v999.0.0"})
    headers = {**modern_headers(message), "mcp-protocol-version": "v999.0.0"}
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            error = assert_error(await post(client, message, headers), 400, -32022, 301)
            assert error["data"]["requested"] == "v999.0.0"
            discover = modern(1, "server/discover")
            supported = (await post(client, discover, modern_headers(discover))).json()["result"]["supportedVersions"]
            assert error["data"]["supported"]
            assert set(error["data"]["supported"]) <= set(supported)

            # the header says 2026-07-28, the body something else: a mismatch
            assert_error(await post(client, {**message, "id": 302}, modern_headers(message)), 400, -32020, 302)


@pytest.mark.parametrize("meta", [
    None,
    {"io.modelcontextprotocol/clientCapabilities": {}},
    {"io.modelcontextprotocol/protocolVersion": MODERN},
])
async def test_a_request_whose_meta_lacks_version_or_capabilities_is_400_invalid_params(
    wire: str, meta: dict[str, Any] | None
) -> None:
    mcp = build_server()
    message = request(101, "server/discover", {} if meta is None else {"_meta": meta})
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            assert_error(await post(client, message, modern_headers(message)), 400, -32602, 101)


async def test_a_meta_without_client_info_is_fine(wire: str) -> None:
    mcp = build_server()
    meta = modern_meta()
    del meta["io.modelcontextprotocol/clientInfo"]
    message = modern(1, "server/discover", meta=meta)
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            response = await post(client, message, modern_headers(message))
            assert response.status_code == 200
            assert "supportedVersions" in response.json()["result"]


async def test_a_missing_capability_is_400_with_the_required_capabilities(wire: str) -> None:
    from mcp.server.mcpserver import Context
    from mcp.shared.exceptions import MCPError

    mcp = build_server()

    @mcp.tool()
    def needs_sampling(ctx: Context) -> str:
        """Fails unless the client declared sampling."""
        if ctx.client_capabilities is None or ctx.client_capabilities.sampling is None:
            raise MCPError(-32021, "Missing required client capability", {"requiredCapabilities": {"sampling": {}}})
        return "sampled"

    call = modern_tool_call(401, "needs_sampling")
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            error = assert_error(await post(client, call, modern_headers(call)), 400, -32021, 401)
            assert error["data"] == {"requiredCapabilities": {"sampling": {}}}
            ok = modern(402, "tools/call", {"name": "needs_sampling", "arguments": {}},
                        meta=modern_meta({"sampling": {}}))
            response = await post(client, ok, modern_headers(ok))
            assert response.status_code == 200
            assert response.json()["result"]["content"][0]["text"] == "sampled"


async def test_a_2026_notification_is_accepted_with_202(wire: str) -> None:
    mcp = build_server()
    message = notification("notifications/cancelled", {"requestId": 1, "_meta": modern_meta()})
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            response = await post(client, message, modern_headers())
            assert response.status_code == 202
            assert response.content == b""


async def test_a_2026_client_cannot_cancel_another_clients_request(wire: str) -> None:
    mcp = build_server()
    probe = mcp.probe
    call = modern_tool_call(1, "block")
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            answers: list[Any] = []

            async def blocked_call() -> None:
                answers.append(await post(client, call, modern_headers(call)))

            async with anyio.create_task_group() as tg:
                tg.start_soon(blocked_call)
                await probe.started.wait()
                cancel = notification("notifications/cancelled", {"requestId": 1, "_meta": modern_meta()})
                assert (await post(client, cancel, modern_headers())).status_code == 202
                await anyio.sleep(0.05)  # a negative check: a moment for a wrong cancellation to show
                assert not probe.cancelled.is_set()
                probe.release.set()
            assert answers[0].json()["result"]["content"][0]["text"] == "released"


@pytest.mark.parametrize("name", [[], {"a": 1}, 7, None])
async def test_a_tool_call_whose_name_is_not_a_string_is_400_invalid_params(wire: str, name: Any) -> None:
    """Regression: a list or object as the tool name reached the `x-mcp-header` check, whose
    dictionary lookup raised TypeError out of the ASGI app (a 500)."""
    mcp = build_server()
    message = modern(9, "tools/call", {"name": name, "arguments": {}})
    headers = {**modern_headers(), "mcp-method": "tools/call",
               "mcp-name": encode_header_value(json.dumps(name))}
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            response = await post(client, message, headers)
            assert response.status_code == 400
            assert response.json()["id"] == 9
            assert response.json()["error"]["code"] in (-32602, -32020)
