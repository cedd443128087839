"""The OAuth proxy's consent page in a real headless browser (Debian's Chromium, see `browserkit`):
it names the client, where it sends the browser back and the scopes asked; approving goes through
the identity provider (the fake one) back to the client with a code that buys a token; denying
tells the client `access_denied`. Chromium itself refuses to render the page in another site's
frame (clickjacking), and a form posted from another origin, or posted again, is refused with
nothing issued (CSRF, replay).

Everything is real and on loopback: the MCP server behind `OAuthProxy` on uvicorn, the provider,
the client's site (its start page and redirect URI) and an attacker's site. The client's and the
attacker's pages are opened as `client.test` and `attacker.test` (mapped to 127.0.0.1 in the
browser), other sites than the proxy's `127.0.0.1`.
"""

from __future__ import annotations

import html
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from browserkit import Site, chromium, require_chromium
from fake_idp import CLIENT_SECRET, FakeIdP
from proxykit import Flow, proxied_server

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Frame, Page, Response

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]

SCOPES = ["notes", "notes:write"]
HOSTS = {"client.test": "127.0.0.1", "attacker.test": "127.0.0.1"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class World:
    """The proxy (with its provider), the client's site, the attacker's site and the browser."""

    idp: FakeIdP
    base: str
    flow: Flow
    client: Site
    client_base: str
    client_site: str
    """The client's site as the browser opens it (`http://client.test:<port>`)."""
    attacker: Site
    attacker_site: str
    """The attacker's site as the browser opens it (`http://attacker.test:<port>`)."""
    browser: BrowserContext

    @property
    def redirect(self) -> str:
        return self.flow.redirect

    def authorize_url(self) -> str:
        return self.flow.authorize_url(scope=" ".join(SCOPES))

    async def consent_page(self) -> Page:
        """A tab on the consent page, reached the way users reach it: a link on the client's site."""
        self.client.pages["/"] = f'<a id="sign-in" href="{html.escape(self.authorize_url())}">Sign in</a>'
        page = await self.browser.new_page()
        await page.goto(f"{self.client_site}/")
        await page.click("#sign-in")
        await page.wait_for_url(f"{self.base}/consent?*")
        return page

    async def landed(self, page: Page) -> dict[str, str]:
        """Wait until `page` is back on the client's redirect URI; its query."""
        await page.wait_for_url(f"{self.redirect}?*")
        return {key: values[0] for key, values in parse_qs(urlsplit(page.url).query).items()}


@pytest.fixture
async def world() -> AsyncIterator[World]:
    executable = require_chromium()
    client, attacker = Site(), Site()
    client.pages["/callback"] = "<h1 id='done'>Back in the client</h1>"
    with (
        proxied_server("github", scopes=SCOPES) as (idp, _, base),
        client.serve() as client_base,
        attacker.serve() as attacker_base,
    ):
        async with httpx.AsyncClient(timeout=10) as http, chromium(executable, HOSTS) as browser:
            flow = Flow(http, base, client_name="Notes CLI", redirect=f"{client_base}/callback")
            await flow.register()
            yield World(
                idp=idp,
                base=base,
                flow=flow,
                client=client,
                client_base=client_base,
                client_site=client_base.replace("127.0.0.1", "client.test"),
                attacker=attacker,
                attacker_site=attacker_base.replace("127.0.0.1", "attacker.test"),
                browser=browser,
            )


async def test_the_consent_page_names_the_client_its_redirect_host_and_scopes_and_approving_returns_a_code_that_buys_a_token(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="mcp.server.auth")
    page = await world.consent_page()
    assert await page.inner_text("#title") == "Authorize Notes CLI?"
    assert await page.inner_text("#client-id") == world.flow.client["client_id"]
    assert await page.inner_text("#redirect-host") == urlsplit(world.client_base).netloc
    assert await page.inner_text("#redirect-uri") == world.redirect
    assert await page.locator("#scopes li").all_inner_texts() == SCOPES
    csrf = await page.get_attribute("input[name=csrf]", "value")
    assert csrf

    await page.click("#approve")
    query = await world.landed(page)
    assert query["state"] == "client-state" and "error" not in query
    assert await page.inner_text("#done") == "Back in the client"
    assert world.idp.requests.count("authorize") == 1
    tokens = await world.flow.exchange(query["code"])
    assert tokens.status_code == 200, tokens.text
    body = tokens.json()
    assert body["token_type"].lower() == "bearer" and set(body["scope"].split()) == set(SCOPES)
    again = await world.flow.exchange(query["code"])
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    # nothing secret reached the logs
    for secret in (
        CLIENT_SECRET,
        csrf,
        query["code"],
        body["access_token"],
        body["refresh_token"],
        *world.idp.access_tokens,
    ):
        assert secret not in caplog.text


async def test_denying_on_the_consent_page_sends_the_client_access_denied_and_nothing_is_issued(
    world: World,
) -> None:
    page = await world.consent_page()
    await page.click("#deny")
    query = await world.landed(page)
    assert query == {
        "error": "access_denied",
        "error_description": "The user denied the request",
        "state": "client-state",
    }
    assert "authorize" not in world.idp.requests


async def frame(page: Page, selector: str) -> Frame:
    """The frame that the `<iframe>` at `selector` shows."""
    element = await page.wait_for_selector(selector, state="attached")
    content = await element.content_frame() if element is not None else None
    assert content is not None, selector
    return content


async def test_chromium_refuses_to_show_the_consent_page_in_another_sites_frame(world: World) -> None:
    consent_responses: list[Response] = []
    world.attacker.pages["/"] = (
        f'<iframe id="victim" src="{html.escape(world.authorize_url())}"></iframe>'
        # the control: a page of the proxy's own origin that does not forbid framing renders
        f'<iframe id="control" src="{world.base}/.well-known/oauth-authorization-server"></iframe>'
    )
    page = await world.browser.new_page()
    page.on("response", lambda r: consent_responses.append(r) if "/consent?" in r.url else None)
    async with page.expect_console_message(
        lambda message: "X-Frame-Options" in message.text or "frame-ancestors" in message.text
    ) as refusal:
        await page.goto(f"{world.attacker_site}/", wait_until="load")

    control, victim = await frame(page, "#control"), await frame(page, "#victim")
    assert "authorization_endpoint" in await control.inner_text("body")
    # the browser fetched the consent page, saw it forbids framing and showed its own error instead
    assert len(consent_responses) == 1
    headers = await consent_responses[0].all_headers()
    assert headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert victim.url.startswith("chrome-error://"), victim.url
    assert await victim.query_selector("#approve") is None
    assert "Authorize" not in await victim.content()
    assert f"Framing '{world.base}/'" in (await refusal.value).text  # Chromium says it blocked it


@pytest.mark.parametrize(
    ("origin", "fields"),
    [
        ("attacker.test", "the page's own token"),  # refused: the browser withholds the SameSite cookie
        ("attacker.test", "no token"),
        ("another 127.0.0.1 port", "no token"),  # same site, other origin: the token refuses it
    ],
)
async def test_a_consent_posted_from_another_origin_is_refused_and_the_users_own_click_still_works(
    world: World, origin: str, fields: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="mcp.server.auth")
    victim = await world.consent_page()  # the user has the page open: the CSRF cookie is set
    txn = await victim.get_attribute("input[name=txn]", "value")
    csrf = await victim.get_attribute("input[name=csrf]", "value")
    assert txn and csrf
    # what keeps the cookie home: Strict, and out of scripts' reach
    [cookie] = await world.browser.cookies(f"{world.base}/consent")
    assert (cookie.get("value"), cookie.get("sameSite"), cookie.get("httpOnly")) == (csrf, "Strict", True)
    token_input = (
        f'<input type="hidden" name="csrf" value="{csrf}">' if fields == "the page's own token" else ""
    )
    world.attacker.pages["/"] = (
        f'<form id="forged" method="post" action="{world.base}/consent">'
        f'<input type="hidden" name="txn" value="{txn}">{token_input}'
        '<input type="hidden" name="action" value="approve"></form>'
    )
    attacker_site = (
        world.attacker_site
        if origin == "attacker.test"
        else world.attacker_site.replace("attacker.test", "127.0.0.1")
    )
    page = await world.browser.new_page()
    await page.goto(f"{attacker_site}/")
    # another origin cannot read the consent page (and its token): no CORS on it
    stolen = await page.evaluate(
        "url => fetch(url, {credentials: 'include'}).then(r => r.text(), e => 'refused: ' + e.name)",
        f"{world.base}/consent?txn={txn}",
    )
    assert stolen.startswith("refused: TypeError")
    async with page.expect_navigation():
        await page.evaluate("document.getElementById('forged').submit()")
    assert page.url == f"{world.base}/consent"
    assert await page.inner_text("h1") == "Request refused"
    assert await page.inner_text("#detail") == "The consent form was not submitted from this page."
    # nothing was issued: no sign-in at the provider, the client heard nothing
    assert "authorize" not in world.idp.requests
    assert not [visit for visit in world.client.visits if visit[0] == "/callback"]
    # the refusal is logged, without the transaction or its token
    assert "CSRF token missing or wrong" in caplog.text
    assert txn not in caplog.text and csrf not in caplog.text

    await victim.click("#approve")
    query = await world.landed(victim)
    assert "code" in query and query["state"] == "client-state"


async def test_a_replayed_consent_submission_is_refused(world: World) -> None:
    page = await world.consent_page()
    form = await page.eval_on_selector("form", "form => form.outerHTML")
    await page.click("#approve")
    first = await world.landed(page)
    assert "code" in first

    # back to the consent page: it is not cached (no-store), and the transaction is answered
    await page.go_back(wait_until="load")
    assert page.url.startswith(f"{world.base}/consent?")
    assert await page.inner_text("h1") == "Authorization request expired"
    # the same form posted again from the proxy's own page
    await page.evaluate("html => { document.body.insertAdjacentHTML('beforeend', html); }", form)
    async with page.expect_navigation():
        await page.click("#approve")
    assert await page.inner_text("h1") == "Authorization request expired"
    assert "already answered" in await page.inner_text("#detail")
    assert world.idp.requests.count("authorize") == 1
    assert len([visit for visit in world.client.visits if visit[0] == "/callback"]) == 1
