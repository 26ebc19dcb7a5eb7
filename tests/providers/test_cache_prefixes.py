"""Byte-stable prefixes: every round of a tool loop resends earlier rounds as the same bytes.

Every provider's prompt cache (Anthropic's breakpoints, OpenAI's and Gemini's implicit
caching, a local server's KV cache) hits only when a request starts with the bytes of the one
before it. Each test runs a 3-round tool loop over ``httpx.MockTransport`` and checks, on the
raw request bodies, that the tools, the system prompt and every earlier message of a request
are encoded to the very same bytes in each later request (Anthropic's moving breakpoint aside).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import httpx
import pytest

from aiwrapper import Lang, tool

Reply = Callable[[int], dict[str, Any]]  # round index -> the reply body
ARGS = ({"city": "Oslo", "hours": 1.5, "detail": {"z": 1, "a": [0.1, 1e-7]}}, {"city": "Rome"})


@tool
def get_weather(city: str, hours: float = 0.0, detail: dict[str, Any] | None = None) -> str:
    """Current weather for a city."""
    return f"{city}: 4.0C, wind 3.25 m/s, «calm» ✓"


def openai_reply(index: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": "Done."}
    finish = "stop"
    if index < 2:
        arguments = json.dumps(ARGS[index], indent=1)  # the model's own spacing, kept
        call = {"id": f"call_{index}", "type": "function"}
        call["function"] = {"name": "get_weather", "arguments": arguments}
        message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return {"id": "c", "object": "chat.completion", "choices": [choice], "usage": usage}


def responses_reply(index: int) -> dict[str, Any]:
    if index < 2:
        item: dict[str, Any] = {"type": "function_call", "id": f"fc_{index}"}
        item |= {"call_id": f"call_{index}", "name": "get_weather", "status": "completed"}
        item["arguments"] = json.dumps(ARGS[index], indent=1)
    else:
        text = {"type": "output_text", "text": "Done.", "annotations": []}
        item = {"type": "message", "id": "msg_2", "role": "assistant", "status": "completed"}
        item["content"] = [text]
    usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    body = {"id": f"resp_{index}", "object": "response", "status": "completed"}
    return body | {"model": "gpt-4.1", "output": [item], "usage": usage}


def anthropic_reply(index: int) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": "Done."}
    if index < 2:
        block = {"type": "tool_use", "id": f"toolu_{index}", "name": "get_weather"}
        block["input"] = ARGS[index]
    body = {"id": f"msg_{index}", "type": "message", "role": "assistant", "model": "m"}
    stop = "tool_use" if index < 2 else "end_turn"
    usage = {"input_tokens": 10, "output_tokens": 5}
    return body | {"content": [block], "stop_reason": stop, "usage": usage}


def gemini_reply(index: int) -> dict[str, Any]:
    part: dict[str, Any] = {"text": "Done."}
    if index < 2:
        part = {"functionCall": {"name": "get_weather", "args": ARGS[index]}}
    candidate = {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
    return {"candidates": [candidate], "usageMetadata": usage}


def ollama_reply(index: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": "Done."}
    if index < 2:
        call = {"function": {"name": "get_weather", "arguments": ARGS[index]}}
        message = {"role": "assistant", "content": "", "tool_calls": [call]}
    return {
        "model": "qwen3",
        "created_at": "2026-01-01T00:00:00Z",
        "message": message,
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 10,
        "eval_count": 5,
    }


def make(wire: str, client: httpx.AsyncClient) -> Lang:
    if wire == "chat":
        return Lang.openai("gpt-4.1", api_key="k", api="chat", http_client=client)
    if wire == "responses":
        return Lang.openai("gpt-4.1", api_key="k", api="responses", http_client=client)
    if wire == "anthropic":
        return Lang.anthropic("claude-sonnet-4-5", api_key="k", http_client=client)
    if wire == "gemini":
        return Lang.gemini("gemini-2.5-flash", api_key="k", http_client=client)
    return Lang.ollama("qwen3", base_url="http://localhost:11434", http_client=client)


REPLIES: dict[str, Reply] = {
    "chat": openai_reply,
    "responses": responses_reply,
    "anthropic": anthropic_reply,
    "gemini": gemini_reply,
    "ollama": ollama_reply,
}
# The body's key holding the conversation; the keys before it hold tools and system.
CONVERSATION = {
    "chat": "messages",
    "responses": "input",
    "anthropic": "messages",
    "gemini": "contents",
    "ollama": "messages",
}


def sse(events: list[tuple[str | None, dict[str, Any] | str]]) -> bytes:
    lines = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        lines.append((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
    return "".join(lines).encode()


def streamed_openai(body: dict[str, Any]) -> bytes:
    """A chat completion as chunks, the arguments cut in two fragments."""
    message, finish = body["choices"][0]["message"], body["choices"][0]["finish_reason"]
    chunks: list[dict[str, Any]] = []
    for call in message.get("tool_calls") or ():
        arguments = call["function"]["arguments"]
        half = len(arguments) // 2
        for index, piece in enumerate((arguments[:half], arguments[half:])):
            delta_call: dict[str, Any] = {"index": 0, "function": {"arguments": piece}}
            if index == 0:
                delta_call |= {"id": call["id"], "type": "function"}
                delta_call["function"]["name"] = call["function"]["name"]
            chunks.append({"tool_calls": [delta_call]})
    if message.get("content"):
        chunks.append({"content": message["content"]})
    frames = [{"id": "c", "choices": [{"index": 0, "delta": d}]} for d in chunks]
    frames.append({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    frames.append({"id": "c", "choices": [], "usage": body["usage"]})
    return sse([(None, frame) for frame in frames] + [(None, "[DONE]")])


def streamed_anthropic(body: dict[str, Any]) -> bytes:
    """A message as its event sequence, tool input cut in two JSON fragments."""
    start = {**body, "content": [], "stop_reason": None}
    events: list[tuple[str | None, dict[str, Any] | str]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    for index, block in enumerate(body["content"]):
        opening = {**block, "input": {}} if block["type"] == "tool_use" else {**block, "text": ""}
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
        )
        if block["type"] == "tool_use":
            text = json.dumps(block["input"])
            deltas = [
                {"type": "input_json_delta", "partial_json": text[:5]},
                {"type": "input_json_delta", "partial_json": text[5:]},
            ]
        else:
            deltas = [{"type": "text_delta", "text": block["text"]}]
        for delta in deltas:
            events.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    stop = {"type": "message_delta", "delta": {"stop_reason": body["stop_reason"]}}
    events += [("message_delta", stop | {"usage": {"output_tokens": 5}})]
    return sse([*events, ("message_stop", {"type": "message_stop"})])


STREAMED = {"chat": streamed_openai, "anthropic": streamed_anthropic}


async def run_loop(wire: str, *, stream: bool = False, **options: Any) -> list[bytes]:
    """The raw bodies of a 3-round tool loop on ``wire`` (two tool turns, then the answer)."""
    sent: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.content)
        reply = REPLIES[wire](len(sent) - 1)
        if stream:
            headers = {"content-type": "text/event-stream"}
            return httpx.Response(200, content=STREAMED[wire](reply), headers=headers)
        return httpx.Response(200, json=reply)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        lang = make(wire, client)
        result = await lang.ask(
            "Oslo, then Rome?",
            functions=[get_weather],
            system_prompt="Be brief. Temperatures in °C.",
            stream=stream,
            temperature=0.5,
            **options,
        )
    assert result.answer == "Done."
    assert len(sent) == 3
    return sent


_DECODER = json.JSONDecoder()
# An Anthropic breakpoint as the transport writes it (compact JSON): it moves by design.
_BREAKPOINT = re.compile(r',"cache_control":\{[^{}]*\}')


def raw_values(text: str, start: int, close: str) -> tuple[list[tuple[str, str]], int]:
    """The raw text of each member of the object or array opening before ``start``."""
    members: list[tuple[str, str]] = []
    pos = start
    while text[pos] != close:
        name = ""
        if close == "}":
            name, pos = _DECODER.raw_decode(text, pos)
            pos += 1  # the colon (compact JSON: no spaces)
        _, end = _DECODER.raw_decode(text, pos)
        members.append((name, text[pos:end]))
        pos = end + (text[end] == ",")
    return members, pos


def prefix_items(wire: str, raw: bytes) -> tuple[list[tuple[str, str]], list[str]]:
    """The body's fields other than the conversation (in order) and each conversation item,
    exactly as they were sent (Anthropic's breakpoints cut out)."""
    text = raw.decode()
    if wire == "anthropic":
        text = _BREAKPOINT.sub("", text)
    fields, _ = raw_values(text, 1, "}")
    key = CONVERSATION[wire]
    conversation = dict(fields)[key]
    items, _ = raw_values(conversation, 1, "]")
    return [field for field in fields if field[0] != key], [item for _, item in items]


@pytest.mark.anyio
@pytest.mark.parametrize("wire", sorted(REPLIES))
async def test_each_round_resends_the_earlier_rounds_as_the_same_bytes(wire: str) -> None:
    sent = await run_loop(wire)
    rounds = [prefix_items(wire, raw) for raw in sent]
    for (fields, items), (next_fields, next_items) in pairwise(rounds):
        assert next_fields == fields  # tools, system, sampling: the same bytes, same order
        assert next_items[: len(items)] == items  # every earlier message, byte for byte
        assert len(next_items) > len(items)


@pytest.mark.anyio
@pytest.mark.parametrize("wire", ["chat", "gemini", "ollama", "responses"])
async def test_each_raw_body_starts_with_the_previous_one_up_to_its_last_message(
    wire: str,
) -> None:
    sent = [raw.decode() for raw in await run_loop(wire)]
    key = f'"{CONVERSATION[wire]}":['
    for text, later in pairwise(sent):
        _, end = raw_values(text, text.index(key) + len(key), "]")
        assert later.startswith(text[:end])  # the raw text up to the end of its last item
        assert later[end] == ","  # and the next request goes on with more items


@pytest.mark.anyio
@pytest.mark.parametrize("wire", sorted(STREAMED))
async def test_streamed_turns_are_resent_as_the_same_bytes_too(wire: str) -> None:
    sent = await run_loop(wire, stream=True)
    rounds = [prefix_items(wire, raw) for raw in sent]
    for (fields, items), (next_fields, next_items) in pairwise(rounds):
        assert next_fields == fields
        assert next_items[: len(items)] == items
    assert b'"stream":true' in sent[0]
