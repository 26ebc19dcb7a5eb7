"""Ollama message fields the SDK does not read: kept over the turn, sent back to Ollama only."""

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
from aiwrapper._conversation._messages import LangMessage, ProviderState
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import LangOptions
from aiwrapper._wire._framing import NDJSONDecoder
from aiwrapper.providers.ollama import OllamaProvider
from aiwrapper.providers.openai import OpenAIProvider

FIXTURES = Path(__file__).parent.parent / "fixtures" / "ollama"
PROVIDER = OllamaProvider()
WHOLE = json.loads((FIXTURES / "unknown_fields.json").read_bytes())
KEPT = {"images": ["aVZCT1J3MEtHZ28=", "U0VDT05E"], "x_render": {"width": 64, "height": 64}}


def stream(data: bytes, *, size: int | None = None) -> list[Event]:
    decoder, framing = PROVIDER.decode_stream(), NDJSONDecoder()
    pieces = [data[i : i + size] for i in range(0, len(data), size)] if size else [data]
    events: list[Event] = []
    for piece in pieces:
        for line in framing.feed(piece):
            events += decoder.feed(None, line)
    for line in framing.flush():
        events += decoder.feed(None, line)
    return events + decoder.close()


def assemble(events: list[Event]) -> LangMessage:
    assembler = Assembler(provider="ollama")
    assembler.add_all(events)
    return assembler.finish()


def replayed(provider: Any, turn: LangMessage) -> Any:
    messages = [LangMessage.text("user", "A cat?"), turn, LangMessage.text("user", "Thanks")]
    body = provider.encode(ProviderRequest("m", messages, [], LangOptions(), True)).body
    return body["messages"][1]


@pytest.mark.parametrize("size", [None, 1, 50])
def test_unread_message_fields_are_gathered_over_the_lines(size: int | None) -> None:
    metrics = {k: v for k, v in WHOLE.items() if k.endswith(("_count", "_duration"))}
    assert stream((FIXTURES / "unknown_fields.ndjson").read_bytes(), size=size) == [
        TextDelta("Here is "),
        TextDelta("a cat."),
        OpaquePartEvent(ProviderState("ollama", {"message": KEPT})),
        UsageEvent(input_tokens=21, output_tokens=7, raw=metrics),
        ModelEvent("gemma3-img"),
        FinishEvent("stop", "stop"),
    ]


def test_the_turn_streamed_or_whole_goes_back_to_ollama_with_its_fields() -> None:
    streamed = assemble(stream((FIXTURES / "unknown_fields.ndjson").read_bytes()))
    whole = assemble(PROVIDER.decode_response(WHOLE))
    assert streamed.parts == whole.parts
    assert replayed(PROVIDER, streamed) == {
        "role": "assistant",
        "content": "Here is a cat.",
        **KEPT,
    }
    assert replayed(OpenAIProvider(api_key="k"), streamed) == {
        "role": "assistant",
        "content": "Here is a cat.",
    }


def test_kept_fields_never_replace_what_the_sdk_writes() -> None:
    turn = assemble(PROVIDER.decode_response(WHOLE))
    turn.parts[-1].state = ProviderState("ollama", {"message": {"role": "user", "content": "x"}})
    assert replayed(PROVIDER, turn) == {"role": "assistant", "content": "Here is a cat."}
