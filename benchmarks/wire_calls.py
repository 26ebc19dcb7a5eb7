"""Pre-rendered tool-call streams beyond ``wire.py``: Anthropic calls and one very large call.

Same rules as ``wire.py``: bodies are built once before any timing, shaped like the vendors'
real streams, and each ``Scenario`` says what a client must assemble from it.
"""

from __future__ import annotations

import json

from wire import (
    TOOL_NAMES,
    Scenario,
    _anthropic_event,
    _call_fragment,
    _call_start,
    _dump,
    _fragments,
    _openai_chunk,
    _openai_tail,
    _sse,
)

__all__ = ["BIG_CALL_BYTES", "BIG_CALL_FRAGMENTS", "anthropic_tools", "openai_big_call"]

BIG_CALL_BYTES = 80_000
BIG_CALL_FRAGMENTS = 20_000


def _anthropic_call(index: int, pieces: list[str]) -> list[str]:
    block = {"type": "tool_use", "id": f"toolu_{index}", "name": TOOL_NAMES[index % 8], "input": {}}
    events = [
        _anthropic_event(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": block},
        )
    ]
    for piece in pieces:
        delta = {"type": "input_json_delta", "partial_json": piece}
        payload = {"type": "content_block_delta", "index": index, "delta": delta}
        events.append(_anthropic_event("content_block_delta", payload))
    stop = {"type": "content_block_stop", "index": index}
    events.append(_anthropic_event("content_block_stop", stop))
    return events


def anthropic_tools(calls: int, fragments: int) -> Scenario:
    """A Messages stream of ``calls`` tool_use blocks of ``fragments`` input fragments each.

    ``expected`` is the JSON list of the argument strings in call order.
    """
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
    events = [_anthropic_event("message_start", {"type": "message_start", "message": message})]
    arguments = []
    for index in range(calls):
        pieces = _fragments(index, fragments)
        arguments.append("".join(pieces))
        events += _anthropic_call(index, pieces)
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 34},
    }
    events.append(_anthropic_event("message_delta", delta))
    events.append(_anthropic_event("message_stop", {"type": "message_stop"}))
    body = "".join(events).encode()
    return Scenario(body, "text/event-stream", len(events), _dump(arguments))


def openai_big_call() -> Scenario:
    """One Chat Completions call whose 80 KB of arguments arrive in 20,000 fragments.

    ``expected`` is the arguments text.
    """
    size = BIG_CALL_BYTES // BIG_CALL_FRAGMENTS
    text = json.dumps({"data": "x" * (BIG_CALL_BYTES - 12)})
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    payloads = [_openai_chunk({"role": "assistant", "content": None}), _call_start(0, "tool_0")]
    payloads += [_call_fragment(0, piece) for piece in pieces]
    payloads += _openai_tail("tool_calls")
    return Scenario(_sse(payloads), "text/event-stream", len(payloads), text)
