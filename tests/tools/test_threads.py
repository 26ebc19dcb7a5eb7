"""The worker-thread runner of sync tools: off the loop, with the caller's context, and a
cancelled wait that abandons the thread instead of waiting for it."""

from __future__ import annotations

import contextvars
import threading

import anyio
import pytest

from aiwrapper._tools.threads import run_in_thread

pytestmark = pytest.mark.anyio

_REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="unset")


async def test_runs_off_the_event_loop_thread_and_returns_the_value() -> None:
    loop_thread = threading.get_ident()
    thread = await run_in_thread(threading.get_ident)
    assert thread != loop_thread


async def test_the_function_sees_the_callers_context_variables() -> None:
    _REQUEST_ID.set("r-42")
    assert await run_in_thread(_REQUEST_ID.get) == "r-42"


async def test_an_exception_reaches_the_caller() -> None:
    def broken() -> None:
        raise KeyError("missing")

    with pytest.raises(KeyError, match="missing"):
        await run_in_thread(broken)


async def test_a_cancelled_wait_leaves_the_thread_running_and_returns_at_once() -> None:
    started, release, finished = threading.Event(), threading.Event(), threading.Event()

    def blocked() -> str:
        started.set()
        release.wait(10)
        finished.set()
        return "late"

    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as group:
            group.start_soon(run_in_thread, blocked)
            await anyio.to_thread.run_sync(started.wait, 10)
            scope.cancel()
    assert scope.cancelled_caught
    assert not finished.is_set()  # the wait ended while the function still ran
    release.set()
    assert await anyio.to_thread.run_sync(finished.wait, 10)


async def test_more_calls_than_cpus_run_at_once() -> None:
    # Sync tools that block (I/O, sleep) must not queue behind each other: 16 calls that each
    # wait for all the others can only finish if all 16 run at the same time.
    everyone = threading.Barrier(16, timeout=10)
    async with anyio.create_task_group() as group:
        for _ in range(16):
            group.start_soon(run_in_thread, everyone.wait)
    assert everyone.n_waiting == 0
    assert not everyone.broken
