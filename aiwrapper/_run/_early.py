"""Early tool start: calls that begin while the rest of their turn still streams.

With the ``early_start`` option, a call whose arguments are complete (its end event has been
folded into the turn, or, on a wire that ends calls only with the turn, a later call began
and its arguments are a whole JSON object) is handed to the executor at once instead of when
the stream ends; the executor decides whether it may run now (``CallExecutor.start_early``)
and keeps its result in call order. Calls are planned in the order the model made them, so
the per-run limits (``max_tool_calls``, repeated calls) count them exactly as they would
without early start. The early calls run in a task group that spans the turn's stream and
its execution; if the stream fails, calls still running are cancelled and the failure is
raised as is (never wrapped in an exception group), so the loop can keep the results of the
calls that ran.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext

import anyio
from anyio.abc import TaskGroup

from .._conversation._assembler import Assembler
from .._conversation._events import Event, ToolCallEnd, ToolCallStart
from .._conversation._result import FunctionCall
from ._contract import EventSink
from ._execution import CallExecutor
from ._options import LangOptions

__all__ = ["EarlyStart", "early_start"]


class EarlyStart:
    """Hands the calls of the turn being streamed to the executor as they become ready."""

    def __init__(self, executor: CallExecutor, group: TaskGroup) -> None:
        self.executor = executor
        self.group = group
        self._next = 0  # calls of the turn before this index were handed over, in order
        self._stopped = False  # a call of no known tool: the rest wait for the turn's end

    def watching(self, sink: EventSink, assembler: Assembler) -> EventSink:
        """``sink``, folding into ``assembler``, followed by the early start of ready calls.

        A call is ready when its end was folded. On wires that end calls only with the turn
        (no event closes a call), an open call is also ended, through ``sink`` like any end,
        once a later call has started and its arguments are a whole JSON object.
        """

        async def early_sink(events: list[Event]) -> None:
            await sink(events)
            if any(type(event) is ToolCallStart for event in events):
                ended: list[Event] = [ToolCallEnd(i) for i in assembler.whole_open_calls()]
                if ended:
                    await sink(ended)
                    events = [*events, *ended]
            self.arrived(events, assembler.tool_calls)

        return early_sink

    def arrived(self, events: Sequence[Event], calls: Sequence[FunctionCall]) -> None:
        """A batch was folded into the turn; ``calls`` are its calls so far, in order."""
        if self._stopped or not any(type(event) is ToolCallEnd for event in events):
            return
        # A call is planned only once every call before it is: the limits count in order.
        while self._next < len(calls) and calls[self._next].status != "streaming":
            if not self.executor.start_early(calls[self._next], self.group):
                self._stopped = True
                return
            self._next += 1


def _enabled(options: LangOptions) -> bool:
    return bool(
        options.early_start
        and options.auto_execute
        and options.parallel
        and not options.max_concurrency
    )


def early_start(
    executor: CallExecutor, options: LangOptions
) -> AbstractAsyncContextManager[EarlyStart | None]:
    """Scope of one turn: yields an ``EarlyStart`` (None when the option is off).

    On leaving normally, calls started early are waited for. On an exception, they are
    cancelled and the exception is raised as it was.
    """
    if not _enabled(options):
        return _OFF  # every turn enters this scope: the common case costs no generator
    return _started_early(executor)


# Reusable: ``nullcontext`` keeps no state between uses.
_OFF: AbstractAsyncContextManager[None] = nullcontext()


@asynccontextmanager
async def _started_early(executor: CallExecutor) -> AsyncIterator[EarlyStart]:
    failure: BaseException | None = None
    async with anyio.create_task_group() as group:
        try:
            yield EarlyStart(executor, group)
        except BaseException as exc:
            failure = exc
            group.cancel_scope.cancel()
    if failure is not None:
        raise failure
