"""The Responses API stream, decoded while someone watches, against raw httpx on the same bytes.

Usage: ``python benchmarks/responses.py [--quick] [--json]``. Measures, each in the same run as
its raw-httpx baseline on the same local server (``server.py``): a ``/v1/responses`` text
stream of 5,000 and 50,000 deltas, unwatched and with ``on_event`` / ``on_result`` set, against
raw httpx with and without a per-delta callback; and 8 function calls of 250 argument deltas
each with ``on_event`` set. The raw side reads each ``data:`` line, parses it, and keeps the
deltas of the one event type it needs; aiwrapper dispatches every event, assembles the turn
and keeps its output items for the next request.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import baselines  # noqa: E402
import httpx  # noqa: E402
import report  # noqa: E402
import subjects  # noqa: E402
import wire_responses  # noqa: E402
from harness import Row, ServerProcess, best_rate  # noqa: E402
from suites import _check, _higher  # noqa: E402
from watched import Ctx, Watcher, _sse_deltas, _TextJobs, _watching  # noqa: E402

_BODY = {"model": "gpt-5", "input": "go", "stream": True}
_TEXT = _sse_deltas(
    "/v1/responses",
    _BODY,
    lambda e: [e["delta"]] if e["type"] == "response.output_text.delta" else [],
)


async def text_rows(ctx: Ctx, deltas: int) -> list[Row]:
    """The text stream, unwatched and watched, against raw httpx with and without a callback."""
    expected = wire_responses.responses_text(deltas)
    root = ctx.server.url("openai-responses")
    lang = subjects.lang_for("openai-responses", root, ctx.client)
    jobs = _TextJobs(lang, _TEXT, ctx.client, root, expected.expected)
    timing = {"per_run": expected.events, "repeats": ctx.repeats}
    label = f"responses text {deltas:,} deltas"
    rates = await best_rate(jobs.bare, jobs.raw_bare, **timing)
    rows = [_higher(f"{label}, unwatched vs raw", "events/s", rates, 1.0)]
    for kind in ("on_event", "on_result"):
        rates = await best_rate(jobs.watched(kind), jobs.raw_watched, **timing)
        rows.append(_higher(f"{label}, {kind} vs raw+callback", "events/s", rates, 1.0))
        rates = await best_rate(jobs.watched(kind), jobs.raw_bare, **timing)
        rows.append(_higher(f"{label}, {kind} vs bare raw", "events/s", rates, 1.0))
    return rows


async def _raw_fragments(
    client: httpx.AsyncClient, root: str, on_delta: Callable[[str], None]
) -> list[str]:
    """Raw httpx: each call's argument deltas to the callback, then joined per call."""
    calls: dict[str, list[str]] = {}
    async for data in baselines._data_lines(client, root + "/v1/responses", _BODY):
        event = json.loads(data)
        if event["type"] == "response.function_call_arguments.delta":
            on_delta(event["delta"])
            calls.setdefault(event["item_id"], []).append(event["delta"])
    return ["".join(pieces) for pieces in calls.values()]


async def tool_rows(ctx: Ctx) -> list[Row]:
    """8 calls x 250 argument deltas with ``on_event`` set, against raw httpx + a callback."""
    expected = wire_responses.responses_tools(8, 250)
    want = [json.loads(a) for a in json.loads(expected.expected)]
    root = ctx.server.url("openai-responses-tools")
    lang = subjects.lang_for("openai-responses", root, ctx.client)

    async def ask() -> None:
        functions = subjects.STREAM_TOOLS
        result = await lang.ask(
            "go", functions=functions, auto_execute=False, **_watching("on_event")
        )
        _check([c.arguments for c in result.function_calls], want, "tools on_event")

    async def raw() -> None:
        arguments = await _raw_fragments(ctx.client, root, Watcher().on_delta)
        _check([json.loads(a) for a in arguments], want, "tools raw+callback")

    timing: dict[str, Any] = {"per_run": expected.events, "repeats": ctx.repeats, "times": 5}
    rates = await best_rate(ask, raw, **timing)
    return [
        _higher("responses tool stream 8x250, on_event vs raw+callback", "events/s", rates, 1.0)
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
    return rows


def main() -> int:
    return report.run_script(__doc__.splitlines()[0], "responses.json", _measure)


if __name__ == "__main__":
    sys.exit(main())
