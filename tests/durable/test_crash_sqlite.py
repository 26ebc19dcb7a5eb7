"""A durable run survives SIGKILL on SQLite, as a user would hit it: the worker dies in the
middle of a two-tool loop, and the same worker started again (same executor id) finishes it.

The first tool ran once, the model requests that had finished were not sent again, and the
final answer is there. The database is one file in a temporary directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest

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
