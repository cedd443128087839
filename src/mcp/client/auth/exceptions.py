"""The errors of the OAuth client flow.

    Exception
    └── OAuthFlowError                discovery, validation, authorization, exchange
        ├── OAuthRegistrationError    no usable client registration
        └── OAuthTokenError           no token could be obtained
"""

from __future__ import annotations


class OAuthFlowError(Exception):
    """The OAuth flow could not complete (discovery, validation, authorization or exchange)."""


class OAuthRegistrationError(OAuthFlowError):
    """Registration did not yield a usable client: the authorization server refused it, offers no
    way to register, or issued credentials this client cannot use."""


class OAuthTokenError(OAuthFlowError):
    """A token could not be obtained: the token endpoint refused, or the client record carries an
    authentication method this client cannot apply."""


__all__ = ["OAuthFlowError", "OAuthRegistrationError", "OAuthTokenError"]
