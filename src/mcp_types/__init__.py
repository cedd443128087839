"""`mcp_types`: the protocol's data types as a top-level package; the same module object as
`mcp.types` (one home, two import paths)."""

import sys

import mcp.types as _types

sys.modules[__name__] = _types
