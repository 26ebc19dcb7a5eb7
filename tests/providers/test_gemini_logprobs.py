"""Token log probabilities on the Gemini wire (the Gemini API and Vertex AI).

``logprobs=True`` sends ``generationConfig.responseLogprobs`` and ``top_logprobs`` its
``logprobs`` count; each chunk's ``candidates[0].logprobsResult`` becomes a ``LogprobsEvent``
right after that chunk's answer text. ``logprobs.sse`` is a streamed answer in three chunks
(a certain token written without its ``logProbability``, as protobuf JSON leaves out zeros);
``logprobs.json`` a whole ``generateContent`` body with a thought part before the answer.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import Lang, LogprobsDelta, TokenLogprob
from aiwrapper import _errors as errors
from aiwrapper._conversation._events import (
    Event,
    FinishEvent,
    LogprobsEvent,
    ModelEvent,
    TextDelta,
    ThinkingDelta,
    UsageEvent,
)
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper._wire._framing import SSEDecoder
from aiwrapper.providers.gemini import GeminiProvider, VertexConfig

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent.parent / "fixtures" / "gemini"
HI = TokenLogprob("Hi", 0.0, None, (TokenLogprob("Hi", 0.0), TokenLogprob("Hello", -2.25)))
THERE = TokenLogprob(
    " there", -0.125, None, (TokenLogprob(" there", -0.125), TokenLogprob("!", -2.5))
)
BANG = TokenLogprob("!", -0.0625, None, (TokenLogprob("!", -0.0625),))


def request(**options: Any) -> ProviderRequest:
    return ProviderRequest("gemini-2.0-flash", [], [], merge_options(options), stream=True)


def sse_events(raw: bytes) -> list[tuple[str | None, str]]:
    framer = SSEDecoder()
    return [*framer.feed(raw), *framer.flush()]


def decode_one_by_one(raw: bytes, **options: Any) -> list[Event]:
    decoder = GeminiProvider(api_key="k").decode_stream(request(**options))
    events: list[Event] = []
    for name, data in sse_events(raw):
        events += decoder.feed(name, data)
    return [e for e in events + decoder.close() if not isinstance(e, ModelEvent)]


def decode_batched(raw: bytes, **options: Any) -> list[Event]:
    """Through ``feed_events``, the path the transport takes."""
    decoder = GeminiProvider(api_key="k").decode_stream(request(**options))
    events: list[Event] = []
    decoder.feed_events(sse_events(raw), events)
    return [e for e in events + decoder.close() if not isinstance(e, ModelEvent)]


def chunk(candidate_extra: dict[str, Any], parts: list[Any] | None = None) -> bytes:
    candidate = {"content": {"parts": parts or [{"text": "Hi"}], "role": "model"}}
    candidate.update(candidate_extra)
    body = {"candidates": [candidate]}
    last = {"candidates": [{"content": {"parts": [{"text": ""}]}, "finishReason": "STOP"}]}
    return b"".join(b"data: " + json.dumps(b).encode() + b"\r\n\r\n" for b in (body, last))


# --- request body ---------------------------------------------------------------------------


def body(**options: Any) -> dict[str, Any]:
    call = GeminiProvider(api_key="k").encode(request(**options))
    return call.body  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("options", "config"),
    [
        ({"logprobs": True}, {"responseLogprobs": True}),
        ({"logprobs": True, "top_logprobs": 3}, {"responseLogprobs": True, "logprobs": 3}),
        ({"logprobs": True, "top_logprobs": 20}, {"responseLogprobs": True, "logprobs": 20}),
        # Vertex takes 1 to 20: zero alternatives is asked by leaving the count out.
        ({"logprobs": True, "top_logprobs": 0}, {"responseLogprobs": True}),
        ({"logprobs": False}, None),
    ],
)
def test_generation_config_keys(options: dict[str, Any], config: dict[str, Any] | None) -> None:
    assert body(**options).get("generationConfig") == config


async def test_the_request_body_matches_its_fixture_byte_for_byte() -> None:
    sent: list[bytes] = []

    def handler(req: httpx.Request) -> httpx.Response:
        sent.append(req.content)
        content = (FIXTURES / "logprobs.sse").read_bytes()
        return httpx.Response(200, content=content, headers={"Content-Type": "text/event-stream"})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        lang = Lang.gemini("gemini-2.0-flash", api_key="k", http_client=client)
        await lang.ask("Hi?", logprobs=True, top_logprobs=2, temperature=0)
    assert sent == [(FIXTURES / "logprobs_request.json").read_bytes().rstrip(b"\n")]


async def test_vertex_gets_the_same_generation_config_keys() -> None:
    sent: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        sent.append(req)
        content = (FIXTURES / "logprobs.sse").read_bytes()
        return httpx.Response(200, content=content, headers={"Content-Type": "text/event-stream"})

    vertex = VertexConfig(project="proj", location="us-central1", access_token="ya29.t")
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        lang = Lang.gemini("gemini-2.0-flash", api_key=None, vertex=vertex, http_client=client)
        result = await lang.ask("Hi?", logprobs=True, top_logprobs=2, temperature=0)
    assert "aiplatform.googleapis.com" in str(sent[0].url)
    assert json.loads(sent[0].content)["generationConfig"] == {
        "temperature": 0,
        "responseLogprobs": True,
        "logprobs": 2,
    }
    assert result.logprobs == [HI, THERE, BANG]


# --- decoding -------------------------------------------------------------------------------

STREAMED = [
    TextDelta("Hi"),
    LogprobsEvent([HI]),
    TextDelta(" there!"),
    LogprobsEvent([THERE, BANG]),
    UsageEvent(6, 3, raw={"promptTokenCount": 6, "candidatesTokenCount": 3, "totalTokenCount": 9}),
    FinishEvent("stop", "STOP"),
]


@pytest.mark.parametrize("decode", [decode_one_by_one, decode_batched])
def test_each_streamed_chunk_gives_its_tokens_after_its_text(decode: Any) -> None:
    events = decode((FIXTURES / "logprobs.sse").read_bytes(), logprobs=True, top_logprobs=2)
    assert [e for e in events if not isinstance(e, UsageEvent) or e.output_tokens] == STREAMED


@pytest.mark.parametrize("decode", [decode_one_by_one, decode_batched])
def test_alternatives_are_cut_to_those_asked_for(decode: Any) -> None:
    raw = (FIXTURES / "logprobs.sse").read_bytes()
    one = [e for e in decode(raw, logprobs=True, top_logprobs=1) if isinstance(e, LogprobsEvent)]
    assert one[0].tokens == [TokenLogprob("Hi", 0.0, None, (TokenLogprob("Hi", 0.0),))]
    none = [e for e in decode(raw, logprobs=True) if isinstance(e, LogprobsEvent)]
    assert none == [
        LogprobsEvent([TokenLogprob("Hi", 0.0)]),
        LogprobsEvent([TokenLogprob(" there", -0.125), TokenLogprob("!", -0.0625)]),
    ]


@pytest.mark.parametrize("decode", [decode_one_by_one, decode_batched])
def test_nothing_is_emitted_when_the_request_did_not_ask(decode: Any) -> None:
    events = decode((FIXTURES / "logprobs.sse").read_bytes())
    assert not [e for e in events if isinstance(e, LogprobsEvent)]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hi there!"


def test_a_whole_body_gives_the_tokens_after_its_answer_text_not_its_thought() -> None:
    body = json.loads((FIXTURES / "logprobs.json").read_bytes())
    req = request(logprobs=True, top_logprobs=1)
    events = GeminiProvider(api_key="k").decode_response(body, req)
    assert [e for e in events if not isinstance(e, (ModelEvent, UsageEvent))] == [
        ThinkingDelta("Weighing a greeting."),
        TextDelta("Hi!"),
        LogprobsEvent(
            [
                TokenLogprob("Hi", -0.5, None, (TokenLogprob("Hi", -0.5),)),
                TokenLogprob("!", -0.25, None, (TokenLogprob("!", -0.25),)),
            ]
        ),
        FinishEvent("stop", "STOP"),
    ]


def test_the_tokens_of_a_chunk_that_is_all_thinking_are_dropped() -> None:
    result = {"chosenCandidates": [{"token": "Hmm", "logProbability": -1.0}]}
    thought = [{"text": "Hmm", "thought": True}]
    events = decode_one_by_one(chunk({"logprobsResult": result}, thought), logprobs=True)
    assert events == [ThinkingDelta("Hmm"), FinishEvent("stop", "STOP")]


def test_the_tokens_go_right_after_the_text_before_a_call_and_a_signature() -> None:
    result = {"chosenCandidates": [{"token": "Hi", "logProbability": -1.0}]}
    parts = [
        {"text": "Hi", "thoughtSignature": "c2ln"},
        {"functionCall": {"name": "lookup", "args": {}}},
    ]
    events = decode_one_by_one(chunk({"logprobsResult": result}, parts), logprobs=True)
    assert [type(e).__name__ for e in events] == [
        "TextDelta",
        "LogprobsEvent",
        "PartStateEvent",
        "ToolCallStart",
        "PartStateEvent",
        "ToolCallEnd",
        "FinishEvent",
    ]


def test_a_null_log_probability_is_minus_infinity() -> None:
    result = {"chosenCandidates": [{"token": "Hi", "logProbability": None}]}
    events = decode_batched(chunk({"logprobsResult": result}), logprobs=True)
    assert events[1] == LogprobsEvent([TokenLogprob("Hi", -math.inf)])


def test_an_empty_result_emits_nothing() -> None:
    events = decode_batched(chunk({"logprobsResult": {"chosenCandidates": []}}), logprobs=True)
    assert events == [TextDelta("Hi"), FinishEvent("stop", "STOP")]


def test_huge_lists_decode_and_unasked_alternatives_are_not_read() -> None:
    chosen = [{"token": "a", "logProbability": -0.5}] * 20_000
    alternatives = [{"candidates": [{"token": "a"}] * 100_000 + ["not read"]}] * 2
    result = {"chosenCandidates": chosen, "topCandidates": alternatives}
    events = decode_batched(chunk({"logprobsResult": result}), logprobs=True, top_logprobs=2)
    tokens = events[1].tokens  # type: ignore[attr-defined]
    assert len(tokens) == 20_000
    assert tokens[0] == TokenLogprob("a", -0.5, None, (TokenLogprob("a", 0.0),) * 2)
    assert tokens[2] == TokenLogprob("a", -0.5)  # no step of alternatives left for it


@pytest.mark.parametrize(
    ("result", "message"),
    [
        ([1], "logprobsResult that is not an object"),
        ("x", "logprobsResult that is not an object"),
        ({"chosenCandidates": {"token": "Hi"}}, "chosenCandidates that is not a list"),
        ({"chosenCandidates": ["Hi"]}, "candidate that is not an object"),
        ({"chosenCandidates": [{"token": 7}]}, "candidate that cannot be read"),
        ({"chosenCandidates": [{"token": "Hi", "logProbability": "-1"}]}, "cannot be read"),
        ({"chosenCandidates": [{"token": "Hi", "logProbability": True}]}, "cannot be read"),
        ({"chosenCandidates": [{"token": "Hi", "logProbability": [1]}]}, "cannot be read"),
        ({"chosenCandidates": [{"logProbability": float("nan")}]}, "is not one"),
        ({"chosenCandidates": [{"logProbability": float("inf")}]}, "is not one"),
        ({"chosenCandidates": [{}], "topCandidates": "x"}, "topCandidates that is not a list"),
        ({"chosenCandidates": [{}], "topCandidates": [3]}, "topCandidates entry that is not"),
        ({"chosenCandidates": [{}], "topCandidates": [{"candidates": 3}]}, "not a list"),
        ({"chosenCandidates": [{}], "topCandidates": [{"candidates": [None]}]}, "not an object"),
    ],
)
@pytest.mark.parametrize("decode", [decode_one_by_one, decode_batched])
def test_hostile_results_are_stream_errors(result: Any, message: str, decode: Any) -> None:
    with pytest.raises(errors.StreamError, match=message):
        decode(chunk({"logprobsResult": result}), logprobs=True, top_logprobs=2)


# --- end to end -----------------------------------------------------------------------------


def mock_gemini(content: bytes, sent: list[httpx.Request]) -> httpx.AsyncClient:
    def handler(req: httpx.Request) -> httpx.Response:
        sent.append(req)
        kind = "text/event-stream" if req.url.params.get("alt") == "sse" else "application/json"
        return httpx.Response(200, content=content, headers={"Content-Type": kind})

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_a_streamed_run_has_the_tokens_on_its_result_and_as_events() -> None:
    sent: list[httpx.Request] = []
    seen: list[tuple[str, Any]] = []

    def on_event(event: Any) -> None:
        if isinstance(event, LogprobsDelta):
            seen.append(("logprobs", event.tokens))
        elif hasattr(event, "text"):
            seen.append(("text", event.text))

    client = mock_gemini((FIXTURES / "logprobs.sse").read_bytes(), sent)
    async with Lang.gemini("gemini-2.0-flash", api_key="k", http_client=client) as lang:
        result = await lang.ask("Hi?", logprobs=True, top_logprobs=2, on_event=on_event)
    assert (result.answer, result.logprobs) == ("Hi there!", [HI, THERE, BANG])
    assert seen == [
        ("text", "Hi"),
        ("logprobs", [HI]),
        ("text", " there!"),
        ("logprobs", [THERE, BANG]),
    ]
    assert sent[0].url.path.endswith(":streamGenerateContent")


async def test_a_whole_answer_has_the_tokens_on_its_result() -> None:
    sent: list[httpx.Request] = []
    client = mock_gemini((FIXTURES / "logprobs.json").read_bytes(), sent)
    async with Lang.gemini("gemini-2.5-flash", api_key="k", http_client=client) as lang:
        result = await lang.ask("Hi?", logprobs=True, stream=False)
    assert result.answer == "Hi!"
    assert result.logprobs == [TokenLogprob("Hi", -0.5), TokenLogprob("!", -0.25)]
    assert sent[0].url.path.endswith(":generateContent")
    assert json.loads(sent[0].content)["generationConfig"] == {"responseLogprobs": True}
