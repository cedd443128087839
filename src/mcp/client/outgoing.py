"""The requests a client sends and how their results are read.

`ClientOutgoing` holds the half of `ClientSession` that talks to the server: the raw send (with the
stateless wire's `_meta` stamp and progress tokens), the typed verbs, and the rounds of
`tools/call`, `prompts/get` and `resources/read` (an `InputRequiredResult`, a result an extension
claims, a tool result checked against the tool's output schema).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, cast

from mcp._engine.peer import Peer
from mcp.client import _deprecated
from mcp.client._deprecated import deprecated_verb
from mcp.client.handshake import ClientHandshake, model_types
from mcp.client.request_timeout import check_timeouts, resolve, total_deadline
from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import METHOD_NOT_FOUND
from mcp.types.version import LOG_LEVEL_META_KEY

logger = logging.getLogger("mcp.client")

ProgressCallback = Callable[[float, "float | None", "str | None"], Awaitable[None]]


class ClientOutgoing(ClientHandshake):
    """The requesting half of `ClientSession` (its state is set up by `ClientSession.__init__`)."""

    _log_level: str | None
    _progress: dict[Any, ProgressCallback]
    _on_silence_clock: set[Any]
    _progress_tokens: Iterator[int]
    _tool_output_schemas: dict[str, Any]
    _x_mcp_header_maps: dict[str, dict[tuple[str, ...], str]]
    _validators: dict[str, tuple[Any, Callable[[Any], str | None]]]

    # -- requests -----------------------------------------------------------------------------

    async def send_request_raw(self, method: str, params: dict[str, Any] | None, *, timeout: float | None = None,
                               progress_callback: ProgressCallback | None = None,
                               metadata: Any = None, reset_timeout_on_progress: bool = False,
                               max_total_timeout: float | None = None) -> dict[str, Any]:
        """Send one request and return its raw result. `reset_timeout_on_progress` makes the
        request's timeout bound the server's silence (each progress report restarts it; a progress
        token is sent even without `progress_callback`); `max_total_timeout` bounds the whole wait
        whatever progress says. Giving up sends `notifications/cancelled` (see
        `mcp.client.request_timeout`)."""
        check_timeouts(timeout, max_total_timeout, reset_timeout_on_progress)
        timeout, on_silence = resolve(timeout, self.read_timeout_seconds, self.default_request_timeout_seconds)
        on_silence = on_silence or (reset_timeout_on_progress and timeout is not None)
        if reset_timeout_on_progress and progress_callback is None:
            progress_callback = _ignore_progress
        peer = self.peer
        request_id: Any = None
        if on_silence and isinstance(peer, Peer):
            # this timeout bounds the server's silence: the session restarts or stops this clock
            request_id = peer.next_request_id()
            self._on_silence_clock.add(request_id)
        try:
            with total_deadline(method, max_total_timeout):
                return await self._send_raw(method, params, timeout, progress_callback, metadata, request_id)
        finally:
            self._on_silence_clock.discard(request_id)

    async def _send_raw(self, method: str, params: dict[str, Any] | None, timeout: float | None,
                        progress_callback: ProgressCallback | None, metadata: Any, request_id: Any) -> dict[str, Any]:
        modern = self._modern_meta
        if modern is not None or progress_callback is not None:
            params = dict(params) if params else {}
            meta = dict(params.get("_meta") or {})
            if modern is not None:
                meta.update(modern)
                if self._log_level is not None:
                    meta.setdefault(LOG_LEVEL_META_KEY, self._log_level)
            token = None
            if progress_callback is not None:
                # the token is the request's own id, as officially (over a dispatcher, a counter)
                peer = self.peer
                if isinstance(peer, Peer):
                    if request_id is None:
                        request_id = peer.next_request_id()
                    token = request_id
                else:
                    token = next(self._progress_tokens)
                meta["progressToken"] = token
                self._progress[token] = progress_callback
            params["_meta"] = meta
            try:
                return await self.peer.send_request(method, params, timeout=timeout, metadata=metadata,
                                                    request_id=request_id)
            finally:
                if token is not None:
                    self._progress.pop(token, None)
        return await self.peer.send_request(method, params, timeout=timeout, metadata=metadata, request_id=request_id)

    async def send_request(self, request: Any, result_type: Any, request_read_timeout_seconds: float | None = None,
                           metadata: Any = None, progress_callback: ProgressCallback | None = None, *,
                           reset_timeout_on_progress: bool = False, max_total_timeout: float | None = None) -> Any:
        """Send a typed request model (anything with `method` and `params`) and validate the result
        with `result_type` (a model class or a `TypeAdapter`). `metadata` travels with the message
        to the transport (e.g. HTTP resumption hints); for the timeouts see `send_request_raw`."""
        params = request.params
        wire = params.model_dump(mode="json", by_alias=True, exclude_none=True) if params is not None else None
        request_class: Any = request.__class__
        key: str | None = getattr(request_class, "name_param", None)
        if key is not None:  # a vendor verb naming its subject: mirrored into `Mcp-Name`, never left out
            name: Any = cast("dict[str, Any]", wire or {}).get(key)
            if not isinstance(name, str):
                raise ValueError(f"{request.method} requires params[{key!r}] for Mcp-Name")
            metadata = _with_name_header(metadata, name)
        raw = await self.send_request_raw(request.method, wire, timeout=request_read_timeout_seconds,
                                          progress_callback=progress_callback, metadata=metadata,
                                          reset_timeout_on_progress=reset_timeout_on_progress,
                                          max_total_timeout=max_total_timeout)
        validate = getattr(result_type, "validate_python", None)
        return validate(raw) if validate is not None else result_type.model_validate(raw)

    async def send_notification(self, notification: Any, params: dict[str, Any] | None = None) -> None:
        """Send a one-way notification: a typed notification model, or a method name and its params."""
        if isinstance(notification, str):
            await self.peer.send_notification(notification, params)
            return
        body = notification.params
        wire = body.model_dump(mode="json", by_alias=True, exclude_none=True) if body is not None else None
        await self.peer.send_notification(notification.method, wire)

    async def send_ping(self, *, meta: dict[str, Any] | None = None) -> Any:
        return model_types().EmptyResult.model_validate(await self.send_request_raw("ping", _with_meta({}, meta) or None))

    async def list_tools(self, cursor: str | None = None, *, meta: dict[str, Any] | None = None,
                         params: Any = None) -> Any:
        """One `tools/list` page (`params`: a `PaginatedRequestParams`, or `cursor`/`meta`); the
        session remembers each listed tool's output schema to check `call_tool` results against."""
        request = paginated(cursor, meta, params)
        raw = await self.send_request_raw("tools/list", request)
        result = model_types().ListToolsResult.model_validate(raw)
        first_page = not (request or {}).get("cursor")
        return self.absorb_tool_listing(result, complete=first_page and result.next_cursor is None)

    def absorb_tool_listing(self, result: Any, *, complete: bool = False) -> Any:
        """Remember the output schema of every tool in a `ListToolsResult` and return it: also for
        a listing that never reached this session (`Client`'s response cache serves one). A
        `complete` listing (one page, the whole set) forgets the tools it no longer has."""
        for tool in result.tools:
            self._tool_output_schemas[tool.name] = tool.output_schema
        if complete:
            names = {tool.name for tool in result.tools}
            self._tool_output_schemas = {k: v for k, v in self._tool_output_schemas.items() if k in names}
            self._validators = {k: v for k, v in self._validators.items() if k in names}
        return result

    _absorb_tool_listing = absorb_tool_listing
    """The official private name of `absorb_tool_listing` (FastMCP's client cache calls it)."""

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,
                        read_timeout_seconds: float | None = None, progress_callback: ProgressCallback | None = None,
                        *, meta: dict[str, Any] | None = None, input_responses: dict[str, Any] | None = None,
                        request_state: str | None = None, allow_input_required: bool = False,
                        allow_claimed: bool = False, reset_timeout_on_progress: bool = False,
                        max_total_timeout: float | None = None) -> Any:
        """One `tools/call` round: a `CallToolResult` (checked against the tool's output schema
        unless it is an error), or (2026-07-28) an `InputRequiredResult` when
        `allow_input_required` (without it, `RuntimeError`). For the timeouts see `send_request_raw`."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        result = await self._round("tools/call", params, "CallToolResult", meta, input_responses, request_state,
                                   allow_input_required, metadata=self._seeded_param_headers(name, arguments),
                                   timeout=read_timeout_seconds,
                                   progress_callback=progress_callback, allow_claimed=allow_claimed,
                                   reset_timeout_on_progress=reset_timeout_on_progress,
                                   max_total_timeout=max_total_timeout)
        if isinstance(result, model_types().CallToolResult) and not result.is_error:
            await self.validate_tool_result(name, result)
        return result

    def _seeded_param_headers(self, name: str, arguments: dict[str, Any] | None) -> Any:
        """The `Mcp-Param-*` headers of a `tools/call` whose header map a caller seeded in
        `_x_mcp_header_maps` (the official private a proxy fills from a backend tool's schema before
        calling a tool it never listed), as the request's metadata; None when nothing is seeded.
        The Streamable HTTP transport adds the headers of the tools it saw listed itself."""
        header_map = self._x_mcp_header_maps.get(name)
        if not header_map or not arguments:
            return None
        from mcp.shared.inbound import mcp_param_headers
        from mcp.shared.message import ClientMessageMetadata

        headers = mcp_param_headers(header_map, arguments)
        return ClientMessageMetadata(headers=headers) if headers else None

    async def validate_tool_result(self, name: str, result: Any) -> None:
        """Check a `CallToolResult` against the tool's declared output schema (listing the tools
        first when this one is not known yet). `RuntimeError` when it does not conform."""
        if name not in self._tool_output_schemas:
            cursor: str | None = None
            while True:
                try:
                    page = await self.list_tools(cursor)
                except MCPError as exc:
                    if exc.code != METHOD_NOT_FOUND:
                        raise
                    break  # a server with no tools/list: nothing declares a schema
                cursor = page.next_cursor
                if not cursor or name in self._tool_output_schemas:
                    break
        if name not in self._tool_output_schemas:
            logger.warning("Tool %s not listed by server, cannot validate any structured content", name)
            return
        schema = self._tool_output_schemas[name]
        if schema is None:
            return
        if result.structured_content is None and "structured_content" not in result.model_fields_set:
            raise RuntimeError(f"Tool {name} has an output schema but did not return structured content")
        cached = self._validators.get(name)
        if cached is None or cached[0] is not schema:
            from mcp.client.output_validation import compile_validator

            try:
                cached = (schema, compile_validator(schema))
            except Exception as exc:
                raise RuntimeError(f"Invalid schema for tool {name}: {exc}") from exc
            self._validators[name] = cached
        from mcp.shared.json_schema_check import check_off_loop

        error = await check_off_loop(cached[1], result.structured_content)
        if error is not None:
            raise RuntimeError(f"Invalid structured content returned by tool {name}: {error}")

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None, *, meta: dict[str, Any] | None = None,
                         input_responses: dict[str, Any] | None = None, request_state: str | None = None,
                         allow_input_required: bool = False) -> Any:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return await self._round("prompts/get", params, "GetPromptResult", meta, input_responses, request_state,
                                 allow_input_required)

    async def read_resource(self, uri: Any, *, meta: dict[str, Any] | None = None,
                            input_responses: dict[str, Any] | None = None, request_state: str | None = None,
                            allow_input_required: bool = False) -> Any:
        return await self._round("resources/read", {"uri": str(uri)}, "ReadResourceResult", meta, input_responses,
                                 request_state, allow_input_required)

    def claim_for(self, result_type: str) -> Any:
        """The `ResultClaim` of this session's extensions that takes a result whose `resultType` is
        `result_type` at the negotiated version; None in the handshake era or when none claims it."""
        if self._modern_meta is None:
            return None
        for extension in self.extensions:
            for claim in extension.claims():
                if claim.result_type == result_type and claim.active_at(self.protocol_version):
                    return claim
        return None

    async def _round(self, method: str, params: dict[str, Any], result_name: str, meta: dict[str, Any] | None,
                     input_responses: dict[str, Any] | None, request_state: str | None, allow_input_required: bool,
                     *, timeout: float | None = None, progress_callback: ProgressCallback | None = None,
                     allow_claimed: bool = False, reset_timeout_on_progress: bool = False,
                     max_total_timeout: float | None = None, metadata: Any = None) -> Any:
        if meta:
            params["_meta"] = dict(meta)
        if input_responses is not None:
            params["inputResponses"] = {key: _wire(response) for key, response in input_responses.items()}
        if request_state is not None:
            params["requestState"] = request_state
        raw = await self.send_request_raw(method, params, timeout=timeout, progress_callback=progress_callback,
                                          metadata=metadata, reset_timeout_on_progress=reset_timeout_on_progress,
                                          max_total_timeout=max_total_timeout)
        t = model_types()
        result_type = raw.get("resultType")
        claim = None if result_type in (None, "complete", "input_required") else self.claim_for(result_type)
        if claim is not None:  # an unclaimed resultType meets the core model's validation, as officially
            claimed = claim.model.model_validate(raw)
            if not allow_claimed:
                from mcp.client.extensions import UnexpectedClaimedResult

                raise UnexpectedClaimedResult(claimed)
            return claimed
        if result_type == "input_required":
            if not allow_input_required:
                verb = {"tools/call": "call_tool", "prompts/get": "get_prompt"}.get(method, "read_resource")
                raise RuntimeError(
                    "Server returned InputRequiredResult; pass allow_input_required=True to receive it "
                    f"and retry {verb}(..., input_responses=..., request_state=result.request_state).")
            return t.InputRequiredResult.model_validate(raw)
        return getattr(t, result_name).model_validate(raw)


    async def list_resources(self, cursor: str | None = None, *, meta: dict[str, Any] | None = None,
                             params: Any = None) -> Any:
        return model_types().ListResourcesResult.model_validate(
            await self.send_request_raw("resources/list", paginated(cursor, meta, params)))

    async def list_resource_templates(self, cursor: str | None = None, *, meta: dict[str, Any] | None = None,
                                      params: Any = None) -> Any:
        return model_types().ListResourceTemplatesResult.model_validate(
            await self.send_request_raw("resources/templates/list", paginated(cursor, meta, params)))

    async def list_prompts(self, cursor: str | None = None, *, meta: dict[str, Any] | None = None,
                           params: Any = None) -> Any:
        return model_types().ListPromptsResult.model_validate(
            await self.send_request_raw("prompts/list", paginated(cursor, meta, params)))

    @deprecated_verb(_deprecated.SUBSCRIBE)
    async def subscribe_resource(self, uri: Any, *, meta: dict[str, Any] | None = None) -> Any:
        return model_types().EmptyResult.model_validate(
            await self.send_request_raw("resources/subscribe", _with_meta({"uri": str(uri)}, meta)))

    @deprecated_verb(_deprecated.UNSUBSCRIBE)
    async def unsubscribe_resource(self, uri: Any, *, meta: dict[str, Any] | None = None) -> Any:
        return model_types().EmptyResult.model_validate(
            await self.send_request_raw("resources/unsubscribe", _with_meta({"uri": str(uri)}, meta)))

    @deprecated_verb(_deprecated.LOGGING)
    async def set_logging_level(self, level: str, *, meta: dict[str, Any] | None = None) -> Any:
        return model_types().EmptyResult.model_validate(
            await self.send_request_raw("logging/setLevel", _with_meta({"level": level}, meta)))

    async def complete(self, ref: Any, argument: dict[str, str], context_arguments: dict[str, str] | None = None) -> Any:
        params: dict[str, Any] = {"ref": ref.to_wire() if hasattr(ref, "to_wire") else ref, "argument": argument}
        if context_arguments is not None:
            params["context"] = {"arguments": context_arguments}
        return model_types().CompleteResult.model_validate(await self.send_request_raw("completion/complete", params))

    @deprecated_verb(_deprecated.ROOTS)
    async def send_roots_list_changed(self) -> None:
        await self.peer.send_notification("notifications/roots/list_changed")

    @deprecated_verb(_deprecated.PROGRESS)
    async def send_progress_notification(self, progress_token: Any, progress: float, total: float | None = None,
                                         message: str | None = None, *, meta: dict[str, Any] | None = None) -> None:
        params: dict[str, Any] = {"progressToken": progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self.peer.send_notification("notifications/progress", _with_meta(params, meta))


async def _ignore_progress(progress: float, total: float | None, message: str | None) -> None:
    """The callback of a request that asks for progress only to keep its timeout alive."""


def paginated(cursor: str | None, meta: dict[str, Any] | None, params: Any = None) -> dict[str, Any] | None:
    """The params of a list request: a `PaginatedRequestParams` as given, else `cursor`/`meta`."""
    if params is not None:
        return _wire(params) or None
    if cursor is None and not meta:
        return None
    wire: dict[str, Any] = {}
    if cursor is not None:
        wire["cursor"] = cursor
    if meta:
        wire["_meta"] = dict(meta)
    return wire


def _with_meta(params: dict[str, Any], meta: dict[str, Any] | None) -> dict[str, Any]:
    if meta:
        params["_meta"] = dict(meta)
    return params


def _wire(value: Any) -> Any:
    """A model's wire form (a dict passes through)."""
    return value.to_wire() if hasattr(value, "to_wire") else value


def _with_name_header(metadata: Any, name: str) -> Any:
    """`metadata` with the `Mcp-Name` header (encoded as the transport encodes it) added to its headers."""
    from dataclasses import replace

    from mcp._protocol.http import NAME_HEADER, encode_header_value
    from mcp.shared.message import ClientMessageMetadata

    if metadata is None:
        metadata = ClientMessageMetadata()
    if not isinstance(metadata, ClientMessageMetadata):
        return metadata
    headers = dict(metadata.headers or {})
    headers.setdefault(NAME_HEADER, encode_header_value(name))
    return replace(metadata, headers=headers)
