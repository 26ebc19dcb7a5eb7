"""What durability costs a tool loop: checkpointing on SQLite, per tool round.

Usage: ``python benchmarks/durable_cost.py [--rounds N] [--runs N] [--quick]``.

The same run (``--rounds`` tool rounds of one call each, then the answer) is made plainly with
``Lang.ask`` and durably with ``DurableLang.ask`` on a SQLite file in a temporary directory. The
model answers through ``httpx.MockTransport`` (no network, no server), so what differs is the
durable run's own work: starting and finishing its workflow, and per round a model request
step and a tool step, each looked up and checkpointed in the database. Runs alternate (a shared
machine's changing load hits both alike); the medians of their wall times are compared, and
their difference divided by the rounds is the cost of checkpointing one tool round.

Exits with status 1 if a run does not assemble the expected answer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import httpx  # noqa: E402

from aiwrapper import Lang, tool  # noqa: E402
from aiwrapper.durable import DurableLang  # noqa: E402

ANSWER = "all rounds done"


def _sse(*chunks: Any) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)


def _answer(results: int, rounds: int) -> bytes:
    """The streamed answer to a conversation holding ``results`` tool results."""
    usage = {"choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 5}}
    if results >= rounds:
        delta: dict[str, Any] = {"content": ANSWER}
        reason = "stop"
    else:
        arguments = json.dumps({"n": results})
        call = {"index": 0, "id": f"call_{results}", "type": "function"}
        delta = {"tool_calls": [{**call, "function": {"name": "lookup", "arguments": arguments}}]}
        reason = "tool_calls"
    body = _sse(
        {"choices": [{"index": 0, "delta": delta}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]},
        usage,
    )
    return body + b"data: [DONE]\n\n"


def _lang(rounds: int) -> Lang:
    def handle(request: httpx.Request) -> httpx.Response:
        messages = json.loads(request.content)["messages"]
        results = sum(1 for m in messages if m["role"] == "tool")
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, headers=headers, content=_answer(results, rounds))

    client = httpx.AsyncClient(transport=httpx.MockTransport(handle))
    return Lang.openai(model="gpt-4o-mini", api_key="sk-bench", http_client=client)


@tool
async def lookup(n: int) -> int:
    """Look a number up.

    Args:
        n: The number.
    """
    return n * 2


async def _measure(args: argparse.Namespace, database: str) -> tuple[list[float], list[float]]:
    lang = _lang(args.rounds)
    durable = DurableLang(lang, "bench", functions=[lookup], database_url=database)
    plain_times, durable_times = [], []

    async def plain() -> float:
        start = time.perf_counter()
        result = await lang.ask("go", functions=[lookup])
        elapsed = time.perf_counter() - start
        _check(result.answer, result.iterations, args.rounds)
        return elapsed

    async def durably() -> float:
        start = time.perf_counter()
        result = await durable.ask("go", workflow_id=uuid.uuid4().hex)
        elapsed = time.perf_counter() - start
        _check(result.answer, result.iterations, args.rounds)
        return elapsed

    await durably(), await plain()  # warm-up: DBOS launched, connections made
    for i in range(args.runs):  # in pairs, the order swapped at each pair
        if i % 2:
            plain_times.append(await plain())
            durable_times.append(await durably())
        else:
            durable_times.append(await durably())
            plain_times.append(await plain())
    return plain_times, durable_times


def _check(answer: str, iterations: int, rounds: int) -> None:
    if answer != ANSWER or iterations != rounds + 1:
        print(f"wrong run: {answer!r} after {iterations} requests", file=sys.stderr)
        sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="tool rounds per run")
    parser.add_argument("--runs", type=int, default=40, help="runs of each kind")
    parser.add_argument("--quick", action="store_true", help="a few runs: a smoke test")
    args = parser.parse_args()
    if args.quick:
        args.runs = 4
    with tempfile.TemporaryDirectory() as directory:
        database = f"sqlite:///{Path(directory) / 'bench.sqlite'}"
        plain_times, durable_times = asyncio.run(_measure(args, database))
        from dbos import DBOS

        DBOS.destroy()
    plain, durable = statistics.median(plain_times), statistics.median(durable_times)
    per_round = (durable - plain) / args.rounds
    print(f"tool loop of {args.rounds} rounds, median of {args.runs} runs each (wall time)")
    print(f"  not durable:       {plain * 1e3:8.2f} ms per run")
    print(f"  durable (SQLite):  {durable * 1e3:8.2f} ms per run")
    print(f"  ratio:             {durable / plain:8.1f} x")
    print(f"  checkpointing:     {per_round * 1e3:8.2f} ms per tool round")


if __name__ == "__main__":
    main()
