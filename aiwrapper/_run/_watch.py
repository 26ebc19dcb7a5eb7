"""Telling the user what a run does: ``on_result``, ``on_event`` and so ``Lang.stream``.

The loop reports each change here; ``Watchers`` calls ``on_result`` with the growing result
and hands ``on_event`` the public events of ``_runevents.py``, made from the providers' neutral
stream events (``_events.py``) as the assembler folds them in. Each event carries only its own
payload, so reporting one costs O(that payload) whatever the size of the run so far. Callbacks
may be sync or async; an exception they raise ends the run.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from .._conversation import _events as events
from .._conversation import _runevents as runevents
from .._conversation._assembler import FOLDS, Assembler
from .._conversation._result import FunctionCall, LangResult
from ._options import EventCallback, ResultCallback

__all__ = ["WATCHED", "Watchers", "chain"]

# The neutral stream events that change what a watcher sees.
WATCHED = frozenset(
    (
        events.TextDelta,
        events.ThinkingDelta,
        events.ToolCallStart,
        events.ToolCallDelta,
        events.ToolCallEnd,
        events.LogprobsEvent,
    )
)


def chain(first: EventCallback | None, then: EventCallback) -> EventCallback:
    """One ``on_event`` callback calling ``first`` (when given), then ``then``.

    Sync when both are (no coroutine per event); otherwise the awaitable it returns runs
    ``then`` once ``first`` is done.
    """
    if first is None:
        return then

    def both(event: runevents.RunEvent) -> Awaitable[None] | None:
        value = first(event)
        if value is not None and inspect.isawaitable(value):
            return _then(value, then, event)
        return then(event)

    return both


async def _then(pending: Awaitable[Any], then: EventCallback, event: runevents.RunEvent) -> None:
    await pending
    await _call(then, event)


async def _call(callback: Callable[[Any], Any], argument: object) -> None:
    value = callback(argument)
    if inspect.isawaitable(value):
        await value


class Watchers:
    """The run's ``on_result`` and ``on_event`` callbacks, and what was reported to them."""

    def __init__(
        self,
        result: LangResult,
        on_result: ResultCallback | None,
        on_event: EventCallback | None,
    ) -> None:
        self.result = result
        self.on_result = on_result
        self.on_event = on_event
        self.active = on_result is not None or on_event is not None
        self._ready: set[int] = set()  # id() of calls reported ready
        self._finished: set[int] = set()  # id() of calls reported finished
        # Set by the run: calls never reported (the structured-output fallback's answer).
        self.hidden: Callable[[FunctionCall], bool] = _nothing_hidden

    async def emit(self, event: runevents.RunEvent) -> None:
        """Hand ``event`` to ``on_event``."""
        if self.on_event is not None:
            await _call(self.on_event, event)

    async def changed(self) -> None:
        """Hand the grown ``result`` to ``on_result``."""
        if self.on_result is not None:
            await _call(self.on_result, self.result)

    async def fold(
        self,
        batch: list[events.Event],
        assembler: Assembler,
        publish: Callable[[Assembler], Sequence[FunctionCall]],
    ) -> None:
        """Fold a batch of stream events into the turn, reporting each watched one.

        ``publish`` shows the turn's new calls on the result and returns them.
        """
        if self.on_event is None and self.on_result is not None:
            await self._fold_for_result(batch, assembler, publish, self.on_result)
            return
        folds, streamed, watched = FOLDS, self.streamed, WATCHED
        result = self.result
        start, text, fragment = events.ToolCallStart, events.TextDelta, events.ToolCallDelta
        # on_event alone given a text or argument delta is served right here, with no call
        # in between (one delta, one event).
        deltas = self.on_event if self.on_result is None else None
        calls = assembler.calls if self.hidden is _nothing_hidden else None
        event: Any  # a neutral event, its type checked by ``kind is ...`` before use
        for event in batch:
            kind = type(event)
            folds[kind](assembler, event)  # ``assembler.add``, one call less on the hottest path
            if kind not in watched:
                continue
            new_calls = publish(assembler) if kind is start else ()  # only a start adds one
            pending: object
            if deltas is not None and kind is text and event.text:
                pending = deltas(runevents.TextDelta(event.text, result))
            elif deltas is not None and kind is fragment and calls is not None:
                call = calls[event.index].call
                pending = deltas(runevents.CallArgumentsDelta(call, event.arguments, result))
            else:
                pending = streamed(event, assembler, new_calls)
            if pending is not None and inspect.isawaitable(pending):  # sync ones are done
                await pending

    async def _fold_for_result(
        self,
        batch: list[events.Event],
        assembler: Assembler,
        publish: Callable[[Assembler], Sequence[FunctionCall]],
        on_result: ResultCallback,
    ) -> None:
        """``fold`` for the commonest watcher, ``on_result`` alone: the result after every
        watched event, with nothing else tested per event."""
        folds, watched, start, result = FOLDS, WATCHED, events.ToolCallStart, self.result
        for event in batch:
            kind = type(event)
            folds[kind](assembler, event)  # ``assembler.add``, one call less on the hottest path
            if kind in watched:
                if kind is start:  # only a start adds a call
                    publish(assembler)
                pending = on_result(result)
                if pending is not None and inspect.isawaitable(pending):  # sync ones are done
                    await pending

    def streamed(
        self,
        event: events.Event,
        assembler: Assembler,
        new_calls: Sequence[FunctionCall],
    ) -> object:
        """A watched stream event was folded into the turn: its public events, then the result.

        Called by ``fold`` when ``on_event`` is set and the event is not a plain text delta.
        Sync callbacks are called right here, without a coroutine; the value returned is an
        awaitable that finishes the rest in order when a callback turned out to be async.
        """
        on_event = self.on_event
        assert on_event is not None  # on_result alone is served by ``fold``
        public = _public(event, assembler, self.result)
        if public is None or new_calls or self._hides(public):
            return self._deliver(self._stream_events(event, assembler, new_calls))
        value = on_event(public)  # one delta, one event
        if value is not None and inspect.isawaitable(value):
            return self._deliver_rest(value, [])
        return self.on_result(self.result) if self.on_result is not None else None

    def _hides(self, public: runevents.RunEvent) -> bool:
        return isinstance(public, runevents.CallArgumentsDelta) and self.hidden(public.call)

    def _stream_events(
        self, event: events.Event, assembler: Assembler, new_calls: Sequence[FunctionCall]
    ) -> list[runevents.RunEvent]:
        result = self.result
        out: list[runevents.RunEvent] = [runevents.CallStarted(c, result) for c in new_calls]
        public = _public(event, assembler, result)
        if public is not None:
            if not self._hides(public):
                out.append(public)
        elif isinstance(event, events.ToolCallEnd) and event.index in assembler.calls:
            call = assembler.calls[event.index].call
            if id(call) not in self._ready and not self.hidden(call):
                self._ready.add(id(call))
                out.append(runevents.CallReady(call, result))
        return out

    def _deliver(self, emitted: list[runevents.RunEvent]) -> Awaitable[Any] | None:
        on_event = self.on_event
        assert on_event is not None
        for i, event in enumerate(emitted):
            value = on_event(event)
            if value is not None and inspect.isawaitable(value):
                return self._deliver_rest(value, emitted[i + 1 :])
        return self._result_now()

    async def _deliver_rest(self, pending: Awaitable[Any], rest: list[runevents.RunEvent]) -> None:
        await pending
        for event in rest:
            await self.emit(event)
        await self.changed()

    def _result_now(self) -> Awaitable[Any] | None:
        on_result = self.on_result
        if on_result is None:
            return None
        value = on_result(self.result)
        return value if value is not None and inspect.isawaitable(value) else None

    async def ready(self, call: FunctionCall) -> None:
        """``call``'s arguments are complete (reported once per call)."""
        if id(call) not in self._ready and not self.hidden(call):
            self._ready.add(id(call))
            await self.emit(runevents.CallReady(call, self.result))

    async def turn_finished(self, assembler: Assembler) -> None:
        """The turn is folded: calls it ended without an end event are ready, then the turn."""
        if self.on_event is None:
            return
        for call in assembler.tool_calls:
            await self.ready(call)
        result = self.result
        await self.emit(
            runevents.TurnFinished(
                result.iterations, assembler.finish_reason, assembler.usage, result
            )
        )

    async def turn_started(self) -> None:
        """A model request begins."""
        if self.on_event is not None:
            await self.emit(runevents.TurnStarted(self.result.iterations + 1, self.result))

    async def run_finished(self) -> None:
        """The run succeeded: the last event."""
        if self.on_event is not None:
            await self.emit(runevents.RunFinished(self.result))

    def replayed(self, call: FunctionCall) -> None:
        """``call`` was answered before a crash, and reported then: nothing of it is reported."""
        self._ready.add(id(call))
        self._finished.add(id(call))

    async def call_finished(self, call: FunctionCall) -> None:
        """``call`` was answered (reported once per call)."""
        if self.on_event is not None and id(call) not in self._finished:
            self._finished.add(id(call))
            await self.emit(runevents.CallFinished(call, self.result))


def _nothing_hidden(call: FunctionCall) -> bool:
    return False


def _public(
    event: events.Event, assembler: Assembler, result: LangResult
) -> runevents.RunEvent | None:
    """The public event of a text, thinking, argument or logprobs delta (none when empty)."""
    kind = type(event)
    if kind is events.TextDelta:
        return runevents.TextDelta(event.text, result) if event.text else None  # type: ignore[union-attr]
    if isinstance(event, events.ThinkingDelta):
        return runevents.ThinkingDelta(event.text, result) if event.text else None
    if isinstance(event, events.ToolCallDelta):
        call = assembler.calls[event.index].call  # the assembler refused a delta of no call
        return runevents.CallArgumentsDelta(call, event.arguments, result)
    if isinstance(event, events.LogprobsEvent):
        return runevents.LogprobsDelta(event.tokens, result) if event.tokens else None
    return None
