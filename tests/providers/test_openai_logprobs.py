"""Token log probabilities on the Chat Completions wire: asked for in the request body, read
from whole bodies and from streams (through the batched fast paths too), hostile values
refused as a ``StreamError`` of ours."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import Lang, LogprobsDelta, TextDelta, TokenLogprob
from aiwrapper import _errors as errors
from aiwrapper._conversation._events import Event, FinishEvent, LogprobsEvent, ModelEvent
from aiwrapper._conversation._events import TextDelta as TextEvent
from aiwrapper._wire._framing import SSEDecoder
from aiwrapper.providers.openai import PRESETS, OpenAIProvider
from aiwrapper.providers.openai._decode import OpenAIStreamDecoder

from .chat_sdk import assert_chat_sdk_accepts

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai"
SSE = {"content-type": "text/event-stream"}

HELLO = TokenLogprob(
    "Hello",
    -0.0019084,
    (72, 101, 108, 108, 111),
    (
        TokenLogprob("Hello", -0.0019084, (72, 101, 108, 108, 111)),
        TokenLogprob("Hi", -6.2519083, (72, 105)),
    ),
)
THERE = TokenLogprob(
    " there",
    -0.31326166,
    (32, 116, 104, 101, 114, 101),
    (
        TokenLogprob(" there", -0.31326166, (32, 116, 104, 101, 114, 101)),
        TokenLogprob("!", -1.3132617, (33,)),
    ),
)
# An emoji in two tokens: OpenAI names a token that is part of a character by its bytes.
EMOJI = [
    TokenLogprob(
        "\\xf0\\x9f\\x99",
        -0.75,
        (240, 159, 153),
        (TokenLogprob("\\xf0\\x9f\\x99", -0.75, (240, 159, 153)), TokenLogprob(".", -0.875, (46,))),
    ),
    TokenLogprob(
        "\\x82", 0.0, (130,), (TokenLogprob("\\x82", 0.0, (130,)), TokenLogprob("\\x83", -19.5))
    ),
]


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def lang(answer: bytes, sent: list[bytes], *, stream: bool) -> Lang:
    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.content)
        headers = SSE if stream else {"content-type": "application/json"}
        return httpx.Response(200, content=answer, headers=headers)

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return Lang.openai(
        api_key="k", model="gpt-4o-mini", http_client=client, options={"stream": stream}
    )


def streamed(data: bytes) -> list[Event]:
    decoder = OpenAIProvider(api_key="k").decode_stream()
    events: list[Event] = []
    for name, payload in SSEDecoder().feed(data):
        events += decoder.feed(name, payload)
    return [e for e in events if not isinstance(e, ModelEvent)] + decoder.close()


# --- the request -----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_request_asks_for_logprobs_matching_its_fixture() -> None:
    sent: list[bytes] = []
    chat = lang(fixture("logprobs.json"), sent, stream=False)
    result = await chat.ask("Say hello", logprobs=True, top_logprobs=2)
    assert sent == [fixture("request_logprobs.json")]
    body = json.loads(sent[0])
    assert (body["logprobs"], body["top_logprobs"]) == (True, 2)
    assert_chat_sdk_accepts(body)
    assert (result.answer, result.logprobs) == ("Hello there", [HELLO, THERE])


def test_logprobs_false_and_unset_send_no_key() -> None:
    from aiwrapper._run._contract import ProviderRequest
    from aiwrapper._run._options import merge_options

    for options in ({}, {"logprobs": False}):
        request = ProviderRequest("gpt-4o-mini", [], [], merge_options(options), False)
        body = OpenAIProvider(api_key="k").encode(request).body
        assert {"logprobs", "top_logprobs"}.isdisjoint(body)


@pytest.mark.parametrize("preset", ["deepseek", "openrouter", "vllm"])
def test_every_compatible_profile_sends_them(preset: str) -> None:
    from aiwrapper._run._contract import ProviderRequest
    from aiwrapper._run._options import merge_options

    base_url, _, profile = PRESETS[preset]
    provider = OpenAIProvider(api_key="k", base_url=base_url, profile=profile)
    options = merge_options({"logprobs": True, "top_logprobs": 0})
    body = provider.encode(ProviderRequest("m", [], [], options, False)).body
    assert (body["logprobs"], body["top_logprobs"]) == (True, 0)


# --- whole bodies and streams ----------------------------------------------------------------


def test_a_whole_body_gives_its_text_then_its_tokens() -> None:
    events = OpenAIProvider(api_key="k").decode_response(json.loads(fixture("logprobs.json")))
    kinds = [e for e in events if isinstance(e, (TextEvent, LogprobsEvent, FinishEvent))]
    assert kinds == [
        TextEvent("Hello there"),
        LogprobsEvent([HELLO, THERE]),
        FinishEvent("stop", "stop"),
    ]


def test_a_stream_gives_each_chunks_tokens_after_its_text() -> None:
    assert streamed(fixture("logprobs.sse")) == [
        TextEvent("Hello"),
        LogprobsEvent([HELLO]),
        TextEvent(" there"),
        LogprobsEvent([THERE]),
        TextEvent(" \U0001f642"),
        LogprobsEvent(EMOJI),
        FinishEvent("stop", "stop"),
    ]


@pytest.mark.anyio
async def test_a_streamed_run_collects_them_and_shows_each_after_its_text() -> None:
    sent: list[bytes] = []
    chat = lang(fixture("logprobs.sse"), sent, stream=True)
    seen: list[Any] = []
    async with chat.stream("Say hello", logprobs=True, top_logprobs=2) as events:
        async for event in events:
            if isinstance(event, (TextDelta, LogprobsDelta)):
                seen.append(event.text if isinstance(event, TextDelta) else event.tokens)
    assert seen == ["Hello", [HELLO], " there", [THERE], " \U0001f642", EMOJI]
    assert events.result.logprobs == [HELLO, THERE, *EMOJI]
    assert json.loads(sent[0])["logprobs"] is True


def test_a_refusals_tokens_are_not_the_answers() -> None:
    refusal = [{"token": "No", "logprob": -0.1, "bytes": [78, 111], "top_logprobs": []}]
    body = {
        "model": "gpt-4o-mini",
        "choices": [
            {
                "message": {"role": "assistant", "content": None, "refusal": "No"},
                "logprobs": {"content": None, "refusal": refusal},
                "finish_reason": "stop",
            }
        ],
    }
    events = OpenAIProvider(api_key="k").decode_response(body)
    assert not any(isinstance(e, LogprobsEvent) for e in events)


# --- the fast paths --------------------------------------------------------------------------

ENVELOPE = (
    '{"id":"chatcmpl-Lp7q3","object":"chat.completion.chunk","created":1767225600,'
    '"model":"gpt-4o-mini-2024-07-18","service_tier":"default",'
    '"system_fingerprint":"fp_7f3a9c2b1e","choices":[{"index":0,"delta":{"content":%s},'
    '"logprobs":%s,"finish_reason":null}],"obfuscation":"%s"}'
)


def chunk(text: str, logprobs: Any, padding: str = "Qw") -> tuple[None, str]:
    return None, ENVELOPE % (json.dumps(text), json.dumps(logprobs), padding)


def wire_token(text: str, logprob: float) -> dict[str, Any]:
    return {"token": text, "logprob": logprob, "bytes": list(text.encode()), "top_logprobs": []}


def batched(frames: list[tuple[None, str]], size: int = 8) -> tuple[list[Event], Any]:
    decoder = OpenAIStreamDecoder("openai")
    events: list[Event] = []
    for start in range(0, len(frames), size):
        decoder.feed_events(frames[start : start + size], events)
    return [e for e in events if not isinstance(e, ModelEvent)], decoder


def test_logprobs_after_the_envelope_was_learned_are_never_dropped() -> None:
    plain = [chunk(f"p{i}", None, f"pad{i}") for i in range(40)]
    rich = [chunk(f"r{i}", {"content": [wire_token(f"r{i}", -i / 8)]}) for i in range(40)]
    tail = [chunk(f"t{i}", None) for i in range(40)]
    events, decoder = batched(plain[:40])
    assert not decoder._envelope.cold  # the fast path is reading the chunks
    events, _ = batched(plain + rich + tail)
    expected: list[Event] = [TextEvent(f"p{i}") for i in range(40)]
    for i in range(40):
        expected += [
            TextEvent(f"r{i}"),
            LogprobsEvent([TokenLogprob(f"r{i}", -i / 8, (114, *str(i).encode()))]),
        ]
    expected += [TextEvent(f"t{i}") for i in range(40)]
    assert events == expected


def test_chunks_with_the_same_logprobs_bytes_each_give_their_tokens() -> None:
    # Every chunk's bytes are the same, so an envelope learned from one would read them all.
    same = {"content": [wire_token("ab", -0.5)], "refusal": None}
    events, decoder = batched([chunk("ab", same) for _ in range(200)], size=16)
    token = TokenLogprob("ab", -0.5, (97, 98))
    assert events == [TextEvent("ab"), LogprobsEvent([token])] * 200
    assert decoder._envelope.cold  # no envelope was learned from a chunk with logprobs


def test_one_by_one_and_batched_give_the_same() -> None:
    frames = [
        chunk(f"w{i}", {"content": [wire_token(f"w{i}", -1.0)]} if i % 3 else None)
        for i in range(90)
    ]
    decoder = OpenAIStreamDecoder("openai")
    alone = [e for _, data in frames for e in decoder.feed(None, data)]
    assert [e for e in alone if not isinstance(e, ModelEvent)] == batched(frames)[0]
    assert sum(isinstance(e, LogprobsEvent) for e in alone) == 60


# --- hostile values --------------------------------------------------------------------------

HOSTILE = {
    "logprobs a string": "yes",
    "logprobs a list": [1],
    "content a string": {"content": "Hello"},
    "content an object": {"content": {"token": "a"}},
    "an entry a number": {"content": [1]},
    "no token": {"content": [{"logprob": -1.0}]},
    "no logprob": {"content": [{"token": "a"}]},
    "token a number": {"content": [{"token": 5, "logprob": -1.0}]},
    "logprob as text": {"content": [{"token": "a", "logprob": "-1.0"}]},
    "logprob a bool": {"content": [{"token": "a", "logprob": True}]},
    "logprob above 0": {"content": [{"token": "a", "logprob": 1.5}]},
    "bytes a string": {"content": [{"token": "a", "logprob": -1.0, "bytes": "a"}]},
    "a byte too big": {"content": [{"token": "a", "logprob": -1.0, "bytes": [256]}]},
    "a byte negative": {"content": [{"token": "a", "logprob": -1.0, "bytes": [-1]}]},
    "a byte a float": {"content": [{"token": "a", "logprob": -1.0, "bytes": [9.5]}]},
    "top an object": {"content": [{"token": "a", "logprob": -1.0, "top_logprobs": {}}]},
    "top entry null": {"content": [{"token": "a", "logprob": -1.0, "top_logprobs": [None]}]},
    "top entry no logprob": {
        "content": [{"token": "a", "logprob": -1, "top_logprobs": [{"token": "b"}]}]
    },
}


@pytest.mark.parametrize("value", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_value_is_a_stream_error_on_every_path(value: Any) -> None:
    frames = [chunk("a", None) for _ in range(30)] + [chunk("b", value)]
    with pytest.raises(errors.StreamError, match="undecodable stream chunk"):
        batched(frames)
    decoder = OpenAIStreamDecoder("openai")
    for _, data in frames[:-1]:
        decoder.feed(None, data)
    with pytest.raises(errors.StreamError, match="undecodable stream chunk"):
        decoder.feed(None, frames[-1][1])
    body = {"choices": [{"message": {"content": "b"}, "logprobs": value}]}
    with pytest.raises(errors.StreamError, match="unexpected response body"):
        OpenAIProvider(api_key="k").decode_response(body)


@pytest.mark.parametrize("value", [None, False, 0, {}, {"content": None}, {"content": []}])
def test_an_empty_value_holds_no_tokens_on_every_path(value: Any) -> None:
    frames = [chunk("a", value) for _ in range(40)]
    assert batched(frames)[0] == [TextEvent("a")] * 40
    decoder = OpenAIStreamDecoder("openai")
    alone = [e for _, data in frames for e in decoder.feed(None, data)]
    assert [e for e in alone if not isinstance(e, ModelEvent)] == [TextEvent("a")] * 40


def test_a_null_logprob_is_minus_infinity_and_alternatives_keep_no_alternatives() -> None:
    nested = {"token": "c", "logprob": -2, "top_logprobs": [{"token": "d", "logprob": None}]}
    entry = {"token": "a", "logprob": None, "bytes": None, "top_logprobs": [nested]}
    events, _ = batched([chunk("a", {"content": [entry]})])
    assert events == [
        TextEvent("a"),
        LogprobsEvent([TokenLogprob("a", -math.inf, None, (TokenLogprob("c", -2.0),))]),
    ]


def test_a_huge_list_of_tokens_decodes_in_one_pass() -> None:
    tokens = [wire_token("x", -0.25)] * 20_000
    events, _ = batched([chunk("x" * 20_000, {"content": tokens})])
    assert len(events[1].tokens) == 20_000  # type: ignore[union-attr]
    assert events[1].tokens[-1] == TokenLogprob("x", -0.25, (120,))  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_an_unwatched_streamed_ask_collects_them() -> None:
    chat = lang(fixture("logprobs.sse"), [], stream=True)
    result = await chat.ask("Say hello", logprobs=True, top_logprobs=2)
    assert (result.answer, result.logprobs) == ("Hello there \U0001f642", [HELLO, THERE, *EMOJI])
