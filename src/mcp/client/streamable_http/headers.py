"""What goes in the headers of each request the Streamable HTTP client makes: the session id and
the negotiated protocol version (handshake era), or the version, method, name and `Mcp-Param-*`
headers of the 2026-07-28 wire (the last learnt from the `tools/list` results passing through).

`HeaderState` is the bottom half of `StreamableHTTPTransport` (its state is set up by the
transport's `__init__`): the endpoint, the HTTP client, and the per-connection header state.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, cast

from mcp._protocol.http import encode_header_value
from mcp.client._http_library import HTTPErrors, errors_of
from mcp.client.header_params import header_params, invalid_header_declaration
from mcp.client.streamable_http.wire import (
    ACCEPT,
    LOGGER_NAME,
    METHOD_HEADER,
    NAME_HEADER,
    NAME_PARAM,
    SESSION_HEADER,
    VERSION_HEADER,
    json_object,
    json_objects,
)
from mcp.shared.inbound import mcp_param_headers
from mcp.types.version import PROTOCOL_VERSION_META_KEY

if TYPE_CHECKING:
    from mcp.client._http_library import AsyncHTTPClient

logger = logging.getLogger(LOGGER_NAME)


class HeaderState:
    """The endpoint, the HTTP client, and the header state of one Streamable HTTP connection."""

    url: str
    _client: AsyncHTTPClient
    _errors: HTTPErrors
    session_id: str | None
    """The `Mcp-Session-Id` the server gave at `initialize` (handshake era)."""
    protocol_version: str | None
    """Negotiated by `initialize` (handshake era)."""
    modern_version: str | None
    """The version stamped on the last 2026-07-28 request (stateless wire)."""
    _tool_headers: dict[str, list[tuple[tuple[str, ...], str]]]
    """tool name -> (argument path, `Mcp-Param-*` suffix), learnt from `tools/list` results."""
    _extra_headers: dict[Any, dict[str, str]]
    """request id -> headers its sender asked for (`ClientMessageMetadata.headers`), while in flight."""

    @property
    def client(self) -> AsyncHTTPClient:
        """Set by whoever runs the transport, before it sends: an `httpx2` or `httpx` client."""
        return self._client

    @client.setter
    def client(self, client: AsyncHTTPClient) -> None:
        self._client = client
        self._errors = errors_of(client)

    def _message_headers(self, message: dict[str, Any]) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": ACCEPT}
        if self._extra_headers:
            extra = self._extra_headers.get(message.get("id"))
            if extra is not None:
                headers.update(extra)
        method = message.get("method")
        modern = modern_version_of(message)
        if modern is not None:
            self.modern_version = modern
            headers[VERSION_HEADER] = modern
            if method is not None:
                headers[METHOD_HEADER] = method
                name_param = NAME_PARAM.get(method)
                params = json_object(message.get("params"))
                value = params.get(name_param) if name_param is not None and params is not None else None
                if value is not None:
                    headers[NAME_HEADER] = encode_header_value(str(value))
                if method == "tools/call" and params is not None:
                    headers.update(self._param_headers(params))
            return headers
        if method == "initialize":
            return headers
        if self.session_id is not None:
            headers[SESSION_HEADER] = self.session_id
        version = self.protocol_version or self.modern_version
        if version is not None:
            headers[VERSION_HEADER] = version
        return headers

    def _param_headers(self, params: dict[str, Any]) -> dict[str, str]:
        """2026-07-28: the `Mcp-Param-*` headers mirroring the arguments a tool marks with
        `x-mcp-header` (absent and null values send no header; see `mcp_param_headers`)."""
        pairs = self._tool_headers.get(str(params.get("name")))
        if not pairs:
            return {}
        arguments = json_object(params.get("arguments"))
        return mcp_param_headers(dict(pairs), arguments) if arguments is not None else {}

    def _learn_tools(self, result: Any, complete: bool) -> Any:
        """Learn the `x-mcp-header` parameters of the tools in a `tools/list` result (a `complete`
        one, the whole listing in one page, also forgets the tools it no longer has). On the
        2026-07-28 wire a tool whose declarations break the rules is dropped and no longer mirrored
        (SEP-2243: the client MUST drop it, and SHOULD log why); returns the result without such
        tools. Calling a dropped tool by name still sends the call, mirroring nothing."""
        excluded: list[dict[str, Any]] = []
        listed: set[str] = set()
        for tool in json_objects(json_object(result), "tools"):
            name = tool.get("name")
            if not isinstance(name, str):
                continue
            reason = invalid_header_declaration(tool.get("inputSchema")) if self._stateless_wire else None
            if reason is not None:
                logger.warning("dropping tool %r: invalid x-mcp-header (%s)", name, reason)
                self._tool_headers.pop(name, None)
                excluded.append(tool)
                continue
            listed.add(name)
            self._tool_headers[name] = header_params(tool.get("inputSchema"))
        if complete and len(self._tool_headers) > len(listed):
            self._tool_headers = {name: pairs for name, pairs in self._tool_headers.items() if name in listed}
        if not excluded:
            return result
        tools = cast("list[Any]", result["tools"])
        return {**result, "tools": [tool for tool in tools if not any(tool is drop for drop in excluded)]}

    def _stream_headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream"}
        if self.session_id is not None:
            headers[SESSION_HEADER] = self.session_id
        version = self.protocol_version or self.modern_version
        if version is not None:
            headers[VERSION_HEADER] = version
        return headers

    @property
    def _stateless_wire(self) -> bool:
        return self.modern_version is not None and self.protocol_version is None


def modern_version_of(message: dict[str, Any]) -> str | None:
    """The 2026-07-28 version a message's `params._meta` is stamped with (None: a handshake-era message)."""
    params = json_object(message.get("params"))
    meta = json_object(params.get("_meta")) if params is not None else None
    version = meta.get(PROTOCOL_VERSION_META_KEY) if meta is not None else None
    return version if isinstance(version, str) else None
