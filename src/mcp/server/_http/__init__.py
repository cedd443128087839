"""The Streamable HTTP front door, one module per concept (the official paths
`mcp.server.streamable_http` and `mcp.server.streamable_http_manager` re-export its names):

- `request_path`: `StreamableHTTPSessionManager`, the ASGI endpoint: POST (the era decided by
  `mcp._protocol.lifecycle.request_era`), GET and DELETE, in the official transport's order;
- `sessions`: the session table (sessions, eviction, per-principal ownership, the GET stream);
- `channel`: where one POST's messages go (one JSON body or an SSE stream) and its metadata;
- `resumption`: event-store stamping, priming events and `Last-Event-ID` replay;
- `shared_sessions`: sessions shared by every worker through a `SessionStore` (Redis);
- `transport`: `StreamableHTTPServerTransport`, one session as a stream pair;
- `asgi`: the ASGI plumbing (bodies, whole responses, disconnects) shared with legacy SSE.
"""
