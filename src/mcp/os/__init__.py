"""Operating-system helpers of the stdio client (process trees)."""
