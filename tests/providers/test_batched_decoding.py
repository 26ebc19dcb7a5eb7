"""A chunk's frames decoded together (``feed_events``, ``feed_lines``) give exactly what
``feed`` gives for each frame on its own: the same events, the same error, the same state after.

The batched loops read the common deltas inline and hand everything else to ``feed``; these
tests replay every recorded stream and a set of malformed frames through both paths.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aiwrapper._conversation._events import Event
from aiwrapper._wire._framing import NDJSONDecoder, SSEDecoder
from aiwrapper.providers.anthropic._decode import AnthropicStreamDecoder
from aiwrapper.providers.gemini._decode import GeminiStreamDecoder
from aiwrapper.providers.ollama._decode import OllamaDecoder
from aiwrapper.providers.openai._decode import OpenAIStreamDecoder
from aiwrapper.providers.openai_responses._decode import ResponsesStreamDecoder

FIXTURES = Path(__file__).parents[1] / "fixtures"

DECODERS: dict[str, Callable[[], Any]] = {
    "openai": lambda: OpenAIStreamDecoder("openai"),
    "openai_responses": lambda: ResponsesStreamDecoder("openai"),
    "anthropic": AnthropicStreamDecoder,
    "gemini": GeminiStreamDecoder,
    "ollama": lambda: OllamaDecoder(["get_weather", "add"]),
    "ollama without tools": OllamaDecoder,
}


def _one_by_one(decoder: Any, frames: list[Any]) -> tuple[list[Event], str | None]:
    events: list[Event] = []
    try:
        for frame in frames:
            name, data = frame if isinstance(frame, tuple) else (None, frame)
            events += decoder.feed(name, data)
    except Exception as exc:
        return events, f"{type(exc).__name__}: {exc}"
    return events, None


def _batched(decoder: Any, frames: list[Any], size: int) -> tuple[list[Event], str | None]:
    many = decoder.feed_lines if isinstance(decoder, OllamaDecoder) else decoder.feed_events
    events: list[Event] = []
    try:
        for start in range(0, len(frames), size):
            many(frames[start : start + size], events)
    except Exception as exc:
        return events, f"{type(exc).__name__}: {exc}"
    return events, None


def _frames(path: Path) -> list[Any]:
    body = path.read_bytes()
    if path.suffix == ".ndjson":
        lines = NDJSONDecoder()
        return lines.feed(body) + lines.flush()
    events = SSEDecoder()
    return events.feed(body) + events.flush()


def _recorded() -> list[tuple[str, Path]]:
    return [
        (wire, path)
        for wire in ("openai", "openai_responses", "anthropic", "ollama", "gemini")
        for path in sorted((FIXTURES / wire).iterdir())
        if path.suffix in (".sse", ".ndjson")
    ]


def _same_both_ways(wire: str, frames: list[Any]) -> tuple[list[Event], str | None]:
    alone = _one_by_one(DECODERS[wire](), frames)
    for size in (1, 2, 3, len(frames) or 1):
        assert _batched(DECODERS[wire](), frames, size) == alone, size
    return alone


@pytest.mark.parametrize(("wire", "path"), _recorded(), ids=lambda v: getattr(v, "name", v))
def test_every_recorded_stream_decodes_the_same_batched(wire: str, path: Path) -> None:
    events, error = _same_both_ways(wire, _frames(path))
    assert events or error  # every fixture holds something to decode (a blocked prompt: none)


_BLOCK_START = (
    "content_block_start",
    '{"type":"content_block_start","index":0,'
    '"content_block":{"type":"tool_use","id":"t1","name":"add","input":{}}}',
)
_TEXT_START = (
    "content_block_start",
    '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}',
)


def _delta(body: str, name: str = "content_block_delta") -> tuple[str, str]:
    return name, '{"type":"content_block_delta",' + body + "}"


ANTHROPIC_ODD = {
    "ping named delta": [
        _BLOCK_START,
        _delta('"index":0,"delta":{"type":"input_json_delta","partial_json":"{"}', "ping"),
    ],
    "index as text": [
        _BLOCK_START,
        _delta('"index":"0","delta":{"type":"input_json_delta","partial_json":"{"}'),
    ],
    "index as bool": [
        _BLOCK_START,
        _delta('"index":false,"delta":{"type":"input_json_delta","partial_json":"{"}'),
    ],
    "index a list": [
        _BLOCK_START,
        _delta('"index":[0],"delta":{"type":"input_json_delta","partial_json":"{"}'),
    ],
    "unknown index": [
        _BLOCK_START,
        _delta('"index":7,"delta":{"type":"input_json_delta","partial_json":"{"}'),
    ],
    "empty fragment": [
        _BLOCK_START,
        _delta('"index":0,"delta":{"type":"input_json_delta","partial_json":""}'),
    ],
    "fragment a number": [
        _BLOCK_START,
        _delta('"index":0,"delta":{"type":"input_json_delta","partial_json":5}'),
    ],
    "delta a list": [_BLOCK_START, _delta('"index":0,"delta":[1]')],
    "delta type a list": [
        _BLOCK_START,
        _delta('"index":0,"delta":{"type":["input_json_delta"],"partial_json":"{"}'),
    ],
    "text to a call": [_BLOCK_START, _delta('"index":0,"delta":{"type":"text_delta","text":"x"}')],
    "first text then more": [
        _TEXT_START,
        _delta('"index":1,"delta":{"type":"text_delta","text":"a"}'),
        _delta('"index":1,"delta":{"type":"text_delta","text":"b"}'),
        _delta('"index":1,"delta":{"type":"text_delta","text":7}'),
    ],
    "not json": [_BLOCK_START, ("content_block_delta", '{"type":')],
    "trailing data": [
        _BLOCK_START,
        _delta('"index":0,"delta":{"type":"text_delta","text":"x"}} 1'),
    ],
    "type from the name": [
        _BLOCK_START,
        (
            "content_block_delta",
            '{"index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}',
        ),
    ],
    "after the stop": [
        _BLOCK_START,
        ("message_stop", '{"type":"message_stop"}'),
        _delta('"index":0,"delta":{"type":"input_json_delta","partial_json":"{"}'),
    ],
}


@pytest.mark.parametrize("frames", ANTHROPIC_ODD.values(), ids=ANTHROPIC_ODD.keys())
def test_odd_anthropic_events_decode_the_same_batched(frames: list[Any]) -> None:
    _same_both_ways("anthropic", frames)


def _chunk(delta: str, tail: str = "") -> tuple[None, str]:
    return None, '{"model":"m","choices":[{"index":0,"delta":' + delta + tail + "}]}"


_CALL_START = _chunk(
    '{"tool_calls":[{"index":0,"id":"c1","function":{"name":"add","arguments":""}}]}'
)

OPENAI_ODD = {
    "first chunk is text": [_chunk('{"content":"a"}'), _chunk('{"content":"b"}')],
    "finish on a delta": [
        _chunk('{"content":"a"}'),
        _chunk('{"content":"b"}', ',"finish_reason":"stop"'),
    ],
    "usage on a delta": [
        _chunk('{"content":"a"}'),
        (None, '{"choices":[{"delta":{"content":"b"}}],"usage":{"prompt_tokens":1}}'),
    ],
    "error on a delta": [
        _chunk('{"content":"a"}'),
        (None, '{"error":{"message":"no"},"choices":[{"delta":{"content":"b"}}]}'),
    ],
    "content not text": [
        _chunk('{"content":"a"}'),
        _chunk('{"content":[{"type":"text","text":"b"}]}'),
    ],
    "arguments before a name": [
        _chunk('{"content":""}'),
        _chunk('{"tool_calls":[{"index":0,"function":{"arguments":"{"}}]}'),
    ],
    "index as text": [
        _CALL_START,
        _chunk('{"tool_calls":[{"index":"0","function":{"arguments":"{"}}]}'),
    ],
    "arguments an object": [
        _CALL_START,
        _chunk('{"tool_calls":[{"index":0,"function":{"arguments":{"a":1}}}]}'),
    ],
    "two calls in a chunk": [
        _CALL_START,
        _chunk(
            '{"tool_calls":[{"index":0,"function":{"arguments":"{"}},{"index":0,"function":{"arguments":"}"}}]}'
        ),
    ],
    "no index": [_CALL_START, _chunk('{"tool_calls":[{"function":{"arguments":"{"}}]}')],
    "done twice then more": [
        _CALL_START,
        (None, "[DONE]"),
        (None, "[DONE]"),
        _chunk('{"content":"x"}'),
    ],
    "not json": [_chunk('{"content":"a"}'), (None, '{"choices":')],
    "choices not a list": [
        _chunk('{"content":"a"}'),
        (None, '{"choices":{"0":{"delta":{"content":"b"}}}}'),
    ],
}


@pytest.mark.parametrize("frames", OPENAI_ODD.values(), ids=OPENAI_ODD.keys())
def test_odd_openai_chunks_decode_the_same_batched(frames: list[Any]) -> None:
    _same_both_ways("openai", frames)


def _line(message: str, tail: str = "") -> str:
    return '{"model":"m","message":' + message + ',"done":false' + tail + "}"


OLLAMA_ODD = {
    "think tag split": [
        _line('{"role":"assistant","content":"<thi"}'),
        _line('{"role":"assistant","content":"nk>x"}'),
    ],
    "thinking field": [
        _line('{"role":"assistant","content":"a"}'),
        _line('{"role":"assistant","content":"","thinking":"t"}'),
    ],
    "held json call": [
        _line('{"role":"assistant","content":"{\\"name\\""}'),
        _line('{"role":"assistant","content":":1}"}'),
    ],
    "error line": [_line('{"role":"assistant","content":"a"}'), '{"error":"boom"}'],
    "error null": [_line('{"role":"assistant","content":"a"}', ',"error":null')],
    "calls beside the text": [
        _line('{"content":"a","tool_calls":[{"function":{"name":"add","arguments":{}}}]}')
    ],
    "content a number": [_line('{"role":"assistant","content":5}')],
    "not json": [_line('{"role":"assistant","content":"a"}'), '{"message":'],
    "after done": [
        '{"model":"m","message":{"role":"assistant","content":"a"},"done":true}',
        _line('{"role":"assistant","content":"b"}'),
    ],
}


@pytest.mark.parametrize("wire", ["ollama", "ollama without tools"])
@pytest.mark.parametrize("frames", OLLAMA_ODD.values(), ids=OLLAMA_ODD.keys())
def test_odd_ollama_lines_decode_the_same_batched(wire: str, frames: list[Any]) -> None:
    _same_both_ways(wire, frames)


# Long runs of deltas in one repeated envelope: read from the envelope, and the same events.
_PIECES = ['"a"', '"b\\u00e9"', '""', "5", '"c"', "null", '"\\ud83d"', '"\\ude00"', '"d"']


def _anthropic_run(kind: str, key: str, index: int) -> list[Any]:
    head = f'{{"type":"content_block_delta","index":{index},"delta":{{"type":"{kind}","{key}":'
    return [("content_block_delta", head + piece + "}}") for piece in _PIECES * 3]


@pytest.mark.parametrize("cut", range(len(_PIECES) * 3))
def test_an_anthropic_envelope_run_decodes_the_same_wherever_it_breaks(cut: int) -> None:
    runs = _anthropic_run("input_json_delta", "partial_json", 0)
    texts = _anthropic_run("text_delta", "text", 1)
    frames = [_BLOCK_START, *runs[:cut], _TEXT_START, *texts[:cut], *runs[cut:], *texts[cut:]]
    _same_both_ways("anthropic", frames)


def _openai_run(obfuscated: bool) -> list[Any]:
    frames: list[Any] = [_CALL_START]
    for i, piece in enumerate(_PIECES * 3):
        pad = f',"obfuscation":"{"x" * (i % 4)}"' if obfuscated else ""
        delta = '{"tool_calls":[{"index":0,"function":{"arguments":' + piece + "}}]}"
        frames.append(
            (None, '{"model":"m","choices":[{"index":0,"delta":' + delta + "}]" + pad + "}")
        )
        frames.append(_chunk('{"content":' + piece + "}"))
    return [*frames, (None, "[DONE]")]


@pytest.mark.parametrize("obfuscated", [False, True])
def test_an_openai_envelope_run_decodes_the_same(obfuscated: bool) -> None:
    _same_both_ways("openai", _openai_run(obfuscated))


def _whole_scans(monkeypatch: pytest.MonkeyPatch, deltas: int) -> int:
    """How many of a tool block's events the Anthropic decoder parses whole."""
    from aiwrapper.providers.anthropic import _decode

    whole: list[str] = []
    real = _decode._scan_object

    def counted(text: str) -> Any:
        whole.append(text)
        return real(text)

    monkeypatch.setattr(_decode, "_scan_object", counted)
    head = '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta",'
    frames = [_BLOCK_START] + [
        ("content_block_delta", head + f'"partial_json":"{i}"}}}}') for i in range(deltas)
    ]
    events: list[Event] = []
    AnthropicStreamDecoder().feed_events(frames, events)
    assert len(events) == deltas + 1
    return len(whole)


