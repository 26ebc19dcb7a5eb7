"""``python -m aiwrapper serve`` as a child process for the tests, over either HTTP protocol."""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

SERVE = [sys.executable, "-m", "aiwrapper", "serve"]
# serve as it runs where httptools and uvloop are not installed: their imports fail
_WITHOUT_HTTPTOOLS = (
    "import sys; sys.modules['httptools'] = sys.modules['uvloop'] = None; "
    "from aiwrapper.__main__ import main; sys.exit(main(sys.argv[1:]))"
)
SERVE_OVER = {"h11": [sys.executable, "-c", _WITHOUT_HTTPTOOLS, "serve"], "httptools": SERVE}
PROTOCOLS = ["h11", "httptools"]


def installed(module: str) -> bool:
    """Whether ``module`` can be imported here (and so in the servers the tests start)."""
    return importlib.util.find_spec(module) is not None


def stack() -> str:
    """What ``serve`` says it runs on in this environment."""
    parser = "httptools" if installed("httptools") else "h11"
    return f"{parser}, {'uvloop' if installed('uvloop') else 'asyncio'}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["OLLAMA_HOST"] = "http://127.0.0.1:9"  # nothing listens there: never the network
    return env


def wait_until_up(base: str) -> None:
    deadline = time.monotonic() + 30
    with httpx.Client(verify=False) as client:  # plain http: no CA bundle to load per poll
        while True:
            try:
                if client.get(base + "/healthz").status_code == 200:
                    return
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the gateway did not come up"
                time.sleep(0.05)


@contextmanager
def serving(
    *args: str,
    limit_files: int | None = None,
    protocol: str | None = None,
    errors: list[str] | None = None,
) -> Iterator[str]:
    """The base URL of a ``serve`` process with ``args``, up and answering ``/healthz``.

    ``protocol`` ("h11" or "httptools") is the one it must run on: httptools is skipped where
    it is not installed; ``errors`` gets what the process wrote to stderr, once it is stopped.
    """
    if protocol == "httptools":
        pytest.importorskip("httptools")
    port = free_port()

    def limited() -> None:
        import resource

        if limit_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit_files, limit_files))

    with tempfile.TemporaryFile("w+") as log:  # never a full pipe that would block the server
        process = subprocess.Popen(
            [*SERVE_OVER.get(protocol or "", SERVE), "--port", str(port), *args],
            stdout=subprocess.PIPE,
            stderr=log,
            env=environment(),
            preexec_fn=limited,
            text=True,
        )
        try:
            assert process.stdout is not None
            announced = process.stdout.readline()  # the one line serve writes there
            assert protocol is None or f"({protocol}, " in announced, announced
            wait_until_up(f"http://127.0.0.1:{port}")
            yield f"http://127.0.0.1:{port}"
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            finally:
                process.kill()
                process.communicate()
        if errors is not None:
            log.seek(0)
            errors.append(log.read())
