"""Executing one turn's function calls: checks, approval, timeouts, order and concurrency.

The loop hands over the calls of a turn in the order the model made them; this module runs
them (concurrently in an anyio task group, or one after another), turns every failure into an
error result the model can read, and returns one result per call in call order, whatever order
they finish in. Each call id is answered exactly once. With early start, a call may begin
while its turn still streams (``start_early``); it keeps its place in call order all the same.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup

from .._conversation._messages import LangMessage
from .._conversation._result import FunctionCall, LangResult
from .._errors import ToolArgumentsError
from .._tools import Context, Tool
from .._wire._sizelimits import SizeLimits
from ._atonce import QuickCalls
from ._cancellation import cancelled_from_outside, is_cancellation
from ._decisions import DEFER, Decision
from ._options import LangOptions
from ._outcomes import failed, outcome_of, result_message
from ._repeats import Repeats, Signature, sign
from ._steps import Steps, ToolOutcome
from ._toollog import log_tool_call, log_tool_exception

if TYPE_CHECKING:
    from ._telemetry_run import RunTelemetry

__all__ = ["CallExecutor", "ToolOutcome"]

_TRUNCATED_NOTE = (
    "Your output reached the token limit while writing this call, so its arguments were"
    " cut off; make the call again with shorter arguments."
)


class _Failure(Exception):
    """A call that cannot run; its message is sent to the model."""

    def __init__(self, message: str, error_type: str, status: str = "error") -> None:
        super().__init__(message)
        self.error_type = error_type
        self.status = status


class _CallbackError(Exception):
    """``on_result`` or ``approve`` raised: the user's bug, which ends the run (its cause)."""


_DEFAULT_SIZES = SizeLimits()  # frozen: one for every run that sets no limits
# A call left for a later decision: neither run nor answered.
_DEFERRED = ToolOutcome("", error_type="Deferred", deferred=True)


