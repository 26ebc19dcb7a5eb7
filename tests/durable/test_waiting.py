"""Approval that waits, durably: a run whose ``approve`` answers ``DEFER`` waits in its workflow.

``ask`` returns the waiting run (``finish_reason == "deferred"``, the calls in ``pending``) and
asking again returns it again until ``send_decisions`` decides; from then on asking waits for
the run's end, which counts the whole run. Each async test runs on asyncio (the caller's loop
races the run's end against its waiting state) and on trio (a thread polls both). Surviving a
restart while waiting is the crash tests' (``test_crash_sqlite.py``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import anyio.to_thread
import pytest

from aiwrapper import DEFER, ConfigError, FunctionCall, Lang
from aiwrapper.durable import send_decisions

from .models import TwoTools, new_id

pytest.importorskip("dbos", reason="durable runs need the extra aiwrapper[dbos]")


pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("dbos_app")]


def later_for_second(call: FunctionCall) -> Any:
    return DEFER if call.name == "second" else True


async def decide(run_id: str, decisions: dict[str, Any]) -> None:
    await anyio.to_thread.run_sync(partial(send_decisions, run_id, decisions))


async def test_a_run_waits_for_decisions_and_goes_on_once_they_are_sent() -> None:
    model = TwoTools(approve=later_for_second)
    run_id = new_id()
    waiting = await model.durable.ask("Run both.", workflow_id=run_id)
    assert (waiting.finish_reason, waiting.output) == ("deferred", None)
    assert [(c.name, c.status) for c in waiting.pending] == [("second", "pending")]
    assert model.ran == ["first"]
    again = await model.durable.ask("Run both.", workflow_id=run_id)
    assert [c.id for c in again.pending] == [c.id for c in waiting.pending]
    await decide(run_id, {waiting.pending[0].id: True})
    done = await model.durable.ask("Run both.", workflow_id=run_id)
    assert (done.answer, done.finish_reason, done.pending) == ("both ran", "stop", [])
    assert model.ran == ["first", "second"]
    assert done.iterations == 3
    assert len(done.usage.requests) == 3  # the whole run, before the wait and after
    assert [(c.name, c.status) for c in done.function_calls] == [
        ("first", "done"),
        ("second", "done"),
    ]


async def test_a_denied_call_is_answered_as_denied_and_never_runs() -> None:
    model = TwoTools(approve=later_for_second)
    run_id = new_id()
    waiting = await model.durable.ask("Run both.", workflow_id=run_id)
    await decide(run_id, {waiting.pending[0].id: "not today"})
    done = await model.durable.ask("Run both.", workflow_id=run_id)
    assert done.answer == "both ran"
    assert model.ran == ["first"]
    second = done.function_calls[1]
    assert (second.status, second.error) == ("denied", "Call to 'second' was not run: not today.")


async def test_decisions_that_do_not_fit_the_wait_are_refused_by_the_sender() -> None:
    model = TwoTools(approve=later_for_second)
    run_id = new_id()
    waiting = await model.durable.ask("Run both.", workflow_id=run_id)
    pending = waiting.pending[0].id
    with pytest.raises(ConfigError, match="decisions name no pending call: 'call_x'"):
        await decide(run_id, {"call_x": True})
    with pytest.raises(ConfigError, match=f"no decision for the pending calls \\['{pending}'\\]"):
        await decide(run_id, {})
    with pytest.raises(ConfigError, match="must be True"):
        await decide(run_id, {pending: 1})
    await decide(run_id, {pending: True})
    with pytest.raises(ConfigError, match="does not wait for decisions"):
        await decide(run_id, {pending: True})  # sent already: the run goes on
    assert (await model.durable.ask("Run both.", workflow_id=run_id)).answer == "both ran"
    assert model.ran == ["first", "second"]


async def test_a_run_that_does_not_exist_or_does_not_wait_cannot_be_decided() -> None:
    model = TwoTools()
    run_id = new_id()
    await model.durable.ask("Run both.", workflow_id=run_id)
    for unknown in (run_id, new_id()):
        with pytest.raises(ConfigError, match="does not wait for decisions"):
            await decide(unknown, {"call_1": True})
    with pytest.raises(ConfigError, match="workflow_id"):
        send_decisions(None, {})  # type: ignore[arg-type]


async def test_a_saved_conversation_that_waits_is_resumed_as_a_durable_run() -> None:
    model = TwoTools()
    plain = Lang.scripted(TwoTools.turn)
    tools = [model.tool("first"), model.tool("second")]
    stopped = await plain.ask("Run both.", functions=tools, approve=later_for_second)
    saved = stopped.messages.to_json()  # as if kept on disk, for another process
    done = await model.durable.resume(saved, {stopped.pending[0].id: True})
    assert done.answer == "both ran"
    assert model.ran == ["first", "second"]
    with pytest.raises(ConfigError, match="no decision"):
        await model.durable.resume(saved, {})
    with pytest.raises(ConfigError, match="resume"):
        await model.durable.chat(stopped.messages)  # chat refuses a run that waits


def test_the_blocking_twins_return_the_waiting_run_and_its_end() -> None:
    model = TwoTools(approve=later_for_second)
    run_id = new_id()
    waiting = model.durable.ask_sync("Run both.", workflow_id=run_id)
    assert waiting.finish_reason == "deferred"
    send_decisions(run_id, {waiting.pending[0].id: True})
    assert model.durable.ask_sync("Run both.", workflow_id=run_id).answer == "both ran"
