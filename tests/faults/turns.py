"""One rich, valid turn per wire (text, thinking where the wire has it, two calls whose
arguments arrive in fragments), streamed and whole, for the fault and fuzz suites to break."""

from __future__ import annotations

import json
from typing import Any

from . import wires

CITIES = ("Oslo", "Rome")
# The arguments of the two calls, cut into fragments where the wire streams them.
FRAGMENTS = (['{"ci', 'ty": "Os', 'lo"}'], ['{"city"', ': "Rome"}'])


def openai_stream() -> bytes:
    def delta(**fields: Any) -> dict[str, Any]:
        return {"choices": [{"index": 0, "delta": fields}]}

    def call(index: int, fragment: str, first: bool) -> dict[str, Any]:
        entry: dict[str, Any] = {"index": index, "function": {"arguments": fragment}}
        if first:
            entry.update(id=f"call_{index}", type="function")
            entry["function"]["name"] = "get_weather"
        return delta(tool_calls=[entry])

    chunks = [delta(reasoning_content="Two cities."), delta(content="Checking.")]
    for index, fragments in enumerate(FRAGMENTS):
        chunks += [call(index, f, i == 0) for i, f in enumerate(fragments)]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    chunks.append({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 7}})
    return wires.sse(*chunks) + b"data: [DONE]\n\n"


def anthropic_stream() -> bytes:
    thinking = (
        {"type": "thinking", "thinking": ""},
        [
            {"type": "thinking_delta", "thinking": "Two cities."},
            {"type": "signature_delta", "signature": "sig=="},
        ],
    )
    text = ({"type": "text", "text": ""}, [{"type": "text_delta", "text": "Checking."}])
    calls = [
        (
            {"type": "tool_use", "id": f"toolu_{i}", "name": "get_weather", "input": {}},
            [{"type": "input_json_delta", "partial_json": f} for f in fragments],
        )
        for i, fragments in enumerate(FRAGMENTS)
    ]
    return wires.anthropic([thinking, text, *calls])


def gemini_stream() -> bytes:
    def chunk(parts: list[dict[str, Any]], last: bool = False) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
        if last:
            candidate["finishReason"] = "STOP"
        out: dict[str, Any] = {"candidates": [candidate]}
        if last:
            out["usageMetadata"] = {"promptTokenCount": 9, "candidatesTokenCount": 7}
        return out

    calls = [{"functionCall": {"name": "get_weather", "args": {"city": c}}} for c in CITIES]
    return wires.sse(
        chunk([{"text": "Two cities.", "thought": True, "thoughtSignature": "c2ln"}]),
        chunk([{"text": "Checking."}]),
        chunk([calls[0]]),
        chunk([calls[1]], last=True),
    )


def ollama_stream() -> bytes:
    calls = [
        {"id": f"call_{i}", "function": {"name": "get_weather", "arguments": {"city": c}}}
        for i, c in enumerate(CITIES)
    ]
    lines = [
        {"message": {"role": "assistant", "content": "", "thinking": "Two cities."}},
        {"message": {"role": "assistant", "content": "Checking."}},
        {"message": {"role": "assistant", "content": "", "tool_calls": calls}},
    ]
    lines = [{**line, "done": False} for line in lines]
    lines.append(
        {
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 9,
            "eval_count": 7,
        }
    )
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def responses_stream() -> bytes:
    reasoning = {"type": "reasoning", "id": "rs_1", "encrypted_content": "ZW5j"}
    summary = [{"type": "summary_text", "text": "Two cities."}]
    message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed"}
    message["content"] = [{"type": "output_text", "text": "Checking.", "annotations": []}]
    items: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
        ({**reasoning, "summary": summary}, [{"summary_index": 0, "delta": "Two cities."}]),
        (message, [{"content_index": 0, "delta": "Checking."}]),
    ]
    for i, fragments in enumerate(FRAGMENTS):
        call = {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}"}
        call.update(name="get_weather", arguments="".join(fragments), status="completed")
        items.append((call, [{"delta": f} for f in fragments]))
    return wires.responses(items, {"input_tokens": 9, "output_tokens": 7})


