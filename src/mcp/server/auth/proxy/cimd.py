"""Client ID Metadata Documents (CIMD): an MCP client whose `client_id` is an HTTPS URL that
serves its own registration, so it needs no registration endpoint.

The document is fetched (bounded in time and size, no redirects), must name itself as `client_id`,
list `redirect_uris` and be a public client (`token_endpoint_auth_method` `none`, no secret); it is
then cached in the proxy's store for `cache_ttl` seconds. A document that cannot be fetched or is
not valid leaves the client unknown, which `/authorize` answers as such.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast
from urllib.parse import urlsplit

import httpx
from pydantic import ValidationError

from mcp.server.auth.proxy.store import ProxyStore
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata

logger = logging.getLogger("mcp.server.auth.proxy")

DocumentFetcher = Callable[[str], Awaitable[Any]]
"""Fetches the JSON document at a URL (the default uses httpx with a timeout and size bound)."""

MAX_DOCUMENT_BYTES = 16 * 1024


def is_metadata_document_url(client_id: str) -> bool:
    """Whether `client_id` is a CIMD URL: HTTPS, a host, a non-root path, no fragment."""
    parts = urlsplit(client_id)
    return (
        parts.scheme == "https" and bool(parts.netloc) and parts.path not in ("", "/") and not parts.fragment
    )


async def fetch_document(url: str, timeout: float = 5.0) -> Any:
    async with (
        httpx.AsyncClient(timeout=timeout, follow_redirects=False) as http,
        http.stream("GET", url, headers={"Accept": "application/json"}) as response,
    ):
        if response.status_code != 200:
            raise ValueError(f"HTTP {response.status_code}")
        body = b""
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > MAX_DOCUMENT_BYTES:
                raise ValueError("document too large")
    import json

    return json.loads(body)


class ClientMetadataDocuments:
    """CIMD clients, fetched and cached in a `ProxyStore` (see the module docstring)."""

    def __init__(
        self,
        store: ProxyStore,
        *,
        fetcher: DocumentFetcher | None = None,
        default_scopes: Sequence[str] = (),
        cache_ttl: float = 300.0,
    ) -> None:
        self.store = store
        self.fetcher: DocumentFetcher = fetcher or fetch_document
        self.default_scopes = list(default_scopes)
        self.cache_ttl = cache_ttl

    async def client(self, url: str) -> OAuthClientInformationFull | None:
        cached = await self.store.get(f"cimd:{url}")
        if cached is not None:
            return OAuthClientInformationFull.model_validate(cached)
        try:
            document = await self.fetcher(url)
            client = self._validate(url, document)
        except (ValueError, httpx.HTTPError, ValidationError) as exc:
            logger.warning(
                "client metadata document %s refused: %s", url, str(exc)[:200] or type(exc).__name__
            )
            return None
        await self.store.put(
            f"cimd:{url}", client.model_dump(mode="json", exclude_none=True), ttl=self.cache_ttl
        )
        return client

    def _validate(self, url: str, raw: Any) -> OAuthClientInformationFull:
        if not isinstance(raw, dict):
            raise ValueError("not a JSON object")
        document = cast(dict[str, Any], raw)
        if document.get("client_id") != url:
            raise ValueError("client_id of the document is not its URL")
        if "client_secret" in document or document.get("token_endpoint_auth_method", "none") != "none":
            raise ValueError("a metadata document client must be public (token_endpoint_auth_method none)")
        metadata = OAuthClientMetadata.model_validate({k: v for k, v in document.items() if k != "client_id"})
        if not metadata.redirect_uris:
            raise ValueError("no redirect_uris")
        scope = metadata.scope
        if scope is None or (self.default_scopes and not set(scope.split()) <= set(self.default_scopes)):
            scope = " ".join(self.default_scopes) or None
        return OAuthClientInformationFull.model_validate(
            {**metadata.model_dump(), "client_id": url, "token_endpoint_auth_method": "none", "scope": scope}
        )


__all__ = ["ClientMetadataDocuments", "DocumentFetcher", "fetch_document", "is_metadata_document_url"]
