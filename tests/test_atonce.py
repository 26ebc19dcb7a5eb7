"""Calls that cannot suspend run in the task at hand: which ones, and that nothing else changes.

An async tool whose body never awaits finishes at its first step, so a turn runs it where it
stands (``at_once``) instead of in a task of its own; tools that await still run side by side.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio
import pytest

from aiwrapper import DEFER, FunctionCall, Lang, LangResult, tool
from aiwrapper._conversation._assembler import Assembler
from aiwrapper._run._atonce import at_once
from aiwrapper._run._steps import ToolOutcome
from aiwrapper._tools.callables import never_suspends

pytestmark = pytest.mark.anyio

SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("SEEN", default="unset")


def calls(*specs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "function_calls": [
            {"name": name, "arguments": args, "id": f"c{i}"} for i, (name, args) in enumerate(specs)
        ]
    }


def contents(result: LangResult) -> list[str]:
    return [m.content for m in result.messages if m.role == "tool"]


async def plain(x: int) -> int:
    return x + 1


async def awaits(x: int) -> int:
    await anyio.sleep(0)
    return x


async def loops(items: Any) -> int:
    async for _ in items:
        pass
    return 0


async def enters(lock: Any) -> int:
    async with lock:
        return 0


async def comprehends(items: Any) -> list[int]:
    return [i async for i in items]


def sync(x: int) -> int:
    return x


class Holder:
    async def method(self) -> int:
        return 1


@pytest.mark.anyio(False)
@pytest.mark.parametrize(
    ("function", "expected"),
    [
        (plain, True),
        (Holder().method, True),
        (awaits, False),
        (loops, False),
        (enters, False),
        (comprehends, False),
        (sync, False),
        (functools.partial(plain, 1), False),
        (lambda: plain(1), False),
    ],
)
def test_only_an_async_def_that_never_awaits_is_known_to_finish_at_once(
    function: Any, expected: bool
) -> None:
    assert never_suspends(function) is expected


@pytest.mark.anyio(False)
def test_a_sync_function_claiming_to_be_a_coroutine_function_is_not_trusted() -> None:
    def disguised() -> Any:
        return awaits(1)

    disguised._is_coroutine_marker = True  # type: ignore[attr-defined]  # markcoroutinefunction
    assert not never_suspends(disguised)
    assert not (disguised.__code__.co_flags & inspect.CO_COROUTINE)


async def test_at_once_runs_a_coroutine_in_a_copy_of_the_context() -> None:
    async def sets() -> str:
        SEEN.set("inside")
        return SEEN.get()

    SEEN.set("outside")
    assert await at_once(sets()) == "inside"
    assert SEEN.get() == "outside"


async def test_at_once_awaits_on_a_coroutine_that_suspends_after_all() -> None:
    async def slow() -> str:
        SEEN.set("slow")
        await anyio.sleep(0.01)
        await anyio.sleep(0)
        return SEEN.get()

    assert await at_once(slow()) == "slow"
    assert SEEN.get() == "unset"


async def test_at_once_passes_a_cancellation_on_to_the_call() -> None:
    ended: list[str] = []

    async def waits() -> None:
        try:
            await anyio.sleep(10)
        finally:
            ended.append("cleaned up")

    with anyio.move_on_after(0.01):
        await at_once(waits())
    assert ended == ["cleaned up"]


async def test_quick_tools_keep_call_order_and_their_context_variables_to_themselves() -> None:
    order: list[int] = []

    @tool
    async def note(n: int) -> str:
        """Note."""
        order.append(n)
        before = SEEN.get()
        SEEN.set(f"call {n}")
        return before

    script = [calls(*[("note", {"n": n}) for n in (1, 2, 3)]), "done"]
    SEEN.set("run")
    result = await Lang.scripted(script).ask("go", functions=[note])
    assert order == [1, 2, 3]
    assert contents(result) == ["run", "run", "run"]
    assert SEEN.get() == "run"


async def test_tools_that_await_still_run_side_by_side_beside_quick_ones() -> None:
    first, second = anyio.Event(), anyio.Event()

    @tool
    async def quick(n: int) -> int:
        """Quick."""
        return n

    @tool
    async def ping() -> str:
        """Waits for pong."""
        first.set()
        await second.wait()
        return "ping"

    @tool
    async def pong() -> str:
        """Waits for ping."""
        await first.wait()
        second.set()
        return "pong"

    script = [calls(("ping", {}), ("quick", {"n": 1}), ("pong", {}), ("quick", {"n": 2})), "ok"]
    with anyio.fail_after(5):  # run one after the other, ping would wait for ever
        result = await Lang.scripted(script).ask("go", functions=[quick, ping, pong])
    assert contents(result) == ["ping", "1", "pong", "2"]


async def test_a_quick_tool_raising_in_raise_mode_ends_the_turn_before_the_next_call() -> None:
    ran: list[str] = []

    @tool
    async def boom() -> str:
        """Fails."""
        ran.append("boom")
        raise KeyError("k")

    @tool
    async def after() -> str:
        """Never runs."""
        ran.append("after")
        return "x"

    lang = Lang.scripted([calls(("boom", {}), ("after", {})), "x"])
    with pytest.raises(KeyError) as caught:
        await lang.ask("go", functions=[boom, after], tool_errors="raise")
    assert ran == ["boom"]
    result = caught.value.result  # type: ignore[attr-defined]
    assert [c.status for c in result.function_calls] == ["error", "error"]
    assert "was not run" in result.function_calls[1].error


async def test_quick_tool_errors_are_results_and_a_timeout_leaves_them_be() -> None:
    @tool(timeout=5)
    async def fails(n: int) -> int:
        """Fails."""
        raise ValueError(f"bad {n}")

    script = [calls(("fails", {"n": 1}), ("fails", {"n": "x"}), ("missing", {})), "ok"]
    result = await Lang.scripted(script).ask("go", functions=[fails])
    texts = contents(result)
    assert texts[0] == "ValueError: bad 1"
    assert texts[1] == "Invalid arguments for 'fails': /n: expected an integer, got string \"x\""
    assert texts[2] == "Unknown function 'missing'. Valid functions: fails."


async def test_quick_tools_run_in_the_runs_task_and_awaiting_ones_in_tasks_of_their_own() -> None:
    tasks: dict[str, int] = {}

    @tool
    async def quick(name: str) -> str:
        """Quick."""
        tasks[name] = anyio.get_current_task().id
        return name

    @tool
    async def slow(name: str) -> str:
        """Awaits."""
        tasks[name] = anyio.get_current_task().id
        await anyio.sleep(0)
        return name

    turn = calls(
        ("quick", {"name": "q1"}),
        ("slow", {"name": "s1"}),
        ("quick", {"name": "q2"}),
        ("slow", {"name": "s2"}),
    )
    script = [turn, "ok"]
    result = await Lang.scripted(script).ask("go", functions=[quick, slow])
    assert contents(result) == ["q1", "s1", "q2", "s2"]
    assert tasks["q1"] == tasks["q2"]  # where the turn runs; an awaiting one runs beside it
    assert tasks["s1"] not in (tasks["q1"], tasks["s2"])


async def test_a_call_taken_for_quick_that_gives_way_is_awaited_to_its_end_all_the_same() -> None:
    @tool
    async def slow(n: int) -> str:
        """Awaits, though said not to."""
        SEEN.set(f"slow {n}")
        await anyio.sleep(0.01)
        return SEEN.get()

    @tool
    async def failing() -> str:
        """Awaits, then fails."""
        await anyio.sleep(0)
        raise ValueError("late")

    slow._at_once = failing._at_once = True  # misjudged: the fallback must still be right
    script = [calls(("slow", {"n": 1}), ("failing", {}), ("slow", {"n": 2})), "ok"]
    SEEN.set("run")
    result = await Lang.scripted(script).ask("go", functions=[slow, failing])
    assert contents(result) == ["slow 1", "ValueError: late", "slow 2"]
    assert [c.status for c in result.function_calls] == ["done", "error", "done"]
    assert SEEN.get() == "run"


async def test_a_quick_tool_taking_the_context_gets_it() -> None:
    from aiwrapper import Context

    @tool
    async def whose(ctx: Context[str], n: int) -> str:
        """Names the caller."""
        return f"{ctx.deps} {ctx.call.id if ctx.call else '-'} {n}"

    script = [calls(("whose", {"n": 1}), ("whose", {"n": 2})), "ok"]
    result = await Lang.scripted(script).ask("go", functions=[whose], deps="me")
    assert contents(result) == ["me c0 1", "me c1 2"]


class Stepping:
    """A durable engine's seam, done live: every call of a turn is a step of its own."""

    def __init__(self) -> None:
        self.planned: list[list[str]] = []
        self.stepped: list[str] = []

    async def request(self, receive: Callable[[], Awaitable[Assembler]]) -> Assembler:
        return await receive()

    def plan(self, calls: Sequence[FunctionCall]) -> None:
        self.planned.append([c.id for c in calls])

    async def call(
        self, call: FunctionCall, run: Callable[[], Awaitable[ToolOutcome]]
    ) -> ToolOutcome:
        self.stepped.append(call.id)
        return await run()


