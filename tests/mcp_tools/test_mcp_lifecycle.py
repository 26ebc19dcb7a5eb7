"""MCP connections: who opens and closes them, what is left behind, and how failures look."""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from aiwrapper import ConnectionError, Lang, LangResult, RunTimeoutError
from aiwrapper.mcp import MCPServer

from .conftest import APP, free_port

pytestmark = pytest.mark.anyio
MakeServer = Callable[..., MCPServer]
DIE = {"function_calls": [{"name": "die", "arguments": {}, "id": "d"}]}


def pid_turns() -> list[Any]:
    return [{"function_calls": [{"name": "pid", "arguments": {}, "id": "p"}]}, "ok"]


def server_pid(result: LangResult) -> int:
    return int(result.function_calls[0].result.structured_content["result"])


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def stdio_server(*args: str, **options: Any) -> MCPServer:
    return MCPServer.stdio(sys.executable, [str(APP), "main", "stdio", *args], **options)


async def test_no_server_process_outlives_the_run_that_opened_it() -> None:
    result = await Lang.scripted(pid_turns()).ask("pid?", functions=[stdio_server()])
    assert not alive(server_pid(result))


async def test_no_server_process_outlives_async_with() -> None:
    async with stdio_server() as server:
        result = await Lang.scripted(pid_turns()).ask("pid?", functions=[server])
        pid = server_pid(result)
        assert alive(pid)
        second = await Lang.scripted(pid_turns()).ask("pid?", functions=[server])
        assert server_pid(second) == pid  # one connection for both runs
    assert not alive(pid)


async def test_no_server_process_outlives_a_run_cancelled_mid_call() -> None:
    pids: list[int] = []
    slow = {"name": "slow", "arguments": {"seconds": 30, "tag": "cancel"}, "id": "s"}
    turns = [{"function_calls": [{"name": "pid", "arguments": {}, "id": "p"}]}]
    turns.append({"function_calls": [slow]})

    def on_result(result: LangResult) -> None:
        calls = result.function_calls
        if calls and calls[0].status == "done" and not pids:
            pids.append(server_pid(result))
            scope.deadline = anyio.current_time() + 1  # cancelled during the slow call

    # The server may start slowly on a busy machine: the cancel comes once it answered.
    with anyio.move_on_after(60) as scope:
        await Lang.scripted(turns).ask("go", functions=[stdio_server()], on_result=on_result)
    assert scope.cancelled_caught
    assert pids
    assert not alive(pids[0])


async def test_a_missing_command_is_a_connection_error() -> None:
    server = MCPServer.stdio("no-such-mcp-server-command")
    with pytest.raises(ConnectionError, match="command not found: 'no-such-mcp-server-command'"):
        await Lang.scripted(["never"]).ask("go", functions=[server])


async def test_a_refused_port_is_a_connection_error() -> None:
    server = MCPServer.http(f"http://127.0.0.1:{free_port()}/mcp")
    with pytest.raises(ConnectionError, match=r"cannot connect to MCP server http://127\.0\.0\.1"):
        await Lang.scripted(["never"]).ask("go", functions=[server])


async def test_a_server_that_exits_at_once_is_a_connection_error_with_its_stderr() -> None:
    crash = "import sys; sys.stderr.write('bad config: no token\\n'); sys.exit(2)"
    server = MCPServer.stdio(sys.executable, ["-c", crash])
    with pytest.raises(ConnectionError, match="bad config: no token"):
        await Lang.scripted(["never"]).ask("go", functions=[server])


async def test_a_server_killed_mid_call_is_an_error_result_on_stdio() -> None:
    result = await Lang.scripted([DIE, "it died"]).ask("go", functions=[stdio_server()])
    [message] = [m for m in result.messages if m.role == "tool"]
    assert message.is_error
    assert message.content.startswith("ConnectionError: lost the connection to MCP server")


async def test_a_server_killed_mid_call_is_an_error_result_on_http(lone_http_url: str) -> None:
    server = MCPServer.http(lone_http_url)
    result = await Lang.scripted([DIE, "it died"]).ask("go", functions=[server])
    [message] = [m for m in result.messages if m.role == "tool"]
    assert message.is_error
    assert message.content.startswith("ConnectionError: lost the connection to MCP server")


def test_ask_sync_opens_and_closes_the_server_in_a_script(make_server: MakeServer) -> None:
    lang = Lang.scripted(
        [{"function_calls": [{"name": "add", "arguments": {"a": 1, "b": 2}}]}, "3"]
    )
    result = lang.ask_sync("1+2", functions=[make_server()])
    assert [m.content for m in result.messages if m.role == "tool"] == ["3"]
    lang.close()


def test_ask_sync_works_inside_a_running_event_loop(make_server: MakeServer) -> None:
    lang = Lang.scripted(
        [{"function_calls": [{"name": "add", "arguments": {"a": 2, "b": 2}}]}, "4"]
    )

    async def inside() -> LangResult:
        return lang.ask_sync("2+2", functions=[make_server()])

    result = asyncio.run(inside())
    assert [m.content for m in result.messages if m.role == "tool"] == ["4"]
    lang.close()


# asyncio only: under trio, anyio's pytest plugin marks the context (not the thread, as trio
# itself does) as trio, and ask_sync's loop thread inherits that context.
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_ask_sync_beside_an_open_server_gets_a_connection_of_its_own() -> None:
    async with stdio_server() as server:
        first = await Lang.scripted(pid_turns()).ask("pid?", functions=[server])
        lang = Lang.scripted(pid_turns())
        second = lang.ask_sync("pid?", functions=[server])  # on the sync facade's own loop
        lang.close()
        assert server_pid(second) != server_pid(first)
        assert not alive(server_pid(second))
        assert alive(server_pid(first))


async def test_cancellations_and_deaths_leave_no_resource_warning_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    unraisable: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    slow = {"name": "slow", "arguments": {"seconds": 30, "tag": "w"}, "id": "s"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with anyio.move_on_after(1.5):  # cancelled mid-call
            await Lang.scripted([{"function_calls": [slow]}]).ask("go", functions=[stdio_server()])
        timing_out = Lang.scripted([{"function_calls": [slow]}])
        with pytest.raises(RunTimeoutError):
            await timing_out.ask("go", functions=[stdio_server()], timeout=1.5)
        await Lang.scripted([DIE, "it died"]).ask("go", functions=[stdio_server()])
        gc.collect()
    assert [str(w.message) for w in caught] == []
    assert unraisable == []


def test_import_aiwrapper_mcp_without_the_extra_names_it() -> None:
    code = textwrap.dedent(
        """
        import sys
        sys.modules["mcp"] = None  # what an environment without the extra looks like
        import aiwrapper
        assert "mcp" not in [m.split(".")[0] for m in sys.modules if sys.modules[m]]
        try:
            import aiwrapper.mcp
        except ImportError as exc:
            print(exc)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'aiwrapper[mcp]'" in done.stdout
