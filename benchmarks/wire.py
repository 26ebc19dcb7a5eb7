"""Pre-rendered response bodies in each wire format, and the facts a benchmark checks them by.

Every body is built once, byte for byte, before any timing starts: the server only copies
bytes to sockets. The shapes follow the vendors' real streams (field order, metadata the
clients must skip over) so that parsing costs what it costs in production. ``Scenario`` holds
a body with the number of framed events in it and the text or arguments a client must
assemble from it, so both the aiwrapper side and the raw baseline are checked for correctness.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

__all__ = [
    "LOOP_CALLS",
    "TOOL_NAMES",
    "Scenario",
    "anthropic_text",
    "gemini_text",
    "ollama_ndjson",
    "openai_loop_answer",
    "openai_loop_calls",
    "openai_text",
    "openai_tiny",
    "openai_tools",
]

MODEL = "gpt-4o-mini-2024-07-18"
TOOL_NAMES = tuple(f"tool_{i}" for i in range(8))
LOOP_CALLS = 4


@dataclass(frozen=True, slots=True)
class Scenario:
    """A pre-rendered body: ``events`` framed events that assemble into ``expected``."""

    body: bytes
    content_type: str
    events: int
    expected: str


def _dump(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _token(i: int) -> str:
    return f" tok{i % 97}"


def _sse(payloads: list[str]) -> bytes:
    return "".join(f"data: {p}\n\n" for p in payloads).encode()


def _openai_chunk(delta: dict, finish: str | None = None) -> str:
    return _dump(
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1767225600,
            "model": MODEL,
            "system_fingerprint": "fp_bench",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
    )


def _openai_tail(finish: str) -> list[str]:
    usage = {"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46}
    end = _openai_chunk({}, finish)
    return [end, _dump({"id": "chatcmpl-bench", "choices": [], "usage": usage}), "[DONE]"]


def openai_text(deltas: int) -> Scenario:
    """A Chat Completions stream of ``deltas`` text deltas (plus role, finish, usage, DONE)."""
    tokens = [_token(i) for i in range(deltas)]
    payloads = [_openai_chunk({"role": "assistant", "content": ""})]
    payloads += [_openai_chunk({"content": t}) for t in tokens]
    payloads += _openai_tail("stop")
    return Scenario(_sse(payloads), "text/event-stream", len(payloads), "".join(tokens))


def _call_start(index: int, name: str) -> str:
    call = {
        "index": index,
        "id": f"call_{index}",
        "type": "function",
        "function": {"name": name, "arguments": ""},
    }
    return _openai_chunk({"tool_calls": [call]})


def _call_fragment(index: int, text: str) -> str:
    return _openai_chunk({"tool_calls": [{"index": index, "function": {"arguments": text}}]})


def _fragments(index: int, count: int) -> list[str]:
    """``count`` pieces of a JSON object ``{"data": "..."}`` for call ``index``."""
    middle = [f"p{index}.{j} " for j in range(count - 2)]
    return ['{"data": "', *middle, '"}']


def openai_tools(calls: int, fragments: int) -> Scenario:
    """``calls`` sequential tool calls of ``fragments`` argument fragments each.

    ``expected`` is the JSON list of the argument strings in call order.
    """
    payloads = [_openai_chunk({"role": "assistant", "content": None})]
    arguments = []
    for index in range(calls):
        pieces = _fragments(index, fragments)
        arguments.append("".join(pieces))
        payloads.append(_call_start(index, TOOL_NAMES[index % len(TOOL_NAMES)]))
        payloads += [_call_fragment(index, piece) for piece in pieces]
    payloads += _openai_tail("tool_calls")
    return Scenario(_sse(payloads), "text/event-stream", len(payloads), _dump(arguments))


def openai_loop_calls() -> Scenario:
    """The tool loop's first answer: ``LOOP_CALLS`` parallel calls, each in two chunks."""
    payloads = [_openai_chunk({"role": "assistant", "content": None})]
    for index in range(LOOP_CALLS):
        payloads.append(_call_start(index, TOOL_NAMES[index]))
        payloads.append(_call_fragment(index, f'{{"x": {index}}}'))
    payloads += _openai_tail("tool_calls")
    return Scenario(_sse(payloads), "text/event-stream", len(payloads), "")


