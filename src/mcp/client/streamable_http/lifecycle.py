"""The life of a Streamable HTTP session on the client (handshake era): a session that expires
(404 to a request carrying its id) is replaced once by re-initializing with the stored `initialize`
params, requests wait while that happens, and `DELETE` ends the session on exit. Also the plain
POST of a message that wants no answer, which re-initializing and the writer both send.

`SessionLifecycle` is that half of `StreamableHTTPTransport` (its state is set up by the
transport's `__init__`).
"""

from __future__ import annotations

import itertools
import logging
from typing import TYPE_CHECKING, Any

import anyio

from mcp._protocol.codec import ParseError, decode, encode
from mcp._protocol.sse import SSEParser
from mcp.client._http_library import errors_of
from mcp.client.streamable_http.resumption import ResumableStreams
from mcp.client.streamable_http.wire import (
    LOGGER_NAME,
    SESSION_HEADER,
    body_messages,
    content_type,
    json_object,
)
from mcp.types.version import HANDSHAKE_VERSIONS

if TYPE_CHECKING:
    from mcp.client._http_library import AsyncHTTPClient

logger = logging.getLogger(LOGGER_NAME)


class SessionLifecycle(ResumableStreams):
    """The session half of `StreamableHTTPTransport`: expiry, re-initialization, termination."""

    initialize_params: dict[str, Any] | None
    """The params of the last `initialize` sent: what re-initializing an expired session sends again."""
    _reinit_lock: anyio.Lock
    _reinitializing: anyio.Event | None
    """Set while an expired session is being replaced: requests wait for the new session id
    instead of going out with none (the server answers those 400 "Missing session ID")."""
    _reinit_ids: itertools.count[int]

    async def _post_one_way(self, message: dict[str, Any]) -> bool:
        """POST a notification or a response; True when the server took it (any 2xx)."""
        try:
            response = await self.client.post(self.url, content=encode(message).encode(),
                                              headers=self._message_headers(message))
        except self._errors.http as exc:
            logger.warning("could not send %s: %s", message.get("method") or "a response", exc)
            return False
        if response.status_code >= 300:
            logger.warning("the server refused %s: HTTP %d %s", message.get("method") or "a response",
                           response.status_code, response.text[:200])
            return False
        return True

    async def _session_settled(self) -> None:
        """Wait for a re-initialization in progress, if any (a clock-free attribute test otherwise)."""
        reinitializing = self._reinitializing
        if reinitializing is not None:
            await reinitializing.wait()

    async def _reinitialize(self, stale_session: str | None) -> bool:
        """The session `stale_session` has expired: start a new one with the stored `initialize`
        params (once for all concurrent requests that noticed). True when a session exists."""
        async with self._reinit_lock:
            if self.session_id != stale_session:
                return self.session_id is not None  # another request already re-initialized
            if self.initialize_params is None:
                return False
            self._reinitializing = anyio.Event()
            try:
                return await self._start_new_session()
            finally:
                self._reinitializing.set()
                self._reinitializing = None

    async def _start_new_session(self) -> bool:
        """`initialize` + `notifications/initialized` again; True when the server gave a session."""
        assert self.initialize_params is not None
        self.session_id = None
        if self._get_scope is not None:
            self._get_scope.cancel()
        request_id = f"mcpkit-reinitialize-{next(self._reinit_ids)}"
        message = {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": self.initialize_params}
        result = await self._internal_request(message)
        if result is None or self.session_id is None:
            logger.warning("re-initializing the expired session failed")
            self.session_id = None
            return False
        version = result.get("protocolVersion")
        if version in HANDSHAKE_VERSIONS:
            self.protocol_version = version
        if await self._post_one_way({"jsonrpc": "2.0", "method": "notifications/initialized"}):
            self._open_get_stream()
        logger.info("the session expired; re-initialized as a new session")
        return True

    async def _internal_request(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """POST a request the transport makes itself; other messages on its stream are delivered."""
        request_id = message["id"]
        headers = self._message_headers(message)
        answer: dict[str, Any] | None = None
        try:
            async with self.client.stream("POST", self.url, content=encode(message).encode(),
                                          headers=headers) as response:
                if response.status_code >= 300:
                    await response.aread()
                    return None
                session_id = response.headers.get(SESSION_HEADER)
                if session_id and message["method"] == "initialize":
                    self.session_id = session_id
                kind = content_type(response)
                if kind == "application/json":
                    messages: list[Any] = body_messages(decode(await response.aread()))
                else:
                    messages: list[Any] = []
                    parser = SSEParser()
                    async for chunk in response.aiter_bytes():
                        for event in parser.feed(chunk):
                            if event.data and event.event == "message":
                                messages.append(decode(event.data))
                for value in messages:
                    item = json_object(value)
                    if item is not None and item.get("id") == request_id and "method" not in item:
                        answer = item
                    elif item is not None:
                        await self._push(item)
        except (self._errors.http, ParseError) as exc:
            logger.warning("%s failed: %s", message["method"], exc)
            return None
        return json_object(answer.get("result")) if answer is not None else None

    async def terminate_session(self, client: AsyncHTTPClient | None = None) -> None:
        """`DELETE` the session, if any (405: the server does not allow it; fine)."""
        if self.session_id is None:
            return
        client = client or self.client
        try:
            response = await client.delete(self.url, headers=self._stream_headers())
        except errors_of(client).http as exc:
            logger.debug("session termination failed: %s", exc)
            return
        if response.status_code >= 300 and response.status_code != 405:
            logger.debug("session termination refused: HTTP %d", response.status_code)
        self.session_id = None
