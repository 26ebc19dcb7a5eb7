"""Token log probabilities on the Responses wire: asked for in ``include`` (and
``top_logprobs``), read from whole ``output_text`` parts and from each text delta, never twice,
and only when the request asked for them; malformed entries are a ``StreamError``."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import Lang, LogprobsDelta, TextDelta, TokenLogprob
from aiwrapper import _errors as errors
from aiwrapper._conversation._events import Event, LogprobsEvent
from aiwrapper._conversation._events import TextDelta as TextEvent
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import LangOptions
from aiwrapper._wire._framing import SSEDecoder
from aiwrapper._wire._http import HttpTransport
from aiwrapper.providers._http_model import HttpModel
from aiwrapper.providers.openai_responses import NAME, ResponsesProvider, ResponsesStreamDecoder

from .responses_sdk import assert_sdk_accepts
from .test_openai_responses_encode import body, user

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_responses"
HI = TokenLogprob("Hi", -0.0001, None, (TokenLogprob("Hi", -0.0001), TokenLogprob("Hello", -9.25)))
THERE = TokenLogprob(
    " there", -0.3125, None, (TokenLogprob(" there", -0.3125), TokenLogprob("!", -1.5))
)
DOT = TokenLogprob(".", -0.015625, None, (TokenLogprob(".", -0.015625), TokenLogprob("!", -4.25)))


def with_bytes(token: TokenLogprob) -> TokenLogprob:
    """The token as a whole body gives it: bytes on it and on its alternatives."""
    top = tuple(with_bytes(t) for t in token.top_logprobs)
    return TokenLogprob(token.token, token.logprob, tuple(token.token.encode()), top)


class Server:
    """Answers every request with one fixture; keeps the bytes sent."""

    def __init__(self, answer: str) -> None:
        self.answer = (FIXTURES / answer).read_bytes()
        self.sent: list[bytes] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request.content)
        kind = "text/event-stream" if self.answer.startswith(b"event:") else "application/json"
        return httpx.Response(200, content=self.answer, headers={"content-type": kind})

    def lang(self) -> Lang:
        client = httpx.AsyncClient(transport=httpx.MockTransport(self))
        provider = ResponsesProvider(api_key="sk-test")
        return Lang(HttpModel(provider, HttpTransport(http_client=client), model="gpt-4.1-mini"))


def decode(data: bytes, chunk: int | None = None, *, logprobs: bool = True) -> list[Event]:
    """Bytes through framing and the batched decoder, in chunks of ``chunk`` bytes."""
    decoder, framer = ResponsesStreamDecoder(NAME, logprobs=logprobs), SSEDecoder()
    events: list[Event] = []
    step = chunk or len(data)
    for start in range(0, len(data), step):
        decoder.feed_events(framer.feed(data[start : start + step]), events)
    decoder.feed_events(framer.flush(), events)
    return events + decoder.close()


def answer_events(events: list[Event]) -> list[Event]:
    return [e for e in events if isinstance(e, (TextEvent, LogprobsEvent))]


# -- the request ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_streamed_request_with_logprobs_is_sent_as_its_fixture_and_read_per_delta() -> None:
    server = Server("logprobs.sse")
    seen: list[object] = []
    async with server.lang().stream("Say hi.", logprobs=True, top_logprobs=2) as run:
        async for event in run:
            if isinstance(event, (TextDelta, LogprobsDelta)):
                seen.append((type(event).__name__, getattr(event, "text", None) or event.tokens))
    assert server.sent == [(FIXTURES / "request_logprobs.json").read_bytes()]
    sent = json.loads(server.sent[0])
    assert sent["include"] == ["message.output_text.logprobs"]
    assert sent["top_logprobs"] == 2
    assert_sdk_accepts(sent)
    assert seen == [
        ("TextDelta", "Hi"),
        ("LogprobsDelta", [HI]),
        ("TextDelta", " there."),
        ("LogprobsDelta", [THERE, DOT]),
    ]
    assert run.result.answer == "Hi there."
    assert run.result.logprobs == [HI, THERE, DOT]  # .done and .completed are not counted


@pytest.mark.anyio
async def test_a_whole_answer_gives_its_tokens_with_their_bytes() -> None:
    server = Server("logprobs.json")
    result = await server.lang().chat("Say hi.", logprobs=True, top_logprobs=2, stream=False)
    assert result.answer == "Hi there."
    assert result.logprobs == [with_bytes(HI), with_bytes(THERE), with_bytes(DOT)]


def test_logprobs_join_the_reasoning_include_without_duplicates() -> None:
    sent = body([user("Hi")], model="o3", logprobs=True, top_logprobs=0, stream=False)
    assert sent["include"] == ["reasoning.encrypted_content", "message.output_text.logprobs"]
    assert sent["top_logprobs"] == 0
    assert_sdk_accepts(sent)
    sent = body([user("Hi")], model="gpt-4.1", logprobs=True)
    assert sent["include"] == ["message.output_text.logprobs"]
    assert "top_logprobs" not in sent


def test_without_logprobs_the_body_is_unchanged() -> None:
    assert body([user("Hi")], model="o3", logprobs=False) == body([user("Hi")], model="o3")
    assert body([user("Hi")], model="o3")["include"] == ["reasoning.encrypted_content"]


@pytest.mark.parametrize(("option", "value"), [("seed", 7), ("top_k", 3), ("logit_bias", {"1": 2})])
def test_the_options_the_wire_lacks_are_still_refused_by_name(option: str, value: Any) -> None:
    with pytest.raises(errors.ConfigError, match=f"^{option} is not supported by the Responses"):
        body([user("Hi")], logprobs=True, **{option: value})


# -- decoding ------------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", [None, 1, 7, 64])
def test_each_delta_is_followed_by_its_tokens_and_the_done_events_add_none(
    chunk: int | None,
) -> None:
    events = answer_events(decode((FIXTURES / "logprobs.sse").read_bytes(), chunk))
    assert events == [
        TextEvent("Hi"),
        LogprobsEvent([HI]),
        TextEvent(" there."),
        LogprobsEvent([THERE, DOT]),
    ]


def test_tokens_are_not_read_when_the_request_did_not_ask() -> None:
    events = answer_events(decode((FIXTURES / "logprobs.sse").read_bytes(), logprobs=False))
    assert events == [TextEvent("Hi"), TextEvent(" there.")]
    whole = json.loads((FIXTURES / "logprobs.json").read_bytes())
    whole["output"][0]["content"][0]["logprobs"] = "not a list"  # not read: no error
    assert answer_events(ResponsesProvider(api_key="k").decode_response(whole)) == [
        TextEvent("Hi there.")
    ]


def delta(text: str, tokens: Any, number: int) -> str:
    event = {
        "type": "response.output_text.delta",
        "sequence_number": number,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": text,
        "logprobs": tokens,
        "obfuscation": "ab"[: number % 3],
    }
    return json.dumps(event, separators=(",", ":"))


def test_tokens_after_many_deltas_without_any_are_read_off_the_fast_path() -> None:
    """Dozens of identical deltas would teach the envelope their shape; deltas whose tokens
    repeat byte for byte must still give their tokens each time."""
    same = [{"token": "a", "logprob": -0.5, "top_logprobs": []}]
    texts = [delta("a", [], n) for n in range(40)] + [delta("a", same, 40 + n) for n in range(40)]
    for logprobs in (True, False):
        decoder, events = ResponsesStreamDecoder(NAME, logprobs=logprobs), []
        decoder.feed_events([(None, text) for text in texts], events)
        assert [e for e in events if isinstance(e, TextEvent)] == [TextEvent("a")] * 80
        tokens = [e for e in events if isinstance(e, LogprobsEvent)]
        assert tokens == ([LogprobsEvent([TokenLogprob("a", -0.5)])] * 40 if logprobs else [])


def test_a_null_logprob_is_minus_infinity_and_an_integer_one_a_float() -> None:
    decoder = ResponsesStreamDecoder(NAME, logprobs=True)
    tokens = [{"token": "x", "logprob": None, "bytes": None}, {"token": "y", "logprob": 0}]
    assert decoder.feed(None, delta("xy", tokens, 0)) == [
        TextEvent("xy"),
        LogprobsEvent([TokenLogprob("x", -math.inf), TokenLogprob("y", 0.0)]),
    ]


HOSTILE: list[Any] = [
    "not a list",
    {"token": "a", "logprob": -1},
    [1],
    [None],
    [{"logprob": -1}],
    [{"token": "a"}],
    [{"token": 1, "logprob": -1}],
    [{"token": "a", "logprob": "-1"}],
    [{"token": "a", "logprob": True}],
    [{"token": "a", "logprob": 0.5}],
    [{"token": "a", "logprob": -1, "bytes": "a"}],
    [{"token": "a", "logprob": -1, "bytes": [256]}],
    [{"token": "a", "logprob": -1, "bytes": [True]}],
    [{"token": "a", "logprob": -1, "top_logprobs": {"token": "b"}}],
    [{"token": "a", "logprob": -1, "top_logprobs": [{"token": "b"}]}],
    [{"token": "a", "logprob": -1, "top_logprobs": [["b", -1]]}],
]


@pytest.mark.parametrize("logprobs", HOSTILE)
def test_malformed_tokens_in_a_delta_are_a_stream_error(logprobs: Any) -> None:
    decoder = ResponsesStreamDecoder(NAME, logprobs=True)
    with pytest.raises(errors.StreamError, match="undecodable stream event"):
        decoder.feed(None, delta("a", logprobs, 0))
    with pytest.raises(errors.StreamError, match="undecodable stream event"):
        decoder.feed_events([(None, delta("a", logprobs, 1))], [])


@pytest.mark.parametrize("logprobs", HOSTILE)
def test_malformed_tokens_in_a_whole_body_are_a_stream_error(logprobs: Any) -> None:
    whole = json.loads((FIXTURES / "logprobs.json").read_bytes())
    whole["output"][0]["content"][0]["logprobs"] = logprobs
    request = ProviderRequest("gpt-4.1", [user("Hi")], [], LangOptions(logprobs=True), False)
    with pytest.raises(errors.StreamError, match="unexpected response body"):
        ResponsesProvider(api_key="k").decode_response(whole, request)


def test_a_nan_logprob_is_a_stream_error() -> None:
    text = delta("a", [{"token": "a", "logprob": 0}], 0).replace('"logprob":0', '"logprob":NaN')
    with pytest.raises(errors.StreamError):
        ResponsesStreamDecoder(NAME, logprobs=True).feed(None, text)


def test_a_huge_list_of_tokens_is_read_whole() -> None:
    tokens = [{"token": "a", "logprob": -1.0, "top_logprobs": [{"token": "b", "logprob": -2}]}]
    events = ResponsesStreamDecoder(NAME, logprobs=True).feed(None, delta("a", tokens * 50_000, 0))
    assert len(events) == 2
    assert isinstance(events[1], LogprobsEvent)
    assert len(events[1].tokens) == 50_000
    assert events[1].tokens[-1] == TokenLogprob("a", -1.0, None, (TokenLogprob("b", -2.0),))


def test_an_empty_or_null_list_gives_no_event_and_reasoning_or_refusals_none() -> None:
    decoder = ResponsesStreamDecoder(NAME, logprobs=True)
    assert decoder.feed(None, delta("a", [], 0)) == [TextEvent("a")]
    assert decoder.feed(None, delta("b", None, 1)) == [TextEvent("b")]
    refusal = {"type": "response.refusal.delta", "delta": "no", "logprobs": [1]}
    assert decoder.feed(None, json.dumps(refusal)) == [TextEvent("no")]
