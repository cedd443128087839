"""An authorized response that streams (an SSE answer or GET stream) reaches the caller while it is
still open: the providers carry the official `requires_response_body = True`, which httpx reads
only in the base `Auth` flows the providers override, so no body is read up front."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import httpx2
import pytest

from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
)
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.shared.auth import OAuthClientMetadata, OAuthToken

from .conftest import MCP_URL, REDIRECT_URI, InMemoryStorage

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("provider", [OAuthClientProvider, ClientCredentialsOAuthProvider, PrivateKeyJWTOAuthProvider,
                                      IdentityAssertionOAuthProvider])
def test_the_providers_declare_the_official_requires_response_body(provider: type[Any]) -> None:
    assert provider.requires_response_body is True


def _open_stream(library: Any) -> Any:
    """An SSE body (of `library`'s stream type) that sends one event, then stays open until its
    `close` event is set."""

    class OpenStream(library.AsyncByteStream):
        def __init__(self) -> None:
            self.close = anyio.Event()

        async def __aiter__(self) -> AsyncIterator[bytes]:
            yield b"event: message\ndata: {}\n\n"
            await self.close.wait()

    return OpenStream()


@pytest.mark.parametrize("library", [httpx, httpx2], ids=["httpx", "httpx2"])
async def test_an_authorized_stream_is_handed_over_while_it_is_still_open(library: Any) -> None:
    body = _open_stream(library)
    seen: list[str | None] = []

    def respond(request: Any) -> Any:
        seen.append(request.headers.get("authorization"))
        return library.Response(200, headers={"content-type": "text/event-stream"}, stream=body)

    storage = InMemoryStorage(tokens=OAuthToken(access_token="at-1", token_type="Bearer"))
    metadata = OAuthClientMetadata(redirect_uris=[REDIRECT_URI])  # pyright: ignore[reportArgumentType]
    auth = OAuthClientProvider(MCP_URL, metadata, storage)
    async with library.AsyncClient(transport=library.MockTransport(respond), auth=auth) as client:
        with anyio.fail_after(10):
            async with client.stream("GET", MCP_URL) as response:
                received: list[bytes] = []
                async for chunk in response.aiter_bytes():
                    received.append(chunk)  # the first event arrives while the stream is open...
                    body.close.set()  # ...and only then does the server end it
    assert received == [b"event: message\ndata: {}\n\n"]
    assert seen == ["Bearer at-1"]
