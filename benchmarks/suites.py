"""The in-process benchmarks: stream decoding, the tool loop, small requests, reuse.

Each suite pairs an aiwrapper job with its raw-httpx baseline on the same server and the same
kind of client, checks that both assembled the right answer, and returns table rows.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import baselines
import httpx
import subjects
import wire
from harness import Row, ServerProcess, best_rate

__all__ = ["Config", "Context", "connection_rows", "loop_rows", "stream_rows", "tiny_rows"]


@dataclass(frozen=True, slots=True)
class Config:
    """Sizes and repetitions of one run (full or ``--quick``)."""

    deltas: int
    calls: int
    fragments: int
    repeats: int
    tool_stream_times: int
    loops: int
    small_requests: int
    reused_requests: int
    probe_runs: int


@dataclass(slots=True)
class Context:
    """The server, the shared client, and the run's configuration."""

    server: ServerProcess
    client: httpx.AsyncClient
    config: Config


class WrongResultError(RuntimeError):
    """A benchmark job assembled something other than the pre-rendered answer."""


def _check(got: object, want: object, what: str) -> None:
    if got != want:
        raise WrongResultError(f"{what}: assembled a wrong result ({str(got)[:80]!r}...)")


def _higher(metric: str, unit: str, rates: tuple[float, float], floor: float) -> Row:
    ratio = rates[0] / rates[1]
    return Row(metric, unit, rates[0], rates[1], f">= {floor:.1f}x", ratio >= floor)


async def _text_jobs(ctx: Context, wire_name: str, scenario: str, want: str):
    root = ctx.server.url(scenario)
    lang = subjects.lang_for(wire_name, root, ctx.client)
    raw: Callable[[httpx.AsyncClient, str], Awaitable[Any]] = {
        "openai": lambda c, r: _first(baselines.openai_stream(c, r)),
        "anthropic": baselines.anthropic_text,
        "gemini": baselines.gemini_text,
        "ollama": baselines.ollama_text,
    }[wire_name]

    async def ask() -> None:
        _check((await lang.ask("go")).answer, want, f"{wire_name} Lang.ask")

    async def send() -> None:
        await subjects.model_send(lang)

    async def baseline() -> None:
        _check(await raw(ctx.client, root), want, f"{wire_name} baseline")

    return ask, send, baseline


async def _first(pair: Awaitable[tuple[str, Any]]) -> str:
    return (await pair)[0]


async def stream_rows(ctx: Context) -> list[Row]:
    """Events/s of the 20,000-delta text stream in each wire format, and the tool stream."""
    rows: list[Row] = []
    wires = [
        ("openai", "openai-text", wire.openai_text),
        ("anthropic", "anthropic", wire.anthropic_text),
        ("gemini", "gemini", wire.gemini_text),
        ("ollama", "ollama", wire.ollama_ndjson),
    ]
    for wire_name, scenario, render in wires:
        expected = render(ctx.config.deltas)
        ask, send, baseline = await _text_jobs(ctx, wire_name, scenario, expected.expected)
        repeats = ctx.config.repeats
        rates = await best_rate(ask, baseline, per_run=expected.events, repeats=repeats)
        rows.append(_higher(f"{wire_name} text stream, Lang.ask", "events/s", rates, 1.0))
        rates = await best_rate(send, baseline, per_run=expected.events, repeats=repeats)
        rows.append(_higher(f"{wire_name} text stream, HttpModel.send", "events/s", rates, 1.0))
        if wire_name == "openai":
            rows += await _tool_stream_rows(ctx)
    return rows


