"""The proxy's browser-facing endpoints: the consent page (`/consent`) and the identity
provider's callback (`/auth/callback`).

A transaction (one `/authorize` request) goes: consent page shown (GET) -> approved (POST, CSRF
checked) -> the provider's sign-in, keyed by a fresh `state` -> callback (the state taken once) ->
the client's redirect URI with the proxy's code. A denial, or a provider error, goes to the
client's redirect URI as an OAuth error with the client's `state`; a request that names no live
transaction (replayed, expired, made up) gets an error page, since there is no client to tell.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from mcp.server.auth._form import form_string, read_form
from mcp.server.auth.provider import construct_redirect_uri
from mcp.server.auth.proxy.consent import CSRF_COOKIE, SECURITY_HEADERS, consent_page, error_page
from mcp.server.auth.proxy.upstream import UpstreamError

if TYPE_CHECKING:
    from mcp.server.auth.proxy.proxy import OAuthProxy

logger = logging.getLogger("mcp.server.auth.proxy")


def _s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def _to_client(flow: dict[str, Any], **params: str | None) -> Response:
    """Send the browser back to the client's redirect URI with `params` and the client's state."""
    location = construct_redirect_uri(flow["redirect_uri"], **params, state=flow.get("state"))
    return RedirectResponse(location, status_code=302, headers=SECURITY_HEADERS)


class ProxyEndpoints:
    """The consent and callback endpoints of one `OAuthProxy`."""

    def __init__(self, proxy: OAuthProxy) -> None:
        self.proxy = proxy

    async def consent(self, request: Request) -> Response:
        if request.method == "GET":
            return await self._show(request.query_params.get("txn", ""))
        form = await read_form(request)
        return await self._decide(
            form_string(form, "txn") or "",
            form_string(form, "csrf") or "",
            form_string(form, "action") or "",
            request.cookies.get(CSRF_COOKIE, ""),
        )

    async def _show(self, transaction: str) -> Response:
        proxy = self.proxy
        flow = await proxy.store.get(proxy.sealer.name("txn", transaction)) if transaction else None
        if flow is None:
            return error_page(
                "Authorization request expired",
                "This authorization request is unknown or has expired. Start again from your application.",
            )
        client = await proxy.get_client(flow["client_id"])
        return consent_page(
            transaction=transaction,
            csrf=flow["csrf"],
            client_name=client.client_name if client else None,
            client_id=flow["client_id"],
            redirect_uri=flow["redirect_uri"],
            scopes=flow["scopes"],
            provider_name=proxy.upstream.provider.name,
            secure_cookie=proxy.base_url.startswith("https:"),
        )

    async def _decide(self, transaction: str, csrf: str, action: str, cookie: str) -> Response:
        proxy = self.proxy
        name = proxy.sealer.name("txn", transaction)
        flow = await proxy.store.get(name) if transaction else None
        if flow is None:
            return error_page(
                "Authorization request expired",
                "This authorization request is unknown, already answered or expired.",
            )
        expected = str(flow["csrf"]).encode()
        if not (
            hmac.compare_digest(expected, csrf.encode()) and hmac.compare_digest(expected, cookie.encode())
        ):
            logger.warning("consent for client %s refused: CSRF token missing or wrong", flow["client_id"])
            return error_page("Request refused", "The consent form was not submitted from this page.", 403)
        if await proxy.store.take(name) is None:  # answered concurrently
            return error_page(
                "Authorization request expired", "This authorization request was already answered."
            )
        if action != "approve":
            logger.info("user denied consent to client %s", flow["client_id"])
            return _to_client(flow, error="access_denied", error_description="The user denied the request")
        try:
            upstream = await proxy.upstream.ready()
        except UpstreamError as exc:
            logger.warning("identity provider unavailable: %s", exc)
            return _to_client(flow, error="temporarily_unavailable", error_description=str(exc))
        state = secrets.token_urlsafe(24)
        verifier = secrets.token_urlsafe(48) if upstream.use_pkce else None
        nonce = secrets.token_urlsafe(16) if upstream.identity == "id_token" else None
        await proxy.store.put(
            proxy.sealer.name("upstream-state", state),
            {**flow, "upstream_verifier": verifier, "nonce": nonce},
            ttl=proxy.transaction_lifetime,
        )
        location = proxy.upstream.authorization_url(
            redirect_uri=proxy.callback_url,
            state=state,
            code_challenge=_s256(verifier) if verifier is not None else None,
            nonce=nonce,
        )
        response = RedirectResponse(location, status_code=302, headers=SECURITY_HEADERS)
        response.delete_cookie(CSRF_COOKIE, path="/consent")
        return response

    async def callback(self, request: Request) -> Response:
        proxy = self.proxy
        state = request.query_params.get("state", "")
        flow = await proxy.store.take(proxy.sealer.name("upstream-state", state)) if state else None
        if flow is None:
            logger.warning("identity provider callback with an unknown, used or expired state")
            return error_page(
                "Sign-in expired",
                "This sign-in is unknown, already completed or expired. Start again from your application.",
            )
        error = request.query_params.get("error")
        if error is not None:
            logger.info(
                "identity provider refused the sign-in for client %s: %s", flow["client_id"], error[:100]
            )
            code = "access_denied" if error == "access_denied" else "server_error"
            return _to_client(
                flow, error=code, error_description=f"The identity provider answered {error[:100]}"
            )
        upstream_code = request.query_params.get("code")
        if not upstream_code:
            return _to_client(
                flow, error="server_error", error_description="The identity provider sent no code"
            )
        try:
            tokens = await proxy.upstream.exchange_code(
                code=upstream_code,
                redirect_uri=proxy.callback_url,
                code_verifier=flow.get("upstream_verifier"),
            )
            identity = await proxy.upstream.identity(tokens, flow.get("nonce"))
        except UpstreamError as exc:
            logger.warning("sign-in for client %s failed upstream: %s", flow["client_id"], exc)
            return _to_client(flow, error="server_error", error_description=str(exc))
        grant_id = secrets.token_urlsafe(16)
        await proxy.save_grant(
            grant_id,
            client_id=flow["client_id"],
            subject=identity.subject,
            claims=_public_claims(identity.claims),
            upstream_tokens=tokens,
        )
        code = await proxy.issue_code(flow, grant_id, identity.subject)
        logger.info("user %s signed in for client %s", identity.subject, flow["client_id"])
        return _to_client(flow, code=code)


_PUBLIC_CLAIMS = (
    "sub",
    "id",
    "login",
    "name",
    "email",
    "email_verified",
    "preferred_username",
    "given_name",
    "family_name",
    "picture",
    "avatar_url",
    "iss",
    "tid",
    "oid",
    "groups",
    "roles",
    "org_id",
)


def _public_claims(claims: dict[str, Any]) -> dict[str, Any]:
    """The identity claims tools may see (who the user is), not the whole provider answer."""
    return {key: claims[key] for key in _PUBLIC_CLAIMS if key in claims}


__all__ = ["ProxyEndpoints"]
