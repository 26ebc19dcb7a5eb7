"""The run: rounds of request, assembly and tool execution until the model answers.

``Run`` owns everything that spans rounds: the conversation, limits (``max_iterations``, the
run ``timeout``), usage totals, the ``on_result`` notifications and manual mode. One round sends
the conversation, folds the streamed events into the assistant message (``_assembler.py``),
and, when the message asks for calls, hands them to ``_execution.py`` and appends the results
in the order the model made the calls. A round is final only when it ends with no calls.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, suppress
from dataclasses import replace
from functools import partial

import anyio

from .._conversation._assembler import Assembler
from .._conversation._events import Event
from .._conversation._messages import LangMessage, LangMessages
from .._conversation._result import FunctionCall, LangResult
from .._errors import AIWrapperError, ConfigError, MaxIterationsError, RunTimeoutError
from .._knowledge._modelfacts import ModelFacts
from .._tools import Tool
from .._tools.sources import Toolset, ToolSource
from ._cancellation import ended_by
from ._capabilities import check_options, request_cost
from ._contract import EventSink, Model, ProviderRequest, output_support, tool_choice
from ._decisions import Decision, checked_decisions, pending_calls
from ._early import EarlyStart, early_start
from ._execution import CallExecutor
from ._media_checks import sendable
from ._offload import is_heavy, off_loop
from ._options import LangOptions
from ._steps import Steps
from ._structured import OutputPlan
from ._telemetry_run import RunTelemetry
from ._watch import Watchers

__all__ = ["Run"]


class Run:
    """One ``ask``/``chat``: a model, merged options, tools and the growing result."""

    def __init__(
        self,
        model: Model,
        options: LangOptions,
        tools: Sequence[Tool],
        result: LangResult,
        *,
        sources: Sequence[ToolSource] = (),
        facts: ModelFacts | None = None,
        decisions: Mapping[object, object] | None = None,
        steps: Steps | None = None,
    ) -> None:
        if not sources:  # with sources, checked once their tools are known
            _check_config(tools, options)
        self.sources = sources  # MCP servers: opened by run(), asked for tools before requests
        self.toolset: Toolset | None = None
        self._resuming = _resuming(result.messages, decisions)
        _check_orphans(result.messages)
        model_id, offered = options.model or model.model, [*tools, *sources]
        # What is known of the model checks the options and prices each request.
        self._facts = facts or ModelFacts()
        self._model_id, self._info = model_id, self._facts.info(model.name, model_id)
        options = check_options(self._info, options, offered)
        self.output = OutputPlan.for_run(
            model.name, model_id, options, tools, bool(offered), output_support(model)
        )
        self.model = model
        self.options = options
        self.tools = tools
        self.result = result
        self.watch = Watchers(result, options.on_result, options.on_event)
        if self.output is not None:
            self.watch.hidden = self.output.hides
        # Bound to the watchers, not to this run: a run referenced by its own executor would be a
        # cycle, and each finished run would wait for the garbage collector instead of being
        # freed at once (a tool loop's whole conversation, on every run).
        self._notify = _notifier(self.watch)
        self.executor = CallExecutor(tools, options, result, self._notify)
        # Telemetry: None unless spans and metrics are recorded; the one value hot paths check.
        self.telemetry = self.executor.telemetry = RunTelemetry.of(options, model, model_id)
        # Durable runs: requests and calls go through ``steps``; replayed ones report nothing.
        self.steps = self.executor.steps = steps
        if steps is not None:
            self.executor.replayed = self.watch.replayed
        self._published = 0  # calls of the current turn already on result.function_calls
        self._turn: Assembler | None = None  # the turn being received, until it is appended
        _add_system_prompt(result.messages, options.system_prompt)

    async def run(self) -> LangResult:
        """Run rounds until a final answer; raise on limits with the partial result.

        Whatever ends the run early (an error, a limit, cancellation) leaves the result
        continuable, and an ``AIWrapperError`` carries it as ``.result``.
        """
        if self.telemetry is None:
            return await self._run()
        with self.telemetry.run(self.result):  # telemetry: the run's span around it all
            return await self._run()

    async def _run(self) -> LangResult:
        try:
            return await self._run_within_timeout()
        except BaseException as exc:
            self._settle(exc)
            raise

    async def _run_within_timeout(self) -> LangResult:
        if self.options.timeout is None:
            await self._open_and_run()
            return self.result
        with anyio.move_on_after(self.options.timeout) as scope:
            await self._open_and_run()
        if scope.cancelled_caught:
            raise RunTimeoutError(
                f"the run did not finish within {self.options.timeout:g} s", self.result
            )
        return self.result

    async def _open_and_run(self) -> None:
        if not self.sources:
            return await self._rounds()
        # Sources are opened (within the run's timeout: a server may never answer) and closed
        # by this task, the run's, inside the timeout's scope (anyio's scopes must nest).
        async with AsyncExitStack() as stack:
            self.toolset = await Toolset.open(self.tools, self.sources, stack)
            await self._rounds()

    async def _rounds(self) -> None:
        options = self.options
        if self._resuming is not None:
            if self.toolset is not None:
                self._use_tools(await self.toolset.tools())
            await self._resume(*self._resuming)
            options = self._after_calls(options)
        while True:
            if self.result.iterations >= (options.max_iterations or 1):
                raise MaxIterationsError(
                    f"no final answer after {self.result.iterations} model requests "
                    f"(max_iterations={options.max_iterations})",
                    self.result,
                )
            if self.toolset is not None:
                self._use_tools(await self.toolset.tools())
            async with early_start(self.executor, options) as early:
                turn = await self._request(options, early)
                calls = turn.tool_calls
                if self.output is not None:
                    calls = self.output.take_answer(self.result)
                if not calls and turn.finish_reason == "pause":
                    continue  # the server paused its own turn: resent as it stands, it goes on
                if not calls or not options.auto_execute:
                    if not calls and self._repair_asked():
                        continue
                    await self._finish(calls)
                    return
                results = await self.executor.run_turn(calls, truncated=turn.truncated)
            self.result.messages.extend(results)
            waiting = self.executor.waiting(calls)
            if self.watch.active:  # nobody watching: no notification to make
                for call in calls:  # those not run (over max_tool_calls) are answered too
                    if call not in waiting:
                        await self.watch.call_finished(call)
                await self._notify()
            if waiting:  # approve deferred these: the run stops until resume decides
                self.result.pending = waiting
                await self._finish(waiting, "deferred")
                return
            options = self._after_calls(options)

    def _after_calls(self, options: LangOptions) -> LangOptions:
        """The options of the request that follows a round of calls."""
        # A forced choice applies to one round; keeping it would force calls forever.
        # Once max_tool_calls is reached, "none" makes the model answer instead.
        choice = "none" if self.executor.calls_exhausted else None
        if options.function_call != choice:  # a copy of every option only when it changes
            options = replace(options, function_call=choice)
        return options

    async def _resume(self, pending: list[FunctionCall], decisions: Mapping[str, Decision]) -> None:
        """Run (or deny) the calls that waited, and put every result of their turn in call
        order, as if the turn had run at once."""
        self._resuming = None
        self.result.function_calls.extend(pending)
        results = await self.executor.run_decided(pending, decisions)
        _in_call_order(self.result.messages, results)
        if self.watch.active:
            for call in pending:
                await self.watch.call_finished(call)
            await self._notify()

    def _use_tools(self, tools: Sequence[Tool]) -> None:
        if tools is not self.tools:  # a server's tool list is new or changed
            _check_config(tools, self.options)
            self.tools = tools
            self.executor.use_tools(tools)

    async def _request(self, options: LangOptions, early: EarlyStart | None) -> Assembler:
        result = self.result
        model = options.model or self.model.model
        # Images and documents checked against the wire and the model before the turn begins:
        # a request refused here leaves the conversation as it was.
        if is_heavy(result.messages):  # a big conversation is walked off the event loop
            check = partial(sendable, result.messages, self.model.name, model, self._facts)
            messages = await off_loop(check)
        else:
            messages = sendable(result.messages, self.model.name, model, self._facts)
        watch = self.watch
        # Partial arguments are for on_result's snapshots; events hand out the fragments.
        assembler = Assembler(self.model.name, live=watch.on_result is not None)
        self._turn = assembler
        result._stream_turn(assembler)  # answer and thinking read from the turn, when read
        self._published = 0
        tools = self.tools
        if self.output is not None:  # the fallback's final tool, or the native output option
            tools, options = self.output.request(tools, options)
        request = ProviderRequest(
            model=model,
            messages=messages,
            tools=tools,
            options=options,
            stream=bool(options.stream),
        )
        if watch.active and self.steps is None:  # a step reports it only when it runs
            await watch.turn_started()

        async def fold(events: list[Event]) -> None:
            if not watch.active:  # nobody watches: fold the batch, nothing else per event
                assembler.add_all(events)
                return
            await watch.fold(events, assembler, self._publish)

        # With early start, calls whose arguments just completed may start after each batch.
        sink: EventSink = fold if early is None else early.watching(fold, assembler)

        assembler, message, live = await self._send(request, sink, assembler)
        self._publish(assembler)
        self._record_turn(request.model, assembler, message)
        if watch.active and live:
            await watch.turn_finished(assembler)
        return assembler

    async def _send(
        self, request: ProviderRequest, sink: EventSink, assembler: Assembler
    ) -> tuple[Assembler, LangMessage, bool]:
        """Send ``request``: the turn, its message, and whether it was received live (not
        replayed from a durable run's checkpoint)."""
        if self.steps is not None:  # durable: a step, given back when it had finished
            turn = await self.steps.request(partial(self._receive, request, sink, assembler))
            if turn is not assembler:  # replayed: shown as the turn, reported to nobody
                self.result._stream_turn(turn)
                self._turn = turn
            return turn, turn.message, turn is assembler
        telemetry = self.telemetry
        if telemetry is None:
            await self.model.send(request, sink)
            return assembler, assembler.finish(), True
        # telemetry: the request is sent, and its turn finished, in its own span
        return assembler, await telemetry.send(self.model.send, request, sink, assembler), True

    async def _receive(
        self, request: ProviderRequest, sink: EventSink, assembler: Assembler
    ) -> Assembler:
        """Send ``request`` and fold its answer into ``assembler``: a durable run's step."""
        if self.watch.active:
            await self.watch.turn_started()
        if self.telemetry is None:
            await self.model.send(request, sink)
            assembler.finish()
        else:
            await self.telemetry.send(self.model.send, request, sink, assembler)
        return assembler

    def _record_turn(self, model: str, assembler: Assembler, message: LangMessage) -> None:
        """Add the finished turn to the result: its message, usage and cost, and finish."""
        result = self.result
        result._stream_turn(None)
        result.messages.append(message)
        self._turn = None
        result.iterations += 1
        info = self._info
        if model != self._model_id:  # the output plan may name another model
            info = self._facts.info(self.model.name, model)
        assembler.usage.cost = request_cost(info, assembler.usage)
        result.usage.requests.append(assembler.usage)
        result.finish_reason = assembler.finish_reason
        result.model, result.truncated = assembler.model or model, assembler.truncated

    def _settle(self, exc: BaseException) -> None:
        """Make ``result.messages`` continuable after ``exc`` ended the run, and attach it.

        The turn being received is kept as far as it came (its calls are in
        ``function_calls`` already); every call left without a result gets one.
        """
        turn, self._turn = self._turn, None
        messages = self.result.messages
        if turn is not None:
            message = turn.finish()
            self._publish(turn)
            if message.parts:
                messages.append(message)
        messages.extend(self.executor.settle(_unanswered(messages), ended_by(exc)))
        if isinstance(exc, AIWrapperError):
            if exc.result is None:
                exc.result = self.result
        elif not hasattr(exc, "result"):
            # Cancellation, or a tool's own exception re-raised by tool_errors="raise".
            with suppress(AttributeError, TypeError):
                exc.result = self.result  # type: ignore[attr-defined]

    def _publish(self, assembler: Assembler) -> list[FunctionCall]:
        """Show the turn's new calls on the result (its text and thinking show by themselves).

        Returns the calls that were new.
        """
        if len(assembler.started) == self._published:  # the common case, on every delta
            return []
        new_calls = assembler.started[self._published :]
        if new_calls:
            self._published += len(new_calls)
            if self.output is not None:  # the fallback's answer is never shown as a call
                new_calls = [c for c in new_calls if not self.output.hides(c)]
            self.result.function_calls.extend(new_calls)
        return new_calls

    def _repair_asked(self) -> bool:
        """Check the final answer against ``output_type``; True when a repair round is due."""
        if self.output is None:
            self.result.output = self.result.answer
            return False
        repair = self.output.check(self.result)
        if repair is None:
            return False
        self.result.messages.append(repair)
        return True

    async def _finish(self, calls: Sequence[object], reason: str = "tool_calls") -> None:
        self.result.finished = True
        if calls:
            self.result.finish_reason = reason
        if self.watch.active:
            await self._notify()
            await self.watch.run_finished()


def _notifier(watch: Watchers) -> Callable[..., Awaitable[None]]:
    """What tells ``watch`` that the result changed (``finished``: that call was just answered)."""

    async def notify(finished: FunctionCall | None = None) -> None:
        if finished is not None:
            await watch.call_finished(finished)
        await watch.changed()

    return notify


def _check_config(tools: Sequence[Tool], options: LangOptions) -> None:
    _check_choice(tools, options)
    if not tools:
        return
    if options.approve is None:
        flagged = [t.name for t in tools if t.requires_approval]
        if flagged:
            raise ConfigError(
                f"tools {flagged} are declared requires_approval=True but no approve "
                "callback was given"
            )
    if options.auto_execute and options.function_handler is None:
        bare = [t.name for t in tools if not t.has_implementation]
        if bare:
            raise ConfigError(
                f"functions {bare} are definitions without an implementation: pass a "
                "function_handler to run their calls (or auto_execute=False)"
            )


def _check_choice(tools: Sequence[Tool], options: LangOptions) -> None:
    """A forced ``function_call`` needs functions, and a named one a function of that name."""
    choice = tool_choice(options.function_call)
    if choice is None or choice.mode in ("auto", "none"):
        return
    names = [t.name for t in tools]
    if not names:
        raise ConfigError(f"function_call={options.function_call!r} needs functions=[...]")
    if choice.mode == "named" and choice.name not in names:
        raise ConfigError(
            f"function_call names {choice.name!r}, which is not one of the functions {names}"
        )


def _unanswered(messages: LangMessages) -> list[FunctionCall]:
    """The calls of the last assistant turn that have no result yet."""
    answered = set()
    for message in reversed(messages):  # from the end: the results, then the turn
        if message.role == "assistant":
            return [c for c in message.tool_calls if c.id not in answered]
        if message.role == "tool":
            answered.add(message.tool_call_id)
    return []


def _check_answered(messages: LangMessages) -> None:
    """Every call of the last assistant turn needs its result before the model is asked again."""
    missing = [c.id for c in _unanswered(messages)]
    if missing:
        raise ConfigError(
            f"the last assistant turn made calls {missing} that have no result: continue "
            "with lang.resume(messages, decisions={call_id: True or False}) to run or deny "
            "them (calls that approve deferred), or add their results with "
            "messages.add_tool_result(call, value) before chat()"
        )


def _in_call_order(messages: LangMessages, results: Sequence[LangMessage]) -> None:
    """Add ``results`` after the last assistant turn, ordering all its results as its calls."""
    turn = max(i for i, m in enumerate(messages) if m.role == "assistant")
    order = {call.id: i for i, call in enumerate(messages[turn].tool_calls)}
    tail = [*messages[turn + 1 :], *results]
    tail.sort(key=lambda m: order.get(m.tool_call_id or "", -1))
    messages[turn + 1 :] = tail


def _resuming(
    messages: LangMessages, decisions: Mapping[object, object] | None
) -> tuple[list[FunctionCall], Mapping[str, Decision]] | None:
    """For ``resume``: the calls that waited for a decision, and the decision on each."""
    if decisions is None:
        _check_answered(messages)
        return None
    pending = pending_calls(messages)
    return pending, checked_decisions(pending, decisions)


def _check_orphans(messages: LangMessages) -> None:
    """Every tool result must answer a call made earlier: the providers answer others with 400."""
    made: set[str] = set()
    for message in messages:
        if message.role == "assistant":
            made.update(call.id for call in message.tool_calls)
        elif message.role == "tool" and message.tool_call_id not in made:
            raise ConfigError(
                f"the tool result for call {message.tool_call_id!r} answers no call made "
                "earlier in the conversation; remove it or add the assistant turn that made it"
            )


def _add_system_prompt(messages: LangMessages, system_prompt: str | None) -> None:
    if system_prompt and not (messages and messages[0].role == "system"):
        messages.insert(0, LangMessage.text("system", system_prompt))
