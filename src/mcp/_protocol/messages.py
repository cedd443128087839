"""JSON-RPC 2.0 envelopes as plain dicts: classify by keys, build without models.

The hot path never validates an envelope through a pydantic union: a message is classified by
which keys it has, then only its params are validated, once, by the handler's params type.
"""

from __future__ import annotations

from typing import Any, Final, cast

from mcp.types.jsonrpc import INVALID_REQUEST

REQUEST: Final = 1
NOTIFICATION: Final = 2
RESULT: Final = 3
ERROR: Final = 4

_ID_TYPES = (str, int)


class InvalidMessage(Exception):
    """A JSON value that is not a valid JSON-RPC 2.0 message; carries the id when one is usable."""

    def __init__(self, reason: str, request_id: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.request_id = request_id


def classify(value: Any) -> int:
    """Which kind of envelope `message` is; raises `InvalidMessage` when it is none.

    Never raises anything else, whatever JSON value it is given. What it returns is safe to act on:
    a request's id and a result's id are a string or an integer (never a boolean), an error
    response's id is one of those or null, params (when present and not null) are an object."""
    if type(value) is not dict:
        raise InvalidMessage("Invalid Request: expected a JSON-RPC object" if not isinstance(value, list) else "Invalid Request: batches are not supported")
    message = cast("dict[str, Any]", value)
    if message.get("jsonrpc") != "2.0":
        raise InvalidMessage("Invalid Request: jsonrpc must be \"2.0\"", _usable_id(message))
    method: Any = message.get("method")
    if method is not None:
        if type(method) is not str:
            raise InvalidMessage("Invalid Request: method must be a string", _usable_id(message))
        params: Any = message.get("params")
        if params is not None and type(params) is not dict:
            raise InvalidMessage("Invalid Request: params must be an object", _usable_id(message))
        if "id" not in message:
            return NOTIFICATION
        request_id: Any = message["id"]
        if type(request_id) not in _ID_TYPES or type(request_id) is bool:
            raise InvalidMessage("Invalid Request: id must be a string or an integer")
        return REQUEST
    if "result" in message:
        if _usable_id(message) is None:
            raise InvalidMessage("Invalid Request: a response id must be a string or an integer")
        return RESULT
    if "error" in message and type(message["error"]) is dict:
        response_id: Any = message.get("id")
        if response_id is not None and _usable_id(message) is None:
            raise InvalidMessage("Invalid Request: a response id must be a string, an integer or null")
        return ERROR
    raise InvalidMessage("Invalid Request: not a request, notification or response", _usable_id(message))


def _usable_id(message: dict[str, Any]) -> Any:
    request_id = message.get("id")
    if type(request_id) in _ID_TYPES and type(request_id) is not bool:
        return request_id
    return None


def request(request_id: Any, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: dict[str, Any] | None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def result_response(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_response(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def invalid_message_response(exc: InvalidMessage) -> dict[str, Any]:
    return error_response(exc.request_id, INVALID_REQUEST, exc.reason)
