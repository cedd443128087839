"""POSIX helpers."""