async def test_a_durable_run_makes_every_quick_call_of_a_parallel_batch_a_step() -> None:
    ran: list[int] = []

    @tool
    async def quick(n: int) -> int:
        """Quick."""
        ran.append(n)
        return n * 10

    turn = calls(*[("quick", {"n": n}) for n in range(4)], ("missing", {}))
    steps = Stepping()
    lang = Lang.scripted([turn, "ok"])
    result = await lang._start("go", None, {"functions": [quick]}, steps=steps).run()
    assert steps.planned == [["c0", "c1", "c2", "c3", "c4"]]
    assert sorted(steps.stepped) == ["c0", "c1", "c2", "c3", "c4"]
    assert sorted(ran) == [0, 1, 2, 3]
    assert contents(result)[:4] == ["0", "10", "20", "30"]


async def test_a_quick_call_denied_on_resume_is_not_run() -> None:
    ran: list[int] = []

    @tool
    async def quick(n: int) -> int:
        """Quick."""
        ran.append(n)
        return n

    turn = calls(("quick", {"n": 1}), ("quick", {"n": 2}))
    lang = Lang.scripted([turn, "ok"])
    first = await lang.ask("go", functions=[quick], approve=lambda call: DEFER)
    assert [c.id for c in first.pending] == ["c0", "c1"]
    result = await lang.resume(first.messages, {"c0": "no", "c1": True}, functions=[quick])
    assert ran == [2]
    assert [(c.id, c.status) for c in result.function_calls] == [("c0", "denied"), ("c1", "done")]


