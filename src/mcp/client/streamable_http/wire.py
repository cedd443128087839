"""The Streamable HTTP client's vocabulary: its limits, header names, stream types, and how an
HTTP answer reads as JSON-RPC (JSON shapes, content types, an HTTP error status as an error
response).

Package-internal: `mcp.client.streamable_http` re-exports the names that are part of its API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from mcp._protocol.codec import ParseError, decode
from mcp.shared.message import SessionMessage
from mcp.types.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND

if TYPE_CHECKING:
    from mcp.client._http_library import HTTPResponse

LOGGER_NAME = "mcp.client.streamable_http"
"""The one logger of the whole transport (every module of the package logs under the official name)."""

DEFAULT_TIMEOUT = 30.0
DEFAULT_SSE_READ_TIMEOUT = 300.0
DEFAULT_RECONNECTION_DELAY_MS = 1000
"""How long to wait before reconnecting a stream when the server named no `retry`."""
DEFAULT_RETRY_SECONDS = DEFAULT_RECONNECTION_DELAY_MS / 1000
MAX_RECONNECTION_ATTEMPTS = 2
"""Failed reconnections in a row (resuming a response stream, or reopening the GET stream) before
the transport gives up."""
DEFAULT_MAX_SSE_EVENT_SIZE = 1024 * 1024
"""The most bytes one server-sent event may take by default; a larger one fails its stream."""
DRAIN_SECONDS = 2.0
"""How long a stream that brought its answer is read on to its end before it is dropped."""

MCP_SESSION_ID = "mcp-session-id"
LAST_EVENT_ID = "last-event-id"

SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
METHOD_HEADER = "Mcp-Method"
NAME_HEADER = "Mcp-Name"
LAST_EVENT_ID_HEADER = "Last-Event-ID"
ACCEPT = "application/json, text/event-stream"
"""The `Accept` of every POST: the answer may be one JSON body or an SSE stream."""
NAME_PARAM = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
              "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}
"""method -> the param its `Mcp-Name` header mirrors (2026-07-28)."""

SessionMessageOrError = SessionMessage | Exception
ReadSend = MemoryObjectSendStream[SessionMessageOrError]
ReadStream = MemoryObjectReceiveStream[SessionMessageOrError]
WriteStream = MemoryObjectSendStream[SessionMessage]
StreamWriter = ReadSend
"""The transport's end of the read stream: where it puts what the server sent."""
StreamReader = MemoryObjectReceiveStream[SessionMessage]
"""The transport's end of the write stream: what the client sends."""


def json_object(value: Any) -> dict[str, Any] | None:
    """`value` as a JSON object, or None when it is not one."""
    return cast("dict[str, Any]", value) if isinstance(value, dict) else None


def json_objects(container: dict[str, Any] | None, key: str) -> list[dict[str, Any]]:
    """The JSON objects in the array `container[key]` (nothing when it is not an array)."""
    value = container.get(key) if container is not None else None
    if not isinstance(value, list):
        return []
    return [item for item in map(json_object, cast("list[Any]", value)) if item is not None]


def body_messages(value: Any) -> list[Any]:
    """A decoded body as a list of messages (a batch array, or one message)."""
    return cast("list[Any]", value) if isinstance(value, list) else [value]


def content_type(response: HTTPResponse) -> str:
    """The response's media type, lower case, without parameters ("" when it names none)."""
    return response.headers.get("content-type", "").split(";", 1)[0].strip().lower()


def describe(exc: BaseException) -> str:
    """An exception as log text: its message, or its class name when it has none."""
    return str(exc) or type(exc).__name__


def _jsonrpc_error_in(body: bytes) -> dict[str, Any] | None:
    """The `error` of a JSON-RPC error response in an HTTP error body, if the body is one."""
    try:
        parsed = decode(body) if body else None
    except ParseError:
        return None
    body_object = json_object(parsed)
    error = json_object(body_object.get("error")) if body_object is not None else None
    if error is not None and (not isinstance(error.get("code"), int) or not isinstance(error.get("message"), str)):
        return None
    return error


def post_error(request_id: Any, response: HTTPResponse, body: bytes, in_session: bool) -> dict[str, Any]:
    """The JSON-RPC error response standing for an HTTP error status answering a request's POST:
    the body's JSON-RPC error when it carries one; else a 404 is, as the official client says it,
    "Session terminated" (INVALID_REQUEST) within a session and "Not Found" (METHOD_NOT_FOUND: no
    such endpoint or method) before one; any other status is named (`HTTP 421 ...`, README)."""
    if response.status_code == 404 and _jsonrpc_error_in(body) is None:
        error = ({"code": INVALID_REQUEST, "message": "Session terminated"} if in_session
                 else {"code": METHOD_NOT_FOUND, "message": "Not Found"})
        return {"jsonrpc": "2.0", "id": request_id, "error": error}
    return http_error(request_id, response, body)


def http_error(request_id: Any, response: HTTPResponse, body: bytes) -> dict[str, Any]:
    """The JSON-RPC error response standing for an HTTP error status: the body's JSON-RPC error, else
    one naming the status (INTERNAL_ERROR)."""
    error = _jsonrpc_error_in(body)
    if error is None:
        text = body.decode("utf-8", "replace").strip()[:200]
        reason = response.reason_phrase or ""
        message = f"HTTP {response.status_code} {reason}".rstrip() + (f": {text}" if text else "")
        error = {"code": INTERNAL_ERROR, "message": message}
    return {"jsonrpc": "2.0", "id": request_id, "error": error}
