"""Streaming while someone watches: ``on_result`` and ``on_event`` set, against raw httpx.

Usage: ``python benchmarks/watched.py [--quick] [--json]``. Measures, each in the same run as
its raw-httpx baseline on the same local server (``server.py``): text stream decoding at
5,000 and 50,000 deltas on all four wires, tool-fragment decoding on OpenAI and Anthropic, and
one call of 80 KB arguments in 20,000 fragments (with and without ``on_result``, against raw
concatenation), with the longest event-loop stall seen during it. The callbacks read what a
progress display reads: ``on_result`` the answer or the newest call's partial arguments,
``on_event`` each event's payload. Kept out of ``run.py`` (and its smoke test): it takes a
minute.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import baselines  # noqa: E402
import httpx  # noqa: E402
import report  # noqa: E402
import subjects  # noqa: E402
import wire  # noqa: E402
import wire_calls  # noqa: E402
from harness import Row, ServerProcess, best_rate, best_seconds  # noqa: E402
from suites import _check, _higher  # noqa: E402

from aiwrapper import CallArgumentsDelta, Lang, LangResult, RunEvent, TextDelta  # noqa: E402

Raw = Callable[[httpx.AsyncClient, str, Callable[[str], None]], Awaitable[Any]]


def _sse_deltas(path: str, body: dict[str, Any], pick: Callable[[Any], list[str]]) -> Raw:
    """Raw httpx over SSE: each data line's deltas (``pick``) to the callback, then joined."""

    async def raw(client: httpx.AsyncClient, root: str, on_delta: Callable[[str], None]) -> str:
        text: list[str] = []
        async for data in baselines._data_lines(client, root + path, body):
            if data != "[DONE]":
                for delta in pick(json.loads(data)):
                    on_delta(delta)
                    text.append(delta)
        return "".join(text)

    return raw


async def _ollama(client: httpx.AsyncClient, root: str, on_delta: Callable[[str], None]) -> str:
    body = {"model": "qwen3", "messages": [{"role": "user", "content": "go"}], "stream": True}
    text: list[str] = []
    async with client.stream("POST", root + "/api/chat", json=body) as response:
        async for line in response.aiter_lines():
            if line:
                delta = json.loads(line)["message"]["content"]
                on_delta(delta)
                text.append(delta)
    return "".join(text)


_USER = [{"role": "user", "content": "go"}]
_OPENAI = _sse_deltas(
    "/v1/chat/completions",
    {"model": baselines.MODEL, "messages": _USER, "stream": True},
    lambda chunk: [c["delta"]["content"] for c in chunk["choices"] if c["delta"].get("content")],
)
_ANTHROPIC = _sse_deltas(
    "/v1/messages",
    {"model": "claude-sonnet-4-5", "max_tokens": 9, "messages": _USER, "stream": True},
    lambda e: [e["delta"]["text"]] if e.get("delta", {}).get("type") == "text_delta" else [],
)
_GEMINI = _sse_deltas(
    "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    {"contents": [{"role": "user", "parts": [{"text": "go"}]}]},
    lambda chunk: [
        p.get("text", "") for c in chunk.get("candidates", ()) for p in c["content"]["parts"]
    ],
)
TEXT_WIRES: list[tuple[str, str, Callable[[int], wire.Scenario], Raw]] = [
    ("openai", "openai-text", wire.openai_text, _OPENAI),
    ("anthropic", "anthropic", wire.anthropic_text, _ANTHROPIC),
    ("gemini", "gemini", wire.gemini_text, _GEMINI),
    ("ollama", "ollama", wire.ollama_ndjson, _ollama),
]


class Watcher:
    """The callbacks: each reads what a live display would, and counts what it saw."""

    def __init__(self) -> None:
        self.seen = 0

    def on_result(self, result: LangResult) -> None:
        calls = result.function_calls
        self.seen += len(calls[-1].arguments) if calls else len(result.answer)

    def on_event(self, event: RunEvent) -> None:
        if isinstance(event, TextDelta):
            self.seen += len(event.text)
        elif isinstance(event, CallArgumentsDelta):
            self.seen += len(event.fragment)

    def on_delta(self, delta: str) -> None:
        """The raw side's callback: each delta's text, as a display would take it."""
        self.seen += len(delta)


def _watching(kind: str) -> dict[str, Any]:
    watcher = Watcher()
    if kind == "on_result":
        return {"on_result": watcher.on_result}
    return {"on_event": watcher.on_event}


