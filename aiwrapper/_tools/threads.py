"""Running a sync tool in a worker thread, off the event loop.

On asyncio the function goes to a thread pool through the loop's own ``run_in_executor``, as
``asyncio.to_thread`` does: anyio's ``to_thread.run_sync`` adds two trips through the event loop
per call (a checkpoint and its capacity limiter's), about 25 us each, which a tool loop pays for
every sync call of every round. Trio has no executor, so there anyio's path stays.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import anyio.to_thread

__all__ = ["run_in_thread"]

T = TypeVar("T")

# anyio's default: at most 40 sync tools run at once; a further call waits for a free thread.
_WORKERS = ThreadPoolExecutor(max_workers=40, thread_name_prefix="aiwrapper-tool")


async def run_in_thread(function: Callable[[], T]) -> T:
    """``function()`` in a worker thread, with the caller's context variables.

    A cancellation (a timeout, the run's end) stops the wait at once, not the thread: a thread
    cannot be interrupted, so the function finishes in the background, its result discarded.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # trio
        return await anyio.to_thread.run_sync(function, abandon_on_cancel=True)
    context = contextvars.copy_context()
    return await loop.run_in_executor(_WORKERS, context.run, function)
