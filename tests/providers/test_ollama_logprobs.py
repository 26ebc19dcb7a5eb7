"""Token log probabilities on Ollama's native ``/api/chat`` wire.

``logprobs=True`` sends the body's top-level ``logprobs: true`` (``top_logprobs: N`` beside
it); each NDJSON line's ``logprobs`` becomes a ``LogprobsEvent`` right after that line's answer
text. ``logprobs.ndjson`` streams a line of thinking (its tokens dropped) and two of answer;
``logprobs.json`` is the same answer as a whole ``stream: false`` body.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection
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
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper._wire._framing import NDJSONDecoder
from aiwrapper.providers.ollama import OllamaProvider

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent.parent / "fixtures" / "ollama"
HI = TokenLogprob(
    "Hi",
    -0.25,
    (72, 105),
    (TokenLogprob("Hi", -0.25, (72, 105)), TokenLogprob("Hello", -1.5, (72, 101, 108, 108, 111))),
)
SUN = TokenLogprob(
    " ☀",
    -0.5,
    (32, 226, 152, 128),
    (TokenLogprob(" ☀", -0.5, (32, 226, 152, 128)), TokenLogprob("!", -1.0, (33,))),
)


class FakeTool:
    name = "lookup"


def request(tool_names: Collection[str] = (), **options: Any) -> ProviderRequest:
    tools: Any = [FakeTool()] if tool_names else []
    return ProviderRequest("qwen3", [], tools, merge_options(options), stream=True)


def lines_of(raw: bytes) -> list[str]:
    framing = NDJSONDecoder()
    return [*framing.feed(raw), *framing.flush()]


def decode_one_by_one(raw: bytes, tools: Collection[str] = (), **options: Any) -> list[Event]:
    decoder = OllamaProvider().decode_stream(request(tools, **options))
    events: list[Event] = []
    for line in lines_of(raw):
        events += decoder.feed(None, line)
    return [e for e in events + decoder.close() if not isinstance(e, (ModelEvent, UsageEvent))]


def decode_batched(raw: bytes, tools: Collection[str] = (), **options: Any) -> list[Event]:
    """Through ``feed_lines``, the path the transport takes."""
    decoder = OllamaProvider().decode_stream(request(tools, **options))
    events: list[Event] = []
    decoder.feed_lines(lines_of(raw), events)
    return [e for e in events + decoder.close() if not isinstance(e, (ModelEvent, UsageEvent))]


def line(content: str, logprobs: Any, *, thinking: str | None = None) -> dict[str, Any]:
    message = {"role": "assistant", "content": content}
    if thinking is not None:
        message["thinking"] = thinking
    return {"model": "qwen3", "message": message, "done": False, "logprobs": logprobs}


def ndjson(*lines: dict[str, Any]) -> bytes:
    done = {"model": "qwen3", "message": {"role": "assistant", "content": ""}, "done": True}
    return b"".join(json.dumps(x).encode() + b"\n" for x in (*lines, done))


def entry(token: str, logprob: Any = -1.0) -> dict[str, Any]:
    return {"token": token, "logprob": logprob}


# --- request body ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "keys"),
    [
        ({"logprobs": True}, {"logprobs": True}),
        ({"logprobs": True, "top_logprobs": 0}, {"logprobs": True, "top_logprobs": 0}),
        ({"logprobs": True, "top_logprobs": 20}, {"logprobs": True, "top_logprobs": 20}),
        ({"logprobs": False}, {}),
    ],
)
def test_the_keys_are_top_level_not_runner_options(
    options: dict[str, Any], keys: dict[str, Any]
) -> None:
    body = OllamaProvider().encode(request(**options, seed=7)).body
    assert {k: v for k, v in body.items() if "logprobs" in k} == keys
    assert body["options"] == {"seed": 7}


async def test_the_request_body_matches_its_fixture_byte_for_byte() -> None:
    sent: list[bytes] = []
    client = mock_ollama(FIXTURES / "logprobs.ndjson", sent)
    async with Lang.ollama("qwen3", base_url="http://localhost:11434", http_client=client) as lang:
        await lang.ask("Hi?", logprobs=True, top_logprobs=2, temperature=0)
    assert sent == [(FIXTURES / "logprobs_request.json").read_bytes().rstrip(b"\n")]


# --- decoding -------------------------------------------------------------------------------


@pytest.mark.parametrize("decode", [decode_one_by_one, decode_batched])
def test_each_line_gives_its_answer_tokens_after_its_text_and_thinking_ones_are_dropped(
    decode: Any,
) -> None:
    events = decode((FIXTURES / "logprobs.ndjson").read_bytes(), logprobs=True, top_logprobs=2)
    assert events == [
        ThinkingDelta("Greet"),
        TextDelta("Hi"),
        LogprobsEvent([HI]),
        TextDelta(" ☀"),
        LogprobsEvent([SUN]),
        FinishEvent("stop", "stop"),
    ]


@pytest.mark.parametrize("decode", [decode_one_by_one, decode_batched])
def test_alternatives_are_cut_to_those_asked_for(decode: Any) -> None:
    raw = (FIXTURES / "logprobs.ndjson").read_bytes()
    one = [e for e in decode(raw, logprobs=True, top_logprobs=1) if isinstance(e, LogprobsEvent)]
    assert one[0].tokens == [TokenLogprob("Hi", -0.25, (72, 105), HI.top_logprobs[:1])]
    none = [e for e in decode(raw, logprobs=True) if isinstance(e, LogprobsEvent)]
    assert [t for e in none for t in e.tokens] == [
        TokenLogprob("Hi", -0.25, (72, 105)),
        TokenLogprob(" ☀", -0.5, (32, 226, 152, 128)),
    ]


@pytest.mark.parametrize("decode", [decode_one_by_one, decode_batched])
def test_nothing_is_emitted_when_the_request_did_not_ask(decode: Any) -> None:
    events = decode((FIXTURES / "logprobs.ndjson").read_bytes())
    assert events == [
        ThinkingDelta("Greet"),
        TextDelta("Hi"),
        TextDelta(" ☀"),
        FinishEvent("stop", "stop"),
    ]


def test_a_whole_body_gives_the_same_answer_tokens() -> None:
    body = json.loads((FIXTURES / "logprobs.json").read_bytes())
    events = OllamaProvider().decode_response(body, request(logprobs=True, top_logprobs=2))
    assert [e for e in events if not isinstance(e, (ModelEvent, UsageEvent))] == [
        ThinkingDelta("Greet"),
        TextDelta("Hi ☀"),
        LogprobsEvent([HI, SUN]),
        FinishEvent("stop", "stop"),
    ]


def test_tokens_inside_think_tags_are_dropped() -> None:
    raw = ndjson(
        line("<think>", [entry("<think>")]),
        line("hmm", [entry("hmm")]),
        line("</think>", [entry("</think>")]),
        line("Yes", [entry("Yes", -0.5)]),
    )
    assert decode_batched(raw, logprobs=True) == [
        ThinkingDelta("hmm"),
        TextDelta("Yes"),
        LogprobsEvent([TokenLogprob("Yes", -0.5)]),
        FinishEvent("stop", None),
    ]


def test_tokens_of_text_held_back_go_out_with_it() -> None:
    # With tools declared, text starting with "{" may be a call: held until the end.
    raw = ndjson(line('{"a"', [entry("{", -0.5), entry('"a"')]), line(": 1}", [entry(": 1}")]))
    assert decode_batched(raw, ["lookup"], logprobs=True) == [
        TextDelta('{"a": 1}'),
        LogprobsEvent(
            [TokenLogprob("{", -0.5), TokenLogprob('"a"', -1.0), TokenLogprob(": 1}", -1.0)]
        ),
        FinishEvent("stop", None),
    ]


def test_tokens_of_a_call_written_as_text_are_dropped_with_the_text() -> None:
    call = '{"name": "lookup", "arguments": {"city": "Oslo"}}'
    raw = ndjson(line(call, [entry(call)]))
    assert decode_batched(raw, ["lookup"], logprobs=True) == [
        ToolCallStart(0, None, "lookup"),
        ToolCallEnd(0, {"city": "Oslo"}),
        FinishEvent("tool_calls", None),
    ]


def test_a_null_logprob_is_minus_infinity_and_missing_bytes_none() -> None:
    raw = ndjson(line("Hi", [{"token": "Hi", "logprob": None}]))
    events = decode_one_by_one(raw, logprobs=True)
    assert events[1] == LogprobsEvent([TokenLogprob("Hi", -math.inf)])


def test_an_empty_list_emits_nothing() -> None:
    assert decode_batched(ndjson(line("Hi", [])), logprobs=True) == [
        TextDelta("Hi"),
        FinishEvent("stop", None),
    ]


def test_huge_lists_decode_and_unasked_alternatives_are_not_read() -> None:
    alternatives = [entry("a", -0.5)] * 100_000 + ["not read"]
    tokens = [{**entry("a"), "top_logprobs": alternatives}, *[entry("a")] * 20_000]
    events = decode_batched(ndjson(line("a", tokens)), logprobs=True, top_logprobs=2)
    decoded = events[1].tokens  # type: ignore[attr-defined]
    assert len(decoded) == 20_001
    assert decoded[0] == TokenLogprob("a", -1.0, None, (TokenLogprob("a", -0.5),) * 2)
    assert decoded[1] == TokenLogprob("a", -1.0)


@pytest.mark.parametrize(
    ("logprobs", "message"),
    [
        ({"token": "Hi"}, "logprobs that are not a list"),
        ("Hi", "logprobs that are not a list"),
        (["Hi"], "entry that is not an object"),
        ([{"token": "Hi"}], "log probability that is not one"),
        ([{"token": 7, "logprob": -1.0}], "entry that cannot be read"),
        ([{"token": "Hi", "logprob": "-1"}], "entry that cannot be read"),
        ([{"token": "Hi", "logprob": True}], "entry that cannot be read"),
        ([{"token": "Hi", "logprob": float("nan")}], "is not one"),
        ([{"token": "Hi", "logprob": float("inf")}], "is not one"),
        ([{**entry("Hi"), "bytes": "Hi"}], "bytes that are not bytes"),
        ([{**entry("Hi"), "bytes": [256]}], "bytes that are not bytes"),
        ([{**entry("Hi"), "bytes": [True]}], "bytes that are not bytes"),
        ([{**entry("Hi"), "top_logprobs": {"a": 1}}], "top_logprobs that are not a list"),
        ([{**entry("Hi"), "top_logprobs": [None]}], "entry that is not an object"),
        ([{**entry("Hi"), "top_logprobs": [{"token": "a"}]}], "is not one"),
    ],
)
@pytest.mark.parametrize("decode", [decode_one_by_one, decode_batched])
def test_hostile_logprobs_are_stream_errors(logprobs: Any, message: str, decode: Any) -> None:
    with pytest.raises(errors.StreamError, match=message):
        decode(ndjson(line("Hi", logprobs)), logprobs=True, top_logprobs=2)


# --- end to end -----------------------------------------------------------------------------


def mock_ollama(reply: Path, sent: list[bytes]) -> httpx.AsyncClient:
    def handler(req: httpx.Request) -> httpx.Response:
        sent.append(req.content)
        headers = {"Content-Type": "application/x-ndjson"}
        return httpx.Response(200, content=reply.read_bytes(), headers=headers)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_a_streamed_run_has_the_tokens_on_its_result_and_as_events() -> None:
    sent: list[bytes] = []
    seen: list[tuple[str, Any]] = []

    def on_event(event: Any) -> None:
        if isinstance(event, LogprobsDelta):
            seen.append(("logprobs", event.tokens))
        elif type(event).__name__ == "TextDelta":
            seen.append(("text", event.text))

    client = mock_ollama(FIXTURES / "logprobs.ndjson", sent)
    async with Lang.ollama("qwen3", base_url="http://localhost:11434", http_client=client) as lang:
        result = await lang.ask("Hi?", logprobs=True, top_logprobs=2, on_event=on_event)
    assert (result.answer, result.logprobs) == ("Hi ☀", [HI, SUN])
    assert seen == [("text", "Hi"), ("logprobs", [HI]), ("text", " ☀"), ("logprobs", [SUN])]


async def test_a_whole_answer_has_the_tokens_on_its_result() -> None:
    sent: list[bytes] = []
    client = mock_ollama(FIXTURES / "logprobs.json", sent)
    async with Lang.ollama("qwen3", base_url="http://localhost:11434", http_client=client) as lang:
        result = await lang.ask("Hi?", logprobs=True, top_logprobs=2, stream=False)
    assert (result.answer, result.logprobs) == ("Hi ☀", [HI, SUN])
    assert json.loads(sent[0])["stream"] is False
