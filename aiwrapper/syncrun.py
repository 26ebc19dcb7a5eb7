"""Blocking calls for scripts and notebooks: a private event loop on a background thread.

``ask_sync`` must work in a plain script and inside a running event loop (Jupyter, or called
from async code), without patching asyncio. Each ``Lang`` gets one daemon thread running one
event loop, started on first use and reused, so its HTTP client always lives on a loop that is
alive. Ctrl-C in the calling thread cancels the run on the background loop and waits for it to
unwind, so tools and connections are stopped cleanly. Several threads may block on the same
loop at once; ``close`` cancels what is still running before it stops the loop.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import queue
import threading
import weakref
from collections.abc import AsyncIterator, Coroutine, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

if TYPE_CHECKING:
    import asyncio

__all__ = ["LoopThread"]

T = TypeVar("T")
_CANCEL_GRACE = 5.0  # seconds to let a cancelled run unwind after Ctrl-C


@dataclass(slots=True, eq=False)
class _Job:
    """A coroutine submitted to the loop, with signals of its start and end."""

    future: concurrent.futures.Future[Any] | None = None
    task: asyncio.Task[Any] | None = None
    scope: anyio.CancelScope | None = None  # when set, cancels the job instead of the task
    started: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)

    def cancel_and_wait(self) -> None:
        """Cancel the run and wait (a grace period) for its tools and requests to unwind.

        ``Future.cancel`` returns at once; only the coroutine itself knows when its
        cleanup is done, so it signals ``finished`` on the way out. The task is cancelled
        directly too: Ctrl-C can arrive after the run started but before ``future`` was
        stored.
        """
        if self.future is not None:
            self.future.cancel()
        task = self.task
        if task is not None and not task.done():
            # anyio's own cancellation when the job has a scope: a native ``task.cancel()``
            # reaching anyio task groups did not always reach the tools running inside them.
            cancel = task.cancel if self.scope is None else self.scope.cancel
            with contextlib.suppress(RuntimeError):  # the loop closed: nothing left to cancel
                task.get_loop().call_soon_threadsafe(cancel)
        if self.started.is_set():
            self.finished.wait(_CANCEL_GRACE)


class LoopThread:
    """One event loop on a daemon thread, started lazily; usable from many threads at once."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._jobs: set[_Job] = set()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the background loop and block until it is done."""
        job = _Job()
        try:
            # Ctrl-C may land anywhere from here on, even before ``result()`` is reached
            # (the run can start and be interrupted first): the same handler covers it all.
            future = self._start(coro, job)
            return future.result()  # type: ignore[no-any-return]
        except KeyboardInterrupt:
            job.cancel_and_wait()
            raise
        finally:
            self._forget(job)

    def iterate(self, source: AbstractAsyncContextManager[AsyncIterator[T]]) -> Iterator[T]:
        """Enter ``source`` on the background loop and yield its items as they arrive.

        Leaving early (``break``, closing the iterator, Ctrl-C) cancels what still runs
        there and waits for it to unwind; an error that ends ``source`` is raised here.
        """
        items: queue.Queue[tuple[bool, Any]] = queue.Queue()

        async def pump() -> None:
            with anyio.CancelScope() as job.scope:
                async with source as iterator:
                    async for item in iterator:
                        items.put((True, item))

        job = _Job()
        try:
            future = self._start(pump(), job)
            future.add_done_callback(lambda done: items.put((False, done)))
            while True:
                more, item = items.get()
                if not more:
                    item.result()  # raises what ended the run
                    return
                yield item
        finally:
            if job.future is not None and not job.future.done():
                job.cancel_and_wait()
            self._forget(job)

    def _start(self, coro: Coroutine[Any, Any, T], job: _Job) -> concurrent.futures.Future[Any]:
        if self._thread is not None and threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("a *_sync method was called from inside an aiwrapper callback")
        with self._lock:  # a concurrent close() either sees this job or runs before it
            loop = self._ensure_loop()
            job.future = future = _submit(_tracked(coro, job), loop)
            self._jobs.add(job)
        return future

    def _forget(self, job: _Job) -> None:
        with self._lock:
            self._jobs.discard(job)

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        # The package imports asyncio only here, where the sync facade needs a loop in a
        # thread; on first use, since async users of the package never need this import.
        import asyncio

        if self._loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="aiwrapper-sync", daemon=True)
            thread.start()
            self._loop, self._thread = loop, thread
            # A Lang dropped without close() must not leave its thread running forever.
            weakref.finalize(self, _stop, loop, thread)
        return self._loop

    @property
    def started(self) -> bool:
        """True once the background loop runs."""
        return self._loop is not None

    def close(self) -> None:
        """Cancel runs still going (from any thread), then stop the loop and its thread.

        Closing twice is harmless, and a later ``run`` starts a fresh loop.
        """
        with self._lock:
            loop, thread, jobs = self._loop, self._thread, list(self._jobs)
            self._loop = self._thread = None
        for job in jobs:
            job.cancel_and_wait()
        if loop is not None and thread is not None:
            _stop(loop, thread)


def _stop(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    if loop.is_closed():
        return
    loop.call_soon_threadsafe(loop.stop)
    if threading.current_thread() is thread:
        return  # stopping from inside the loop (a callback): it ends when the callback returns
    thread.join(timeout=_CANCEL_GRACE)
    if not thread.is_alive():
        loop.close()


async def _tracked(coro: Coroutine[Any, Any, T], job: _Job) -> T:
    import asyncio

    job.task = asyncio.current_task()
    job.started.set()
    try:
        return await coro
    finally:
        job.finished.set()


def _submit(
    coro: Coroutine[Any, Any, T], loop: asyncio.AbstractEventLoop
) -> concurrent.futures.Future[T]:
    import asyncio

    return asyncio.run_coroutine_threadsafe(coro, loop)
