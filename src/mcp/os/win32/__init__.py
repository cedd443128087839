"""Windows helpers."""
