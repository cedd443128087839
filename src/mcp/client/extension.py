"""The official SDK's module path for client extensions (`mcp.client.extension`); the
implementation lives in `mcp.client.extensions`."""

from mcp.client.extensions import (
    ClaimContext,
    ClientExtension,
    NotificationBinding,
    ResultClaim,
    UnexpectedClaimedResult,
    advertise,
)

__all__ = ["ClaimContext", "ClientExtension", "NotificationBinding", "ResultClaim", "UnexpectedClaimedResult",
           "advertise"]
