"""Gemini parts the SDK does not interpret: kept whole, replayed to Gemini, never fatal."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from aiwrapper import Image
from aiwrapper._conversation._assembler import Assembler
from aiwrapper._conversation._events import (
    Event,
    FinishEvent,
    MediaEvent,
    ModelEvent,
    OpaquePartEvent,
    PartStateEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from aiwrapper._conversation._messages import LangMessage, OpaquePart, ProviderState
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import LangOptions
from aiwrapper._wire._framing import SSEDecoder
from aiwrapper.providers.anthropic import AnthropicProvider
from aiwrapper.providers.gemini import GeminiProvider
from aiwrapper.providers.ollama import OllamaProvider
from aiwrapper.providers.openai import OpenAIProvider

FIXTURES = Path(__file__).parent.parent / "fixtures" / "gemini"
PROVIDER = GeminiProvider(api_key="k")
WHOLE = json.loads((FIXTURES / "code_execution.json").read_bytes())
CODE, RESULT, IMAGE, _ = WHOLE["candidates"][0]["content"]["parts"]
USAGE = WHOLE["usageMetadata"]


def stream(data: bytes) -> list[Event]:
    framing, decoder = SSEDecoder(), PROVIDER.decode_stream()
    events: list[Event] = []
    for name, text in [*framing.feed(data), *framing.flush()]:
        events += decoder.feed(name, text)
    return events + decoder.close()


def assemble(events: list[Event]) -> LangMessage:
    assembler = Assembler(provider="gemini")
    assembler.add_all(events)
    return assembler.finish()


def encoded(provider: Any, turn: LangMessage, *after: LangMessage) -> Any:
    """What ``provider`` sends for ``turn`` as the second message of a conversation."""
    messages = [LangMessage.text("user", "2+2?"), turn, *after]
    request = ProviderRequest("m", messages, [], LangOptions(cache=False), True)
    body = provider.encode(request).body
    return body["contents"][1] if "contents" in body else body["messages"][1]


def gemini(**data: Any) -> ProviderState:
    return ProviderState("gemini", data)


def test_code_execution_parts_stream_as_opaque_parts_and_its_chart_as_an_image() -> None:
    chart = Image.from_bytes(base64.b64decode(IMAGE["inlineData"]["data"]))
    assert stream((FIXTURES / "code_execution.sse").read_bytes()) == [
        ModelEvent("gemini-2.5-flash"),
        OpaquePartEvent(gemini(part=CODE)),
        OpaquePartEvent(gemini(part=RESULT)),
        MediaEvent(chart),
        TextDelta("The answer is "),
        TextDelta("**4**."),
        UsageEvent(input_tokens=31 + 96, output_tokens=48 + 39, reasoning_tokens=39, raw=USAGE),
        FinishEvent("stop", raw="STOP"),
    ]


def test_the_turn_streamed_or_whole_is_replayed_to_gemini_part_for_part() -> None:
    streamed = assemble(stream((FIXTURES / "code_execution.sse").read_bytes()))
    whole = assemble(PROVIDER.decode_response(WHOLE))
    assert streamed.parts == whole.parts
    assert streamed.content == "The answer is **4**."
    assert encoded(PROVIDER, streamed) == WHOLE["candidates"][0]["content"]


def test_the_turn_sent_elsewhere_keeps_only_its_text() -> None:
    turn = assemble(PROVIDER.decode_response(WHOLE))
    answer = "The answer is **4**."
    assert encoded(OpenAIProvider(api_key="k"), turn) == {"role": "assistant", "content": answer}
    assert encoded(OllamaProvider(), turn) == {"role": "assistant", "content": answer}
    assert encoded(AnthropicProvider(api_key="k"), turn) == {
        "role": "assistant",
        "content": [{"type": "text", "text": answer}],
    }


def chunk(*parts: Any, finish: str | None = None) -> bytes:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if finish:
        candidate["finishReason"] = finish
    return f"data: {json.dumps({'candidates': [candidate]})}\r\n\r\n".encode()


def test_fields_of_text_parts_the_sdk_does_not_know_stay_with_the_text() -> None:
    meta = {"partMetadata": {"source": "x"}}
    events = stream(
        chunk({"text": "Why: ", "thought": True, **meta})
        + chunk({"text": "Four", **meta, "thoughtSignature": "c2ln"}, finish="STOP")
    )
    assert events == [
        ThinkingDelta("Why: ", new_part=True),
        PartStateEvent(gemini(extra=meta)),
        TextDelta("Four", new_part=True),
        PartStateEvent(gemini(thoughtSignature="c2ln", extra=meta)),
        FinishEvent("stop", raw="STOP"),
    ]
    turn = assemble(events)
    assert (turn.thinking, turn.content) == ("Why: ", "Four")
    assert encoded(PROVIDER, turn)["parts"] == [
        {"text": "Why: ", "thought": True, **meta},
        {"text": "Four", **meta, "thoughtSignature": "c2ln"},
    ]


def test_a_part_that_is_not_an_object_is_reported_and_the_turn_survives() -> None:
    call = {
        "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
        "thoughtSignature": "c2ln",
    }
    events = stream(chunk({"text": "Checking."}, "oops", call, {"futurePart": 1}, finish="STOP"))
    problem = "Gemini sent a part that is not an object: 'oops'"
    assert events == [
        TextDelta("Checking."),
        OpaquePartEvent(gemini(part="oops"), problem=problem),
        ToolCallStart(0, None, "get_weather"),
        PartStateEvent(gemini(thoughtSignature="c2ln"), index=0),
        ToolCallEnd(0, {"city": "Oslo"}),
        OpaquePartEvent(gemini(part={"futurePart": 1})),
        FinishEvent("tool_calls", raw="STOP"),
    ]
    turn = assemble(events)
    assert [p.problem for p in turn.parts if isinstance(p, OpaquePart)] == [problem, None]
    # The unreadable part is not sent back; the part of an unknown kind is, in its place.
    result = LangMessage.tool_result(turn.tool_calls[0], "4C")
    sent = encoded(PROVIDER, turn, result)["parts"]
    assert sent == [{"text": "Checking."}, call, {"futurePart": 1}]
