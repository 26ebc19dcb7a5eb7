"""Token log probabilities in the run: options, the turn they belong to, events, storage.

The wires' own decoding is tested with each provider; here a model hands the loop neutral
events directly, so the run's part is seen alone.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from aiwrapper import ConfigError, Lang, LogprobsDelta, TextDelta, TokenLogprob, tool
from aiwrapper._conversation._events import (
    FinishEvent,
    LogprobsEvent,
    ToolCallEnd,
    ToolCallStart,
)
from aiwrapper._conversation._events import TextDelta as TextEvent
from aiwrapper._conversation._logprobs import logprobs_from_jsonable, logprobs_to_jsonable
from aiwrapper._run._options import merge_options
from aiwrapper.durable._checkpoints import (
    result_from_jsonable,
    result_to_jsonable,
    turn_from_jsonable,
    turn_to_jsonable,
)
from aiwrapper.testing import scripted, turn

pytestmark = pytest.mark.anyio

HI = TokenLogprob("Hi", -0.25, (72, 105), (TokenLogprob("Hi", -0.25), TokenLogprob("Hey", -1.5)))
THERE = TokenLogprob(" there", -0.5)


class Turns:
    """A model answering each request with the next list of neutral events."""

    name, model = "turns", "m"

    def __init__(self, *turns: list[Any]) -> None:
        self.turns = list(turns)
        self.options: list[Any] = []

    async def send(self, request: Any, sink: Any) -> None:
        self.options.append(request.options)
        await sink(self.turns.pop(0))

    async def aclose(self) -> None:
        pass


@tool
def lookup() -> str:
    """Look it up."""
    return "found"


def answer_with_logprobs() -> list[Any]:
    return [
        TextEvent("Hi"),
        LogprobsEvent([HI]),
        TextEvent(" there"),
        LogprobsEvent([THERE]),
        FinishEvent("stop"),
    ]


async def test_the_answer_tokens_collect_on_the_result_in_order() -> None:
    result = await Lang(Turns(answer_with_logprobs())).ask("hi", logprobs=True)
    assert result.answer == "Hi there"
    assert result.logprobs == [HI, THERE]


async def test_logprobs_are_those_of_the_latest_turn() -> None:
    calling = [TextEvent("Let me look."), LogprobsEvent([THERE]), ToolCallStart(0, "c", "lookup")]
    turns = Turns([*calling, ToolCallEnd(0, {})], answer_with_logprobs())
    result = await Lang(turns).ask("hi", functions=[lookup], logprobs=True)
    assert result.logprobs == [HI, THERE]
    assert result.iterations == 2


async def test_a_turn_without_logprobs_leaves_none_from_the_one_before() -> None:
    calling = [LogprobsEvent([THERE]), ToolCallStart(0, "c", "lookup"), ToolCallEnd(0, {})]
    turns = Turns(calling, [TextEvent("done"), FinishEvent("stop")])
    result = await Lang(turns).ask("hi", functions=[lookup], logprobs=True)
    assert (result.answer, result.logprobs) == ("done", [])


async def test_they_stream_as_events_after_their_text_and_on_the_result_as_it_grows() -> None:
    seen: list[tuple[str, Any]] = []
    grown: list[int] = []

    def on_event(event: Any) -> None:
        if isinstance(event, TextDelta):
            seen.append(("text", event.text))
        elif isinstance(event, LogprobsDelta):
            seen.append(("logprobs", event.tokens))

    lang = Lang(Turns(answer_with_logprobs()))
    await lang.ask(
        "hi", logprobs=True, on_event=on_event, on_result=lambda r: grown.append(len(r.logprobs))
    )
    assert seen == [("text", "Hi"), ("logprobs", [HI]), ("text", " there"), ("logprobs", [THERE])]
    assert grown == [0, 1, 1, 2, 2]  # after each delta, then once more as the run ends


async def test_lang_stream_yields_them_too() -> None:
    lang = Lang(Turns(answer_with_logprobs()))
    tokens: list[TokenLogprob] = []
    async with lang.stream("hi", logprobs=True) as events:
        async for event in events:
            if isinstance(event, LogprobsDelta):
                tokens.extend(event.tokens)
    assert tokens == [HI, THERE]


async def test_the_options_reach_the_model() -> None:
    turns = Turns(answer_with_logprobs())
    await Lang(turns, options={"logprobs": True}).ask("hi", top_logprobs=2)
    assert (turns.options[0].logprobs, turns.options[0].top_logprobs) == (True, 2)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"logprobs": "yes"}, "logprobs must be True or False, not 'yes'"),
        ({"logprobs": 1}, "logprobs must be True or False, not 1"),
        ({"logprobs": True, "top_logprobs": 21}, "top_logprobs must be an int from 0 to 20"),
        ({"logprobs": True, "top_logprobs": -1}, "top_logprobs must be an int from 0 to 20"),
        ({"logprobs": True, "top_logprobs": True}, "top_logprobs must be an int from 0 to 20"),
        ({"logprobs": True, "top_logprobs": 2.0}, "top_logprobs must be an int from 0 to 20"),
        ({"top_logprobs": 3}, "top_logprobs needs logprobs=True"),
        ({"logprobs": False, "top_logprobs": 3}, "top_logprobs needs logprobs=True"),
    ],
)
def test_bad_values_are_refused_by_name(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        merge_options(**options)


def test_top_logprobs_in_one_layer_and_logprobs_in_another_merge() -> None:
    merged = merge_options({"logprobs": True}, top_logprobs=0)
    assert (merged.logprobs, merged.top_logprobs) == (True, 0)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Lang.anthropic("claude-sonnet-4-5", api_key="k"),
        lambda: Lang.bedrock("anthropic.claude-sonnet-4-5", region="us-east-1", api_key="k"),
    ],
    ids=["anthropic", "bedrock"],
)
async def test_a_wire_without_them_refuses_them_by_name_before_any_request(make: Any) -> None:
    lang = make()
    with pytest.raises(ConfigError, match="logprobs is not supported by"):
        await lang.ask("hi", logprobs=True)
    await lang.aclose()


def test_tokens_survive_storage_with_their_alternatives_and_an_infinite_logprob() -> None:
    impossible = TokenLogprob("x", -math.inf)
    tokens = [HI, THERE, impossible]
    data = logprobs_to_jsonable(tokens)
    assert data[0] == {
        "token": "Hi",
        "logprob": -0.25,
        "bytes": [72, 105],
        "top_logprobs": [{"token": "Hi", "logprob": -0.25}, {"token": "Hey", "logprob": -1.5}],
    }
    assert data[2] == {"token": "x", "logprob": None}
    assert logprobs_from_jsonable(data) == tokens


async def test_a_durable_runs_checkpoints_keep_them() -> None:
    result = await Lang(Turns(answer_with_logprobs())).ask("hi", logprobs=True)
    assert result_from_jsonable(result_to_jsonable(result)).logprobs == [HI, THERE]
    older = result_to_jsonable(result)
    del older["logprobs"]  # written before logprobs were kept
    assert result_from_jsonable(older).logprobs == []


def test_a_turns_checkpoint_keeps_them() -> None:
    from aiwrapper._conversation._assembler import Assembler

    turn = Assembler("turns")
    turn.add_all(answer_with_logprobs())
    turn.finish()
    assert turn_from_jsonable(turn_to_jsonable(turn), "turns").logprobs == [HI, THERE]


async def test_a_scripted_turn_gives_its_tokens_only_when_they_are_asked_for() -> None:
    script = [turn(text="Hi there", logprobs=[HI, THERE])] * 2
    lang = scripted(script)
    assert (await lang.ask("hi", logprobs=True)).logprobs == [HI, THERE]
    assert (await lang.ask("hi")).logprobs == []


@pytest.mark.parametrize("given", [[{"token": "Hi", "logprob": 0.0}], "Hi", [HI, None]])
async def test_a_scripted_turns_logprobs_must_be_tokens(given: Any) -> None:
    lang = scripted([{"text": "Hi", "logprobs": given}])
    with pytest.raises(ConfigError, match="a scripted turn's logprobs are a list of TokenLogprob"):
        await lang.ask("hi", logprobs=True)


async def test_the_offline_model_refuses_them_by_name() -> None:
    lang = Lang.offline()
    with pytest.raises(ConfigError, match="logprobs is not supported by the offline model"):
        await lang.ask("hi", logprobs=True)
    assert (await lang.ask("hi", logprobs=False)).answer
