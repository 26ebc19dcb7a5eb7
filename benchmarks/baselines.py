"""The raw-httpx baselines: the simplest correct code a user would write without aiwrapper.

Each reads the whole body with ``client.stream(...)`` + ``aiter_lines()`` and one
``json.loads`` per data line, assembles what the aiwrapper side assembles (the text, or each
call's arguments), and returns it so the benchmark can check it. Request bodies are
hand-written dicts.

The tool loop runs its calls the way a correct asyncio program must, and the way aiwrapper
does: concurrently, and a sync tool in a worker thread (``asyncio.to_thread``), since a sync
function run inline blocks the event loop and every other request in flight. Run inline,
the baseline would skip the thread hand-off that aiwrapper is required to make.
``on_anyio=True`` runs them with anyio's primitives instead (a task group, and
``anyio.to_thread``), as aiwrapper must to behave the same on trio: the difference between
the two baselines is what those primitives cost, not aiwrapper.
"""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any

import anyio
import anyio.to_thread
import httpx
import wire

__all__ = [
    "LOOP_ASYNC_FUNCTIONS",
    "LOOP_FUNCTIONS",
    "anthropic_text",
    "anthropic_tools",
    "gemini_text",
    "ollama_text",
    "openai_stream",
    "openai_tiny",
    "openai_tool_loop",
]

MODEL = "gpt-4o-mini"
_USER = [{"role": "user", "content": "go"}]


def _plus(x: int) -> int:
    return x + 1


async def _plus_async(x: int) -> int:
    return x + 1


LOOP_FUNCTIONS = dict.fromkeys(wire.TOOL_NAMES[: wire.LOOP_CALLS], _plus)
LOOP_ASYNC_FUNCTIONS = dict.fromkeys(wire.TOOL_NAMES[: wire.LOOP_CALLS], _plus_async)
_LOOP_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": "Add one.",
            "parameters": {
                "type": "object",
                "properties": {"x": {"type": "integer"}},
                "required": ["x"],
            },
        },
    }
    for name in LOOP_FUNCTIONS
]


