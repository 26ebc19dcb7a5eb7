"""Pre-rendered Responses API streams (``POST /v1/responses``), byte for byte as OpenAI sends them.

Each event is an ``event:`` line and a ``data:`` line whose JSON repeats the type and carries a
``sequence_number``; deltas name their item and indexes, as in a real capture (aiwrapper asks
for no obfuscation padding, so there is none). The terminal ``response.completed`` repeats the
whole output, as OpenAI's does, so its size grows with the answer.
"""

from __future__ import annotations

import json
from typing import Any

from wire import TOOL_NAMES, Scenario

__all__ = ["responses_text", "responses_tools"]

MODEL = "gpt-5-2025-08-07"


def _dump(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class _Events:
    """SSE events in order, each with its sequence number."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, kind: str, **fields: Any) -> None:
        payload = {"type": kind, "sequence_number": len(self.lines), **fields}
        self.lines.append(f"event: {kind}\ndata: {_dump(payload)}\n\n")

    def scenario(self, expected: str) -> Scenario:
        body = "".join(self.lines).encode()
        return Scenario(body, "text/event-stream", len(self.lines), expected)


def _response(status: str, output: list[Any], usage: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "id": "resp_bench",
        "object": "response",
        "created_at": 1767225600,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "model": MODEL,
        "output": output,
        "parallel_tool_calls": True,
        "reasoning": {"effort": "minimal", "summary": None},
        "store": False,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [],
        "usage": usage,
    }


_USAGE = {
    "input_tokens": 12,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 34,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 46,
}


def _open(events: _Events) -> None:
    events.add("response.created", response=_response("in_progress", [], None))
    events.add("response.in_progress", response=_response("in_progress", [], None))


def responses_text(deltas: int) -> Scenario:
    """One message item of ``deltas`` text deltas, between the opening and closing events."""
    tokens = [f" tok{i % 97}" for i in range(deltas)]
    text = "".join(tokens)
    where = {"item_id": "msg_bench", "output_index": 0, "content_index": 0}
    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    message = {"id": "msg_bench", "type": "message", "status": "in_progress", "role": "assistant"}
    events = _Events()
    _open(events)
    events.add("response.output_item.added", output_index=0, item={**message, "content": []})
    events.add("response.content_part.added", **where, part=part)
    for token in tokens:
        events.add("response.output_text.delta", **where, delta=token, logprobs=[])
    events.add("response.output_text.done", **where, text=text, logprobs=[])
    events.add("response.content_part.done", **where, part={**part, "text": text})
    done = {**message, "status": "completed", "content": [{**part, "text": text}]}
    events.add("response.output_item.done", output_index=0, item=done)
    events.add("response.completed", response=_response("completed", [done], _USAGE))
    return events.scenario(text)


def responses_tools(calls: int, fragments: int) -> Scenario:
    """``calls`` function calls of ``fragments`` argument deltas each.

    ``expected`` is the JSON list of the argument strings in call order.
    """
    events = _Events()
    _open(events)
    output, arguments = [], []
    for index in range(calls):
        pieces = ['{"data": "', *(f"p{index}.{j} " for j in range(fragments - 2)), '"}']
        arguments.append("".join(pieces))
        item = {
            "id": f"fc_bench{index}",
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": f"call_bench{index}",
            "name": TOOL_NAMES[index % len(TOOL_NAMES)],
        }
        events.add("response.output_item.added", output_index=index, item=item)
        where = {"item_id": item["id"], "output_index": index}
        for piece in pieces:
            events.add("response.function_call_arguments.delta", **where, delta=piece)
        events.add("response.function_call_arguments.done", **where, arguments=arguments[-1])
        done = {**item, "status": "completed", "arguments": arguments[-1]}
        events.add("response.output_item.done", output_index=index, item=done)
        output.append(done)
    events.add("response.completed", response=_response("completed", output, _USAGE))
    return events.scenario(_dump(arguments))