def test_a_repeated_envelope_is_parsed_whole_only_until_it_is_learned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A few events are parsed whole (a stream must show it is long enough to pay for
    # learning its envelope); after that none is, however long the stream.
    few = _whole_scans(monkeypatch, 100)
    assert few == _whole_scans(monkeypatch, 2000)
    assert few < 20


def _ollama_run() -> list[Any]:
    stamps = [f'"2026-01-01T00:00:00.{i}Z"' for i in range(5)] + ["7", '""']
    pieces = [*_PIECES, '"<think>t</think>"', '"x<"', '"</think>y"']
    line = '{"model":"m","created_at":%s,"message":{"role":"assistant","content":%s},"done":false}'
    lines = [line % (stamps[i % len(stamps)], piece) for i, piece in enumerate(pieces * 3)]
    return [*lines, '{"model":"m","message":{"role":"assistant","content":""},"done":true}']


@pytest.mark.parametrize("wire", ["ollama", "ollama without tools"])
def test_an_ollama_envelope_run_decodes_the_same(wire: str) -> None:
    _same_both_ways(wire, _ollama_run())


def _responses_run(obfuscated: bool) -> list[Any]:
    added = (
        '{"type":"response.output_item.added","sequence_number":1,"output_index":0,'
        '"item":{"type":"function_call","id":"fc_1","call_id":"c1","name":"add","arguments":""}}'
    )
    frames: list[Any] = [(None, added)]
    for i, piece in enumerate(_PIECES * 3):
        pad = f',"obfuscation":"{"q" * (i % 3)}"' if obfuscated else ""
        head = f'{{"type":"response.function_call_arguments.delta","sequence_number":{2 * i + 2}'
        frames.append(
            (None, head + ',"item_id":"fc_1","output_index":0,"delta":' + piece + pad + "}")
        )
        head = f'{{"type":"response.output_text.delta","sequence_number":{2 * i + 3}'
        frames.append(
            (None, head + ',"item_id":"msg_1","output_index":1,"delta":' + piece + pad + "}")
        )
    return frames


RESPONSES_ODD = {
    "item id a list": [
        _responses_run(False)[0],
        (None, '{"type":"response.function_call_arguments.delta","item_id":[1],"delta":"{"}'),
    ],
    "no item id": [
        _responses_run(False)[0],
        (None, '{"type":"response.function_call_arguments.delta","delta":"{"}'),
    ],
    "unknown item": [
        (None, '{"type":"response.function_call_arguments.delta","item_id":"fc_9","delta":"{"}')
    ],
    "type a list": [(None, '{"type":["response.output_text.delta"],"delta":"a"}')],
    "done marker": [(None, '{"type":"response.output_text.delta","delta":"a"}'), (None, "[DONE]")],
}


@pytest.mark.parametrize("obfuscated", [False, True])
def test_a_responses_envelope_run_decodes_the_same(obfuscated: bool) -> None:
    _same_both_ways("openai_responses", _responses_run(obfuscated))


@pytest.mark.parametrize("frames", RESPONSES_ODD.values(), ids=RESPONSES_ODD.keys())
def test_odd_responses_events_decode_the_same_batched(frames: list[Any]) -> None:
    _same_both_ways("openai_responses", frames)


OPENAI_PARSED_ONCE = {
    "a list": [_chunk('{"content":"a"}'), (None, "[1, 2]")],
    "a number": [_chunk('{"content":"a"}'), (None, "7")],
    "choices a dict": [_chunk('{"content":"a"}'), (None, '{"choices":{"delta":{}}}')],
    "a call starts in the envelope": [
        _chunk('{"content":"a"}'),
        _chunk('{"tool_calls":[{"index":0,"id":"c1","function":{"name":"add","arguments":""}}]}'),
        _chunk('{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}'),
        _chunk('{"tool_calls":[{"index":1,"id":"c2","function":{"name":"add","arguments":"{"}}]}'),
        _chunk('{"content":"b","reasoning":"r"}'),
        _chunk('{"refusal":"no"}'),
        _chunk("[]"),
        _chunk("{}"),
        (None, "[DONE]"),
    ],
}


@pytest.mark.parametrize("frames", OPENAI_PARSED_ONCE.values(), ids=OPENAI_PARSED_ONCE.keys())
def test_openai_chunks_off_the_fast_path_decode_the_same(frames: list[Any]) -> None:
    _same_both_ways("openai", frames)


@pytest.mark.parametrize("fragment", ["5", "0", '["x"]', "[]", "true", "false", "1.5"])
def test_an_openai_arguments_fragment_that_is_not_text_is_a_stream_error_both_ways(
    fragment: str,
) -> None:
    # The run before it teaches the envelope: the bad fragment meets the fast path first.
    run = [_chunk('{"tool_calls":[{"index":0,"function":{"arguments":"{"}}]}')] * 3
    bad = _chunk('{"tool_calls":[{"index":0,"function":{"arguments":' + fragment + "}}]}")
    _, error = _same_both_ways("openai", [_CALL_START, *run, bad])
    assert error is not None
    assert error.startswith("StreamError: openai: undecodable stream chunk")


def _rewritten(data: str, how: str, rng: random.Random) -> str:
    """A JSON frame written another way: its keys in another order, or spaced."""
    try:
        value = json.loads(data)
    except ValueError:
        return data  # [DONE], say
    if how == "shuffled":
        return json.dumps(_shuffled(value, rng), ensure_ascii=False)
    return " " + json.dumps(value, indent=None, separators=(" , ", " : ")) + "\t"


def _shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {key: _shuffled(value[key], rng) for key in keys}
    return [_shuffled(item, rng) for item in value] if isinstance(value, list) else value


def _grown(frames: list[Any], times: int) -> list[Any]:
    """The frames with each text or arguments delta repeated: a long stream to learn from."""
    marks = ('"content":"', "_delta", '"partial_json"', '"arguments":"', '"parts": [{"text"')
    return [
        repeated
        for frame in frames
        for repeated in [frame] * (times if any(m in str(frame) for m in marks) else 1)
    ]


@pytest.mark.parametrize("how", ["shuffled", "spaced"])
@pytest.mark.parametrize(("wire", "path"), _recorded(), ids=lambda v: getattr(v, "name", v))
def test_a_recorded_stream_written_another_way_decodes_to_the_same_events(
    wire: str, path: Path, how: str
) -> None:
    # Every frame rewritten (the general path), each delta repeated past the point where an
    # envelope is learned, goes cold and is learned again: the events are those recorded.
    frames = _grown(_frames(path), 40)
    rng = random.Random(f"{path.name}/{how}")
    other = [
        (frame[0], _rewritten(frame[1], how, rng))
        if isinstance(frame, tuple)
        else _rewritten(frame, how, rng)
        for frame in frames
    ]
    recorded = _one_by_one(DECODERS[wire](), frames)
    for size in (1, 7, len(frames)):
        assert _batched(DECODERS[wire](), other, size) == recorded, size


def _gemini_chunk(text: str, usage: int | None = 8, **more: Any) -> tuple[None, str]:
    chunk: dict[str, Any] = {
        "candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "index": 0}]
    }
    if usage is not None:
        chunk["usageMetadata"] = {"promptTokenCount": 8, "totalTokenCount": usage}
    return None, json.dumps({**chunk, "modelVersion": "g", **more})


def _gemini_end() -> tuple[None, str]:
    end = {"candidates": [{"content": {"parts": [{"text": ""}]}, "finishReason": "STOP"}]}
    return None, json.dumps(end)


GEMINI_RUNS = {
    "plain": [_gemini_chunk(f"t{i}") for i in range(60)] + [_gemini_end()],
    # The usage changes, then comes back to what the envelope was learned with: each change
    # is an event, read only by parsing the chunk whole.
    "usage changes": [
        *(_gemini_chunk(f"a{i}") for i in range(40)),
        _gemini_chunk("b", usage=9),
        *(_gemini_chunk(f"c{i}") for i in range(40)),
        _gemini_chunk("d", usage=None),
        *(_gemini_chunk(f"e{i}", usage=9) for i in range(40)),
        _gemini_end(),
    ],
    "odd parts": [
        *(_gemini_chunk(f"a{i}") for i in range(30)),
        _gemini_chunk(7),  # type: ignore[arg-type]
        _gemini_chunk("x", thought=True),
        (
            None,
            json.dumps({"candidates": [{"content": {"parts": [{"text": "p", "thought": True}]}}]}),
        ),
        (
            None,
            json.dumps({"candidates": [{"content": {"parts": [{"text": "a"}, {"text": "b"}]}}]}),
        ),
        (None, json.dumps({"candidates": {"0": 1}})),
        (None, "[1, 2]"),
    ],
    "error": [*(_gemini_chunk(f"a{i}") for i in range(30)), (None, '{"error": {"code": 500}}')],
    "no object": [*(_gemini_chunk(f"a{i}") for i in range(30)), (None, "nope")],
}


@pytest.mark.parametrize("frames", GEMINI_RUNS.values(), ids=GEMINI_RUNS.keys())
def test_gemini_chunks_decode_the_same_batched(frames: list[Any]) -> None:
    events, _ = _same_both_ways("gemini", frames)
    assert events
