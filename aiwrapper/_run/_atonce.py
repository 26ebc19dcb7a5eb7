"""Running calls that cannot suspend in the task at hand, as tasks of their own would run them.

Spawning a task costs more than a quick async tool itself (a dictionary lookup, a sum): tens
of microseconds, and two more turns of the event loop for the host to hear that it ended.
Concurrency buys nothing for a coroutine that never gives way: beside other calls it would
run start to end in one step all the same. ``QuickCalls`` (part of ``CallExecutor``) runs such
calls of a turn first, each driven to its end where it stands, in a copy of the context (so a
context variable it sets stays its own, as in a task), and leaves the others to a task group;
a call qualifies when its tool's function never awaits (``Tool.finishes_at_once``) and no
span, callback, handler or approval is awaited around it. ``at_once`` awaits a coroutine the
same way, step by step in its own context, should one give way after all.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Awaitable, Coroutine, Generator, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._conversation._result import FunctionCall
from ._toollog import log_tool_call

if TYPE_CHECKING:
    from ._execution import CallExecutor

__all__ = ["at_once", "finishes_at_once", "run_quick_first"]

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


def finishes_at_once(executor: CallExecutor, call: FunctionCall) -> bool:
    """Whether running ``call`` can never suspend: its tool's function never awaits (or
    it is answered without running), and no handler or approval is awaited for it."""
    tool = executor.tools.get(call.name)
    if tool is None or executor.repeats[id(call)]:
        return True  # answered at once with an error
    options = executor.options
    if options.approve is not None and executor.ask_approval(tool):
        return False
    return tool.finishes_at_once and options.function_handler is None


async def run_quick_first(
    executor: CallExecutor, batch: list[int], calls: Sequence[FunctionCall]
) -> None:
    """Run the calls that cannot suspend here, in call order, then the others together.

    Beside the others, a call that never gives way would run start to end in one step all
    the same: a task of its own would only add its cost.
    """
    rest = []
    for i in batch:
        call = calls[i]
        if not finishes_at_once(executor, call):
            rest.append(i)
            continue
        if call.name in executor.tools and not executor.repeats[id(call)]:
            pending = _run_now(executor, call)
            if pending is not None:  # it gave way after all: awaited here
                await pending
        else:  # answered at once with an error, before anything runs
            await executor._run_call(call, executor.repeats[id(call)], None)
        if executor.raised is not None:  # in raise mode: the turn is over, run nothing more
            return
    if len(rest) > 1:
        await executor._run_together(rest, calls)
    elif rest:
        call = calls[rest[0]]
        await executor._run_call(call, executor.repeats[id(call)], None)


def _run_now(executor: CallExecutor, call: FunctionCall) -> Awaitable[None] | None:
    """``_run_call`` for a planned call of a known tool that cannot suspend, with no span,
    callback, handler or approval around it: run to its end here, in a copy of the
    context, without the coroutines ``_run_call`` would stack up. Should it give way
    after all, the rest is returned, to be awaited."""
    tool = executor.tools[call.name]
    started = time.monotonic()
    try:
        validated = executor._validated(tool, call)
    except BaseException as exc:
        _ended(executor, call, exc, started)
        return None
    call.status = "running"
    context = contextvars.copy_context()
    # The function itself when it takes no context: what call_validated would await.
    running: Coroutine[Any, Any, Any] = (
        tool.func(**validated)  # type: ignore[misc]
        if tool.context_param is None
        else executor._invoke(tool, call, validated)  # type: ignore[assignment]
    )
    try:
        step = context.run(running.send, None)
    except BaseException as end:  # StopIteration: it returned
        _ended(executor, call, end, started)
        return None
    return _resumed(executor, call, at_once(running, context, step), started)


async def _resumed(
    executor: CallExecutor, call: FunctionCall, rest: at_once[Any], started: float
) -> None:
    try:
        value = await rest
    except BaseException as exc:
        _ended(executor, call, exc, started)
        return
    _ended(executor, call, StopIteration(value), started)


def _ended(
    executor: CallExecutor, call: FunctionCall, end: StopIteration | BaseException, started: float
) -> None:
    """Answer a call ``_run_now`` ran: its value (``end`` a StopIteration) or failure."""
    if isinstance(end, StopIteration):
        outcome = executor.outcome_of(call, end.value)
    else:
        failed = executor._failure(call, end, None)
        if failed is None:
            raise end
        outcome = failed
    log_tool_call(call, started)
    executor.outcomes[id(call)] = outcome
    executor.repeat.results[executor.signatures[id(call)]] = outcome.content
