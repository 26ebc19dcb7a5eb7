"""A gateway served by uvicorn on 127.0.0.1 (a free port), in a thread of the test process.

One server per test module: tests change ``gateway.routes`` to put the backend they need
behind a route name. The official SDKs are pointed at it with retries off, so a test never
waits for a retry and never reaches the network. ``served_in_loop`` also gives the server's
event loop, in which backends' HTTP clients (used there) must be closed.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from aiwrapper.gateway import Gateway


@contextmanager
def served(gateway: Gateway) -> Iterator[str]:
    """The gateway's base URL while it is served (``http://127.0.0.1:PORT``)."""
    with served_in_loop(gateway) as (url, _):
        yield url


@contextmanager
def served_in_loop(gateway: Gateway) -> Iterator[tuple[str, asyncio.AbstractEventLoop]]:
    """The gateway's base URL and the event loop serving it, while it is served."""
    config = uvicorn.Config(
        gateway, host="127.0.0.1", port=0, log_level="warning", lifespan="on", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        assert thread.is_alive(), "uvicorn stopped while starting"
        time.sleep(0.01)
    listening = server.servers[0]
    port = listening.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", listening.get_loop()
    finally:
        server.should_exit = True
        thread.join(10)