class CallExecutor(QuickCalls):
    """Runs the calls of each turn of one run, with the run's options and tools."""

    def __init__(
        self, tools: Sequence[Tool], options: LangOptions, result: LangResult, notify: Any
    ) -> None:
        self.options = options
        self.result = result
        self.notify = notify
        # No callback: skip the notifications.
        self.watched = options.on_result is not None or options.on_event is not None
        self.use_tools(tools)
        self.repeat = Repeats()
        self.raised: BaseException | None = None
        self.truncated = False
        # Keyed by id(call), for every call of the run (the result keeps the calls alive).
        self.signatures: dict[int, Signature] = {}  # also marks the calls planned
        self.repeats: dict[int, bool] = {}
        self.outcomes: dict[int, ToolOutcome] = {}
        self.early: dict[int, anyio.Event] = {}  # calls started while their turn streamed
        self.decided: dict[int, Decision] = {}  # decisions given to resume, in place of approve
        self.deferred: set[int] = set()  # calls approve answered with DEFER
        self.result_chars = (options.limits or _DEFAULT_SIZES).tool_result_chars
        self.counted = 0  # calls of the run counted against max_tool_calls
        self.telemetry: RunTelemetry | None = None  # set by the run when it records
        # Set by a durable run: each call runs as a step; a replayed one is told to ``replayed``.
        self.steps: Steps | None = None
        self.replayed: Callable[[FunctionCall], None] = _ignore

    @property
    def calls_exhausted(self) -> bool:
        """Whether ``max_tool_calls`` is reached: no further call of this run may run."""
        cap = self.options.max_tool_calls
        return cap is not None and self.counted >= cap

    def use_tools(self, tools: Sequence[Tool]) -> None:
        """Run calls with these tools from now on (a server's tool list changed)."""
        self.tools: Mapping[str, Tool] = {t.name: t for t in tools}
        self.ask_approval = _approval_scope(tools, self.options)
        self.any_sequential = any(t.sequential for t in tools)

    async def run_turn(
        self, calls: Sequence[FunctionCall], *, truncated: bool = False
    ) -> list[LangMessage]:
        """Run ``calls`` and return their result messages in call order.

        ``truncated`` says the turn hit the output token limit, so arguments that do not
        parse were most likely cut off; their error says so.
        """
        self.truncated = truncated
        for call in calls:  # those planned while the turn streamed are skipped
            self.plan(call)
        if self.steps is not None:
            self.steps.plan([c for c in calls if id(c) not in self.outcomes])
        if self.raised is not None:  # an early call failed in raise mode: run nothing more
            raise self.raised
        for batch in self._batches(calls):
            await self._run_batch(batch, calls)
            if self.raised is not None:
                raise self.raised
        if self.early:  # calls started early run on beside the others: wait for them
            await self._wait_early(calls)
        if self.raised is not None:
            raise self.raised
        outcomes = self.outcomes
        limit = self.result_chars
        return [result_message(c, outcomes[id(c)], limit) for c in calls if id(c) in outcomes]

    async def run_decided(
        self, calls: Sequence[FunctionCall], decisions: Mapping[str, Decision]
    ) -> list[LangMessage]:
        """Run calls that waited for a decision: approved ones without asking ``approve``
        again, denied ones answered as a denial is; their result messages in call order."""
        self.decided.update((id(call), decisions[call.id]) for call in calls)
        return await self.run_turn(calls)

    def waiting(self, calls: Sequence[FunctionCall]) -> list[FunctionCall]:
        """The calls of a turn that ``approve`` deferred, in call order."""
        return [c for c in calls if id(c) in self.deferred] if self.deferred else []

    async def _wait_early(self, calls: Sequence[FunctionCall]) -> None:
        for call in calls:
            started = self.early.get(id(call))
            if started is not None:
                await started.wait()

    def plan(self, call: FunctionCall) -> None:
        """Count ``call`` against the run's limits: once per call, in call order."""
        key = id(call)
        if key in self.signatures:
            return
        signature = self.signatures[key] = sign(call)
        self.repeats[key] = self.repeat.seen(signature)
        cap = self.options.max_tool_calls
        if cap is not None and self.counted >= cap:  # the cap keeps the first calls
            self.outcomes[key] = self._over_limit(call)
        else:
            self.counted += 1

    def start_early(self, call: FunctionCall, group: TaskGroup) -> bool:
        """Plan ``call``, whose arguments are complete, and start it in ``group`` if it may.

        A call may start before its turn ends when nothing could stop or delay it once the
        turn is in: a known tool that is not ``sequential``, needs no approval, and takes
        these arguments. Any other call waits for ``run_turn``. Returns False, without
        planning, for a call of no known tool (the loop's own answer tool, say): it and the
        calls after it are left to ``run_turn``.
        """
        tool = self.tools.get(call.name)
        if tool is None:
            return False
        self.plan(call)
        key = id(call)
        if key in self.outcomes or self.repeats[key] or tool.sequential:
            return True
        if self.raised is not None:  # an earlier call failed in raise mode: the turn is over
            return True
        if self.options.approve is not None and self.ask_approval(tool):
            return True
        try:
            tool.validate(call.raw_arguments or call.arguments)
        except ToolArgumentsError:
            return True  # run_turn reports it, with the truncation note when the turn was cut
        done = self.early[key] = anyio.Event()
        group.start_soon(self._run_early, call, done)
        return True

    async def _run_early(self, call: FunctionCall, done: anyio.Event) -> None:
        try:
            await self._run_call(call, False, None)  # a failure to raise waits in self.raised
        finally:
            done.set()

    def settle(self, calls: Sequence[FunctionCall], reason: str) -> list[LangMessage]:
        """Results for calls a failure left unanswered, so the conversation can go on.

        A call that finished keeps its own result; any other is marked ``error`` and answered
        with an error result saying it was interrupted or never run, and why (``reason``).
        """
        messages = []
        for call in calls:
            outcome = self.outcomes.get(id(call))
            if outcome is None:
                verb = "was interrupted" if call.status == "running" else "was not run"
                call.status, call.error = "error", f"This call {verb}: {reason}."
                outcome = ToolOutcome(call.error, True, "Interrupted")
            messages.append(result_message(call, outcome, self.result_chars))
        return messages

    def _over_limit(self, call: FunctionCall) -> ToolOutcome:
        message = (
            f"Call to {call.name!r} was not run: the limit of {self.options.max_tool_calls} "
            "tool calls for this run was reached. Answer with the results you have."
        )
        call.status, call.error = "skipped", message
        return ToolOutcome(message, True, "ToolCallLimit")

    def _batches(self, calls: Sequence[FunctionCall]) -> list[list[int]]:
        """Indexes of calls to run together; a sequential tool always runs alone, in place.

        Calls that already have an outcome (over ``max_tool_calls``) or were started early
        are left out.
        """
        done, early = self.outcomes, self.early
        runnable = [i for i, c in enumerate(calls) if id(c) not in done and id(c) not in early]
        if not self.options.parallel:
            return [[i] for i in runnable]
        if not self.any_sequential:  # every call may run beside every other
            return [runnable] if runnable else []
        batches: list[list[int]] = []
        current: list[int] = []
        for i in runnable:
            tool = self.tools.get(calls[i].name)
            if tool is not None and tool.sequential:
                batches += [current, [i]] if current else [[i]]
                current = []
            else:
                current.append(i)
        return [*batches, current] if current else batches

    def _run_batch(self, batch: list[int], calls: Sequence[FunctionCall]) -> Awaitable[Any]:
        if len(batch) == 1:  # nothing to run alongside: no task group, no frame of its own
            call = calls[batch[0]]
            return self._run_call(call, self.repeats[id(call)], None)
        if self.runs_quick:  # no step, callback or span to await around a call
            return self.run_quick_first(batch, calls)
        return self._run_together(batch, calls)

    async def _run_together(self, batch: list[int], calls: Sequence[FunctionCall]) -> None:
        repeats = self.repeats
        cap = self.options.max_concurrency
        # Without a cap each task runs its call directly: no wrapping coroutine per call.
        run = self._run_call if not cap or cap >= len(batch) else _limited(self._run_call, cap)
        async with anyio.create_task_group() as tg:
            scope = tg.cancel_scope
            *others, last = [calls[i] for i in batch]
            for call in others:
                tg.start_soon(run, call, repeats[id(call)], scope)
            # The host task runs one call itself: one task fewer to spawn.
            await run(last, repeats[id(last)], scope)

    async def _run_call(
        self, call: FunctionCall, repeated: bool, scope: anyio.CancelScope | None
    ) -> ToolOutcome:
        started = time.monotonic()
        try:
            try:
                if self.steps is not None:  # durable: a step, given back when it had finished
                    run = partial(self._outcome, call, repeated, scope)
                    outcome = await self.steps.call(call, run)
                elif self.telemetry is None:
                    outcome = await self._execute(call, repeated)
                else:  # telemetry: the call runs in its execute_tool span's context
                    running = self._execute(call, repeated)
                    tool = self.tools.get(call.name)
                    outcome = await self.telemetry.tool(call, tool, running)
            except _CallbackError:
                raise
            except BaseException as exc:  # the handling is a plain call: no frame to await
                failed = self._failure(call, exc, scope)
                if failed is None:
                    raise
                outcome = failed
            if outcome.deferred:  # not run, not answered: the run stops for it
                self.deferred.add(id(call))
                return outcome
            if not outcome.replayed:
                log_tool_call(call, started)
            self.outcomes[id(call)] = outcome
            if not repeated:  # a repeat's answer quotes the result; it is not one itself
                self.repeat.results[self.signatures[id(call)]] = outcome.content
            if outcome.replayed:  # done before a crash, and reported then
                self.replayed(call)
            elif self.watched:
                await self._callback(self.notify, call)
        except _CallbackError as exc:  # not a tool failure: raised as is, never to the model
            self._abort(exc.__cause__ or exc, scope)
            return ToolOutcome("", True)
        return outcome

    async def _outcome(
        self, call: FunctionCall, repeated: bool, scope: anyio.CancelScope | None
    ) -> ToolOutcome:
        """Run ``call`` to its outcome, a failure's included: what a durable step records."""
        try:
            if self.telemetry is None:
                return await self._execute(call, repeated)
            tool = self.tools.get(call.name)
            return await self.telemetry.tool(call, tool, self._execute(call, repeated))
        except _CallbackError:
            raise
        except BaseException as exc:
            failed = self._failure(call, exc, scope)
            if failed is None:
                raise
            return failed

    def _failure(
        self, call: FunctionCall, exc: BaseException, scope: anyio.CancelScope | None
    ) -> ToolOutcome | None:
        """The outcome of a call that raised ``exc``; None when ``exc`` is the run's own
        cancellation, which must propagate."""
        if isinstance(exc, _Failure):
            call.status, call.error = exc.status, str(exc)  # type: ignore[assignment]
            return ToolOutcome(str(exc), True, exc.error_type)
        if isinstance(exc, Exception):
            if self.options.tool_errors == "raise":
                self._abort(exc, scope)
            else:
                log_tool_exception(call, exc)
        elif not is_cancellation(exc):  # SystemExit, KeyboardInterrupt: end the run, bare
            self._abort(exc, scope)
        elif cancelled_from_outside():
            return None
        else:  # a cancellation exception the tool raised on its own: a tool failure
            log_tool_exception(call, exc)
        # Either way the call still needs an answer.
        return failed(call, exc)

    def _abort(self, exc: BaseException, scope: anyio.CancelScope | None) -> None:
        """End the turn with ``exc``: the first one wins, the other calls are cancelled."""
        if self.raised is None:
            self.raised = exc
        if scope is not None:  # None: a call running alone, with nothing beside it to cancel
            scope.cancel()

    @staticmethod
    async def _callback(function: Any, *args: Any) -> Any:
        try:
            return await _maybe_await(function(*args))
        except Exception as exc:
            raise _CallbackError(str(exc)) from exc

    async def _execute(self, call: FunctionCall, repeated: bool) -> ToolOutcome:
        tool = self._tool_for(call)
        if repeated:
            message = self.repeat.message(call, self.signatures[id(call)])
            raise _Failure(message, "RepeatedCall", "skipped")
        validated = self._validated(tool, call)
        if not tool.has_implementation:  # a handler sees the checked, coerced JSON values
            call.arguments = validated
        if (self.options.approve is not None or self.decided) and await self._waits(tool, call):
            return _DEFERRED
        call.status = "running"
        if self.watched:
            await self._callback(self.notify)
        return outcome_of(call, await self._call_with_timeout(tool, call, validated))

    def _validated(self, tool: Tool, call: FunctionCall) -> dict[str, Any]:
        """The call's checked arguments; a failure the model is told of (raised as is when
        tool_errors is "raise")."""
        try:
            return tool.validate(call.raw_arguments or call.arguments)
        except ToolArgumentsError as exc:
            if self.options.tool_errors == "raise":
                raise
            message = f"{str(exc).rstrip('.')}. {_TRUNCATED_NOTE}" if self.truncated else str(exc)
            raise _Failure(message, "ToolArgumentsError") from exc

    def _tool_for(self, call: FunctionCall) -> Tool:
        tool = self.tools.get(call.name)
        if tool is None:
            valid = ", ".join(sorted(self.tools)) or "(none)"
            raise _Failure(
                f"Unknown function {call.name!r}. Valid functions: {valid}.", "UnknownFunction"
            )
        return tool

    async def _waits(self, tool: Tool, call: FunctionCall) -> bool:
        """Whether ``call`` waits for a later decision; raises ``_Failure`` when denied.

        The decision given to ``resume`` for the call stands in for ``approve``.
        """
        decision = self.decided.get(id(call))
        if decision is None:
            approve = self.options.approve
            if approve is None or not self.ask_approval(tool):
                return False
            decision = await self._callback(approve, call)
            if decision is DEFER:
                call.status = "pending"
                return True
        if decision is True:
            return False
        reason = decision if isinstance(decision, str) and decision else "the user denied it"
        raise _Failure(f"Call to {call.name!r} was not run: {reason}.", "Denied", "denied")

    def _timeout(self, tool: Tool) -> float | None:
        """The seconds a call of ``tool`` may take: the tool's own, else the run's."""
        return tool.timeout if tool.timeout is not None else self.options.tool_timeout

    def _call_with_timeout(self, tool: Tool, call: FunctionCall, kwargs: Any) -> Awaitable[Any]:
        # Without a timeout the caller awaits the call itself: one coroutine frame fewer.
        seconds = self.timeout(tool)
        if seconds is None:
            return self._invoke(tool, call, kwargs)
        return self._call_within(seconds, tool, call, kwargs)

    async def _call_within(
        self, seconds: float, tool: Tool, call: FunctionCall, kwargs: Any
    ) -> Any:
        with anyio.move_on_after(seconds) as scope:
            return await self._invoke(tool, call, kwargs)
        if scope.cancelled_caught:
            message = f"{call.name!r} timed out after {seconds:g} s."
            if self.options.tool_errors == "raise":
                raise TimeoutError(message)
            raise _Failure(message, "TimeoutError")
        raise AssertionError("unreachable")  # pragma: no cover

    def _invoke(self, tool: Tool, call: FunctionCall, kwargs: dict[str, Any]) -> Awaitable[Any]:
        handler = self.options.function_handler
        if handler is not None:
            return _handle(handler, call)
        # Built only for a tool that takes one: most tools never see their context.
        context = None
        if tool.context_param is not None:
            context = Context(deps=self.options.deps, call=call, result=self.result)
        return tool.call_validated(kwargs, context=context)


