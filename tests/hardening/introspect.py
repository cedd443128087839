"""What a hardening test counts to prove nothing was left behind: live tasks, live objects by type.

Counts, never times. Importable by the subprocess servers (stdlib, anyio and sniffio only).
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterable
from typing import Any

import sniffio


def task_count() -> int:
    """Tasks alive in the running event loop (asyncio or trio)."""
    if sniffio.current_async_library() == "asyncio":
        import asyncio

        return len(asyncio.all_tasks())
    import trio

    def walk(task: Any) -> int:
        return 1 + sum(walk(child) for nursery in task.child_nurseries for child in nursery.child_tasks)

    return walk(trio.lowlevel.current_root_task())


def object_counts() -> Counter[str]:
    """Live gc-tracked objects by `module.qualname` of their type, after a full collection."""
    gc.collect()
    counts: Counter[str] = Counter()
    for obj in gc.get_objects():
        kind = type(obj)
        counts[f"{kind.__module__}.{kind.__qualname__}"] += 1
    return counts


def grown(before: Counter[str], after: Counter[str], *, more_than: int,
          ignore: Iterable[str] = ()) -> dict[str, int]:
    """Types whose live count grew by more than `more_than` (the leaks a test fails on)."""
    skipped = tuple(ignore)
    return {name: after[name] - before.get(name, 0) for name in after
            if after[name] - before.get(name, 0) > more_than and not name.startswith(skipped)}
