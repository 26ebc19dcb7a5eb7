"""Tools that fail in unusual ways: a cancellation exception raised by the tool itself, and
``SystemExit`` / ``KeyboardInterrupt``, which end the run bare, never inside a group."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import anyio
import pytest

from aiwrapper import Lang, tool

pytestmark = pytest.mark.anyio


def calls(*names: str) -> dict[str, Any]:
    specs = [{"name": n, "arguments": {}, "id": f"c{i}"} for i, n in enumerate(names)]
    return {"function_calls": specs}


@tool
async def self_cancelling() -> str:
    """Raises the asyncio cancellation exception although nobody cancelled the run."""
    raise asyncio.CancelledError


@tool
def sync_self_cancelling() -> str:
    """The same, from a worker thread."""
    raise asyncio.CancelledError


@tool
def fine() -> str:
    """Works."""
    return "ok"


@pytest.fixture
def tells_cancellation_apart(anyio_backend: str) -> None:
    if anyio_backend == "asyncio" and sys.version_info < (3, 11):
        # Without Task.cancelling(), a CancelledError raised by the tool cannot be told from
        # a task.cancel() of the run; it is then taken for a cancellation, never swallowed.
        pytest.skip("asyncio on Python 3.10 cannot tell a tool's own CancelledError apart")


@pytest.mark.usefixtures("tells_cancellation_apart")
@pytest.mark.parametrize("names", [("self_cancelling",), ("self_cancelling", "fine")])
async def test_a_tool_raising_cancelled_error_itself_gets_an_error_result(
    names: tuple[str, ...],
) -> None:
    lang = Lang.scripted([calls(*names), "done"])
    result = await lang.ask("go", functions=[self_cancelling, fine])
    assert result.answer == "done"
    answers = [(m.tool_call_id, m.is_error) for m in result.messages if m.role == "tool"]
    assert answers == [(f"c{i}", n == "self_cancelling") for i, n in enumerate(names)]
    assert result.function_calls[0].status == "error"
    assert "CancelledError" in (result.function_calls[0].error or "")


@pytest.mark.usefixtures("tells_cancellation_apart")
async def test_a_sync_tool_raising_cancelled_error_gets_an_error_result() -> None:
    lang = Lang.scripted([calls("sync_self_cancelling", "fine"), "done"])
    result = await lang.ask("go", functions=[sync_self_cancelling, fine])
    assert [c.status for c in result.function_calls] == ["error", "done"]


async def test_a_cancelled_run_is_still_cancelled_while_a_tool_runs() -> None:
    started = anyio.Event()

    @tool
    async def sleepy() -> str:
        """Sleeps."""
        started.set()
        await anyio.sleep(10)
        return "late"

    lang = Lang.scripted([calls("sleepy", "sleepy"), "x"])
    with anyio.move_on_after(5) as outer:
        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: lang.ask("go", functions=[sleepy]))
            await started.wait()
            tg.cancel_scope.cancel()
    assert not outer.cancelled_caught
    assert len(lang.requests) == 1


@pytest.mark.parametrize("exit_class", [SystemExit, KeyboardInterrupt])
@pytest.mark.parametrize("names", [("leaving",), ("leaving", "fine"), ("fine", "leaving")])
async def test_system_exit_from_a_tool_is_raised_bare(
    exit_class: type[BaseException], names: tuple[str, ...]
) -> None:
    @tool
    async def leaving() -> str:
        """Leaves."""
        raise exit_class(3)

    lang = Lang.scripted([calls(*names), "x"])
    with pytest.raises(exit_class) as info:
        await lang.ask("go", functions=[leaving, fine])
    assert type(info.value) is exit_class
    assert info.value.args == (3,)
