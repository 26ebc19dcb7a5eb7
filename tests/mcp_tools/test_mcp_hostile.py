"""Hostile MCP servers: silent handshakes, unreadable lists, noise, floods and leftover children.

The servers are ``raw_server.py`` subprocesses speaking raw JSON-RPC on stdio, and for HTTP a
socket on 127.0.0.1 that accepts connections and never answers.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from aiwrapper import ConnectionError, Lang, RunTimeoutError
from aiwrapper.mcp import MCPServer
from aiwrapper.mcp._connection import Connection

RAW = Path(__file__).with_name("raw_server.py")
pytestmark = pytest.mark.anyio
ECHO = {"function_calls": [{"name": "echo", "arguments": {}, "id": "e"}]}
BIG = {"function_calls": [{"name": "big", "arguments": {}, "id": "b"}]}


def raw(behaviour: str, *args: str, **options: Any) -> MCPServer:
    return MCPServer.stdio(sys.executable, [str(RAW), behaviour, *args], **options)


@pytest.fixture
def silent_url() -> Iterator[str]:
    """An HTTP endpoint on 127.0.0.1 that accepts connections and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
    finally:
        listener.close()
        for conn in held:
            conn.close()


@pytest.fixture(params=["stdio", "http"])
def silent(request: pytest.FixtureRequest, silent_url: str) -> Any:
    """``silent(**options)``: a server that never answers ``initialize``, on stdio or HTTP."""
    if request.param == "stdio":
        return lambda **options: raw("silent", **options)
    return lambda **options: MCPServer.http(silent_url, **options)


async def test_a_silent_handshake_is_bounded_by_the_servers_timeout(silent: Any) -> None:
    started = time.monotonic()
    with pytest.raises(ConnectionError, match=r"did not answer the handshake within 1 s"):
        await Lang.scripted(["never"]).ask("go", functions=[silent(timeout=1)])
    assert time.monotonic() - started < 15  # 1 s, and the stdio server starting and exiting


async def test_a_silent_handshake_is_bounded_by_the_run_timeout(silent: Any) -> None:
    started = time.monotonic()
    with pytest.raises(RunTimeoutError, match="within 1 s"):
        await Lang.scripted(["never"]).ask("go", functions=[silent()], timeout=1)
    assert time.monotonic() - started < 15


async def test_a_silent_handshake_bounds_async_with_too(silent: Any) -> None:
    with pytest.raises(ConnectionError, match="did not answer the handshake"):
        async with silent(timeout=0.5):
            pass


async def test_cancelling_a_run_during_the_handshake_is_a_clean_cancel(silent: Any) -> None:
    with anyio.move_on_after(0.5) as scope:
        await Lang.scripted(["never"]).ask("go", functions=[silent()])
    assert scope.cancelled_caught


async def test_an_unanswered_tool_list_is_bounded_by_the_servers_timeout() -> None:
    started = time.monotonic()
    with pytest.raises(ConnectionError, match=r"unlisted did not list its tools within 1 s$"):
        await Lang.scripted(["never"]).ask("go", functions=[raw("unlisted", timeout=1)])
    assert time.monotonic() - started < 15


async def test_an_unreadable_tool_list_is_a_prompt_error_naming_the_server() -> None:
    started = time.monotonic()
    with pytest.raises(ConnectionError) as caught:
        await Lang.scripted(["never"]).ask("go", functions=[raw("nested")], timeout=30)
    assert str(caught.value).startswith(f"cannot list the tools of MCP server {sys.executable} ")
    assert "nested" in str(caught.value)
    assert time.monotonic() - started < 20  # not the run timeout: at once


async def test_a_tool_list_nested_past_any_parsers_depth_is_a_prompt_error() -> None:
    # The answer's id comes after its 3,000-deep result: found without recursion, so the
    # listing fails at once instead of waiting for a timeout nobody set.
    with anyio.fail_after(20):
        with pytest.raises(ConnectionError) as caught:
            await Lang.scripted(["never"]).ask("go", functions=[raw("deep")])
    assert str(caught.value).startswith(f"cannot list the tools of MCP server {sys.executable} ")


