"""Starting, watching and killing the crash tests' worker processes (``worker.py``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

WORKER = Path(__file__).with_name("worker.py")
ROOT = Path(__file__).parents[2]  # the checkout, whose aiwrapper the workers import


class Worker:
    """One worker process: ``python worker.py MODE ...`` under an executor id of its own."""

    def __init__(self, mode: str, executor: str, *args: str) -> None:
        env = {**os.environ, "DBOS__VMID": executor, "PYTHONPATH": str(ROOT)}
        self.executor = executor
        self.mode = mode
        self.args = args
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER), mode, *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def restarted(self) -> Worker:
        """The same worker started again: same mode, same executor id."""
        return Worker(self.mode, self.executor, *self.args)

    def kill(self) -> str:
        """SIGKILL: no cleanup of any kind, as when a machine dies. Returns its stderr."""
        self.process.send_signal(signal.SIGKILL)
        return self.process.communicate(timeout=10)[1]

    def stop(self) -> None:
        if self.process.returncode is None:
            self.kill()

    def result(self, timeout: float) -> dict[str, Any]:
        """The run's result, as the worker printed it."""
        try:
            out, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            err = self.kill()
            raise AssertionError(f"worker {self.executor} gave no result: {err[-3000:]}") from None
        assert self.process.returncode == 0, err[-3000:]
        return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def lines(path: Path) -> list[str]:
    """The lines of ``path`` (none when it does not exist)."""
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def wait_for(path: Path, workers: list[Worker], timeout: float = 30) -> list[str]:
    """Wait until ``path`` has a line; fail early, with its output, if a worker dies."""
    deadline = time.monotonic() + timeout
    while not lines(path):
        for worker in workers:
            if worker.process.poll() is not None:
                _, err = worker.process.communicate()
                raise AssertionError(f"worker {worker.executor} exited: {err[-3000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{path.name} never appeared")
        time.sleep(0.02)
    return lines(path)
