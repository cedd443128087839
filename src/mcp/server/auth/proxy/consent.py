"""The consent page: which client asks for what, approved or denied by the signed-in user's click.

The page names the client (its registered name and client id), where the browser goes afterwards
(the redirect URI's host, shown apart so that a look-alike name cannot hide it, and the whole URI)
and the scopes asked for. It must not be framed (`X-Frame-Options: DENY`, CSP
`frame-ancestors 'none'`: no clickjacking), is never cached, and its form carries a CSRF token
bound to the transaction. The same token goes in an `HttpOnly`, `SameSite=Strict` cookie scoped to
the consent path, so an approval counts only when posted by the browser that was shown the page.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from urllib.parse import urlsplit

from starlette.responses import HTMLResponse

CONSENT_PATH = "/consent"
CSRF_COOKIE = "mcp_consent_csrf"

SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}
"""Every page the proxy shows carries these (the form may post here and redirect to the provider)."""

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}"
    "code{word-break:break-all}button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.6rem}"
)


def consent_page(
    *,
    transaction: str,
    csrf: str,
    client_name: str | None,
    client_id: str,
    redirect_uri: str,
    scopes: Sequence[str],
    provider_name: str,
    secure_cookie: bool,
) -> HTMLResponse:
    """The consent page of one transaction, with its CSRF cookie set."""
    e = html.escape
    scope_items = "".join(f"<li><code>{e(s)}</code></li>" for s in scopes) or "<li>(no scopes)</li>"
    who = e(client_name) if client_name else "An unnamed application"
    target = urlsplit(redirect_uri)
    host = target.netloc or f"{target.scheme}:"  # an app's own scheme (`myapp:/cb`) has no host
    body = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize {who}</title><style>{_STYLE}</style></head>
<body>
<h1 id="title">Authorize {who}?</h1>
<p>Client id: <code id="client-id">{e(client_id)}</code></p>
<p>After you approve, you sign in with {e(provider_name)} and are sent back to
<strong id="redirect-host">{e(host)}</strong> at <code id="redirect-uri">{e(redirect_uri)}</code></p>
<p>It asks for:</p><ul id="scopes">{scope_items}</ul>
<form method="post" action="{CONSENT_PATH}">
<input type="hidden" name="txn" value="{e(transaction)}">
<input type="hidden" name="csrf" value="{e(csrf)}">
<button type="submit" name="action" value="approve" id="approve">Approve</button>
<button type="submit" name="action" value="deny" id="deny">Deny</button>
</form>
</body></html>"""
    response = HTMLResponse(body, headers=SECURITY_HEADERS)
    response.set_cookie(
        CSRF_COOKIE,
        csrf,
        max_age=600,
        path=CONSENT_PATH,
        httponly=True,
        samesite="strict",
        secure=secure_cookie,
    )
    return response


def error_page(title: str, detail: str, status_code: int = 400) -> HTMLResponse:
    """A plain error page (for requests with no client to redirect to)."""
    e = html.escape
    body = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>'
        f'<style>{_STYLE}</style></head><body><h1>{e(title)}</h1><p id="detail">{e(detail)}</p></body></html>'
    )
    return HTMLResponse(body, status_code=status_code, headers=SECURITY_HEADERS)


__all__ = ["CONSENT_PATH", "CSRF_COOKIE", "SECURITY_HEADERS", "consent_page", "error_page"]
