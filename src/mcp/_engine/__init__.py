"""The anyio engine: drives a connection's messages over a pair of streams."""
