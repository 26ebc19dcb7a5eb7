"""Real MCP servers for the MCP tests: stdio subprocesses, and HTTP servers on 127.0.0.1.

The HTTP servers (uvicorn, in subprocesses started here on free ports) are shared by the whole
session; a stdio server is a subprocess its client starts. No module here imports ``mcp``, so
the tests skip cleanly (``importorskip`` in each module) when the extra is not installed.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

APP = Path(__file__).with_name("server_app.py")
VARIANTS = ("main", "twin", "paged")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the MCP test server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the MCP test server did not start listening")


def start_http(variant: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(APP), variant, "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return process, f"http://127.0.0.1:{port}/mcp"


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def http_urls() -> Iterator[dict[str, str]]:
    pytest.importorskip("mcp")
    started = {variant: start_http(variant) for variant in VARIANTS}
    try:
        for process, url in started.values():
            wait_for_port(int(url.rsplit(":", 1)[1].split("/")[0]), process)
        yield {variant: url for variant, (_, url) in started.items()}
    finally:
        for process, _ in started.values():
            stop(process)


@pytest.fixture
def lone_http_url() -> Iterator[str]:
    """A main server of one's own (for a test that kills it)."""
    pytest.importorskip("mcp")
    process, url = start_http("main")
    try:
        wait_for_port(int(url.rsplit(":", 1)[1].split("/")[0]), process)
        yield url
    finally:
        stop(process)


@pytest.fixture(params=["stdio", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def server_for(transport: str, urls: dict[str, str], variant: str = "main", **options: Any) -> Any:
    """An ``MCPServer`` for a test server ``variant`` on ``transport`` (stdio or http)."""
    from aiwrapper.mcp import MCPServer

    if transport == "stdio":
        return MCPServer.stdio(sys.executable, [str(APP), variant, "stdio"], **options)
    return MCPServer.http(urls[variant], **options)


@pytest.fixture
def make_server(transport: str, http_urls: dict[str, str]) -> Callable[..., Any]:
    """``make_server(variant="main", **options)``: an ``MCPServer`` on this test's transport."""
    return lambda variant="main", **options: server_for(transport, http_urls, variant, **options)
