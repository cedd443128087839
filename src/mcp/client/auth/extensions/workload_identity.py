"""Workload identity federation (MCP SEP-1933): a workload's own JWT is the authorization grant.

`WorkloadIdentityOAuthProvider` trades a JWT the platform issued to the workload (a Kubernetes
service account token, a cloud instance identity token, a SPIFFE JWT-SVID, ...) for an access
token with the RFC 7523 §2.1 `jwt-bearer` grant:

    grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<workload JWT>&resource=...

There is no user, no browser and no client secret by default (the client is identified by
`client_id`, `token_endpoint_auth_method="none"`; pass `client_secret` for a confidential client).
`assertion_provider(audience)` returns the workload JWT for the authorization server's issuer
(`static_assertion_provider(jwt)` for one minted elsewhere; read the platform's token file in your
own provider to follow its rotation). An error from the token endpoint (`invalid_grant`,
`invalid_scope`, `unauthorized_client`) is raised as `OAuthTokenError`: the request is not retried
and no other grant is tried. Discovery is the one of `OAuthClientProvider`; `issuer=` pins the
authorization server the workload is federated with.
"""

from __future__ import annotations

from typing import Literal

import httpx2

from mcp.client.auth.exceptions import OAuthFlowError
from mcp.client.auth.extensions.client_credentials import AssertionProvider, _ClientCredentialsBase
from mcp.client.auth.oauth2 import TokenStorage
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE


class WorkloadIdentityOAuthProvider(_ClientCredentialsBase):
    """The `jwt-bearer` grant with a workload identity JWT, as an `httpx.Auth`."""

    def __init__(
        self,
        server_url: str,
        storage: TokenStorage,
        client_id: str,
        assertion_provider: AssertionProvider,
        scope: str | None = None,
        issuer: str | None = None,
        client_secret: str | None = None,
        token_endpoint_auth_method: Literal["none", "client_secret_basic", "client_secret_post"] | None = None,
    ) -> None:
        method = token_endpoint_auth_method or ("client_secret_basic" if client_secret else "none")
        if method != "none" and not client_secret:
            raise ValueError(f"token_endpoint_auth_method {method!r} needs a client_secret")
        super().__init__(server_url, storage, client_id, client_secret, method, scope, issuer)
        self.assertion_provider = assertion_provider
        for info in (self.context.client_metadata, self._fixed_client_info):
            info.grant_types = [JWT_BEARER_GRANT_TYPE]

    async def _exchange_token_client_credentials(self) -> httpx2.Request:
        """The `jwt-bearer` token request with a fresh assertion for this authorization server."""
        self._require_metadata_for_issuer()
        ctx = self.context
        if ctx.oauth_metadata is None:
            raise OAuthFlowError("Missing OAuth metadata for the workload identity grant")
        data = {
            "grant_type": JWT_BEARER_GRANT_TYPE,
            "assertion": await self.assertion_provider(str(ctx.oauth_metadata.issuer)),
        }
        if self._fixed_client_info.token_endpoint_auth_method == "none":
            data["client_id"] = self._fixed_client_info.client_id or ""  # a public client names itself
        data, headers = ctx.prepare_token_auth(data, {"Content-Type": "application/x-www-form-urlencoded"})
        if ctx.should_include_resource_param(ctx.protocol_version):
            data["resource"] = ctx.get_resource_url()
        if ctx.client_metadata.scope:
            data["scope"] = ctx.client_metadata.scope
        return httpx2.Request("POST", self._get_token_endpoint(), data=data, headers=headers)


__all__ = ["WorkloadIdentityOAuthProvider"]
