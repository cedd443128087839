"""Multi-round-trip requests (2026-07-28): instead of calling back, a server answers
`tools/call`, `prompts/get` or `resources/read` with an `InputRequiredResult`; the client fulfils
its `input_requests` and retries the same request carrying `input_responses` and `request_state`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag

from mcp.types._common import RequestParams, Result
from mcp.types._elicitation import ElicitRequest, ElicitResult
from mcp.types._roots import ListRootsRequest, ListRootsResult
from mcp.types._sampling import CreateMessageRequest, CreateMessageResult

__all__ = [
    "InputRequest",
    "InputRequests",
    "InputRequiredResult",
    "InputResponse",
    "InputResponseRequestParams",
    "InputResponses",
]


InputRequest = Annotated[
    CreateMessageRequest | ListRootsRequest | ElicitRequest, Field(discriminator="method")
]
"""One request the client must fulfil: elicitation, sampling or roots, told apart by `method`."""

InputRequests = dict[str, InputRequest]
"""Server-chosen keys to the requests; the answers come back under the same keys."""


def _response_kind(value: Any) -> str:
    if isinstance(value, dict):
        if "action" in value:
            return "elicit"
        return "roots" if "roots" in value else "sampling"
    if isinstance(value, ElicitResult):
        return "elicit"
    return "roots" if isinstance(value, ListRootsResult) else "sampling"


InputResponse = Annotated[
    Annotated[CreateMessageResult, Tag("sampling")]
    | Annotated[ListRootsResult, Tag("roots")]
    | Annotated[ElicitResult, Tag("elicit")],
    Discriminator(_response_kind),
]
"""The client's answer to one input request (told apart by `action` / `roots` / neither)."""

InputResponses = dict[str, InputResponse]
"""Answers keyed like the `InputRequests` they fulfil."""


class InputRequiredResult(Result):
    """The server needs input first. At least one of the two fields is present on the wire."""

    result_type: Literal["input_required"] = "input_required"  # pyright: ignore[reportIncompatibleVariableOverride]
    input_requests: InputRequests | None = None
    request_state: str | None = None


class InputResponseRequestParams(RequestParams):
    """Params of a request that may be retried with answers to an `InputRequiredResult`."""

    input_responses: InputResponses | None = None
    request_state: str | None = None
    """Echoed verbatim from the `InputRequiredResult`."""
