"""Early tool start: a call runs while the rest of its turn still streams.

The scripted server sends a turn of calls in pieces and, after the piece that completes the
first call, waits (bounded) for a sign from the tool before sending the rest. The log of what
happened, in order, shows whether the tool started before the stream went on. Where the tool
should start early the wait is long (it ends as soon as the tool starts); where it should not,
the wait is short, since an early start happens within a few event-loop steps.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from aiwrapper import (
    CallFinished,
    CallReady,
    CallStarted,
    ConfigError,
    Lang,
    LangOptions,
    RunTimeoutError,
    StreamError,
    TurnFinished,
    tool,
)
from aiwrapper._conversation._assembler import Assembler
from aiwrapper._conversation._events import ToolCallDelta, ToolCallEnd, ToolCallStart

from .wires import WIRES, Body, Wire

pytestmark = pytest.mark.anyio
# Wires that say when each call is complete.
EARLY = ["anthropic", "gemini", "ollama", "openai-responses"]
CALLS = [
    ("call_1", "get_weather", '{"city": "Oslo"}'),
    ("call_2", "get_weather", '{"city": "Rome"}'),
]


class Script:
    """A server answering with turns sent in pieces, and a log of what happened when."""

    def __init__(
        self, wire: Wire, turns: Sequence[list[bytes]], *, wait_for: str, bound: float = 10
    ) -> None:
        self.wire = wire
        self.turns = list(turns)
        self.wait_for = wait_for  # the log entry the stream waits for after the first piece
        self.bound = bound  # seconds it waits at most
        self.log: list[str] = []
        self.sent: list[Body] = []
        self.changed = anyio.Event()

    def note(self, entry: str) -> None:
        self.log.append(entry)
        self.changed.set()
        self.changed = anyio.Event()

    async def _body(self, pieces: list[bytes]) -> AsyncIterator[bytes]:
        first, *rest = pieces
        yield first
        with anyio.move_on_after(self.bound):
            while self.wait_for not in self.log:
                await self.changed.wait()
        self.note("rest of the stream")
        for piece in rest:
            yield piece

    def client(self) -> httpx.AsyncClient:
        async def handler(request: httpx.Request) -> httpx.Response:
            self.sent.append(json.loads(request.content))
            pieces = self.turns[len(self.sent) - 1]
            headers = {"content-type": self.wire.content_type}
            return httpx.Response(200, content=self._body(pieces), headers=headers)

        return httpx.AsyncClient(transport=httpx.MockTransport(handler))


def weather_tool(script: Script, **flags: Any) -> Any:
    @tool(**flags)
    async def get_weather(city: str) -> str:
        """Weather in a city."""
        script.note(f"start {city}")
        await anyio.sleep(0)
        script.note(f"end {city}")
        return f"sunny in {city}"

    return get_weather


@pytest.mark.parametrize("name", EARLY)
async def test_a_call_starts_before_the_stream_ends_and_its_result_keeps_call_order(
    name: str,
) -> None:
    wire = WIRES[name]
    answer = [wire.text("Both sunny.", "m")]
    script = Script(wire, [wire.pieces(CALLS, "m"), answer], wait_for="end Oslo")
    async with script.client() as client:
        result = await wire.make(client).ask(
            "Weather?", functions=[weather_tool(script)], early_start=True
        )
    assert script.log[:3] == ["start Oslo", "end Oslo", "rest of the stream"]
    assert script.log[3:] == ["start Rome", "end Rome", "rest of the stream"]
    results = wire.results(script.sent[1])
    assert "sunny in Oslo" in results[0]
    assert "sunny in Rome" in results[1]
    assert [c.status for c in result.function_calls] == ["done", "done"]
    assert result.answer == "Both sunny."


@pytest.mark.parametrize("name", EARLY)
async def test_without_early_start_calls_wait_for_the_whole_turn(name: str) -> None:
    wire = WIRES[name]
    script = Script(
        wire, [wire.pieces(CALLS, "m"), [wire.text("Ok.", "m")]], wait_for="end Oslo", bound=0.1
    )
    async with script.client() as client:
        await wire.make(client).ask("Weather?", functions=[weather_tool(script)])
    assert script.log[0] == "rest of the stream"
    assert sorted(script.log[1:5]) == ["end Oslo", "end Rome", "start Oslo", "start Rome"]


@pytest.mark.parametrize(
    ("flags", "options"),
    [
        ({"sequential": True}, {}),
        ({"requires_approval": True}, {"approve": lambda call: True}),
        ({}, {"approve": lambda call: True}),
        ({}, {"parallel": False}),
        ({}, {"max_concurrency": 2}),
    ],
)
async def test_calls_that_must_wait_are_not_started_early(
    flags: dict[str, Any], options: dict[str, Any]
) -> None:
    wire = WIRES["anthropic"]
    turns = [wire.pieces(CALLS, "m"), [wire.text("Ok.", "m")]]
    script = Script(wire, turns, wait_for="end Oslo", bound=0.1)
    async with script.client() as client:
        await wire.make(client).ask(
            "Weather?", functions=[weather_tool(script, **flags)], early_start=True, **options
        )
    assert script.log[0] == "rest of the stream"
    assert "start Oslo" in script.log


async def test_invalid_arguments_wait_for_the_turn_and_get_the_usual_error() -> None:
    wire = WIRES["anthropic"]
    calls = [("call_1", "get_weather", '{"town": "Oslo"}'), CALLS[1]]
    script = Script(
        wire, [wire.pieces(calls, "m"), [wire.text("Ok.", "m")]], wait_for="end Rome", bound=0.1
    )
    async with script.client() as client:
        result = await wire.make(client).ask(
            "Weather?", functions=[weather_tool(script)], early_start=True
        )
    assert script.log[:2] == ["rest of the stream", "start Rome"]
    assert "unknown field" in wire.results(script.sent[1])[0].lower()
    assert [c.status for c in result.function_calls] == ["error", "done"]


async def test_max_tool_calls_counts_early_calls_in_call_order() -> None:
    wire = WIRES["anthropic"]
    script = Script(wire, [wire.pieces(CALLS, "m"), [wire.text("Ok.", "m")]], wait_for="end Oslo")
    async with script.client() as client:
        result = await wire.make(client).ask(
            "Weather?", functions=[weather_tool(script)], early_start=True, max_tool_calls=1
        )
    assert script.log == ["start Oslo", "end Oslo", "rest of the stream", "rest of the stream"]
    assert [c.status for c in result.function_calls] == ["done", "skipped"]
    assert wire.chose_none(script.sent[1])


@pytest.mark.parametrize("name", EARLY)
async def test_a_stream_failing_after_an_early_call_keeps_its_result_for_chat(name: str) -> None:
    wire = WIRES[name]
    cut_turn = [*wire.pieces(CALLS, "m")[:1], b""]  # call 1, then the stream just ends
    turns = [cut_turn, [wire.text("Oslo is sunny.", "m")]]
    script = Script(wire, turns, wait_for="end Oslo")
    async with script.client() as client:
        lang = wire.make(client)
        get_weather = weather_tool(script)
        with pytest.raises(StreamError) as info:
            await lang.ask("Weather?", functions=[get_weather], early_start=True)
        kept = info.value.result
        assert kept is not None
        (call,) = kept.function_calls
        assert (call.status, call.result) == ("done", "sunny in Oslo")
        more = await lang.chat(kept.messages, functions=[get_weather])
    assert "sunny in Oslo" in wire.results(script.sent[1])[0]
    assert more.answer == "Oslo is sunny."
    assert script.log.count("start Oslo") == 1  # never run twice


def test_early_start_must_be_a_bool() -> None:
    with pytest.raises(ConfigError, match="early_start must be True or False, not 'yes'"):
        Lang.scripted(["x"], options=LangOptions(early_start="yes"))  # type: ignore[arg-type]


async def test_a_run_timeout_cancels_an_early_call_and_keeps_the_conversation() -> None:
    wire = WIRES["anthropic"]
    script = Script(wire, [wire.pieces(CALLS, "m")], wait_for="never", bound=10)

    @tool
    async def get_weather(city: str) -> str:
        """Weather in a city."""
        script.note(f"start {city}")
        await anyio.sleep(30)
        return "late"

    async with script.client() as client:
        with pytest.raises(RunTimeoutError) as info:
            await wire.make(client).ask(
                "Weather?", functions=[get_weather], early_start=True, timeout=0.3
            )
    assert script.log == ["start Oslo"]
    kept = info.value.result
    assert kept is not None
    assert [c.status for c in kept.function_calls] == ["error"]
    assert "was interrupted" in (kept.function_calls[0].error or "")
    assert [m.role for m in kept.messages] == ["user", "assistant", "tool"]


async def test_tool_errors_raise_from_an_early_call_raises_the_tool_s_own_exception() -> None:
    wire = WIRES["anthropic"]
    script = Script(wire, [wire.pieces(CALLS, "m")], wait_for="failed Oslo")

    @tool
    async def get_weather(city: str) -> str:
        """Weather in a city."""
        script.note(f"failed {city}")
        raise LookupError(f"no station in {city}")

    async with script.client() as client:
        with pytest.raises(LookupError, match="no station in Oslo"):
            await wire.make(client).ask(
                "Weather?", functions=[get_weather], early_start=True, tool_errors="raise"
            )
    assert script.log == ["failed Oslo", "rest of the stream"]  # Rome never ran


async def test_run_events_show_an_early_call_finishing_before_its_turn_does() -> None:
    wire = WIRES["anthropic"]
    script = Script(wire, [wire.pieces(CALLS, "m"), [wire.text("Ok.", "m")]], wait_for="end Oslo")
    seen: list[str] = []

    def on_event(event: Any) -> None:
        call = getattr(event, "call", None)
        if isinstance(event, (CallStarted, CallReady, CallFinished)):
            seen.append(f"{type(event).__name__} {call.id}")
        elif isinstance(event, TurnFinished):
            seen.append(f"TurnFinished {event.iteration}")

    async with script.client() as client:
        await wire.make(client).ask(
            "Weather?", functions=[weather_tool(script)], early_start=True, on_event=on_event
        )
    assert seen[:3] == ["CallStarted call_1", "CallReady call_1", "CallFinished call_1"]
    assert seen.index("CallFinished call_1") < seen.index("CallStarted call_2")
    assert seen.index("CallReady call_2") < seen.index("CallFinished call_2")
    assert seen.count("CallFinished call_1") == 1


async def test_a_call_of_no_known_tool_leaves_it_and_the_calls_after_it_to_the_turn_end() -> None:
    wire = WIRES["anthropic"]
    unknown, oslo, *rest = wire.pieces([("call_0", "get_time", "{}"), *CALLS], "m")
    turns = [[unknown + oslo, *rest], [wire.text("Ok.", "m")]]  # both before the wait
    script = Script(wire, turns, wait_for="end Oslo", bound=0.1)
    async with script.client() as client:
        result = await wire.make(client).ask(
            "Weather?", functions=[weather_tool(script)], early_start=True
        )
    assert script.log[0] == "rest of the stream"
    assert [c.status for c in result.function_calls] == ["error", "done", "done"]
    assert "Unknown function 'get_time'" in wire.results(script.sent[1])[0]


async def test_openai_calls_are_complete_once_a_later_call_starts() -> None:
    # Chat Completions ends every call only with the turn; a call whose arguments are a
    # whole JSON object is complete as soon as the next call begins.
    wire = WIRES["openai"]
    oslo, rome, finish = wire.pieces(CALLS, "m")
    turns = [[oslo + rome, finish], [wire.text("Both sunny.", "m")]]
    script = Script(wire, turns, wait_for="end Oslo")
    async with script.client() as client:
        result = await wire.make(client).ask(
            "Weather?", functions=[weather_tool(script)], early_start=True
        )
    assert script.log[:4] == ["start Oslo", "end Oslo", "rest of the stream", "start Rome"]
    assert [c.arguments for c in result.function_calls] == [{"city": "Oslo"}, {"city": "Rome"}]
    results = wire.results(script.sent[1])
    assert "sunny in Oslo" in results[0]
    assert "sunny in Rome" in results[1]


async def test_openai_interleaved_arguments_are_not_started_before_they_are_whole() -> None:
    wire = WIRES["openai"]
    fixture = Path(__file__).parent.parent / "fixtures" / "openai" / "parallel_interleaved.sse"
    ran: list[dict[str, Any]] = []

    @tool
    def get_weather(city: str) -> str:
        """Weather in a city."""
        ran.append({"city": city})
        return city

    @tool
    def get_time(tz: str) -> str:
        """Time in a zone."""
        ran.append({"tz": tz})
        return f"12:00 {tz}"

    frames = [frame + b"\n\n" for frame in fixture.read_bytes().split(b"\n\n") if frame]
    script = Script(wire, [frames, [wire.text("Done.", "m")]], wait_for="", bound=0)
    async with script.client() as client:  # one SSE event per chunk: interleaving is seen
        result = await wire.make(client).ask(
            "Weather?", functions=[get_weather, get_time], early_start=True
        )
    assert [c.status for c in result.function_calls] == ["done", "done"]
    assert sorted(map(str, ran)) == sorted(str(c.arguments) for c in result.function_calls)
    assert wire.results(script.sent[1]) == ["Rome", "12:00 CET"]


@pytest.mark.parametrize("live", [False, True])
def test_the_assembler_names_open_calls_whose_arguments_are_whole(live: bool) -> None:
    assembler = Assembler("openai", live=live)
    assembler.add_all(
        [
            ToolCallStart(0, "a", "f"),
            ToolCallDelta(0, '{"x": 1}'),
            ToolCallStart(1, "b", "f"),
            ToolCallDelta(1, '{"y": '),
            ToolCallStart(2, "c", "f"),
            ToolCallDelta(2, '{"z": 3}'),
        ]
    )
    assert assembler.whole_open_calls() == [0]  # 1 is cut short; 2 is the newest
    assembler.add_all([ToolCallEnd(0), ToolCallDelta(0, " \n")])  # white space: nothing to add
    with pytest.raises(StreamError, match="arguments for call #0, which already ended"):
        assembler.add(ToolCallDelta(0, "}"))
    assert assembler.tool_calls[0].arguments == {"x": 1}


async def test_lang_stream_yields_an_early_call_s_finish_before_the_turn_ends() -> None:
    wire = WIRES["gemini"]
    script = Script(wire, [wire.pieces(CALLS, "m"), [wire.text("Ok.", "m")]], wait_for="end Oslo")
    seen: list[str] = []
    async with script.client() as client:
        lang = wire.make(client)
        functions = [weather_tool(script)]
        async with lang.stream("Weather?", functions=functions, early_start=True) as run:
            async for event in run:
                if isinstance(event, (CallFinished, TurnFinished)):
                    seen.append(type(event).__name__)
                    if len(seen) == 1:  # leaving early cancels the run cleanly
                        break
    assert seen == ["CallFinished"]
    assert run.result.function_calls[0].status == "done"
