"""The offline models: scripted turns and the demo's offline model."""

from __future__ import annotations

from typing import Any

import pytest

from aiwrapper import ConfigError, FunctionCall, Lang, LangMessages, LangOptions, tool
from aiwrapper._conversation._events import (
    FinishEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    UsageEvent,
)
from aiwrapper.providers.scripted import turn_events
from aiwrapper.testing import call, scripted, turn

pytestmark = pytest.mark.anyio


@tool
def echo(text: str) -> str:
    """Echo."""
    return text


def test_a_turn_streams_in_chunks_of_eight_characters() -> None:
    events = turn_events({"thinking": "0123456789", "text": "abcdefghijk"}, stream=True)
    assert events == [
        ThinkingDelta("01234567"),
        ThinkingDelta("89"),
        TextDelta("abcdefgh"),
        TextDelta("ijk"),
        UsageEvent(input_tokens=0, output_tokens=5),
        FinishEvent("stop"),
    ]


def test_without_streaming_a_turn_is_one_delta_per_kind() -> None:
    events = turn_events({"function_calls": [call("echo", text="ä" * 20)]}, stream=False)
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert deltas == [ToolCallDelta(0, '{"text": "' + "ä" * 20 + '"}')]
    assert events[-1] == FinishEvent("tool_calls")


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (None, "a scripted turn is a string or a dict, not None"),
        (["text"], "a scripted turn is a string or a dict"),
        ({"txt": "x"}, r"unknown keys \['txt'\]"),
        ({"function_calls": [{"arguments": {}}]}, "a dict with a 'name'"),
        ({"function_calls": ["echo"]}, "a dict with a 'name', not 'echo'"),
    ],
)
async def test_a_malformed_turn_is_a_config_error(bad: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        await Lang.scripted([bad]).ask("go")


async def test_running_out_names_the_request() -> None:
    lang = Lang.scripted(["one"])
    await lang.ask("a")
    with pytest.raises(ConfigError, match=r"1 turn\(s\) and all were used; request #2"):
        await lang.ask("b")
    assert len(lang.requests) == 2


async def test_a_callable_script_sees_the_conversation_and_options() -> None:
    seen: list[tuple[list[str], float | None]] = []

    def script(messages: LangMessages, options: LangOptions) -> Any:
        seen.append(([m.role for m in messages], options.temperature))
        if messages[-1].role == "user":
            return turn(call("echo", text="hi", id="e1"))
        return f"echo said {messages[-1].content}"

    result = await Lang.scripted(script).ask("go", functions=[echo], temperature=0.3)
    assert result.answer == "echo said hi"
    assert seen == [(["user"], 0.3), (["user", "assistant", "tool"], 0.3)]


async def test_an_async_callable_script_is_awaited() -> None:
    async def script(messages: LangMessages, options: LangOptions) -> str:
        return f"{len(messages)} message(s)"

    assert (await Lang.scripted(script).ask("go")).answer == "1 message(s)"


async def test_a_callable_script_cannot_change_the_run_through_its_messages() -> None:
    def script(messages: LangMessages, options: LangOptions) -> str:
        messages.add_user("injected")
        return "ok"

    lang = Lang.scripted(script)
    result = await lang.ask("go")
    assert [m.role for m in result.messages] == ["user", "assistant"]
    assert [m.role for m in lang.requests[0].messages] == ["user"]


async def test_recorded_requests_are_snapshots() -> None:
    lang = scripted([turn(call("echo", text="x", id="c0")), "done", "again"])
    result = await lang.ask("go", functions=[echo], auto_execute=False)
    recorded = lang.requests[0].messages
    result.messages.add_tool_result(result.function_calls[0], "x")
    await lang.chat(result.messages)
    assert [m.role for m in recorded] == ["user"]
    second = lang.requests[1].messages
    second_call = second[1].tool_calls[0]
    result.function_calls[0].arguments["text"] = "changed"
    result.function_calls[0].status = "error"
    assert (second_call.arguments, second_call.status) == ({"text": "x"}, "done")
    assert second_call is not result.function_calls[0]


async def test_requests_record_the_canonical_tool_declarations() -> None:
    lang = scripted(["ok"])
    await lang.ask("go", functions=[echo])
    assert lang.requests[0].tools == [
        {
            "name": "echo",
            "description": "Echo.",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
                "additionalProperties": False,
            },
        }
    ]


async def test_a_call_without_id_gets_a_unique_made_up_one() -> None:
    lang = scripted([turn(call("echo", text="a"), call("echo", text="b")), "ok"])
    result = await lang.ask("go", functions=[echo])
    ids = [c.id for c in result.function_calls]
    assert len(set(ids)) == 2
    assert all(i.startswith("call_") for i in ids)
    assert all(c.synthetic_id for c in result.function_calls)


def test_only_a_scripted_lang_has_requests() -> None:
    with pytest.raises(AttributeError, match=r"only Lang\.scripted"):
        _ = Lang.offline().requests


async def test_the_offline_model_is_deterministic() -> None:
    @tool
    def book(city: str, nights: int, fancy: bool = False) -> dict[str, Any]:
        """Book a hotel."""
        return {"city": city, "nights": nights, "fancy": fancy}

    runs = [await Lang.offline().ask("plan", functions=[book, echo]) for _ in range(2)]
    shapes = [
        ([(c.id, c.name, c.arguments, c.result) for c in r.function_calls], r.answer) for r in runs
    ]
    assert shapes[0] == shapes[1]
    assert [c.id for c in runs[0].function_calls] == ["offline_0", "offline_1"]
    assert runs[0].answer.startswith("Here is what the tools returned (offline model):\n- book: ")


async def test_the_offline_model_answers_a_continued_conversation_from_new_results() -> None:
    lang = Lang.offline()
    first = await lang.ask("hi", functions=[echo])
    more = await lang.chat(first.messages.add_user("again"), functions=[echo])
    assert [c.id for c in more.function_calls] == ["offline_0"]
    assert more.iterations == 2


async def test_scripted_calls_run_through_function_handler() -> None:
    got: list[FunctionCall] = []
    definition = {"name": "lookup", "description": "d", "parameters": {"q": {"type": "string"}}}
    lang = scripted([turn(call("lookup", q="x", id="l1")), "ok"])
    await lang.ask("go", functions=[definition], function_handler=got.append)
    assert [(c.id, c.arguments) for c in got] == [("l1", {"q": "x"})]
