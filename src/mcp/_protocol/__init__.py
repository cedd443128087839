"""The sans-IO protocol core: pure functions and data, no I/O."""
