"""The official SDK's OAuth client (`mcp==2.3.0`, run in its own venv) signing a user in to an
MCP server and calling a tool, headless: the official `OAuthClientProvider` with an in-memory
`TokenStorage`; its redirect handler is the user's browser, which follows the authorization URL
with httpx2, approves the consent page it meets and stops at the client's redirect URI; its
callback handler hands back the code, state and `iss` of that redirect, as a local callback
server would.

Usage: official_oauth_client.py MCP_URL REDIRECT_URI [TOOL]. Every HTTP request opens its own
connection (no keep-alive), so a round-robin balancer in front spreads them over its workers.
Prints one JSON object: the tools listed, the tool's structured results (called three times: the
second rides on the stored token; before the third the token is declared expired, as a clock that
moved past `expires_in` would, so the official client refreshes it with the refresh token) and
what the storage holds; exits non-zero with the error otherwise.
"""

from __future__ import annotations

import json
import re
import sys
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
from pydantic import AnyUrl

from mcp.client import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

NO_KEEPALIVE = httpx2.Limits(max_keepalive_connections=0)
HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


class MemoryStorage:
    """The official `TokenStorage` protocol, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class HeadlessBrowser:
    """Follows the authorization URL: redirects, the consent page's form (approved), the identity
    provider's sign-in, until a redirect to `redirect_uri`, whose query it keeps."""

    def __init__(self, redirect_uri: str) -> None:
        self.redirect_uri = redirect_uri
        self.query: dict[str, str] = {}
        self.consent_pages = 0

    async def redirect(self, url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=False, timeout=20, limits=NO_KEEPALIVE) as http:
            response = await http.get(url)
            for _ in range(12):
                if response.status_code in (301, 302, 303, 307, 308):
                    location = response.headers["location"]
                    if location.startswith(self.redirect_uri):
                        self.query = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
                        return
                    response = await http.get(location)
                elif response.status_code == 200 and "<form" in response.text:
                    self.consent_pages += 1
                    fields = dict(HIDDEN.findall(response.text))
                    action = str(response.url).split("?")[0]
                    response = await http.post(action, data={**fields, "action": "approve"})
                else:
                    raise RuntimeError(f"browser stopped at HTTP {response.status_code}: {response.text[:300]}")
        raise RuntimeError("browser: too many redirects")

    async def callback(self) -> AuthorizationCodeResult:
        if "code" not in self.query:
            raise RuntimeError(f"no code in the redirect: {self.query}")
        return AuthorizationCodeResult(code=self.query["code"], state=self.query.get("state"),
                                       iss=self.query.get("iss"))


async def main(url: str, redirect_uri: str, tool: str) -> dict[str, Any]:
    storage, browser = MemoryStorage(), HeadlessBrowser(redirect_uri)
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(client_name="Official SDK client",
                                            redirect_uris=[AnyUrl(redirect_uri)]),
        storage=storage,
        redirect_handler=browser.redirect,
        callback_handler=browser.callback,
    )
    async with (
        httpx2.AsyncClient(auth=provider, timeout=30, limits=NO_KEEPALIVE) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        tools = await client.list_tools()
        first = await client.call_tool(tool, {})
        second = await client.call_tool(tool, {})
        issued = storage.tokens.access_token if storage.tokens else None
        provider.context.token_expiry_time = time.time() - 1
        third = await client.call_tool(tool, {})
    results = [first, second, third]
    return {
        "tools": [t.name for t in tools.tools],
        "results": [r.structured_content for r in results],
        "errors": [r.is_error for r in results],
        "refreshed": bool(storage.tokens and issued and storage.tokens.access_token != issued),
        "client_id": storage.client_info.client_id if storage.client_info else None,
        "token_type": storage.tokens.token_type if storage.tokens else None,
        "has_refresh_token": bool(storage.tokens and storage.tokens.refresh_token),
        "access_token": storage.tokens.access_token if storage.tokens else None,
        "consent_pages": browser.consent_pages,
    }


if __name__ == "__main__":
    print(json.dumps(anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "whoami")))
