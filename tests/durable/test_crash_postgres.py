"""A durable run survives SIGKILL on PostgreSQL, with two workers sharing a queue: the one
running the second tool dies, its restart puts the run back on the queue, and the other worker
or the restarted one finishes it.

The cluster is a throwaway one on 127.0.0.1 (``postgres.py``), shared by the session.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .crash import check_recovered
from .fakeopenai import FakeOpenAI
from .postgres import Cluster
from .workers import Worker, lines, wait_for

pytest.importorskip("dbos", reason="durable runs need the extra aiwrapper[dbos]")


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
