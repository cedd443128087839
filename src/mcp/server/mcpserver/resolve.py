"""The official SDK's module path for resolver markers (`Resolve`, `Elicit`, `Sample`,
`ListRoots`) and elicitation outcomes; they live in `dependencies` and `mcp.server.elicitation`."""

from mcp.server.elicitation import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    ElicitationResult,
)
from mcp.server.mcpserver.dependencies import Elicit, ListRoots, Resolve, Sample

__all__ = [
    "AcceptedElicitation",
    "CancelledElicitation",
    "DeclinedElicitation",
    "Elicit",
    "ElicitationResult",
    "ListRoots",
    "Resolve",
    "Sample",
]