async def test_a_quick_call_that_gives_way_after_all_keeps_its_timeout() -> None:
    @tool(timeout=0.05)
    async def stuck() -> str:
        """Awaits for ever, though said not to."""
        await anyio.sleep(10)
        return "never"

    @tool
    async def fine() -> str:
        """Quick."""
        return "fine"

    stuck._at_once = True  # misjudged: its timeout must still hold
    script = [calls(("stuck", {}), ("fine", {})), "ok"]
    with anyio.fail_after(5):
        result = await Lang.scripted(script).ask("go", functions=[stuck, fine])
    assert contents(result) == ["'stuck' timed out after 0.05 s.", "fine"]
    assert [c.status for c in result.function_calls] == ["error", "done"]


async def test_a_quick_call_that_gives_way_and_times_out_raises_in_raise_mode() -> None:
    @tool
    async def stuck() -> str:
        """Awaits for ever, though said not to."""
        await anyio.sleep(10)
        return "never"

    @tool
    async def fine() -> str:
        """Quick."""
        return "fine"

    stuck._at_once = True
    script = [calls(("stuck", {}), ("fine", {})), "ok"]
    lang = Lang.scripted(script)
    with anyio.fail_after(5), pytest.raises(TimeoutError, match=r"'stuck' timed out after 0\.05 s"):
        await lang.ask("go", functions=[stuck, fine], tool_timeout=0.05, tool_errors="raise")