def _responses_whole() -> dict[str, Any]:
    output = [
        json.loads(line[len(b"data: ") :])["item"]
        for line in responses_stream().split(b"\n")
        if b'"response.output_item.done"' in line and line.startswith(b"data: ")
    ]
    return {
        "status": "completed",
        "output": output,
        "usage": {"input_tokens": 9, "output_tokens": 7},
    }


def whole(name: str) -> dict[str, Any]:
    """The same turn as a whole (non-streamed) response body."""
    if name == "openai":
        calls = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": "get_weather", "arguments": "".join(f)},
            }
            for i, f in enumerate(FRAGMENTS)
        ]
        message = {"role": "assistant", "content": "Checking.", "tool_calls": calls}
        return {
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 7},
        }
    if name == "anthropic":
        content: list[dict[str, Any]] = [
            {"type": "thinking", "thinking": "Two cities.", "signature": "sig=="},
            {"type": "text", "text": "Checking."},
        ]
        content += [
            {"type": "tool_use", "id": f"toolu_{i}", "name": "get_weather", "input": {"city": c}}
            for i, c in enumerate(CITIES)
        ]
        return {
            "type": "message",
            "role": "assistant",
            "content": content,
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 9, "output_tokens": 7},
        }
    if name == "openai-responses":
        return _responses_whole()
    if name == "gemini":
        parts: list[dict[str, Any]] = [{"text": "Checking."}]
        parts += [{"functionCall": {"name": "get_weather", "args": {"city": c}}} for c in CITIES]
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 7},
        }
    calls = [{"function": {"name": "get_weather", "arguments": {"city": c}}} for c in CITIES]
    return {
        "message": {"role": "assistant", "content": "Checking.", "tool_calls": calls},
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 9,
        "eval_count": 7,
    }


def whole_text(name: str, text: str) -> bytes:
    """A whole (non-streamed) text answer."""
    bodies: dict[str, Any] = {
        "openai": {
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ]
        },
        "anthropic": {
            "type": "message",
            "role": "assistant",
            "stop_reason": "end_turn",
            "content": [{"type": "text", "text": text}],
        },
        "gemini": {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
            ]
        },
        "ollama": {
            "message": {"role": "assistant", "content": text},
            "done": True,
            "done_reason": "stop",
        },
        "openai-responses": {
            "status": "completed",
            "output": [
                {
                    "type": "message",
                    "id": "msg_9",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ],
        },
    }
    return json.dumps(bodies[name]).encode()


STREAMS = {
    "openai": openai_stream,
    "anthropic": anthropic_stream,
    "gemini": gemini_stream,
    "ollama": ollama_stream,
    "openai-responses": responses_stream,
}


def answered_calls(name: str, body: dict[str, Any]) -> list[tuple[int, int]]:
    """For each assistant turn with calls in a request body: (calls made, results given)."""
    if name == "gemini":
        contents = body["contents"]
        return [
            (
                sum("functionCall" in p for p in turn["parts"]),
                sum("functionResponse" in p for p in contents[i + 1]["parts"])
                if i + 1 < len(contents)
                else 0,
            )
            for i, turn in enumerate(contents)
            if turn["role"] == "model" and any("functionCall" in p for p in turn["parts"])
        ]
    if name == "openai-responses":
        return _responses_answered(body["input"])
    messages = body["messages"]
    pairs = []
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        if name == "anthropic":
            content = message["content"] if isinstance(message["content"], list) else []
            made = sum(b.get("type") == "tool_use" for b in content)
            following = messages[i + 1]["content"] if i + 1 < len(messages) else []
            given = sum(
                isinstance(b, dict) and b.get("type") == "tool_result"
                for b in (following if isinstance(following, list) else [])
            )
        else:
            made = len(message.get("tool_calls") or [])
            given = 0
            for later in messages[i + 1 :]:
                if later["role"] != "tool":
                    break
                given += 1
        if made:
            pairs.append((made, given))
    return pairs


def _responses_answered(items: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """Each run of ``function_call`` items, and the ``function_call_output`` items after it."""
    pairs: list[tuple[int, int]] = []
    for item in items:
        kind = item.get("type")
        if kind == "function_call":
            if not pairs or pairs[-1][1]:
                pairs.append((0, 0))
            pairs[-1] = (pairs[-1][0] + 1, 0)
        elif kind == "function_call_output" and pairs:
            pairs[-1] = (pairs[-1][0], pairs[-1][1] + 1)
    return pairs
