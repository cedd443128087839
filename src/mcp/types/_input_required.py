"""Multi-round-trip requests (2026-07-28): instead of calling back, a server answers
`tools/call`, `prompts/get` or `resources/read` with an `InputRequiredResult`; the client fulfils
its `input_requests` and retries the same request carrying `input_responses` and `request_state`.
"""

from __future__ import annotations

from typing import Literal

from mcp.types._common import RequestParams, Result
from mcp.types._elicitation import ElicitRequest, ElicitResult
from mcp.types._roots import ListRootsRequest, ListRootsResult
from mcp.types._sampling import CreateMessageRequest, CreateMessageResult, CreateMessageResultWithTools

__all__ = [
    "InputRequest",
    "InputRequests",
    "InputRequiredResult",
    "InputResponse",
    "InputResponseRequestParams",
    "InputResponses",
]


InputRequest = CreateMessageRequest | ListRootsRequest | ElicitRequest
"""One request the client must fulfil: elicitation, sampling or roots, told apart by `method`."""

InputRequests = dict[str, InputRequest]
"""Server-chosen keys to the requests; the answers come back under the same keys."""


InputResponse = CreateMessageResult | CreateMessageResultWithTools | ListRootsResult | ElicitResult
"""The client's answer to one input request. `CreateMessageResultWithTools` is the array-content
variant of the schema's one `CreateMessageResult`."""

InputResponses = dict[str, InputResponse]
"""Answers keyed like the `InputRequests` they fulfil."""


class InputRequiredResult(Result):
    """The server needs input first. At least one of the two fields is present on the wire."""

    result_type: Literal["input_required"] = "input_required"
    input_requests: InputRequests | None = None
    request_state: str | None = None


class InputResponseRequestParams(RequestParams):
    """Params of a request that may be retried with answers to an `InputRequiredResult`."""

    input_responses: InputResponses | None = None
    request_state: str | None = None
    """Echoed verbatim from the `InputRequiredResult`."""
