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
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

if TYPE_CHECKING:
    import asyncio

__all__ = ["LoopThread"]

T = TypeVar("T")
_CANCEL_GRACE = 5.0  # seconds to let a cancelled run unwind after Ctrl-C
_POLL = 0.1  # seconds: the longest a Ctrl-C handled on another thread waits to be seen


class _Job:
    """A coroutine handed to the loop, cancellable from any thread at any moment.

    Ctrl-C can land on any line of the calling thread, also between handing the coroutine
    over and learning of its task, while the loop thread may already run it. The job is
    created before anything is handed over, and a lock orders the two threads: either the
    caller cancels first and the coroutine never starts, or the loop has started it and
    the cancellation is delivered on the loop, where its task and scope are known.
    """

    __slots__ = ("_lock", "_state", "coro", "outcome", "scope", "settled", "task")

    def __init__(self, coro: Coroutine[Any, Any, Any]) -> None:
        self.coro = coro
        self.outcome: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.task: asyncio.Task[Any] | None = None
        self.scope: anyio.CancelScope | None = None
        # ``concurrent.futures.wait`` does not wake for ``Future.cancel()``: an event does.
        self.settled = threading.Event()
        self._lock = threading.Lock()
        self._state = "new"  # then "running" (on the loop) or "cancelled" (never started)

    def begin(self) -> None:
        """Start the coroutine in a task (on the loop thread), unless already cancelled."""
        import asyncio

        with self._lock:
            if self._state == "cancelled":
                return
            self._state = "running"
            self.task = asyncio.ensure_future(self._scoped())
        self.task.add_done_callback(self._settle)

    async def _scoped(self) -> Any:
        # anyio's own cancellation, not a native ``task.cancel()``: the latter, reaching
        # anyio task groups, did not always reach the tools running inside them.
        with anyio.CancelScope() as self.scope:
            return await self.coro

    def _settle(self, task: asyncio.Task[Any]) -> None:
        if task.cancelled() or (self.scope is not None and self.scope.cancelled_caught):
            self.outcome.cancel()
        elif (error := task.exception()) is not None:
            self.outcome.set_exception(error)
        else:
            self.outcome.set_result(task.result())
        self.settled.set()

    def cancel_and_wait(self) -> None:
        """Cancel the run and wait (a grace period) for its tools and requests to unwind."""
        with self._lock:
            never_started, self._state = self._state == "new", "cancelled"
            task = self.task
        if never_started:
            self.coro.close()  # never ran, so safe to close from this thread
            self.outcome.cancel()
            return
        if task is None or self.outcome.done():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed: nothing left to cancel
            task.get_loop().call_soon_threadsafe(self._cancel_on_loop)
        self.settled.wait(_CANCEL_GRACE)

    def _cancel_on_loop(self) -> None:
        # The scope is entered at the task's first step: before it, cancel the task itself.
        if self.scope is not None:
            self.scope.cancel()
        elif self.task is not None:
            self.task.cancel()


class LoopThread:
    """One event loop on a daemon thread, started lazily; usable from many threads at once."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._jobs: set[_Job] = set()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the background loop and block until it is done."""
        job = _Job(coro)
        try:
            # Ctrl-C may land anywhere from here on, even before ``result()`` is reached
            # (the run can start and be interrupted first): the same handler covers it all.
            self._start(job)
            done: queue.SimpleQueue[object] = queue.SimpleQueue()  # see ``iterate``
            job.outcome.add_done_callback(done.put)
            _wait_for(done)
            return job.outcome.result()  # type: ignore[no-any-return]
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
        # Waited on in C (``_wait_for``): Ctrl-C interrupts ``SimpleQueue.get`` cleanly, where
        # it could land inside ``Queue.get``'s (or ``Future.result``'s) lock juggling and turn
        # into a ``RuntimeError: release unlocked lock`` no ``except KeyboardInterrupt`` sees.
        items: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()

        async def pump() -> None:
            async with source as iterator:
                async for item in iterator:
                    items.put((True, item))

        job = _Job(pump())
        try:
            self._start(job)
            job.outcome.add_done_callback(lambda done: items.put((False, done)))
            while True:
                more, item = _wait_for(items)
                if not more:
                    item.result()  # raises what ended the run
                    return
                yield item
        finally:
            job.cancel_and_wait()  # nothing to do when the run is over
            self._forget(job)

    def _start(self, job: _Job) -> None:
        if self._thread is not None and threading.current_thread() is self._thread:
            job.coro.close()
            raise RuntimeError("a *_sync method was called from inside an aiwrapper callback")
        with self._lock:  # a concurrent close() either sees this job or runs before it
            loop = self._ensure_loop()
            self._jobs.add(job)
            loop.call_soon_threadsafe(job.begin)

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


def _wait_for(items: queue.SimpleQueue[T]) -> T:
    """The next item, waking every ``_POLL`` seconds so that Ctrl-C is always seen.

    The OS hands a process's SIGINT to any thread that does not block it (the loop's, a
    worker's), and then the calling thread's wait is not interrupted: Python runs the handler,
    and raises ``KeyboardInterrupt``, only when this thread next runs Python code.
    """
    while True:
        try:
            return items.get(timeout=_POLL)
        except queue.Empty:
            pass


def _stop(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    if loop.is_closed():
        return
    loop.call_soon_threadsafe(loop.stop)
    if threading.current_thread() is thread:
        return  # stopping from inside the loop (a callback): it ends when the callback returns
    thread.join(timeout=_CANCEL_GRACE)
    if not thread.is_alive():
        loop.close()
