"""Blocking calls for scripts and notebooks: a private event loop on a background thread.

``ask_sync`` must work in a plain script and inside a running event loop (Jupyter, or called
from async code), without patching asyncio. Each ``Lang`` gets one daemon thread running one
event loop, started on first use and reused, so its HTTP client always lives on a loop that is
alive. Ctrl-C in the calling thread cancels the run on the background loop and waits for it to
unwind, so tools and connections are stopped cleanly.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import threading
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import asyncio

__all__ = ["LoopThread"]

T = TypeVar("T")
_CANCEL_GRACE = 5.0  # seconds to let a cancelled run unwind after Ctrl-C


class LoopThread:
    """One event loop on a daemon thread, started lazily."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the background loop and block until it is done."""
        loop = self._ensure_loop()
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("a *_sync method was called from inside an aiwrapper callback")
        future = _submit(coro, loop)
        try:
            return future.result()
        except KeyboardInterrupt:
            future.cancel()
            with contextlib.suppress(concurrent.futures.CancelledError, Exception):
                future.result(timeout=_CANCEL_GRACE)
            raise

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        # The sync facade needs a loop in a thread (see CONVENTIONS); imported on first use
        # because asyncio is a large import that async users of the package never need here.
        import asyncio

        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="aiwrapper-sync", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    @property
    def started(self) -> bool:
        """True once the background loop runs."""
        return self._loop is not None

    def close(self) -> None:
        """Stop the loop and its thread."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=_CANCEL_GRACE)
        loop.close()


def _submit(
    coro: Coroutine[Any, Any, T], loop: asyncio.AbstractEventLoop
) -> concurrent.futures.Future[T]:
    import asyncio

    return asyncio.run_coroutine_threadsafe(coro, loop)
