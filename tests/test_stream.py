"""Run events: ``on_event``, ``Lang.stream`` and ``stream_sync``, on the scripted model."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest

from aiwrapper import (
    CallArgumentsDelta,
    CallFinished,
    CallReady,
    CallStarted,
    ConfigError,
    Lang,
    LangResult,
    RunEvent,
    RunFinished,
    TextDelta,
    ThinkingDelta,
    TurnFinished,
    TurnStarted,
    tool,
)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def fail(reason: str) -> int:
    """Always fails."""
    raise ValueError(reason)


TWO_ROUNDS: list[Any] = [
    {
        "thinking": "sum it",
        "text": "Let me check.",
        "function_calls": [
            {"name": "add", "arguments": {"a": 1, "b": 2}, "id": "c1"},
            {"name": "fail", "arguments": {"reason": "no"}, "id": "c2"},
        ],
    },
    "The sum is 3.",
]


def summary(event: RunEvent) -> tuple[Any, ...]:
    """An event as comparable data (``result`` is checked separately)."""
    match event:
        case TurnStarted(iteration=iteration):
            return ("turn", iteration)
        case TextDelta(text=text):
            return ("text", text)
        case ThinkingDelta(text=text):
            return ("thinking", text)
        case CallStarted(call=call):
            return ("start", call.id, call.name)
        case CallArgumentsDelta(call=call, fragment=fragment):
            return ("args", call.id, fragment)
        case CallReady(call=call):
            return ("ready", call.id, call.arguments)
        case CallFinished(call=call):
            return ("finished", call.id, call.status, call.result, call.error)
        case TurnFinished(iteration=iteration, finish_reason=reason, usage=usage):
            return ("turn end", iteration, reason, usage.output_tokens)
        case RunFinished():
            return ("run end",)
    raise AssertionError(event)


EXPECTED = [
    ("turn", 1),
    ("thinking", "sum it"),
    ("text", "Let me c"),
    ("text", "heck."),
    ("start", "c1", "add"),
    ("args", "c1", '{"a": 1,'),
    ("args", "c1", ' "b": 2}'),
    ("ready", "c1", {"a": 1, "b": 2}),
    ("start", "c2", "fail"),
    ("args", "c2", '{"reason'),
    ("args", "c2", '": "no"}'),
    ("ready", "c2", {"reason": "no"}),
    ("turn end", 1, "tool_calls", 4),
    ("finished", "c1", "done", 3, None),
    ("finished", "c2", "error", None, "ValueError: no"),
    ("turn", 2),
    ("text", "The sum "),
    ("text", "is 3."),
    ("turn end", 2, "stop", 3),
    ("run end",),
]


def summaries(events: list[RunEvent]) -> list[tuple[Any, ...]]:
    """Summaries, parallel calls' ``CallFinished`` in call order (they finish in any order)."""
    out = [summary(e) for e in events]
    finished = [i for i, item in enumerate(out) if item[0] == "finished"]
    for i, item in zip(finished, sorted(out[i] for i in finished), strict=True):
        out[i] = item
    return out


def check_results(events: list[RunEvent], result: LangResult) -> None:
    assert all(event.result is result for event in events)
    assert (result.finished, result.answer) == (True, "The sum is 3.")


@pytest.mark.anyio
@pytest.mark.parametrize("callback", ["sync", "async"])
async def test_on_event_receives_every_event_of_a_two_round_run(
    anyio_backend: str, callback: str
) -> None:
    seen: list[RunEvent] = []

    async def async_record(event: RunEvent) -> None:
        await anyio.lowlevel.checkpoint()
        seen.append(event)

    record = seen.append if callback == "sync" else async_record
    lang = Lang.scripted(TWO_ROUNDS)
    result = await lang.ask("1+2?", functions=[add, fail], on_event=record)
    assert summaries(seen) == EXPECTED
    check_results(seen, result)


@pytest.mark.anyio
async def test_events_show_the_result_as_it_was_when_they_happened(anyio_backend: str) -> None:
    answers: list[tuple[str, str]] = []

    def record(event: RunEvent) -> None:
        if isinstance(event, (TextDelta, TurnFinished)):
            answers.append((type(event).__name__, event.result.answer))

    await Lang.scripted(TWO_ROUNDS).ask("1+2?", functions=[add, fail], on_event=record)
    assert answers == [
        ("TextDelta", "Let me c"),
        ("TextDelta", "Let me check."),
        ("TurnFinished", "Let me check."),
        ("TextDelta", "The sum "),
        ("TextDelta", "The sum is 3."),
        ("TurnFinished", "The sum is 3."),
    ]


@pytest.mark.anyio
async def test_on_result_and_on_event_both_hear_the_run(anyio_backend: str) -> None:
    events: list[RunEvent] = []
    answers: list[str] = []
    await Lang.scripted(TWO_ROUNDS).ask(
        "1+2?",
        functions=[add, fail],
        on_event=events.append,
        on_result=lambda r: answers.append(r.answer),
    )
    assert summaries(events) == EXPECTED
    assert answers[-1] == "The sum is 3."
    assert "Let me c" in answers


@pytest.mark.anyio
async def test_lang_stream_yields_the_events_and_the_final_result(anyio_backend: str) -> None:
    lang = Lang.scripted(TWO_ROUNDS)
    heard: list[RunEvent] = []
    async with lang.stream("1+2?", functions=[add, fail], on_event=heard.append) as run:
        events = [event async for event in run]
    assert summaries(events) == EXPECTED
    assert heard == events  # the on_event option still hears everything
    check_results(events, run.result)


