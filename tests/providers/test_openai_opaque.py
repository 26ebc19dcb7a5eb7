"""OpenAI-compatible extras the SDK does not interpret: annotations and reasoning_details."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aiwrapper._conversation._assembler import Assembler
from aiwrapper._conversation._events import (
    Event,
    FinishEvent,
    ModelEvent,
    OpaquePartEvent,
    TextDelta,
    UsageEvent,
)
from aiwrapper._conversation._messages import LangMessage, OpaquePart, ProviderState
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import LangOptions
from aiwrapper._wire._framing import SSEDecoder
from aiwrapper.providers.anthropic import AnthropicProvider
from aiwrapper.providers.openai import PRESETS, OpenAIProvider

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai"
OPENAI = OpenAIProvider(api_key="sk-test")
WHOLE = json.loads((FIXTURES / "search_annotations.json").read_bytes())
ANSWER = WHOLE["choices"][0]["message"]["content"]
ANNOTATIONS = WHOLE["choices"][0]["message"]["annotations"]


def openrouter() -> OpenAIProvider:
    base_url, _, profile = PRESETS["openrouter"]
    return OpenAIProvider(api_key="k", base_url=base_url, profile=profile)


def stream(data: bytes, provider: OpenAIProvider = OPENAI) -> list[Event]:
    framing, decoder = SSEDecoder(), provider.decode_stream()
    events: list[Event] = []
    for name, text in [*framing.feed(data), *framing.flush()]:
        events += decoder.feed(name, text)
    return events + decoder.close()


def assemble(events: list[Event], provider: str = "openai") -> LangMessage:
    assembler = Assembler(provider=provider)
    assembler.add_all(events)
    return assembler.finish()


def replayed(provider: Any, turn: LangMessage) -> Any:
    """The assistant message ``provider`` sends for ``turn`` when the conversation goes on."""
    messages = [LangMessage.text("user", "Oslo?"), turn, LangMessage.text("user", "Thanks")]
    body = provider.encode(ProviderRequest("m", messages, [], LangOptions(), True)).body
    return body["messages"][1]


def test_search_annotations_alone_in_the_last_delta_are_kept_on_the_turn() -> None:
    events = stream((FIXTURES / "search_annotations.sse").read_bytes())
    assert events == [
        ModelEvent("gpt-4o-search-preview-2025-03-11"),
        TextDelta("It is 4 °C and cloudy in Oslo "),
        TextDelta(ANSWER.removeprefix("It is 4 °C and cloudy in Oslo ")),
        OpaquePartEvent(ProviderState("openai", {"annotations": ANNOTATIONS})),
        UsageEvent(
            input_tokens=9,
            output_tokens=41,
            cached_input_tokens=0,
            reasoning_tokens=0,
            raw=WHOLE["usage"],
        ),
        FinishEvent("stop", "stop"),
    ]
    assert assemble(events).parts == assemble(OPENAI.decode_response(WHOLE)).parts


def test_annotations_are_not_sent_back_to_any_provider() -> None:
    turn = assemble(OPENAI.decode_response(WHOLE))
    assert replayed(OPENAI, turn) == {"role": "assistant", "content": ANSWER}
    assert replayed(AnthropicProvider(api_key="k"), turn) == {
        "role": "assistant",
        "content": [{"type": "text", "text": ANSWER}],
    }


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    payload = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(payload)}\n\n".encode()


def test_an_annotation_repeated_on_later_deltas_is_kept_once() -> None:
    citation = {"type": "url_citation", "url_citation": {"url": "https://a.example"}}
    other = {"type": "url_citation", "url_citation": {"url": "https://b.example"}}
    events = stream(
        chunk({"content": "A", "annotations": [citation]})
        + chunk({"content": "B", "annotations": [citation, other]}, "stop")
        + b"data: [DONE]\n\n",
        openrouter(),
    )
    (part,) = [p for p in assemble(events).parts if isinstance(p, OpaquePart)]
    assert part.state == ProviderState("openrouter", {"annotations": [citation, other]})


@pytest.mark.parametrize(
    ("details", "kept"),
    [
        (
            {"type": "reasoning.encrypted", "data": "ZW5j"},
            [{"type": "reasoning.encrypted", "data": "ZW5j"}],
        ),
        (
            ["opaque", {"type": "reasoning.text", "text": "t", "index": 0}],
            ["opaque", {"type": "reasoning.text", "text": "t", "index": 0}],
        ),
    ],
)
def test_reasoning_details_of_an_unexpected_shape_are_kept_and_replayed(
    details: Any, kept: list[Any]
) -> None:
    events = stream(
        chunk({"content": "Hi", "reasoning_details": details}, "stop") + b"data: [DONE]\n\n",
        openrouter(),
    )
    turn = assemble(events, "openrouter")
    assert turn.content == "Hi"
    assert replayed(openrouter(), turn) == {
        "role": "assistant",
        "content": "Hi",
        "reasoning_details": kept,
    }
    assert replayed(OPENAI, turn) == {"role": "assistant", "content": "Hi"}
