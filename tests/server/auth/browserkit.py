"""A real headless browser for the auth tests: Debian's Chromium (`/usr/bin/chromium`, installed by
`fetch_chromium.sh`, which `./dev test` runs) driven by Playwright, never a browser Playwright
downloads. Also `Site`, a small web site on loopback (a client's pages, an attacker's pages).

Without the browser or Playwright the tests skip with the reason, except under `CI=true`, where
they fail: CI must run them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest
from jwtkit import serve
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext

CHROMIUM = os.environ.get("MCP_TEST_CHROMIUM", "/usr/bin/chromium")
TIMEOUT_MS = 15_000
"""Every Playwright wait (navigation, click, selector) gives up after this."""

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # root in CI containers
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-proxy-server",  # loopback only, whatever the environment says
]


def require_chromium() -> str:
    """The browser's path once Chromium and Playwright are both there; otherwise skip (fail under
    `CI=true`) saying what is missing and how to get it."""
    missing: list[str] = []
    if not os.access(CHROMIUM, os.X_OK):
        missing.append(f"no Chromium at {CHROMIUM} (bash tests/server/auth/fetch_chromium.sh installs it)")
    try:
        import playwright.async_api  # noqa: F401  # pyright: ignore[reportUnusedImport]
    except ImportError:
        missing.append("no playwright (pip install -e '.[dev]')")
    if missing:
        reason = "browser tests: " + "; ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return CHROMIUM


@asynccontextmanager
async def chromium(executable: str, hosts: dict[str, str] | None = None) -> AsyncIterator[BrowserContext]:
    """A fresh headless Chromium (its own user-data dir, so no cookie survives a test), closed on
    exit. `hosts` maps names to addresses (`{"attacker.test": "127.0.0.1"}`), so pages can be on
    other sites than `127.0.0.1` (ports alone make other origins, not other sites)."""
    from playwright.async_api import async_playwright

    rules = ", ".join(f"MAP {name} {address}" for name, address in (hosts or {}).items())
    args = [*CHROMIUM_ARGS, *([f"--host-resolver-rules={rules}"] if rules else [])]
    profile = tempfile.mkdtemp(prefix="mcp-chromium-")
    try:
        async with async_playwright() as playwright:
            context = await playwright.chromium.launch_persistent_context(
                profile, executable_path=executable, headless=True, args=args, timeout=TIMEOUT_MS
            )
            try:
                context.set_default_timeout(TIMEOUT_MS)
                context.set_default_navigation_timeout(TIMEOUT_MS)
                yield context
            finally:
                await context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


@dataclass
class Site:
    """A web site on loopback serving the HTML in `pages` (path -> HTML) and recording every
    request's path and query, e.g. a client's start page and redirect URI, or an attacker's page."""

    pages: dict[str, str] = field(default_factory=dict[str, str])
    visits: list[tuple[str, dict[str, str]]] = field(default_factory=list[tuple[str, dict[str, str]]])

    async def _page(self, request: Request) -> Response:
        self.visits.append((request.url.path, dict(request.query_params)))
        html = self.pages.get(request.url.path)
        return HTMLResponse(html, status_code=200) if html is not None else HTMLResponse("not here", 404)

    @contextmanager
    def serve(self) -> Iterator[str]:
        """Serve the site on a free 127.0.0.1 port; yields its `http://127.0.0.1:<port>`."""
        app = Starlette(routes=[Route("/{path:path}", self._page)])
        with serve(app) as base:
            yield base
