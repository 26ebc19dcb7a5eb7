"""The assembler: events folded into the assistant message, streamed or not."""

from __future__ import annotations

import json
import time

import pytest

from aiwrapper import StreamError
from aiwrapper._conversation._assembler import Assembler
from aiwrapper._conversation._events import (
    Event,
    FinishEvent,
    OpaquePartEvent,
    PartStateEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from aiwrapper._conversation._messages import (
    LangMessages,
    OpaquePart,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from aiwrapper._conversation._result import LangResult

LIVE = pytest.mark.parametrize("live", [False, True], ids=["batch", "live"])


def fold(events: list[Event], *, live: bool) -> Assembler:
    assembler = Assembler("p", live=live)
    if live:
        for event in events:
            assembler.add(event)
    else:
        assembler.add_all(events)
    assembler.finish()
    return assembler


def shape(assembler: Assembler) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for part in assembler.message.parts:
        if isinstance(part, (TextPart, ThinkingPart)):
            out.append((type(part).__name__, part.text))
        elif isinstance(part, ToolCallPart):
            out.append(("call", (part.call.id, part.call.name, part.call.arguments)))
        else:
            out.append(("opaque", part.kind))
    return out


@LIVE
def test_parts_keep_their_arrival_order(live: bool) -> None:
    events: list[Event] = [
        ThinkingDelta("th"),
        ThinkingDelta("ink"),
        TextDelta("He"),
        TextDelta("llo"),
        OpaquePartEvent(ProviderState("p", {"x": 1}), "thinking"),
        TextDelta("more"),
        ToolCallStart(0, "c0", "f"),
        ToolCallDelta(0, '{"a"'),
        ToolCallDelta(0, ": 1}"),
        ToolCallEnd(0),
        TextDelta("tail"),
        TextDelta("!", new_part=True),
    ]
    assert shape(fold(events, live=live)) == [
        ("ThinkingPart", "think"),
        ("TextPart", "Hello"),
        ("opaque", "thinking"),
        ("TextPart", "more"),
        ("call", ("c0", "f", {"a": 1})),
        ("TextPart", "tail"),
        ("TextPart", "!"),
    ]


@LIVE
def test_state_merges_on_the_part_it_came_with(live: bool) -> None:
    events: list[Event] = [
        ThinkingDelta("t"),
        PartStateEvent(ProviderState("p", {"signature": "s1"})),
        PartStateEvent(ProviderState("p", {"extra": 2})),
        TextDelta("a"),
        PartStateEvent(ProviderState("q", {"k": 1})),
        PartStateEvent(ProviderState("q", {"j": 2})),
        TextDelta("b"),  # the text part now has state: new text starts a new part
        ToolCallStart(0, "c0", "f"),
        PartStateEvent(ProviderState("p", {"sig": "x"}), index=0),
        PartStateEvent(ProviderState("p", {"sig": "y"}), index=0, merge=False),
        ToolCallEnd(0),
    ]
    parts = fold(events, live=live).message.parts
    assert [p.state for p in parts if not isinstance(p, OpaquePart)] == [
        ProviderState("p", {"signature": "s1", "extra": 2}),
        ProviderState("q", {"k": 1, "j": 2}),
        None,
        ProviderState("p", {"sig": "y"}),
    ]
    assert [getattr(p, "text", None) for p in parts[:3]] == ["t", "a", "b"]


def test_state_before_any_content_is_a_stream_error() -> None:
    with pytest.raises(StreamError, match="provider state arrived before any content"):
        Assembler("p").add(PartStateEvent(ProviderState("p", {})))


def test_state_from_another_provider_replaces_instead_of_merging() -> None:
    assembler = fold(
        [
            TextDelta("a"),
            PartStateEvent(ProviderState("p", {"a": 1})),
            PartStateEvent(ProviderState("q", {"b": 2})),
        ],
        live=False,
    )
    assert assembler.message.parts[0].state == ProviderState("q", {"b": 2})


def test_arguments_for_a_call_that_never_started_are_a_stream_error() -> None:
    with pytest.raises(StreamError, match=r"p: arguments for call #3, which never started"):
        Assembler("p").add_all([ToolCallDelta(3, "{}")])


def test_arguments_after_the_call_ended_are_a_stream_error() -> None:
    assembler = Assembler("p")
    assembler.add_all([ToolCallStart(0, "c0", "f"), ToolCallEnd(0)])
    with pytest.raises(StreamError, match=r"call #0, which already ended"):
        assembler.add(ToolCallDelta(0, "{}"))


def test_a_repeated_start_fills_only_what_was_missing() -> None:
    assembler = fold(
        [
            ToolCallStart(0, None, ""),
            ToolCallStart(0, "real", "f"),
            ToolCallStart(0, "other", "g"),
            ToolCallDelta(0, "{}"),
        ],
        live=False,
    )
    (call,) = assembler.tool_calls
    assert (call.id, call.name, call.synthetic_id) == ("real", "f", False)
    assert assembler.started == [call]


def test_a_repeated_id_within_a_turn_gets_a_unique_one() -> None:
    assembler = fold(
        [ToolCallStart(0, "dup", "f"), ToolCallStart(1, "dup", "f"), ToolCallStart(2, None, "f")],
        live=False,
    )
    ids = [c.id for c in assembler.tool_calls]
    assert ids[0] == "dup"
    assert len(set(ids)) == 3
    assert all(i.startswith("call_") for i in ids[1:])
    assert [c.synthetic_id for c in assembler.tool_calls] == [False, True, True]


def test_an_id_a_repeated_start_fills_in_is_taken_for_the_calls_after() -> None:
    assembler = fold(
        [ToolCallStart(0, None, "f"), ToolCallStart(0, "real", "f"), ToolCallStart(1, "real", "g")],
        live=False,
    )
    first, second = assembler.tool_calls
    assert (first.id, first.synthetic_id) == ("real", False)
    assert second.id.startswith("call_")
    assert second.synthetic_id


def test_a_repeated_start_keeps_its_made_up_id_when_another_call_holds_the_given_one() -> None:
    assembler = fold(
        [ToolCallStart(0, "c0", "f"), ToolCallStart(1, None, "g"), ToolCallStart(1, "c0", "g")],
        live=False,
    )
    first, second = assembler.tool_calls
    assert first.id == "c0"
    assert second.id.startswith("call_")
    assert second.synthetic_id


@LIVE
def test_arguments_the_assembler_parsed_are_replayed_without_a_parse(
    live: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aiwrapper._conversation import _call

    checked: list[str] = []
    monkeypatch.setattr(_call, "is_json_object", lambda text: checked.append(text) or False)
    events: list[Event] = [ToolCallStart(0, "c0", "f"), ToolCallDelta(0, '{"a": 1}')]
    events += [ToolCallStart(1, "c1", "f"), ToolCallDelta(1, '{"a": 1')]  # cut off
    first, second = fold(events, live=live).tool_calls
    assert first.arguments_json() == '{"a": 1}'  # the model's text, known to be an object
    assert second.arguments_json() == "{}"  # never an object: checked, and refused
    assert checked == ['{"a": 1']


@LIVE
def test_calls_never_ended_are_ended_by_finish(live: bool) -> None:
    assembler = fold(
        [ToolCallStart(0, "c0", "f"), ToolCallDelta(0, '{"a": [1'), ToolCallStart(1, "c1", "g")],
        live=live,
    )
    first, second = assembler.tool_calls
    assert (first.raw_arguments, first.arguments, first.status) == ('{"a": [1', {}, "pending")
    assert (second.raw_arguments, second.arguments, second.status) == ("", {}, "pending")
    assert assembler.finish_reason == "tool_calls"


def test_live_arguments_are_parsed_after_every_fragment() -> None:
    assembler = Assembler("p", live=True)
    assembler.add(ToolCallStart(0, "c0", "f"))
    seen = []
    for fragment in ['{"city"', ': "Os', 'lo", "n": 1', "2}"]:
        assembler.add(ToolCallDelta(0, fragment))
        call = assembler.tool_calls[0]
        seen.append((call.status, dict(call.arguments)))
    assert seen == [
        ("streaming", {}),
        ("streaming", {"city": "Os"}),
        ("streaming", {"city": "Oslo", "n": 1}),
        ("streaming", {"city": "Oslo", "n": 12}),
    ]


def test_arguments_given_as_an_object_win_over_fragments() -> None:
    assembler = fold(
        [ToolCallStart(0, "c0", "f"), ToolCallDelta(0, "{"), ToolCallEnd(0, {"é": 1})],
        live=False,
    )
    call = assembler.tool_calls[0]
    assert (call.arguments, call.raw_arguments) == ({"é": 1}, '{"é":1}')


@pytest.mark.parametrize(
    ("events", "reason"),
    [
        ([TextDelta("x")], "stop"),
        ([TextDelta("x"), FinishEvent("tool_calls")], "stop"),
        ([TextDelta("x"), FinishEvent("length", "max_tokens")], "length"),
        ([ToolCallStart(0, "c", "f"), FinishEvent("stop")], "tool_calls"),
        ([ToolCallStart(0, "c", "f"), FinishEvent("length")], "tool_calls"),
    ],
)
def test_the_finish_reason_follows_the_content(events: list[Event], reason: str) -> None:
    assert fold(events, live=False).finish_reason == reason


def test_a_length_finish_marks_the_turn_truncated() -> None:
    assembler = fold([ToolCallStart(0, "c", "f"), FinishEvent("length", "max_tokens")], live=False)
    assert (assembler.truncated, assembler.raw_finish_reason) == (True, "max_tokens")


def test_a_later_usage_event_keeps_counts_it_does_not_report() -> None:
    assembler = fold(
        [
            UsageEvent(input_tokens=100, output_tokens=1, cached_input_tokens=40),
            UsageEvent(output_tokens=25, reasoning_tokens=5),
        ],
        live=False,
    )
    usage = assembler.usage
    assert (usage.input_tokens, usage.output_tokens, usage.cached_input_tokens) == (100, 25, 40)
    assert (usage.reasoning_tokens, usage.cache_write_tokens, usage.total_tokens) == (5, 0, 125)


def test_empty_text_opens_no_part() -> None:
    assert fold([TextDelta(""), ThinkingDelta("")], live=False).message.parts == []


def test_live_raw_arguments_grow_with_every_fragment() -> None:
    assembler = Assembler("p", live=True)
    assembler.add(ToolCallStart(0, "c0", "f"))
    seen = []
    for fragment in ['{"a"', ": [1", ", 2]}"]:
        assembler.add(ToolCallDelta(0, fragment))
        seen.append(assembler.tool_calls[0].raw_arguments)
    assembler.finish()
    assert seen == ['{"a"', '{"a": [1', '{"a": [1, 2]}']
    call = assembler.tool_calls[0]
    assert (call.raw_arguments, call.arguments) == ('{"a": [1, 2]}', {"a": [1, 2]})


@LIVE
def test_answer_and_thinking_read_mid_stream_are_the_text_so_far(live: bool) -> None:
    assembler = Assembler("p", live=live)
    answers, thoughts = [], []
    for i in range(50):
        assembler.add_all([ThinkingDelta(f"t{i}"), TextDelta(f"a{i}")] if i % 7 == 0 else [])
        assembler.add(TextDelta(str(i)))
        answers.append(assembler.answer)
        thoughts.append(assembler.thinking)
    parts = [(type(p).__name__, p.text) for p in assembler.finish().parts if hasattr(p, "text")]
    assert answers[-1] == assembler.message.content
    assert thoughts[-1] == assembler.message.thinking == "t0t7t14t21t28t35t42t49"
    assert answers[:3] == ["a00", "a001", "a0012"]  # earlier readings never change afterwards
    assert parts[:3] == [
        ("ThinkingPart", "t0"),
        ("TextPart", "a0" + "0123456"),
        ("ThinkingPart", "t7"),
    ]


def _seconds_per_fragment(size: int) -> float:
    """CPU per fragment of one live call of ``size`` bytes, read as on_result would read it."""
    text = json.dumps({"text": "x" * size, "n": list(range(10))})
    fragments = [text[i : i + 4] for i in range(0, len(text), 4)]
    best = float("inf")
    for _ in range(3):
        assembler = Assembler("p", live=True)
        assembler.add(TextDelta("Writing it."))
        assembler.add(ToolCallStart(0, "c0", "write"))
        start = time.process_time()
        for fragment in fragments:
            assembler.add(ToolCallDelta(0, fragment))
            call = assembler.tool_calls[0]
            _ = (assembler.answer, call.arguments.get("text"), call.raw_arguments)
        best = min(best, time.process_time() - start)
        assert assembler.finish().tool_calls[0].arguments == json.loads(text)
    return best / len(fragments)


def test_the_cost_of_a_fragment_does_not_grow_with_the_arguments_size() -> None:
    # A ratio of two sizes, not an absolute time: re-reading everything per fragment makes
    # the 16x larger call cost about 16x more per fragment; linear work keeps it near 1.
    growth = _seconds_per_fragment(64_000) / _seconds_per_fragment(4_000)
    assert growth < 4, f"per-fragment cost grew {growth:.1f}x for 16x the arguments"


def test_a_result_reads_a_live_answer_as_the_turn_joins_it() -> None:
    result = LangResult("hi", LangMessages())
    assembler = Assembler("p", live=True)
    result._stream_turn(assembler)
    state = PartStateEvent(ProviderState("p", {"s": 1}))
    events: list[Event] = [
        TextDelta("a"),
        TextDelta("b"),
        TextDelta(" café"),  # not ASCII: joined when read
        TextDelta("c"),
        state,  # a part with state takes no more text: the next delta opens a part
        TextDelta("d"),
        ThinkingDelta("hm"),
        TextDelta("e", new_part=True),
        ToolCallStart(0, "c0", "f"),
    ]
    answers = []
    for event in events:
        assembler.add(event)
        answers.append(result.answer)
    assert answers == [
        "a",
        "ab",
        "ab café",
        "ab caféc",
        "ab caféc",
        *["ab cafécd"] * 2,
        *["ab cafécde"] * 2,
    ]
    assert result.answer == assembler.message.answer
