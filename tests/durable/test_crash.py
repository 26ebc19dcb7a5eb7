"""A durable run survives SIGKILL, as a user would hit it: a worker dies in the middle of a
two-tool loop and a new worker with the same executor id finishes the run.

The first tool ran once, the model requests that had finished were not sent again, and the
final answer is there. On SQLite (one file, in a temporary directory), and on a throwaway
Postgres cluster on 127.0.0.1 with two workers sharing a queue, one of them killed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .fakeopenai import ANSWER, USAGE, FakeOpenAI
from .postgres import Cluster
from .workers import Worker, lines, wait_for

pytest.importorskip("dbos", reason="durable runs need the extra aiwrapper[dbos]")


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI().start()
    yield fake
    fake.stop()


def check_recovered(result: dict[str, object], server: FakeOpenAI, work: Path) -> None:
    assert result == {
        "answer": ANSWER,
        "iterations": 3,
        "calls": [["first", "done"], ["second", "done"]],
        "input_tokens": 3 * USAGE["prompt_tokens"],  # the replayed requests' usage counts
        "output_tokens": 3 * USAGE["completion_tokens"],
    }
    assert lines(work / "first") == ["one"]  # ran once, before the crash
    assert dict(server.stages) == {0: 1, 1: 1, 2: 1}  # no finished request sent again
    assert len(lines(work / "second-started")) == 2  # cut by the crash, then run again
    assert len(lines(work / "second-done")) == 1


def test_a_run_killed_mid_tool_is_finished_by_its_restarted_worker_on_sqlite(
    server: FakeOpenAI, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    args = (url, server.base_url, str(tmp_path))
    worker = Worker("ask", "worker-a", *args)
    try:
        wait_for(tmp_path / "second-started", [worker])
        worker.kill()
        (tmp_path / "release").touch()
        worker = worker.restarted()
        result = worker.result(timeout=30)
    finally:
        worker.stop()
    check_recovered(result, server, tmp_path)


def test_a_run_killed_mid_tool_on_postgres_is_finished_through_the_shared_queue(
    server: FakeOpenAI, postgres: Cluster, tmp_path: Path
) -> None:
    """Two workers share a queue; the one running the second tool dies; its restart brings
    the run back to the queue, where the other worker or the restarted one finishes it."""
    url = postgres.url("crash_queue")
    args = (url, server.base_url, str(tmp_path), "crash-queue")
    workers = [Worker("ask", "worker-a", *args), Worker("work", "worker-b", *args)]
    try:
        started = wait_for(tmp_path / "second-started", workers)
        victim = next(w for w in workers if w.pid == int(started[0]))
        victim.kill()
        (tmp_path / "release").touch()
        workers[workers.index(victim)] = victim.restarted()
        result = workers[0].result(timeout=45)  # the asking worker, or its restart
    finally:
        for worker in workers:
            worker.stop()
    check_recovered(result, server, tmp_path)
    assert lines(tmp_path / "second-done") != [str(victim.pid)]