async def _data_lines(client: httpx.AsyncClient, url: str, body: dict[str, Any]):
    async with client.stream("POST", url, json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                yield line[6:]


def _add_calls(calls: dict[int, dict[str, Any]], tool_calls: list[dict[str, Any]]) -> None:
    for tc in tool_calls:
        call = calls.setdefault(tc["index"], {"id": None, "name": None, "arguments": ""})
        call["id"] = call["id"] or tc.get("id")
        function = tc.get("function") or {}
        call["name"] = call["name"] or function.get("name")
        call["arguments"] += function.get("arguments") or ""


async def openai_stream(
    client: httpx.AsyncClient, root: str, body: dict[str, Any] | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """A streamed Chat Completion: its text and its calls (id, name, arguments text)."""
    body = body or {"model": MODEL, "messages": _USER, "stream": True}
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    async for data in _data_lines(client, root + "/v1/chat/completions", body):
        if data == "[DONE]":
            continue
        for choice in json.loads(data)["choices"]:
            delta = choice["delta"]
            if delta.get("content"):
                text.append(delta["content"])
            if delta.get("tool_calls"):
                _add_calls(calls, delta["tool_calls"])
    return "".join(text), [calls[i] for i in sorted(calls)]


async def anthropic_text(client: httpx.AsyncClient, root: str) -> str:
    """A streamed Anthropic message's text."""
    body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": _USER, "stream": True}
    text: list[str] = []
    async for data in _data_lines(client, root + "/v1/messages", body):
        event = json.loads(data)
        if event["type"] == "content_block_delta" and event["delta"]["type"] == "text_delta":
            text.append(event["delta"]["text"])
    return "".join(text)


async def anthropic_tools(client: httpx.AsyncClient, root: str) -> list[str]:
    """A streamed Anthropic message's tool_use inputs, as JSON text per block."""
    body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": _USER, "stream": True}
    inputs: dict[int, list[str]] = {}
    async for data in _data_lines(client, root + "/v1/messages", body):
        event = json.loads(data)
        if event["type"] == "content_block_start":
            inputs[event["index"]] = []
        elif event["type"] == "content_block_delta":
            inputs[event["index"]].append(event["delta"]["partial_json"])
    return ["".join(inputs[i]) for i in sorted(inputs)]


async def gemini_text(client: httpx.AsyncClient, root: str) -> str:
    """A streamed Gemini answer's text."""
    url = root + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    body = {"contents": [{"role": "user", "parts": [{"text": "go"}]}]}
    text: list[str] = []
    async for data in _data_lines(client, url, body):
        for candidate in json.loads(data).get("candidates", ()):
            text += [part.get("text", "") for part in candidate["content"]["parts"]]
    return "".join(text)


async def ollama_text(client: httpx.AsyncClient, root: str) -> str:
    """A streamed Ollama ``/api/chat`` answer's text (NDJSON)."""
    body = {"model": "qwen3", "messages": _USER, "stream": True}
    text: list[str] = []
    async with client.stream("POST", root + "/api/chat", json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if line:
                text.append(json.loads(line)["message"]["content"])
    return "".join(text)


async def openai_tiny(client: httpx.AsyncClient, root: str) -> str:
    """A non-streamed Chat Completion's text."""
    body = {"model": MODEL, "messages": _USER}
    response = await client.post(root + "/v1/chat/completions", json=body)
    response.raise_for_status()
    return response.json()["choices"][0]["message"]["content"]


def _assistant_turn(calls: list[dict[str, Any]]) -> dict[str, Any]:
    tool_calls = [
        {
            "id": call["id"],
            "type": "function",
            "function": {"name": call["name"], "arguments": call["arguments"]},
        }
        for call in calls
    ]
    return {"role": "assistant", "content": None, "tool_calls": tool_calls}


async def _tool_result(
    call: dict[str, Any], *, sync: bool, on_anyio: bool = False
) -> dict[str, Any]:
    arguments = json.loads(call["arguments"])
    if sync and on_anyio:
        function = functools.partial(LOOP_FUNCTIONS[call["name"]], **arguments)
        value = await anyio.to_thread.run_sync(function)
    elif sync:  # off the event loop, as every sync function in an async program must be
        value = await asyncio.to_thread(LOOP_FUNCTIONS[call["name"]], **arguments)
    else:
        value = await LOOP_ASYNC_FUNCTIONS[call["name"]](**arguments)
    return {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(value)}


async def openai_tool_loop(
    client: httpx.AsyncClient, root: str, *, sync: bool = True, on_anyio: bool = False
) -> str:
    """Prompt, run the calls of the first answer concurrently, send the results; the text.

    ``sync``: the tools are sync functions (run in worker threads), else coroutines.
    ``on_anyio``: run them in an anyio task group (sync ones with ``anyio.to_thread``), not
    with ``asyncio.gather`` (and ``asyncio.to_thread``).
    """
    messages: list[dict[str, Any]] = list(_USER)
    body = {"model": MODEL, "messages": messages, "tools": _LOOP_TOOLS, "stream": True}
    _, calls = await openai_stream(client, root, body)
    messages.append(_assistant_turn(calls))
    if on_anyio:
        messages += await _results_on_anyio(calls, sync=sync)
    else:
        messages += await asyncio.gather(*(_tool_result(call, sync=sync) for call in calls))
    text, _ = await openai_stream(client, root, body)
    return text


async def _results_on_anyio(calls: list[dict[str, Any]], *, sync: bool) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = [{}] * len(calls)

    async def one(i: int) -> None:
        results[i] = await _tool_result(calls[i], sync=sync, on_anyio=True)

    async with anyio.create_task_group() as group:
        for i in range(len(calls)):
            group.start_soon(one, i)
    return results