async def text_rows(ctx: Ctx, deltas: int) -> list[Row]:
    """Each wire's text stream, watched, against raw httpx with and without a callback."""
    rows = []
    for wire_name, scenario, render, raw in TEXT_WIRES:
        expected = render(deltas)
        root = ctx.server.url(scenario)
        lang = subjects.lang_for(wire_name, root, ctx.client)
        label = f"{wire_name} text {deltas:,} deltas"
        jobs = _TextJobs(lang, raw, ctx.client, root, expected.expected)
        timing = {"per_run": expected.events, "repeats": ctx.repeats}
        rates = await best_rate(jobs.bare, jobs.raw_bare, **timing)
        rows.append(Row(f"{label}, unwatched vs raw", "events/s", *rates, "-", None))
        for kind in ("on_result", "on_event"):
            rates = await best_rate(jobs.watched(kind), jobs.raw_watched, **timing)
            rows.append(_higher(f"{label}, {kind} vs raw+callback", "events/s", rates, 1.0))
            rates = await best_rate(jobs.watched(kind), jobs.raw_bare, **timing)
            rows.append(_higher(f"{label}, {kind} vs bare raw", "events/s", rates, 1.0))
    return rows


@dataclass
class Ctx:
    """The server, the client and the repetitions of one size."""

    server: ServerProcess
    client: httpx.AsyncClient
    repeats: int


@dataclass
class _TextJobs:
    lang: Lang
    raw: Raw
    client: httpx.AsyncClient
    root: str
    want: str

    async def bare(self) -> None:
        _check((await self.lang.ask("go")).answer, self.want, "unwatched")

    def watched(self, kind: str) -> Callable[[], Awaitable[None]]:
        async def job() -> None:
            _check((await self.lang.ask("go", **_watching(kind))).answer, self.want, kind)

        return job

    async def raw_bare(self) -> None:
        _check(await self.raw(self.client, self.root, _ignore), self.want, "raw")

    async def raw_watched(self) -> None:
        _check(await self.raw(self.client, self.root, Watcher().on_delta), self.want, "raw")


def _ignore(delta: str) -> None:
    return None


async def tool_rows(ctx: Ctx) -> list[Row]:
    """Tool-fragment streams (8 calls x 250 fragments), watched, against raw httpx.

    Two baselines, as for text: raw httpx handing each fragment to a callback (what a raw
    progress display does, so the comparison of like with like), and bare raw httpx.
    """
    rows = []
    cases = [
        ("openai", "openai-tools", wire.openai_tools, _openai_arguments, _openai_fragments),
        (
            "anthropic",
            "anthropic-tools",
            wire_calls.anthropic_tools,
            baselines.anthropic_tools,
            _anthropic_fragments,
        ),
    ]
    for wire_name, scenario, render, raw, raw_watched in cases:
        expected = render(8, 250)
        want = [json.loads(a) for a in json.loads(expected.expected)]
        root = ctx.server.url(scenario)
        lang = subjects.lang_for(wire_name, root, ctx.client)

        async def bare(raw: Any = raw, root: str = root, want: Any = want) -> None:
            _check([json.loads(a) for a in await raw(ctx.client, root)], want, "tools raw")

        async def watched(raw: Any = raw_watched, root: str = root, want: Any = want) -> None:
            arguments = await raw(ctx.client, root, Watcher().on_delta)
            _check([json.loads(a) for a in arguments], want, "tools raw+callback")

        for kind in ("on_result", "on_event"):

            async def ask(kind: str = kind, lang: Lang = lang, want: Any = want) -> None:
                functions = subjects.STREAM_TOOLS
                result = await lang.ask(
                    "go", functions=functions, auto_execute=False, **_watching(kind)
                )
                _check([c.arguments for c in result.function_calls], want, f"tools {kind}")

            timing = {"per_run": expected.events, "repeats": ctx.repeats, "times": 5}
            label = f"{wire_name} tool stream 8x250, {kind}"
            rates = await best_rate(ask, watched, **timing)
            rows.append(_higher(f"{label} vs raw+callback", "events/s", rates, 1.0))
            rates = await best_rate(ask, bare, **timing)
            rows.append(_higher(f"{label} vs bare raw", "events/s", rates, 1.0))
    return rows


async def _openai_arguments(client: httpx.AsyncClient, root: str) -> list[str]:
    _, calls = await baselines.openai_stream(client, root)
    return [c["arguments"] for c in calls]


async def _openai_fragments(
    client: httpx.AsyncClient, root: str, on_delta: Callable[[str], None]
) -> list[str]:
    """Raw httpx: each call's argument fragments to the callback, then joined per call."""
    body = {"model": baselines.MODEL, "messages": _USER, "stream": True}
    calls: dict[int, list[str]] = {}
    async for data in baselines._data_lines(client, root + "/v1/chat/completions", body):
        if data != "[DONE]":
            for choice in json.loads(data)["choices"]:
                for call in choice["delta"].get("tool_calls") or ():
                    fragment = (call.get("function") or {}).get("arguments") or ""
                    on_delta(fragment)
                    calls.setdefault(call["index"], []).append(fragment)
    return ["".join(calls[i]) for i in sorted(calls)]


