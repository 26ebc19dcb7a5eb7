"""Hand-written tool loops on raw httpx, one per wire: what a user writes without aiwrapper.

Each loop sends the prompt with the tools' hand-written schemas, reads the answer (the JSON
body, or each streamed event with one ``json.loads``), runs every call's async lookup inline
(one after another, in the loop's own task: no task group, no checks), appends the results in
the wire's shape and sends the conversation again, returning the final text. That is the
outside bench of issue 32, the floor aiwrapper's loop is measured against.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from baselines import _assistant_turn, _data_lines, openai_stream
from wire_loops import LOOP_TOOLS

__all__ = ["LOOPS", "PROMPT", "lookup_for"]

PROMPT = "What do you know about Lisbon?"
_DESCRIPTION = "Look up one fact about a city."
_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "The city's name."}},
    "required": ["city"],
}


def lookup_for(index: int) -> Callable[..., Awaitable[dict[str, Any]]]:
    """The async lookup behind tool ``index`` (the same body on both sides)."""

    async def lookup(city: str) -> dict[str, Any]:
        return {"city": city, "fact": index, "source": "bench"}

    return lookup


FUNCTIONS = {name: lookup_for(i) for i, name in enumerate(LOOP_TOOLS)}


async def _run(name: str, arguments: dict[str, Any]) -> str:
    return json.dumps(await FUNCTIONS[name](**arguments))


async def _post(client: httpx.AsyncClient, url: str, body: dict[str, Any], **kw: Any) -> Any:
    reply = await client.post(url, json=body, **kw)
    reply.raise_for_status()
    return reply.json()


# OpenAI Chat Completions

_CHAT_TOOLS = [
    {
        "type": "function",
        "function": {"name": name, "description": _DESCRIPTION, "parameters": _SCHEMA},
    }
    for name in LOOP_TOOLS
]


async def openai(client: httpx.AsyncClient, root: str, stream: bool) -> str:
    url = root + "/v1/chat/completions"
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    body = {"model": "gpt-4o-mini", "messages": messages, "tools": _CHAT_TOOLS}
    if stream:
        body["stream"] = True
        _, calls = await openai_stream(client, root, body)
        messages.append(_assistant_turn(calls))
        calls = [{"id": c["id"], "function": c} for c in calls]
    else:
        message = (await _post(client, url, body))["choices"][0]["message"]
        messages.append(message)
        calls = message["tool_calls"]
    for call in calls:
        function = call["function"]
        content = await _run(function["name"], json.loads(function["arguments"]))
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
    if stream:
        return (await openai_stream(client, root, body))[0]
    return (await _post(client, url, body))["choices"][0]["message"]["content"]  # type: ignore[no-any-return]


# OpenAI Responses API

_RESPONSES_TOOLS = [
    {"type": "function", "name": name, "description": _DESCRIPTION, "parameters": _SCHEMA}
    for name in LOOP_TOOLS
]


async def _responses_round(
    client: httpx.AsyncClient, url: str, body: dict[str, Any], stream: bool
) -> tuple[list[Any], str]:
    """The output items and text of one round."""
    if not stream:
        output = (await _post(client, url, body))["output"]
        text = [c["text"] for i in output if i["type"] == "message" for c in i["content"]]
        return output, "".join(text)
    items, text = [], []
    async for data in _data_lines(client, url, body):
        event = json.loads(data)
        kind = event["type"]
        if kind == "response.output_text.delta":
            text.append(event["delta"])
        elif kind == "response.output_item.done" and event["item"]["type"] == "function_call":
            items.append(event["item"])
    return items, "".join(text)


async def responses(client: httpx.AsyncClient, root: str, stream: bool) -> str:
    url = root + "/v1/responses"
    items: list[Any] = [{"role": "user", "content": PROMPT}]
    body = {"model": "gpt-5", "input": items, "tools": _RESPONSES_TOOLS, "stream": stream}
    output, _ = await _responses_round(client, url, body, stream)
    items += output
    for item in output:
        if item["type"] == "function_call":
            content = await _run(item["name"], json.loads(item["arguments"]))
            items.append(
                {"type": "function_call_output", "call_id": item["call_id"], "output": content}
            )
    return (await _responses_round(client, url, body, stream))[1]


# Anthropic Messages

_ANTHROPIC_TOOLS = [
    {"name": name, "description": _DESCRIPTION, "input_schema": _SCHEMA} for name in LOOP_TOOLS
]
_ANTHROPIC_HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}


async def _anthropic_round(
    client: httpx.AsyncClient, url: str, body: dict[str, Any], stream: bool
) -> list[Any]:
    """The content blocks of one round."""
    if not stream:
        return (await _post(client, url, body, headers=_ANTHROPIC_HEADERS))["content"]  # type: ignore[no-any-return]
    blocks: list[dict[str, Any]] = []
    pieces: list[list[str]] = []
    async for data in _data_lines(client, url, body):
        event = json.loads(data)
        kind = event["type"]
        if kind == "content_block_start":
            blocks.append(event["content_block"])
            pieces.append([])
        elif kind == "content_block_delta":
            delta = event["delta"]
            pieces[event["index"]].append(delta.get("text") or delta.get("partial_json", ""))
    for block, parts in zip(blocks, pieces, strict=True):
        if block["type"] == "text":
            block["text"] = "".join(parts)
        elif block["type"] == "tool_use":
            block["input"] = json.loads("".join(parts) or "{}")
    return blocks


async def anthropic(client: httpx.AsyncClient, root: str, stream: bool) -> str:
    url = root + "/v1/messages"
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": messages,
        "tools": _ANTHROPIC_TOOLS,
        "stream": stream,
    }
    content = await _anthropic_round(client, url, body, stream)
    messages.append({"role": "assistant", "content": content})
    results = [
        {
            "type": "tool_result",
            "tool_use_id": b["id"],
            "content": await _run(b["name"], b["input"]),
        }
        for b in content
        if b["type"] == "tool_use"
    ]
    messages.append({"role": "user", "content": results})
    content = await _anthropic_round(client, url, body, stream)
    return "".join(b["text"] for b in content if b["type"] == "text")


# Gemini

_GEMINI_TOOLS = [
    {
        "functionDeclarations": [
            {"name": name, "description": _DESCRIPTION, "parameters": _SCHEMA}
            for name in LOOP_TOOLS
        ]
    }
]


async def _gemini_round(
    client: httpx.AsyncClient, root: str, body: dict[str, Any], stream: bool
) -> list[Any]:
    """The parts of one round's candidate."""
    model = root + "/v1beta/models/gemini-2.5-flash"
    if not stream:
        data = await _post(client, model + ":generateContent", body)
        return data["candidates"][0]["content"]["parts"]  # type: ignore[no-any-return]
    parts: list[Any] = []
    async for data in _data_lines(client, model + ":streamGenerateContent?alt=sse", body):
        for candidate in json.loads(data).get("candidates", ()):
            parts += candidate["content"]["parts"]
    return parts