@pytest.mark.anyio
async def test_lang_stream_continues_a_conversation(anyio_backend: str) -> None:
    lang = Lang.scripted(["first", "second"])
    first = await lang.ask("one")
    async with lang.stream(first.messages.add_user("two")) as run:
        texts = [e.text async for e in run if isinstance(e, TextDelta)]
    assert (texts, run.result.prompt, len(run.result.messages)) == (["second"], "two", 4)


@pytest.mark.anyio
async def test_leaving_lang_stream_early_cancels_the_run(anyio_backend: str) -> None:
    started, cancelled = anyio.Event(), anyio.Event()

    @tool
    async def slow() -> str:
        """Never ends on its own."""
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()
        return "unreachable"

    lang = Lang.scripted([{"function_calls": [{"name": "slow", "id": "s"}]}, "done"])
    with anyio.fail_after(5):
        async with lang.stream("go", functions=[slow]) as run:
            async for event in run:
                if isinstance(event, CallReady):
                    await started.wait()
                    break
    assert cancelled.is_set()
    call = run.result.function_calls[0]
    assert (call.status, run.result.finished) == ("error", False)
    assert len(lang.requests) == 1  # the second request was never sent


@pytest.mark.anyio
async def test_leaving_lang_stream_before_reading_cancels_the_run(anyio_backend: str) -> None:
    lang = Lang.scripted(TWO_ROUNDS)
    async with lang.stream("1+2?", functions=[add, fail]) as run:
        pass
    assert not run.result.finished
    assert len(lang.requests) <= 1


@pytest.mark.anyio
async def test_an_error_that_ends_the_run_is_raised_to_the_reader(anyio_backend: str) -> None:
    lang = Lang.scripted(TWO_ROUNDS[:1])  # the second request has no scripted answer
    seen: list[RunEvent] = []
    run = lang.stream("1+2?", functions=[add, fail])

    async def read_all() -> None:
        async with run:
            async for event in run:
                seen.append(event)

    with pytest.raises(ConfigError, match="all were used") as caught:
        await read_all()
    assert summaries(seen) == EXPECTED[:16]
    assert getattr(caught.value, "result", None) is run.result


@pytest.mark.anyio
async def test_an_error_is_raised_when_the_block_is_left_without_reading(
    anyio_backend: str,
) -> None:
    run = Lang.scripted([]).stream("hi")

    async def leave_without_reading() -> None:
        async with run:
            await anyio.sleep(0.05)

    with pytest.raises(ConfigError, match="all were used"):
        await leave_without_reading()
    assert run.result.iterations == 0


def test_stream_sync_in_a_plain_script() -> None:
    events = list(Lang.scripted(TWO_ROUNDS).stream_sync("1+2?", functions=[add, fail]))
    assert summaries(events) == EXPECTED


def test_stream_sync_inside_a_running_event_loop() -> None:
    lang = Lang.scripted(TWO_ROUNDS)

    async def inside_a_notebook_cell() -> list[tuple[Any, ...]]:
        return summaries(list(lang.stream_sync("1+2?", functions=[add, fail])))

    assert asyncio.run(inside_a_notebook_cell()) == EXPECTED


def test_stopping_stream_sync_early_cancels_the_run() -> None:
    cancelled: list[bool] = []

    @tool
    async def slow() -> str:
        """Never ends on its own."""
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.append(True)
        return "unreachable"

    lang = Lang.scripted([{"text": "Working.", "function_calls": [{"name": "slow"}]}, "done"])
    events = lang.stream_sync("go", functions=[slow])
    for event in events:
        if isinstance(event, TurnFinished):
            break
    events.close()  # type: ignore[attr-defined]
    assert cancelled == [True]
    assert len(lang.requests) == 1


def test_stream_sync_raises_the_error_that_ended_the_run() -> None:
    events = Lang.scripted(TWO_ROUNDS[:1]).stream_sync("1+2?", functions=[add, fail])
    with pytest.raises(ConfigError, match="all were used"):
        for _ in events:
            pass


def test_a_bad_option_fails_when_the_stream_is_made() -> None:
    with pytest.raises(TypeError, match="on_event"):
        Lang.scripted([]).stream("hi", on_evnt=print)


@pytest.mark.anyio
async def test_async_callbacks_hear_each_change_in_order(anyio_backend: str) -> None:
    heard: list[str] = []

    async def on_event(event: RunEvent) -> None:
        await anyio.lowlevel.checkpoint()
        if isinstance(event, (TextDelta, CallArgumentsDelta)):
            heard.append(f"event {getattr(event, 'text', None) or event.fragment}")  # type: ignore[union-attr]

    async def on_result(result: LangResult) -> None:
        await anyio.lowlevel.checkpoint()
        heard.append(f"result {result.answer}")

    script = [{"text": "Hi", "function_calls": [{"name": "add", "arguments": '{"a":1,"b":2}'}]}]
    await Lang.scripted([*script, "Done"]).ask(
        "go", functions=[add], on_event=on_event, on_result=on_result
    )
    # Text, then the call's start (no event of its own here), then its first fragment.
    assert heard[:5] == ["event Hi", "result Hi", "result Hi", 'event {"a":1,"', "result Hi"]
    assert heard[-3:] == ["event Done", "result Done", "result Done"]  # the last: finished


def test_sync_callbacks_are_called_without_a_coroutine_per_event() -> None:
    from aiwrapper import LangMessages
    from aiwrapper._conversation._assembler import Assembler
    from aiwrapper._conversation._events import TextDelta as Delta
    from aiwrapper._run._watch import Watchers

    calls: list[str] = []
    watchers = Watchers(
        LangResult("p", LangMessages()),
        lambda result: calls.append("result"),
        lambda event: calls.append("event"),
    )
    assembler = Assembler("p", live=True)
    assembler.add(Delta("x"))
    assert watchers.streamed(Delta("x"), assembler, ()) is None
    assert calls == ["event", "result"]
