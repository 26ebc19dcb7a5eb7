"""The seam a durable engine plugs into: ``Steps`` sends each request and runs each call.

Without an engine: a ``Steps`` that records (every step live) sees each request and each call
once, the calls of a turn planned in call order before any runs, and the run is the same as
without it. A ``Steps`` that gives back what was recorded (as an engine does after a crash)
makes the run send no replayed request, run no replayed call, report nothing of them to the
watchers, and still count their usage and show their calls.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

import pytest

from aiwrapper import Lang, LangMessages, tool
from aiwrapper._conversation._assembler import Assembler
from aiwrapper._conversation._result import FunctionCall
from aiwrapper._run._steps import ToolOutcome

pytestmark = pytest.mark.anyio


def script(messages: LangMessages, options: Any) -> Any:
    """First both tools at once, then ``second`` again, then the answer."""
    results = sum(1 for m in messages if m.role == "tool")
    if results == 0:
        calls = [{"name": "first", "arguments": {}}, {"name": "second", "arguments": {}}]
        return {"function_calls": calls}
    if results == 2:
        return {"function_calls": [{"name": "second", "arguments": {}}]}
    return "all done"


class Recording:
    """Steps done live, each kept with what it produced."""

    def __init__(self) -> None:
        self.turns: list[Assembler] = []
        self.calls: dict[str, tuple[ToolOutcome, FunctionCall]] = {}
        self.planned: list[list[str]] = []

    async def request(self, receive: Callable[[], Awaitable[Assembler]]) -> Assembler:
        turn = await receive()
        self.turns.append(turn)
        return turn

    def plan(self, calls: Sequence[FunctionCall]) -> None:
        self.planned.append([c.name for c in calls])

    async def call(
        self, call: FunctionCall, run: Callable[[], Awaitable[ToolOutcome]]
    ) -> ToolOutcome:
        outcome = await run()
        self.calls[call.id] = (outcome, replace(call))
        return outcome


class Replaying(Recording):
    """Gives back the first ``requests`` recorded turns and the recorded calls, as copies."""

    def __init__(self, recorded: Recording, requests: int, calls: int) -> None:
        super().__init__()
        self.recorded_turns = recorded.turns[:requests]
        self.recorded_calls = dict(list(recorded.calls.items())[:calls])

    async def request(self, receive: Callable[[], Awaitable[Assembler]]) -> Assembler:
        if not self.recorded_turns:
            return await super().request(receive)
        turn = self.recorded_turns.pop(0)
        message = replace(turn.message, parts=list(turn.message.parts))
        return Assembler(
            turn.provider,
            message=message,
            usage=replace(turn.usage),
            finish_reason=turn.finish_reason,
            started=list(message.tool_calls),
            model=turn.model,
        )

    async def call(
        self, call: FunctionCall, run: Callable[[], Awaitable[ToolOutcome]]
    ) -> ToolOutcome:
        if call.id not in self.recorded_calls:
            return await super().call(call, run)
        outcome, was = self.recorded_calls.pop(call.id)
        call.status, call.result, call.error = was.status, was.result, was.error
        return replace(outcome, replayed=True)


class Model:
    def __init__(self) -> None:
        self.ran: list[str] = []
        self.events: list[str] = []
        self.lang = Lang.scripted(script)

        @tool
        def first() -> str:
            """The first."""
            self.ran.append("first")
            return "one"

        @tool
        def second() -> str:
            """The second."""
            self.ran.append("second")
            return "two"

        self.tools = [first, second]

    async def run(self, steps: Recording | None) -> Any:
        overrides = {"functions": self.tools, "on_event": self.note, "parallel": False}
        return await self.lang._start("Go.", None, overrides, steps=steps).run()

    def note(self, event: Any) -> None:
        call = getattr(event, "call", None)
        self.events.append(type(event).__name__ + (f":{call.name}" if call else ""))


async def test_steps_that_run_live_see_each_request_and_call_once_and_change_nothing() -> None:
    plain, stepped, steps = Model(), Model(), Recording()
    expected = await plain.run(None)
    result = await stepped.run(steps)
    assert result.answer == expected.answer == "all done"
    assert stepped.events == plain.events
    assert stepped.ran == plain.ran == ["first", "second", "second"]
    assert len(steps.turns) == 3
    assert steps.planned == [["first", "second"], ["second"]]  # call order, before running
    assert [was.status for _, was in steps.calls.values()] == ["done"] * 3


async def test_replayed_steps_are_not_done_again_and_report_nothing_but_count() -> None:
    recorded = Recording()
    await Model().run(recorded)
    model = Model()
    # As after a crash during the second turn's call: two turns and two calls were done.
    result = await model.run(Replaying(recorded, requests=2, calls=2))
    assert result.answer == "all done"
    assert model.ran == ["second"]  # the call of the second turn only
    assert len(model.lang.requests) == 1  # the third request only
    assert model.events == [
        "CallFinished:second", "TurnStarted", "TextDelta", "TurnFinished", "RunFinished",
    ]  # fmt: skip
    assert result.iterations == 3
    assert len(result.usage.requests) == 3
    assert [(c.name, c.status, c.result) for c in result.function_calls] == [
        ("first", "done", "one"),
        ("second", "done", "two"),
        ("second", "done", "two"),
    ]
    assert [m.role for m in result.messages] == [
        "user", "assistant", "tool", "tool", "assistant", "tool", "assistant",
    ]  # fmt: skip
