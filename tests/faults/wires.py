"""Streamed bodies of every wire, built from a few values, and a ``Lang`` that answers with
them through ``httpx.MockTransport`` while recording every request body it was sent."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from aiwrapper import Lang

WIRES = ("openai", "anthropic", "gemini", "ollama", "openai-responses")
CONTENT_TYPES = {"ollama": "application/x-ndjson"}


def sse(*events: Any, names: Sequence[str] = ()) -> bytes:
    out = b""
    for i, event in enumerate(events):
        head = f"event: {names[i]}\n".encode() if names else b""
        out += head + b"data: " + json.dumps(event).encode() + b"\n\n"
    return out


def openai_call(call_id: Any, name: Any, arguments: Any, usage: Any = None) -> bytes:
    call = {"index": 0, "id": call_id, "type": "function"}
    call["function"] = {"name": name, "arguments": arguments}
    chunks: list[Any] = [{"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    chunks.append({"choices": [], "usage": usage or {"prompt_tokens": 3, "completion_tokens": 2}})
    return sse(*chunks) + b"data: [DONE]\n\n"


def openai_text(text: Any, usage: Any = None) -> bytes:
    chunks: list[Any] = [{"choices": [{"index": 0, "delta": {"content": text}}]}]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    chunks.append({"choices": [], "usage": usage or {"prompt_tokens": 3, "completion_tokens": 2}})
    return sse(*chunks) + b"data: [DONE]\n\n"


def anthropic(
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]], usage: Any = None
) -> bytes:
    """A Messages stream: each block is its start object and its deltas."""
    events: list[tuple[str, Any]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {"usage": usage or {"input_tokens": 3, "output_tokens": 1}},
            },
        )
    ]
    for index, (start, deltas) in enumerate(blocks):
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        for delta in deltas:
            events.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    stop = "tool_use" if any(b[0].get("type") == "tool_use" for b in blocks) else "end_turn"
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop},
                "usage": {"output_tokens": 2},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return sse(*[e for _, e in events], names=[n for n, _ in events])


def anthropic_call(call_id: Any, name: Any, partial_json: Any) -> bytes:
    start = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    return anthropic([(start, [{"type": "input_json_delta", "partial_json": partial_json}])])


def anthropic_text(text: Any) -> bytes:
    return anthropic([({"type": "text", "text": ""}, [{"type": "text_delta", "text": text}])])


def gemini(parts: list[dict[str, Any]], usage: Any = None) -> bytes:
    chunk = {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
        "usageMetadata": usage or {"promptTokenCount": 3, "candidatesTokenCount": 2},
    }
    return sse(chunk)


def gemini_call(call_id: Any, name: Any, args: Any) -> bytes:
    call = {"name": name, "args": args}
    if call_id is not None:
        call["id"] = call_id
    return gemini([{"functionCall": call}])


def ollama(message: dict[str, Any], usage: Any = None) -> bytes:
    counts = usage or {"prompt_eval_count": 3, "eval_count": 2}
    lines = [{"message": {"role": "assistant", **message}, "done": False}]
    lines.append(
        {
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            **counts,
        }
    )
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def ollama_call(call_id: Any, name: Any, arguments: Any) -> bytes:
    call: dict[str, Any] = {"function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        call["id"] = call_id
    return ollama({"content": "", "tool_calls": [call]})


def responses(items: list[tuple[dict[str, Any], list[dict[str, Any]]]], usage: Any = None) -> bytes:
    """A Responses API stream: each output item is its finished form and its delta events
    (given without ``type`` of their own: the item's kind says which)."""
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {"model": "m"}}]
    delta_types = {
        "reasoning": "response.reasoning_summary_text.delta",
        "message": "response.output_text.delta",
        "function_call": "response.function_call_arguments.delta",
    }
    for index, (item, deltas) in enumerate(items):
        where = {"output_index": index, "item_id": item["id"]}
        added = {**item, "arguments": ""} if item["type"] == "function_call" else item
        events.append({"type": "response.output_item.added", "output_index": index, "item": added})
        events += [{"type": delta_types[item["type"]], **where, **d} for d in deltas]
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    done = {"status": "completed", "usage": usage or {"input_tokens": 3, "output_tokens": 2}}
    events.append({"type": "response.completed", "response": done})
    return sse(*events, names=[e["type"] for e in events])


def responses_call(call_id: Any, name: Any, arguments: Any) -> bytes:
    item = {"type": "function_call", "id": "fc_1", "call_id": call_id, "name": name}
    return responses([({**item, "arguments": arguments}, [{"delta": arguments}])])


def responses_text(text: Any) -> bytes:
    content = [{"type": "output_text", "text": text, "annotations": []}]
    item = {"type": "message", "id": "msg_1", "role": "assistant", "content": content}
    return responses([(item, [{"delta": text}])])


TEXT = {
    "openai": openai_text,
    "anthropic": anthropic_text,
    "gemini": lambda text: gemini([{"text": text}]),
    "ollama": lambda text: ollama({"content": text}),
    "openai-responses": responses_text,
}
CALL = {
    "openai": openai_call,
    "anthropic": anthropic_call,
    "gemini": gemini_call,
    "ollama": ollama_call,
    "openai-responses": responses_call,
}
FACTORIES: dict[str, Callable[[httpx.AsyncClient], Lang]] = {
    "openai": lambda c: Lang.openai(api_key="k", http_client=c, max_retries=0),
    "anthropic": lambda c: Lang.anthropic(api_key="k", http_client=c, max_retries=0),
    "gemini": lambda c: Lang.gemini(api_key="k", http_client=c, max_retries=0),
    "ollama": lambda c: Lang.ollama(http_client=c, max_retries=0),
    "openai-responses": lambda c: Lang.openai(
        "o3", api="responses", api_key="k", http_client=c, max_retries=0
    ),
}


def strict_json(body: bytes) -> Any:
    """The body parsed as standard JSON: NaN and Infinity, which Python accepts, fail."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(body, parse_constant=refuse)


class Wire:
    """Answers the n-th request with the n-th body; ``sent`` holds the JSON of each request."""

    def __init__(self, name: str, bodies: Sequence[bytes | httpx.Response]) -> None:
        self.name = name
        self.bodies = list(bodies)
        self.sent: list[dict[str, Any]] = []
        self.raw: list[bytes] = []  # the bodies as sent, to check with a strict JSON parser
        self.client = httpx.AsyncClient(transport=httpx.MockTransport(self._handle))
        self.lang = FACTORIES[name](self.client)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        self.raw.append(request.content)
        self.sent.append(json.loads(request.content))
        if len(self.sent) > len(self.bodies):
            return httpx.Response(500, json={"error": {"message": "script ran out"}})
        body = self.bodies[len(self.sent) - 1]
        if isinstance(body, httpx.Response):
            return body
        content_type = CONTENT_TYPES.get(self.name, "text/event-stream")
        return httpx.Response(200, content=body, headers={"content-type": content_type})