def running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie nobody reaped yet counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # pragma: no cover - no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")
async def test_no_grandchild_of_a_stdio_server_outlives_its_connection(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    result = await Lang.scripted([ECHO, "done"]).ask(
        "go", functions=[raw("grandchild", str(pidfile))]
    )
    assert [m.content for m in result.messages if m.role == "tool"] == ["echoed"]
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while running(pid) and time.monotonic() < deadline:
        await anyio.sleep(0.05)
    assert not running(pid)


async def test_a_flood_of_stderr_keeps_only_its_tail() -> None:
    spec = raw("stderr", "5")._spec
    connection = Connection(spec)
    with pytest.raises(ConnectionError) as caught:
        await connection.open()
    message = str(caught.value)
    assert message.endswith("eeee\nlast words")
    quoted = message.split("server stderr:\n", 1)[1]
    assert len(quoted) == 2000  # the error quotes the tail's end: it may reach the model
    assert connection.stderr is not None
    assert connection.stderr.size == 64 * 2**10


async def test_text_on_stdout_is_one_log_line_not_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    result = await Lang.scripted([ECHO, "done"]).ask("go", functions=[raw("noisy")])
    assert [m.content for m in result.messages if m.role == "tool"] == ["echoed"]
    assert [r for r in caplog.records if r.exc_info] == []
    warned = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.name, r.getMessage()) for r in warned] == [
        (
            "aiwrapper.mcp",
            f"MCP server {raw('noisy')._spec.label} wrote text that is not MCP to its stdout "
            "(ignored, and so are the next lines like it): 'starting up, please wait...'",
        )
    ]


async def test_a_result_over_the_message_cap_is_an_error_result() -> None:
    server = raw("big", "3", max_message_bytes=2**20)
    started = time.monotonic()
    result = await Lang.scripted([BIG, "ok"]).ask("go", functions=[server])
    [message] = [m for m in result.messages if m.role == "tool"]
    assert message.is_error
    assert message.content.startswith("ConnectionError: lost the connection to MCP server")
    assert message.content.endswith(
        ": the server sent a message of more than 1,048,576 bytes (max_message_bytes)"
    )
    assert time.monotonic() - started < 20


async def test_a_result_under_the_message_cap_arrives_whole() -> None:
    server = raw("big", "1.5", max_message_bytes=2 * 2**20)
    result = await Lang.scripted([BIG, "ok"]).ask("go", functions=[server])
    [call] = result.function_calls
    assert call.status == "done"
    assert len(call.result.content[0].text) == 3 * 2**19


async def test_a_result_over_the_message_cap_is_an_error_result_over_http(
    http_urls: dict[str, str],
) -> None:
    server = MCPServer.http(http_urls["main"], max_message_bytes=2**20)
    big = {"name": "big", "arguments": {"megabytes": 2}, "id": "b"}
    add = {"name": "add", "arguments": {"a": 1, "b": 2}, "id": "a"}
    turns = [{"function_calls": [big]}, {"function_calls": [add]}, "ok"]
    result = await Lang.scripted(turns).ask("go", functions=[server])
    first, second = [m for m in result.messages if m.role == "tool"]
    assert first.is_error
    assert first.content == (
        "MCPToolError: cannot read the server's answer: "
        "the server sent a message of more than 1,048,576 bytes (max_message_bytes)"
    )
    assert (second.is_error, second.content) == (False, "3")  # the connection goes on


def test_an_output_tail_keeps_only_the_last_bytes() -> None:
    from aiwrapper.mcp._tail import OutputTail

    tail = OutputTail(limit=8)
    tail.feed(b"0123456789abcdef")  # one chunk larger than the window
    tail.feed(b"XY")
    assert (tail.size, tail.text()) == (8, "89abcdefXY"[-8:])
