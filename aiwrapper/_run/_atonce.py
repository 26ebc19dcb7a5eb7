"""Running calls that cannot suspend in the task at hand, as tasks of their own would run them.

Spawning a task costs more than a quick async tool itself (a dictionary lookup, a sum): tens
of microseconds, and two more turns of the event loop for the host to hear that it ended.
Concurrency buys nothing for a coroutine that never gives way: beside other calls it would
run start to end in one step all the same. ``QuickCalls`` (part of ``CallExecutor``) runs such
calls of a turn first, each driven to its end where it stands, in a copy of the context (so a
context variable it sets stays its own, as in a task), and leaves the others to a task group;
a call qualifies when its tool's function never awaits (``Tool.finishes_at_once``) and no
step, span, callback, handler, approval, decision or timeout is awaited around it. ``at_once``
awaits a coroutine the same way, step by step in its own context, should one give way after
all.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Awaitable, Callable, Coroutine, Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import anyio

from .._conversation._result import FunctionCall
from .._tools import Tool
from ._decisions import Decision
from ._options import LangOptions
from ._outcomes import outcome_of
from ._repeats import Repeats, Signature
from ._steps import Steps, ToolOutcome
from ._toollog import log_tool_call

if TYPE_CHECKING:
    from ._telemetry_run import RunTelemetry

__all__ = ["QuickCalls", "at_once"]

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


class QuickCalls:
    """The part of ``CallExecutor`` that runs the calls of a turn which cannot suspend.

    It declares what it uses of the executor; ``CallExecutor`` sets and defines all of it.
    """

    tools: Mapping[str, Tool]
    options: LangOptions
    repeat: Repeats
    repeats: dict[int, bool]
    signatures: dict[int, Signature]
    outcomes: dict[int, ToolOutcome]
    decided: dict[int, Decision]
    raised: BaseException | None
    watched: bool
    steps: Steps | None
    telemetry: RunTelemetry | None
    ask_approval: Callable[[Tool], bool]

    if TYPE_CHECKING:  # defined by CallExecutor

        def _run_call(
            self, call: FunctionCall, repeated: bool, scope: anyio.CancelScope | None
        ) -> Awaitable[ToolOutcome]: ...

        def _run_together(
            self, batch: list[int], calls: Sequence[FunctionCall]
        ) -> Awaitable[None]: ...

        def _validated(self, tool: Tool, call: FunctionCall) -> dict[str, Any]: ...

        def _invoke(
            self, tool: Tool, call: FunctionCall, kwargs: dict[str, Any]
        ) -> Awaitable[Any]: ...

        def _failure(
            self, call: FunctionCall, exc: BaseException, scope: anyio.CancelScope | None
        ) -> ToolOutcome | None: ...

    @property
    def runs_quick(self) -> bool:
        """Whether calls may run where the turn stands: nothing is awaited around any call
        (no durable step, span, callback or decision given to resume)."""
        return (
            self.steps is None and self.telemetry is None and not self.watched and not self.decided
        )

    def timeout(self, tool: Tool) -> float | None:
        """The seconds a call of ``tool`` may take: the tool's own, else the run's."""
        return tool.timeout if tool.timeout is not None else self.options.tool_timeout

    def quick_tool(self, call: FunctionCall) -> Tool | None:
        """The tool of a planned ``call`` that can run start to end where it stands: its
        function never awaits, and no handler, approval or timeout is awaited around it (a
        timeout's cancel scope must be entered before the call's first step). None for a
        call of no known tool, a repeat, or one that may suspend."""
        tool = self.tools.get(call.name)
        if tool is None or not tool.finishes_at_once or self.repeats[id(call)]:
            return None
        options = self.options
        if options.function_handler is not None or self.timeout(tool) is not None:
            return None
        if options.approve is not None and self.ask_approval(tool):
            return None
        return tool

    async def run_quick_first(self, batch: list[int], calls: Sequence[FunctionCall]) -> None:
        """Run the calls that cannot suspend here, in call order, then the others together.

        Only when ``runs_quick``. Beside the others, a call that never gives way would run
        start to end in one step all the same: a task of its own would only add its cost.
        A call of no known tool, or a repeat, is answered at once with an error, in its turn.
        """
        rest = []
        repeats, tools = self.repeats, self.tools
        for i in batch:
            call = calls[i]
            tool = self.quick_tool(call)
            if tool is not None:
                pending = self._run_now(call, tool)
                if pending is not None:  # it gave way after all: awaited here
                    await pending
            elif call.name not in tools or repeats[id(call)]:
                await self._run_call(call, repeats[id(call)], None)
            else:
                rest.append(i)
                continue
            if self.raised is not None:  # in raise mode: the turn is over, run nothing more
                return
        if len(rest) > 1:
            await self._run_together(rest, calls)
        elif rest:
            call = calls[rest[0]]
            await self._run_call(call, repeats[id(call)], None)

    def _run_now(self, call: FunctionCall, tool: Tool) -> Awaitable[None] | None:
        """``_run_call`` for a planned call of a known ``tool`` that cannot suspend, with
        nothing awaited around it: run to its end here, in a copy of the context, without
        the coroutines ``_run_call`` would stack up. Should it give way after all, the rest
        is returned, to be awaited."""
        started = time.monotonic()
        try:
            validated = self._validated(tool, call)
        except BaseException as exc:
            self._ended(call, exc, started)
            return None
        call.status = "running"
        context = contextvars.copy_context()
        # The function itself when it takes no context: what call_validated would await.
        running: Coroutine[Any, Any, Any] = (
            tool.func(**validated)  # type: ignore[misc]
            if tool.context_param is None
            else self._invoke(tool, call, validated)  # type: ignore[assignment]
        )
        try:
            step = context.run(running.send, None)
        except StopIteration as done:  # it returned: the common end, answered here
            self._answer(call, outcome_of(call, done.value), started)
            return None
        except BaseException as end:
            self._ended(call, end, started)
            return None
        return self._resumed(call, at_once(running, context, step), started)

    async def _resumed(self, call: FunctionCall, rest: Awaitable[Any], started: float) -> None:
        try:
            value = await rest
        except BaseException as exc:
            self._ended(call, exc, started)
            return
        self._ended(call, StopIteration(value), started)

    def _ended(
        self, call: FunctionCall, end: StopIteration | BaseException, started: float
    ) -> None:
        """Answer a call ``_run_now`` ran: its value (``end`` a StopIteration) or failure."""
        if isinstance(end, StopIteration):
            outcome = outcome_of(call, end.value)
        else:
            failed = self._failure(call, end, None)
            if failed is None:
                raise end
            outcome = failed
        self._answer(call, outcome, started)

    def _answer(self, call: FunctionCall, outcome: ToolOutcome, started: float) -> None:
        """Record the outcome of a call ``_run_now`` ran, as ``_run_call`` records one."""
        log_tool_call(call, started)
        key = id(call)
        self.outcomes[key] = outcome
        self.repeat.results[self.signatures[key]] = outcome.content
