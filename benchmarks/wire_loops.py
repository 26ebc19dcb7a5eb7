"""Pre-rendered tool-loop answers in every wire format, non-streamed and streamed.

The loop is the one users write most: a prompt, an answer asking for ``LOOP_CALLS`` parallel
calls (one per tool, each with ``{"city": "Lisbon"}``), then, once the request carries the
results, a short text answer. ``loop_scenarios`` names each body by the path segment that
selects it on ``server.py``: ``loop-<wire>[-stream]`` for the calls, with ``-answer`` appended
for the text (the server picks it when the request body holds a tool result). Bodies follow
the vendors' documented shapes, built once before any timing.
"""

from __future__ import annotations

import json
from typing import Any

from wire import LOOP_CALLS, MODEL, TOOL_NAMES, Scenario, _anthropic_event, _openai_chunk, _sse

__all__ = ["ANSWER", "ARGUMENTS", "LOOP_TOOLS", "WIRES", "loop_scenarios"]

WIRES = ("openai", "openai-responses", "anthropic", "gemini", "ollama")
LOOP_TOOLS = TOOL_NAMES[:LOOP_CALLS]
ARGUMENTS = {"city": "Lisbon"}
WORDS = ["The", " results", " are", " in."]
ANSWER = "".join(WORDS)
_ARGS = json.dumps(ARGUMENTS)


def _dump(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _json(obj: object) -> Scenario:
    return Scenario(_dump(obj).encode(), "application/json", 1, ANSWER)


def _events(body: str, events: int) -> Scenario:
    return Scenario(body.encode(), "text/event-stream", events, ANSWER)


# OpenAI Chat Completions


def _chat(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 1767225600,
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {"prompt_tokens": 80, "completion_tokens": 40, "total_tokens": 120},
        "system_fingerprint": "fp_bench",
    }


def _chat_calls() -> list[dict[str, Any]]:
    return [
        {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": _ARGS}}
        for i, name in enumerate(LOOP_TOOLS)
    ]


def _openai(stream: bool) -> tuple[Scenario, Scenario]:
    usage = {"prompt_tokens": 80, "completion_tokens": 40, "total_tokens": 120}
    if not stream:
        calls = {"role": "assistant", "content": None, "tool_calls": _chat_calls()}
        text = {"role": "assistant", "content": ANSWER, "refusal": None}
        return _json(_chat(calls, "tool_calls")), _json(_chat(text, "stop"))
    tail = [_dump({"id": "chatcmpl-bench", "choices": [], "usage": usage}), "[DONE]"]
    first = [_openai_chunk({"role": "assistant", "content": None})]
    for i, call in enumerate(_chat_calls()):
        start = {
            **call,
            "index": i,
            "function": {"name": call["function"]["name"], "arguments": ""},
        }
        first.append(_openai_chunk({"tool_calls": [start]}))
        first.append(
            _openai_chunk({"tool_calls": [{"index": i, "function": {"arguments": _ARGS}}]})
        )
    first += [_openai_chunk({}, "tool_calls"), *tail]
    second = [_openai_chunk({"role": "assistant", "content": ""})]
    second += [_openai_chunk({"content": w}) for w in WORDS]
    second += [_openai_chunk({}, "stop"), *tail]
    return Scenario(_sse(first), "text/event-stream", len(first), ""), Scenario(
        _sse(second), "text/event-stream", len(second), ANSWER
    )


# OpenAI Responses API

_RESPONSES_USAGE = {
    "input_tokens": 80,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 40,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 120,
}


def _response(status: str, output: list[Any], usage: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "id": "resp_bench",
        "object": "response",
        "created_at": 1767225600,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "model": "gpt-5-2025-08-07",
        "output": output,
        "parallel_tool_calls": True,
        "store": False,
        "tool_choice": "auto",
        "usage": usage,
    }


def _function_items(status: str) -> list[dict[str, Any]]:
    return [
        {
            "id": f"fc_{i}",
            "type": "function_call",
            "status": status,
            "arguments": _ARGS if status == "completed" else "",
            "call_id": f"call_{i}",
            "name": name,
        }
        for i, name in enumerate(LOOP_TOOLS)
    ]


def _message_item(text: str, status: str) -> dict[str, Any]:
    part = {"type": "output_text", "annotations": [], "text": text}
    content = [part] if status == "completed" else []
    return {
        "id": "msg_0",
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": content,
    }


class _ResponsesEvents:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.add("response.created", response=_response("in_progress", [], None))

    def add(self, kind: str, **fields: Any) -> None:
        payload = {"type": kind, "sequence_number": len(self.lines), **fields}
        self.lines.append(f"event: {kind}\ndata: {_dump(payload)}\n\n")

    def scenario(self, output: list[Any]) -> Scenario:
        self.add("response.completed", response=_response("completed", output, _RESPONSES_USAGE))
        return _events("".join(self.lines), len(self.lines))


def _responses(stream: bool) -> tuple[Scenario, Scenario]:
    calls, answer = _function_items("completed"), [_message_item(ANSWER, "completed")]
    if not stream:
        return (
            _json(_response("completed", calls, _RESPONSES_USAGE)),
            _json(_response("completed", answer, _RESPONSES_USAGE)),
        )
    first = _ResponsesEvents()
    for i, (opening, done) in enumerate(zip(_function_items("in_progress"), calls, strict=True)):
        first.add("response.output_item.added", output_index=i, item=opening)
        where = {"item_id": opening["id"], "output_index": i}
        first.add("response.function_call_arguments.delta", **where, delta=_ARGS)
        first.add("response.function_call_arguments.done", **where, arguments=_ARGS)
        first.add("response.output_item.done", output_index=i, item=done)
    second = _ResponsesEvents()
    second.add("response.output_item.added", output_index=0, item=_message_item("", "in_progress"))
    where = {"item_id": "msg_0", "output_index": 0, "content_index": 0}
    for word in WORDS:
        second.add("response.output_text.delta", **where, delta=word)
    second.add("response.output_text.done", **where, text=ANSWER)
    second.add("response.output_item.done", output_index=0, item=answer[0])
    return first.scenario(calls), second.scenario(answer)


# Anthropic Messages


def _anthropic_message(content: list[Any], stop: str | None, output: int) -> dict[str, Any]:
    return {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 80, "output_tokens": output},
    }


def _tool_uses() -> list[dict[str, Any]]:
    return [
        {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": dict(ARGUMENTS)}
        for i, name in enumerate(LOOP_TOOLS)
    ]


def _anthropic(stream: bool) -> tuple[Scenario, Scenario]:
    if not stream:
        return (
            _json(_anthropic_message(_tool_uses(), "tool_use", 40)),
            _json(_anthropic_message([{"type": "text", "text": ANSWER}], "end_turn", 40)),
        )
    bodies = []
    for blocks, stop in ((_tool_uses(), "tool_use"), (None, "end_turn")):
        opening = _anthropic_message([], None, 1)
        events = [_anthropic_event("message_start", {"type": "message_start", "message": opening})]
        if blocks is None:
            events += _anthropic_block(0, {"type": "text", "text": ""}, "text_delta", "text", WORDS)
        else:
            for i, block in enumerate(blocks):
                start = {**block, "input": {}}
                events += _anthropic_block(i, start, "input_json_delta", "partial_json", [_ARGS])
        delta = {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}}
        events.append(_anthropic_event("message_delta", {**delta, "usage": {"output_tokens": 40}}))
        events.append(_anthropic_event("message_stop", {"type": "message_stop"}))
        bodies.append(_events("".join(events), len(events)))
    return bodies[0], bodies[1]


def _anthropic_block(
    index: int, block: dict[str, Any], kind: str, key: str, pieces: list[str]
) -> list[str]:
    start = {"type": "content_block_start", "index": index, "content_block": block}
    events = [_anthropic_event("content_block_start", start)]
    for piece in pieces:
        payload = {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": kind, key: piece},
        }
        events.append(_anthropic_event("content_block_delta", payload))
    stop = {"type": "content_block_stop", "index": index}
    return [*events, _anthropic_event("content_block_stop", stop)]


# Gemini


def _gemini_chunk(parts: list[Any], finish: str | None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": 80,
            "candidatesTokenCount": 40,
            "totalTokenCount": 120,
        },
        "modelVersion": "gemini-2.5-flash",
        "responseId": "r-bench",
    }


