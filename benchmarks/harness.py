"""What every benchmark shares: the server process, the result row, and the timers.

``ServerProcess`` starts ``server.py`` in its own interpreter and knows its URLs; ``Row`` is
one line of the final table; ``best_rate`` times an aiwrapper coroutine and its raw-httpx
baseline in alternation (so drift in machine load hits both alike) and keeps each side's best.

Jobs are timed in this process's CPU time: the server runs in its own process, so what is
measured is the client's own work, aiwrapper's or raw httpx's, and a machine shared with
other work (which stretches wall time by whole scheduler slices) disturbs it far less.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

__all__ = ["HERE", "ROOT", "Row", "ServerProcess", "best_rate", "best_seconds"]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


@dataclass(slots=True)
class Row:
    """One measured metric: aiwrapper against its baseline, and whether the target holds."""

    metric: str
    unit: str
    aiwrapper: float
    baseline: float
    target: str
    passed: bool | None

    @property
    def ratio(self) -> float:
        """aiwrapper / baseline (0 when the baseline is 0)."""
        return self.aiwrapper / self.baseline if self.baseline else 0.0

    def as_dict(self) -> dict[str, object]:
        """The row as JSON-ready data, ratio included."""
        return {**asdict(self), "ratio": round(self.ratio, 4)}


class ServerProcess:
    """``server.py`` running in a child process, for the life of a ``with`` block."""

    def __init__(self, *, deltas: int, calls: int, fragments: int, variants: bool = False) -> None:
        self.args = [f"--deltas={deltas}", f"--calls={calls}", f"--fragments={fragments}"]
        if variants:
            self.args.append("--variants")
        self.process: subprocess.Popen[str] | None = None
        self.port = 0

    def __enter__(self) -> ServerProcess:
        command = [sys.executable, str(HERE / "server.py"), *self.args]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.strip():
            self.__exit__()
            raise RuntimeError("the benchmark server did not start")
        self.port = int(line)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def url(self, scenario: str) -> str:
        """The root URL whose requests the server answers with ``scenario``."""
        return f"http://127.0.0.1:{self.port}/{scenario}"

    def connections(self) -> int:
        """Connections that carried a benchmark request so far."""
        response = httpx.get(f"http://127.0.0.1:{self.port}/stats")
        return int(response.json()["connections"])


Job = Callable[[], Awaitable[None]]


async def _seconds(job: Job, times: int) -> float:
    start = time.process_time()  # CPU of every thread here: sync tools' workers count too
    for _ in range(times):
        await job()
    return time.process_time() - start


async def best_seconds(
    subject: Job, baseline: Job, *, repeats: int, times: int = 1
) -> tuple[float, float]:
    """The best CPU time of ``times`` sequential runs, for each side, after one warm-up."""
    await subject()
    await baseline()
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        best[0] = min(best[0], await _seconds(subject, times))
        best[1] = min(best[1], await _seconds(baseline, times))
    return best[0], best[1]


async def best_rate(
    subject: Job, baseline: Job, *, per_run: int, repeats: int, times: int = 1
) -> tuple[float, float]:
    """Units per second (``per_run`` units per job) at the best time, for each side."""
    seconds = await best_seconds(subject, baseline, repeats=repeats, times=times)
    return per_run * times / seconds[0], per_run * times / seconds[1]