def openai_loop_answer() -> Scenario:
    """The tool loop's final answer, once the tool results are in the conversation."""
    words = ["The", " results", " are", " in."]
    payloads = [_openai_chunk({"role": "assistant", "content": ""})]
    payloads += [_openai_chunk({"content": w}) for w in words]
    payloads += _openai_tail("stop")
    return Scenario(_sse(payloads), "text/event-stream", len(payloads), "".join(words))


def openai_tiny() -> Scenario:
    """A small non-streamed ``chat.completion`` body."""
    body = {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 1767225600,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "pong", "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 8, "completion_tokens": 1, "total_tokens": 9},
        "system_fingerprint": "fp_bench",
    }
    return Scenario(_dump(body).encode(), "application/json", 1, "pong")


def _anthropic_event(name: str, payload: dict) -> str:
    return f"event: {name}\ndata: {_dump(payload)}\n\n"


def _anthropic_head() -> list[str]:
    message = {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 1},
    }
    block = {"type": "text", "text": ""}
    start = {"type": "content_block_start", "index": 0, "content_block": block}
    return [
        _anthropic_event("message_start", {"type": "message_start", "message": message}),
        _anthropic_event("content_block_start", start),
    ]


def _anthropic_tail() -> list[str]:
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 34},
    }
    return [
        _anthropic_event("content_block_stop", {"type": "content_block_stop", "index": 0}),
        _anthropic_event("message_delta", delta),
        _anthropic_event("message_stop", {"type": "message_stop"}),
    ]


def anthropic_text(deltas: int) -> Scenario:
    """A Messages stream of one text block of ``deltas`` deltas."""
    tokens = [_token(i) for i in range(deltas)]
    events = _anthropic_head()
    for t in tokens:
        delta = {"type": "text_delta", "text": t}
        payload = {"type": "content_block_delta", "index": 0, "delta": delta}
        events.append(_anthropic_event("content_block_delta", payload))
    events += _anthropic_tail()
    body = "".join(events).encode()
    return Scenario(body, "text/event-stream", len(events), "".join(tokens))


def _gemini_chunk(text: str, finish: str | None = None) -> str:
    candidate: dict = {"content": {"parts": [{"text": text}], "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    usage = {"promptTokenCount": 12, "candidatesTokenCount": 34, "totalTokenCount": 46}
    return _dump(
        {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": "gemini-2.5-flash",
            "responseId": "r-bench",
        }
    )


def gemini_text(deltas: int) -> Scenario:
    """A ``streamGenerateContent?alt=sse`` stream of ``deltas`` text chunks."""
    tokens = [_token(i) for i in range(deltas)]
    payloads = [_gemini_chunk(t) for t in tokens]
    payloads.append(_gemini_chunk("", "STOP"))
    return Scenario(_sse(payloads), "text/event-stream", len(payloads), "".join(tokens))


def _ollama_line(content: str, done: bool) -> str:
    line: dict = {
        "model": "qwen3",
        "created_at": "2026-01-01T00:00:00.000001Z",
        "message": {"role": "assistant", "content": content},
        "done": done,
    }
    if done:
        line.update(done_reason="stop", total_duration=912000000, eval_count=34)
        line.update(prompt_eval_count=12)
    return _dump(line) + "\n"


def ollama_ndjson(deltas: int) -> Scenario:
    """An ``/api/chat`` NDJSON stream of ``deltas`` text lines and the ``done`` line."""
    tokens = [_token(i) for i in range(deltas)]
    lines = [_ollama_line(t, False) for t in tokens] + [_ollama_line("", True)]
    body = "".join(lines).encode()
    return Scenario(body, "application/x-ndjson", len(lines), "".join(tokens))