async def _tool_stream_rows(ctx: Context) -> list[Row]:
    config = ctx.config
    scenario = wire.openai_tools(config.calls, config.fragments)
    want = [json.loads(arguments) for arguments in json.loads(scenario.expected)]
    root = ctx.server.url("openai-tools")
    lang = subjects.lang_for("openai", root, ctx.client)
    functions = subjects.STREAM_TOOLS

    async def ask() -> None:
        result = await lang.ask("go", functions=functions, auto_execute=False)
        _check([call.arguments for call in result.function_calls], want, "tool stream Lang.ask")

    async def send() -> None:
        await subjects.model_send(lang, functions)

    async def baseline() -> None:
        _, calls = await baselines.openai_stream(ctx.client, root)
        _check([json.loads(c["arguments"]) for c in calls], want, "tool stream baseline")

    label = f"openai tool stream {config.calls}x{config.fragments}"
    timing = {
        "per_run": scenario.events,
        "repeats": config.repeats,
        "times": config.tool_stream_times,
    }
    rows = [
        _higher(f"{label}, Lang.ask", "events/s", await best_rate(ask, baseline, **timing), 1.0)
    ]
    rates = await best_rate(send, baseline, **timing)
    rows.append(_higher(f"{label}, HttpModel.send", "events/s", rates, 1.0))
    return rows


async def loop_rows(ctx: Context) -> list[Row]:
    """Loops/s of prompt -> 4 parallel calls -> results -> answer, sync and async tools.

    Each side runs the same kind of tools the same way: concurrently, sync ones in worker
    threads (``baselines.openai_tool_loop``). A second, informative row per kind compares
    with the same baseline run on anyio's primitives, which aiwrapper uses: what is left
    there is aiwrapper's own cost.
    """
    root = ctx.server.url("loop")
    lang = subjects.lang_for("openai", root, ctx.client)
    want = wire.openai_loop_answer().expected

    rows = []
    for kind, functions in (
        ("sync", subjects.LOOP_SYNC_TOOLS),
        ("async", subjects.LOOP_ASYNC_TOOLS),
    ):

        async def ask(functions: list[Any] = functions) -> None:
            result = await lang.ask("go", functions=functions)
            _check((result.answer, len(result.function_calls)), (want, wire.LOOP_CALLS), "loop")

        async def baseline(sync: bool = kind == "sync", on_anyio: bool = False) -> None:
            text = await baselines.openai_tool_loop(ctx.client, root, sync=sync, on_anyio=on_anyio)
            _check(text, want, "loop baseline")

        timing = {"per_run": 1, "repeats": ctx.config.repeats, "times": ctx.config.loops}
        rates = await best_rate(ask, baseline, **timing)
        rows.append(_higher(f"tool loop, 4 {kind} tools", "loops/s", rates, 0.9))
        rates = await best_rate(ask, lambda: baseline(on_anyio=True), **timing)
        metric = f"  same, baseline on anyio's task group{' and to_thread' * (kind == 'sync')}"
        rows.append(Row(metric, "loops/s", *rates, "(info)", None))
    return rows


async def tiny_rows(ctx: Context) -> list[Row]:
    """Sequential non-streamed small requests per second."""
    root = ctx.server.url("tiny")
    lang = subjects.lang_for("openai", root, ctx.client)

    async def ask() -> None:
        _check((await lang.ask("ping", stream=False)).answer, "pong", "tiny Lang.ask")

    async def baseline() -> None:
        _check(await baselines.openai_tiny(ctx.client, root), "pong", "tiny baseline")

    timing = {"per_run": 1, "repeats": ctx.config.repeats, "times": ctx.config.small_requests}
    rates = await best_rate(ask, baseline, **timing)
    return [_higher("small requests, sequential", "req/s", rates, 0.9)]


async def _count_connections(ctx: Context, job: Callable[[], Awaitable[object]]) -> int:
    before = ctx.server.connections()
    for _ in range(ctx.config.reused_requests):
        await job()
    return ctx.server.connections() - before


async def connection_rows(ctx: Context) -> list[Row]:
    """Connections opened for N sequential streamed requests (aiwrapper's own client)."""
    root = ctx.server.url("short")
    lang = subjects.lang_for("openai", root, None)
    n = ctx.config.reused_requests
    try:
        ours = await _count_connections(ctx, lambda: lang.ask("go"))
    finally:
        await lang.aclose()
    async with httpx.AsyncClient() as client:
        raw = await _count_connections(ctx, lambda: baselines.openai_stream(client, root))
    metric = f"connections for {n} streamed requests"
    return [Row(metric, "conns", ours, raw, "== 1", ours == 1)]
