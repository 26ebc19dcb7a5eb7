"""Running a call that cannot suspend in the task at hand, as a task of its own would run it.

Spawning a task costs more than a quick async tool itself (a dictionary lookup, a sum): tens
of microseconds, and two more turns of the event loop for the host to hear that it ended.
Concurrency buys nothing for a coroutine that never gives way: beside other calls it would
run start to end in one step all the same. ``at_once`` awaits such a call where it stands, in
a copy of the context (so a context variable it sets stays its own, as in a task); the
executor decides which calls qualify (``Tool.finishes_at_once``, no callbacks to await).
"""

from __future__ import annotations

import contextvars
from collections.abc import Coroutine, Generator
from typing import Any, Generic, TypeVar

__all__ = ["at_once"]

T = TypeVar("T")
_NOT_TAKEN: Any = object()  # no first step taken yet


class at_once(Generic[T]):
    """Await ``coro`` in ``context`` (a copy of the current one by default).

    The first step is expected to finish it. Should it suspend after all, it is awaited on
    here, step by step in its context: correct, only no longer beside the other calls.
    ``step`` is what its first step yielded, when it was taken already.
    """

    __slots__ = ("_context", "_coro", "_step")

    def __init__(
        self,
        coro: Coroutine[Any, Any, T],
        context: contextvars.Context | None = None,
        step: Any = _NOT_TAKEN,
    ) -> None:
        self._coro = coro
        self._context = contextvars.copy_context() if context is None else context
        self._step = step

    def __await__(self) -> Generator[Any, Any, T]:
        coro, run, step = self._coro, self._context.run, self._step
        if step is _NOT_TAKEN:
            try:
                step = run(coro.send, None)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
        while True:  # what ``await coro`` does, each step in the call's own context
            try:
                sent = yield step
            except BaseException as exc:  # a cancellation, or the host closing: passed on
                try:
                    step = run(coro.throw, exc)
                except StopIteration as done:
                    return done.value  # type: ignore[no-any-return]
                continue
            try:
                step = run(coro.send, sent)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
