"""Raw httpx readers of the variant streams: what a careful user writes without aiwrapper.

Each reads the body with ``client.stream(...)`` and ``aiter_lines()`` (which takes LF, CRLF
and CR line ends), takes every ``data:`` line (``data:`` with or without the space: JSON
allows white space before a value) and calls ``json.loads`` on it, skips comments and keep-alive
events by what they are, and reads the text or the argument fragment out of each event. It
returns what it assembled, for the benchmark to check: the text, or each call's arguments
parsed. Multi-line ``data:`` fields are not joined: none of the variants writes one.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx

__all__ = ["RAW"]

_USER = [{"role": "user", "content": "go"}]
_REQUESTS: dict[str, tuple[str, dict[str, Any]]] = {
    "openai": (
        "/v1/chat/completions",
        {"model": "gpt-4o-mini", "messages": _USER, "stream": True},
    ),
    "anthropic": (
        "/v1/messages",
        {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": _USER, "stream": True},
    ),
    "gemini": (
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        {"contents": [{"role": "user", "parts": [{"text": "go"}]}]},
    ),
    "ollama": ("/api/chat", {"model": "qwen3", "messages": _USER, "stream": True}),
    "openai-responses": ("/v1/responses", {"model": "gpt-5", "input": "go", "stream": True}),
}


async def _events(client: httpx.AsyncClient, root: str, wire: str) -> AsyncIterator[Any]:
    """Each event of the stream, parsed: ``data:`` lines, or NDJSON lines for Ollama."""
    path, body = _REQUESTS[wire]
    async with client.stream("POST", root + path, json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if wire == "ollama":
                if line.strip():
                    yield json.loads(line)
            elif line.startswith("data:"):
                data = line[5:]
                if data.strip() != "[DONE]":
                    yield json.loads(data)


async def _openai_text(client: httpx.AsyncClient, root: str) -> str:
    text: list[str] = []
    async for chunk in _events(client, root, "openai"):
        for choice in chunk["choices"]:
            content = choice["delta"].get("content")
            if content:
                text.append(content)
    return "".join(text)


async def _anthropic_text(client: httpx.AsyncClient, root: str) -> str:
    text: list[str] = []
    async for event in _events(client, root, "anthropic"):
        if event["type"] == "content_block_delta" and event["delta"]["type"] == "text_delta":
            text.append(event["delta"]["text"])
    return "".join(text)


async def _gemini_text(client: httpx.AsyncClient, root: str) -> str:
    text: list[str] = []
    async for chunk in _events(client, root, "gemini"):
        for candidate in chunk.get("candidates", ()):
            text += [part.get("text", "") for part in candidate["content"]["parts"]]
    return "".join(text)


async def _ollama_text(client: httpx.AsyncClient, root: str) -> str:
    text: list[str] = []
    async for line in _events(client, root, "ollama"):
        text.append(line["message"]["content"])
    return "".join(text)


async def _responses_text(client: httpx.AsyncClient, root: str) -> str:
    text: list[str] = []
    async for event in _events(client, root, "openai-responses"):
        if event["type"] == "response.output_text.delta":
            text.append(event["delta"])
    return "".join(text)


def _parsed(calls: dict[Any, list[str]]) -> list[Any]:
    return [json.loads("".join(pieces)) for pieces in calls.values()]


async def _openai_tools(client: httpx.AsyncClient, root: str) -> list[Any]:
    calls: dict[int, list[str]] = {}
    async for chunk in _events(client, root, "openai"):
        for choice in chunk["choices"]:
            for call in choice["delta"].get("tool_calls") or ():
                fragment = call["function"].get("arguments")
                calls.setdefault(call["index"], []).append(fragment or "")
    return _parsed(dict(sorted(calls.items())))


async def _anthropic_tools(client: httpx.AsyncClient, root: str) -> list[Any]:
    calls: dict[int, list[str]] = {}
    async for event in _events(client, root, "anthropic"):
        kind = event["type"]
        if kind == "content_block_start" and event["content_block"]["type"] == "tool_use":
            calls[event["index"]] = []
        elif kind == "content_block_delta" and event["delta"]["type"] == "input_json_delta":
            calls[event["index"]].append(event["delta"]["partial_json"])
    return _parsed(calls)


async def _responses_tools(client: httpx.AsyncClient, root: str) -> list[Any]:
    calls: dict[str, list[str]] = {}
    async for event in _events(client, root, "openai-responses"):
        kind = event["type"]
        if kind == "response.output_item.added" and event["item"]["type"] == "function_call":
            calls[event["item"]["id"]] = []
        elif kind == "response.function_call_arguments.delta":
            calls[event["item_id"]].append(event["delta"])
    return _parsed(calls)


RAW: dict[tuple[str, str], Callable[[httpx.AsyncClient, str], Awaitable[Any]]] = {
    ("openai", "text"): _openai_text,
    ("openai", "tools"): _openai_tools,
    ("anthropic", "text"): _anthropic_text,
    ("anthropic", "tools"): _anthropic_tools,
    ("gemini", "text"): _gemini_text,
    ("ollama", "text"): _ollama_text,
    ("openai-responses", "text"): _responses_text,
    ("openai-responses", "tools"): _responses_tools,
}