def _ignore(call: FunctionCall) -> None:
    pass


def _approval_scope(tools: Sequence[Tool], options: LangOptions) -> Any:
    """Which tools ``approve`` is asked for: the flagged ones, or all when none is flagged."""
    if any(t.requires_approval for t in tools):
        return lambda tool: tool.requires_approval
    return lambda tool: True


_RunCall = Callable[
    [FunctionCall, bool, "anyio.CancelScope | None"], Coroutine[Any, Any, ToolOutcome]
]


def _limited(run: _RunCall, cap: int) -> _RunCall:
    """``run`` with at most ``cap`` calls of a batch running at once."""
    limit = anyio.CapacityLimiter(cap)

    async def run_limited(
        call: FunctionCall, repeated: bool, scope: anyio.CancelScope | None
    ) -> ToolOutcome:
        async with limit:
            return await run(call, repeated, scope)

    return run_limited


async def _handle(handler: Any, call: FunctionCall) -> Any:
    if inspect.iscoroutinefunction(handler):
        return await handler(call)
    # Abandoned on cancel: a thread cannot be stopped, but tool_timeout and the run's
    # timeout must not wait for it.
    value = await anyio.to_thread.run_sync(handler, call, abandon_on_cancel=True)
    return await _maybe_await(value)


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value
