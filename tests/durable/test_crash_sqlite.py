"""A durable run survives SIGKILL on SQLite, as a user would hit it: the worker dies in the
middle of a two-tool loop, and the same worker started again (same executor id) finishes it.

The first tool ran once, the model requests that had finished were not sent again, and the
final answer is there. A run that waits for a person's decision survives its worker too. The
database is one file in a temporary directory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiwrapper.durable import send_decisions

from .crash import check_recovered
from .fakeopenai import FakeOpenAI
from .workers import Worker, wait_for

pytest.importorskip("dbos", reason="durable runs need the extra aiwrapper[dbos]")


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


def test_a_run_waiting_for_decisions_survives_its_worker_and_goes_on_once_decided(
    server: FakeOpenAI, tmp_path: Path
) -> None:
    """The worker dies while its run waits for a person; the decision is sent from another
    process (this one) while no worker is up; the restarted worker finishes the run."""
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    (tmp_path / "defer").touch()  # approve defers the second tool
    (tmp_path / "release").touch()  # and once decided, it does not wait
    worker = Worker("ask", "worker-a", url, server.base_url, str(tmp_path))
    try:
        waiting = json.loads(wait_for(tmp_path / "waiting", [worker])[0])
        worker.kill()
        assert (waiting["finish_reason"], waiting["calls"]) == (
            "deferred",
            [["first", "done"], ["second", "pending"]],
        )
        send_decisions("crash-run", {waiting["pending"][0]: True}, database_url=url)
        worker = worker.restarted()
        result = worker.result(timeout=30)
    finally:
        worker.stop()
    check_recovered(result, server, tmp_path, interrupted=False)
