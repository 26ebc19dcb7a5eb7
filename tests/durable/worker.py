"""A worker process of the crash tests, as a user would write one: a durable two-tool loop.

    python worker.py ask|work DATABASE_URL BASE_URL WORKDIR [QUEUE]

Built at import time, like any durable model: the fake OpenAI server's model at ``BASE_URL``
and two tools. ``first`` appends a line to ``WORKDIR/first`` (so a test counts its runs);
``second`` appends its process id to ``WORKDIR/second-started``, then waits until
``WORKDIR/release`` exists (so a test can kill the process while it runs), then appends its
process id to ``WORKDIR/second-done``. While ``WORKDIR/defer`` exists, ``approve`` defers
``second`` (a person is to decide). ``ask`` asks for run ``crash-run`` (or waits for it, when
it exists) and prints its result as one JSON line; a run that waits for decisions is also
written to ``WORKDIR/waiting``, and the worker then stays up, as a server would. ``work`` only
serves the queue until it is stopped. The executor id comes from ``DBOS__VMID``, as in any DBOS
deployment.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from aiwrapper import DEFER, FunctionCall, Lang, tool
from aiwrapper.durable import DurableLang

MODE, DATABASE_URL, BASE_URL, WORKDIR = sys.argv[1:5]
QUEUE = sys.argv[5] if len(sys.argv) > 5 else None
WORK = Path(WORKDIR)
RUN_ID = "crash-run"


def _append(name: str, line: str) -> None:
    with open(WORK / name, "a", encoding="utf-8") as file:
        file.write(line + "\n")


@tool
def first(note: str) -> str:
    """Record that the first step ran.

    Args:
        note: Anything.
    """
    _append("first", note)
    return "first recorded"


@tool
def second(note: str) -> str:
    """Take a while: until the test releases it.

    Args:
        note: Anything.
    """
    _append("second-started", str(os.getpid()))
    while not (WORK / "release").exists():
        time.sleep(0.02)
    _append("second-done", str(os.getpid()))
    return "second recorded"


def approve(call: FunctionCall) -> object:
    return DEFER if call.name == "second" and (WORK / "defer").exists() else True


lang = Lang.openai_compatible(BASE_URL, model="fake-model", api_key="sk-test")
durable = DurableLang(
    lang,
    "crash-test",
    functions=[first, second],
    options={"approve": approve},
    database_url=DATABASE_URL,
    queue=QUEUE,
    concurrency=1 if QUEUE else None,
)


def main() -> None:
    durable.launch()  # recovers what this executor id left unfinished
    if MODE == "work":
        while True:
            time.sleep(1)
    result = durable.ask_sync("Run first, then second.", workflow_id=RUN_ID)
    line = {
        "answer": result.answer,
        "finish_reason": result.finish_reason,
        "pending": [c.id for c in result.pending],
        "iterations": result.iterations,
        "calls": [[c.name, c.status] for c in result.function_calls],
        "input_tokens": result.usage.input_tokens,
        "output_tokens": result.usage.output_tokens,
    }
    print(json.dumps(line), flush=True)
    if result.pending:
        (WORK / "waiting").write_text(json.dumps(line), encoding="utf-8")
        while True:  # up, as a server is, while its run waits for a person
            time.sleep(1)


if __name__ == "__main__":
    main()
