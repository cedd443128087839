"""The context variable holding the authenticated user of the request being served.

Its public home is `mcp.server.auth.middleware.auth_context`; it lives here so that both that
module and the bearer-token gate can reach it without importing each other.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser

auth_context_var: ContextVar[AuthenticatedUser | None] = ContextVar("auth_context", default=None)
