"""`ClientPeer`: typed server-to-client requests over any `Outbound` channel (a request's
`DispatchContext`, a `Connection`, ...): sampling, elicitation, roots, ping."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcp.shared.exceptions import warn_deprecated

if TYPE_CHECKING:
    from mcp.shared.dispatcher import CallOptions, Outbound

__all__ = ["ClientPeer", "Meta"]

Meta = dict[str, Any]
"""The `_meta` of a request's or notification's params."""


def dump_params(model: Any, meta: Meta | None = None) -> dict[str, Any] | None:
    """A params model in wire form with `meta` merged into its `_meta` (`meta` wins)."""
    wire: dict[str, Any] | None = None if model is None else model.model_dump(by_alias=True, mode="json",
                                                                              exclude_none=True)
    if meta:
        wire = dict(wire or {})
        wire["_meta"] = {**wire.get("_meta", {}), **meta}
    return wire


class ClientPeer:
    """The client as the server sees it, over `outbound`."""

    def __init__(self, outbound: Outbound) -> None:
        self._outbound = outbound

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None,
                               opts: CallOptions | None = None) -> dict[str, Any]:
        return await self._outbound.send_raw_request(method, params, opts)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None) -> None:
        await self._outbound.notify(method, params, opts)

    async def sample(self, messages: list[Any], *, max_tokens: int, system_prompt: str | None = None,
                     include_context: Any = None, temperature: float | None = None,
                     stop_sequences: list[str] | None = None, metadata: dict[str, Any] | None = None,
                     model_preferences: Any = None, tools: list[Any] | None = None, tool_choice: Any = None,
                     meta: Meta | None = None, opts: CallOptions | None = None) -> Any:
        """`sampling/createMessage` (deprecated with sampling as of 2026-07-28)."""
        warn_deprecated("sampling")
        from mcp.types import CreateMessageRequestParams, CreateMessageResult, CreateMessageResultWithTools

        params = CreateMessageRequestParams(
            messages=messages, max_tokens=max_tokens, system_prompt=system_prompt, include_context=include_context,
            temperature=temperature, stop_sequences=stop_sequences, metadata=metadata,
            model_preferences=model_preferences, tools=tools, tool_choice=tool_choice,
        )
        raw = await self.send_raw_request("sampling/createMessage", dump_params(params, meta), opts)
        result_type = CreateMessageResultWithTools if tools else CreateMessageResult
        return result_type.model_validate(raw)

    async def elicit_form(self, message: str, requested_schema: dict[str, Any], *, meta: Meta | None = None,
                          opts: CallOptions | None = None) -> Any:
        from mcp.types import ElicitResult

        params: dict[str, Any] = {"mode": "form", "message": message, "requestedSchema": requested_schema}
        return ElicitResult.model_validate(await self.send_raw_request("elicitation/create", _merge(params, meta), opts))

    async def elicit_url(self, message: str, url: str, elicitation_id: str, *, meta: Meta | None = None,
                         opts: CallOptions | None = None) -> Any:
        from mcp.types import ElicitResult

        params: dict[str, Any] = {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}
        return ElicitResult.model_validate(await self.send_raw_request("elicitation/create", _merge(params, meta), opts))

    async def list_roots(self, *, meta: Meta | None = None, opts: CallOptions | None = None) -> Any:
        """`roots/list` (deprecated with roots as of 2026-07-28)."""
        warn_deprecated("roots")
        from mcp.types import ListRootsResult

        return ListRootsResult.model_validate(await self.send_raw_request("roots/list", _merge(None, meta), opts))

    async def ping(self, *, meta: Meta | None = None, opts: CallOptions | None = None) -> None:
        await self.send_raw_request("ping", _merge(None, meta), opts)


def _merge(params: dict[str, Any] | None, meta: Meta | None) -> dict[str, Any] | None:
    if not meta:
        return params
    return {**(params or {}), "_meta": meta}