async def gemini(client: httpx.AsyncClient, root: str, stream: bool) -> str:
    contents: list[Any] = [{"role": "user", "parts": [{"text": PROMPT}]}]
    body = {"contents": contents, "tools": _GEMINI_TOOLS}
    parts = await _gemini_round(client, root, body, stream)
    contents.append({"role": "model", "parts": parts})
    results = []
    for part in parts:
        if "functionCall" in part:
            call = part["functionCall"]
            value = await FUNCTIONS[call["name"]](**call["args"])
            results.append({"functionResponse": {"name": call["name"], "response": value}})
    contents.append({"role": "user", "parts": results})
    parts = await _gemini_round(client, root, body, stream)
    return "".join(p.get("text", "") for p in parts)


# Ollama


async def _ollama_round(
    client: httpx.AsyncClient, url: str, body: dict[str, Any], stream: bool
) -> dict[str, Any]:
    """The assistant message of one round."""
    if not stream:
        return (await _post(client, url, body))["message"]  # type: ignore[no-any-return]
    text, calls = [], []
    async with client.stream("POST", url, json=body) as reply:
        reply.raise_for_status()
        async for line in reply.aiter_lines():
            if line:
                message = json.loads(line)["message"]
                text.append(message.get("content", ""))
                calls += message.get("tool_calls", ())
    return {"role": "assistant", "content": "".join(text), "tool_calls": calls}


async def ollama(client: httpx.AsyncClient, root: str, stream: bool) -> str:
    url = root + "/api/chat"
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    body = {"model": "qwen3", "messages": messages, "tools": _CHAT_TOOLS, "stream": stream}
    message = await _ollama_round(client, url, body, stream)
    messages.append(message)
    for call in message.get("tool_calls", ()):
        function = call["function"]
        content = await _run(function["name"], function["arguments"])
        messages.append({"role": "tool", "tool_name": function["name"], "content": content})
    return (await _ollama_round(client, url, body, stream))["content"]  # type: ignore[no-any-return]


LOOPS: dict[str, Callable[[httpx.AsyncClient, str, bool], Awaitable[str]]] = {
    "openai": openai,
    "openai-responses": responses,
    "anthropic": anthropic,
    "gemini": gemini,
    "ollama": ollama,
}