def _gemini(stream: bool) -> tuple[Scenario, Scenario]:
    calls = [{"functionCall": {"name": name, "args": dict(ARGUMENTS)}} for name in LOOP_TOOLS]
    if not stream:
        return (
            _json(_gemini_chunk(calls, "STOP")),
            _json(_gemini_chunk([{"text": ANSWER}], "STOP")),
        )
    first = [_dump(_gemini_chunk(calls, "STOP"))]
    second = [_dump(_gemini_chunk([{"text": w}], None)) for w in WORDS[:-1]]
    second.append(_dump(_gemini_chunk([{"text": WORDS[-1]}], "STOP")))
    return (
        Scenario(_sse(first), "text/event-stream", len(first), ""),
        Scenario(_sse(second), "text/event-stream", len(second), ANSWER),
    )


# Ollama


def _ollama_line(message: dict[str, Any], done: bool) -> dict[str, Any]:
    line: dict[str, Any] = {
        "model": "qwen3",
        "created_at": "2026-01-01T00:00:00.000001Z",
        "message": {"role": "assistant", **message},
        "done": done,
    }
    if done:
        line.update(done_reason="stop", total_duration=912000000, prompt_eval_count=80)
        line.update(eval_count=40)
    return line


def _ollama(stream: bool) -> tuple[Scenario, Scenario]:
    calls = [{"function": {"name": name, "arguments": dict(ARGUMENTS)}} for name in LOOP_TOOLS]
    if not stream:
        return (
            _json(_ollama_line({"content": "", "tool_calls": calls}, True)),
            _json(_ollama_line({"content": ANSWER}, True)),
        )
    first = [_ollama_line({"content": "", "tool_calls": calls}, False)]
    first.append(_ollama_line({"content": ""}, True))
    second = [_ollama_line({"content": w}, False) for w in WORDS]
    second.append(_ollama_line({"content": ""}, True))
    return tuple(  # type: ignore[return-value]
        Scenario(
            "".join(_dump(line) + "\n" for line in lines).encode(),
            "application/x-ndjson",
            len(lines),
            ANSWER,
        )
        for lines in (first, second)
    )


_BUILDERS = {
    "openai": _openai,
    "openai-responses": _responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "ollama": _ollama,
}


def loop_scenarios() -> dict[str, Scenario]:
    """Every wire's two loop bodies, both ways, by the path segment that selects each."""
    scenarios = {}
    for wire_name, build in _BUILDERS.items():
        for stream in (False, True):
            name = f"loop-{wire_name}{'-stream' if stream else ''}"
            scenarios[name], scenarios[name + "-answer"] = build(stream)
    return scenarios