async def _anthropic_fragments(
    client: httpx.AsyncClient, root: str, on_delta: Callable[[str], None]
) -> list[str]:
    """Raw httpx: each tool_use block's input fragments to the callback, then joined."""
    body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": _USER, "stream": True}
    inputs: dict[int, list[str]] = {}
    async for data in baselines._data_lines(client, root + "/v1/messages", body):
        event = json.loads(data)
        if event["type"] == "content_block_start":
            inputs[event["index"]] = []
        elif event["type"] == "content_block_delta":
            on_delta(event["delta"]["partial_json"])
            inputs[event["index"]].append(event["delta"]["partial_json"])
    return ["".join(inputs[i]) for i in sorted(inputs)]


async def _raw_big_call(client: httpx.AsyncClient, root: str) -> str:
    """Raw httpx: the big call's fragments collected and joined once (linear)."""
    body = {"model": baselines.MODEL, "messages": [{"role": "user", "content": "go"}]}
    pieces: list[str] = []
    async for data in baselines._data_lines(client, root + "/v1/chat/completions", body):
        if data != "[DONE]":
            for choice in json.loads(data)["choices"]:
                for call in choice["delta"].get("tool_calls") or ():
                    pieces.append(call["function"].get("arguments") or "")
    return "".join(pieces)


async def _longest_stall(job: Callable[[], Awaitable[None]]) -> float:
    """Seconds of the longest stretch ``job`` held the event loop without letting a tick run.

    Measured in this thread's CPU time: on a loaded machine the OS pauses the whole process
    for milliseconds at a time, which wall-clock time would count as a stall of the loop.
    """
    done, longest = False, 0.0

    async def ticker() -> None:
        nonlocal longest
        while not done:
            start = time.thread_time()
            await asyncio.sleep(0)
            longest = max(longest, time.thread_time() - start)

    async def run() -> None:
        nonlocal done
        try:
            await job()
        finally:
            done = True

    await asyncio.gather(ticker(), run())
    return longest


async def big_call_rows(ctx: Ctx) -> list[Row]:
    """One 80 KB call in 20,000 fragments: on_result's cost, raw joining, loop stalls."""
    client, repeats = ctx.client, ctx.repeats
    want = json.loads(wire_calls.openai_big_call().expected)
    root = ctx.server.url("openai-big-call")
    lang = subjects.lang_for("openai", root, client)
    tools = subjects.STREAM_TOOLS[:1]

    async def ask(**watching: Any) -> None:
        result = await lang.ask("go", functions=tools, auto_execute=False, **watching)
        _check(result.function_calls[0].arguments, want, "big call")

    async def watched() -> None:
        await ask(on_result=Watcher().on_result)

    async def raw() -> None:
        _check(json.loads(await _raw_big_call(client, root)), want, "big call baseline")

    with_cb, without = await best_seconds(watched, ask, repeats=repeats)
    plain, baseline = await best_seconds(ask, raw, repeats=repeats)
    stall = min([await _longest_stall(watched) for _ in range(repeats)])
    label = f"80 KB call in {wire_calls.BIG_CALL_FRAGMENTS:,} fragments"
    return [
        Row(
            f"{label}, on_result vs none",
            "s",
            with_cb,
            without,
            "<= 1.5x",
            with_cb <= 1.5 * without,
        ),
        Row(f"{label}, none vs raw join", "s", plain, baseline, "<= 1.2x", plain <= 1.2 * baseline),
        Row(f"{label}, longest loop stall", "ms", stall * 1000, 5.0, "< 5 ms", stall < 0.005),
    ]


async def _measure(quick: bool) -> list[Row]:
    repeats = 2 if quick else 5
    rows: list[Row] = []
    async with httpx.AsyncClient() as client:
        for deltas in (500, 5_000) if quick else (5_000, 50_000):
            with ServerProcess(deltas=deltas, calls=8, fragments=250) as server:
                ctx = Ctx(server, client, repeats)
                rows += await text_rows(ctx, deltas)
                if deltas == 5_000:
                    rows += await tool_rows(ctx)
                    rows += await big_call_rows(ctx)
    return rows


def main() -> int:
    return report.run_script(__doc__.splitlines()[0], "watched.json", _measure)


if __name__ == "__main__":
    sys.exit(main())
