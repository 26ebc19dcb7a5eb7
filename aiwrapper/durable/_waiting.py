"""Approval that waits durably: a run that ``approve`` deferred waits in its workflow.

When ``approve`` answers ``DEFER``, the run stops with calls pending (``finish_reason ==
"deferred"``). In a durable run the workflow then publishes that result as its waiting state
(a DBOS event, with the number of this wait in the run) and waits for decisions (a DBOS message
on a topic of its own): both are checkpointed, so the wait survives restarts, and a recovered
run waits again where it was. ``send_decisions`` (any process) sends decisions for that wait and
marks the wait decided (an attribute of the workflow); the workflow checks them against its
pending calls, clears its waiting state and resumes the run. A caller waits for whichever comes
first: the run's end, or a wait not yet decided, which ``ask`` returns as a result with
``pending`` calls.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import anyio

from .._conversation._result import LangResult
from .._errors import ConfigError
from .._run._decisions import Decision, checked_decisions
from ._checkpoints import result_to_jsonable

__all__ = [
    "DECIDED",
    "DECISIONS",
    "WAITING",
    "decisions_for",
    "joined",
    "outcome_async",
    "outcome_blocking",
    "undecided",
]

WAITING = "aiwrapper.waiting"  # the event: {"wait": n, "result": ...} while it waits, else None
DECISIONS = "aiwrapper.decisions"  # the topic decisions are sent on
DECIDED = "aiwrapper.decided"  # the workflow attribute: the last wait decisions were sent for
_WAIT_SECONDS = 24 * 3600  # one durable wait; a run waits as many as it takes
_POLL_SECONDS = 0.25  # how often a caller looks whether the run waits


async def decisions_for(result: LangResult[Any], wait: int) -> dict[str, Decision]:
    """In the workflow: publish ``result`` as wait number ``wait``, then wait (durably) for
    decisions on its pending calls, and clear the waiting state once they came."""
    from dbos import DBOS

    await DBOS.set_event_async(WAITING, {"wait": wait, "result": result_to_jsonable(result)})
    while True:
        message = await DBOS.recv_async(DECISIONS, timeout_seconds=_WAIT_SECONDS)
        if not isinstance(message, Mapping) or message.get("wait") != wait:
            continue  # the wait timed out (it goes on), or decisions for another wait
        try:
            decided = checked_decisions(result.pending, message.get("decisions"))
        except ConfigError:
            continue  # checked by the sender: not for these calls
        await DBOS.set_event_async(WAITING, None)
        return decided


def undecided(state: object, attributes: Mapping[str, Any] | None) -> Any:
    """The waiting result in ``state`` (the run's event), unless decisions for that wait
    were sent already (the run's ``attributes`` say); None when the run does not wait."""
    if not isinstance(state, Mapping):
        return None
    decided = (attributes or {}).get(DECIDED)
    if isinstance(decided, int) and decided >= state["wait"]:
        return None
    return state["result"]


def joined(before: LangResult[Any], after: LangResult[Any]) -> LangResult[Any]:
    """The result of a run that waited: ``after`` (the resumed part), counting ``before``."""
    seen = {call.id for call in before.function_calls}
    calls = [*before.function_calls, *(c for c in after.function_calls if c.id not in seen)]
    after.function_calls = calls
    after.usage.requests[:0] = before.usage.requests
    after.iterations += before.iterations
    after.prompt = before.prompt
    return after


async def outcome_async(handle: Any, workflow_id: str, waits: bool) -> Any:
    """The run's result (JSON data), or its waiting result if it waits first (``waits``: it
    may, its options deciding through ``approve``)."""
    if not waits:
        return await handle.get_result()
    outcome: list[tuple[bool, Any]] = []
    async with anyio.create_task_group() as group:

        async def first(wait: Any) -> None:
            try:
                outcome.append((True, await wait()))
            except Exception as exc:  # raised below as is, not in an exception group
                outcome.append((False, exc))
            group.cancel_scope.cancel()

        group.start_soon(first, handle.get_result)
        group.start_soon(first, lambda: _waiting_async(workflow_id))
    succeeded, value = outcome[0]
    if not succeeded:
        raise value
    return value


def outcome_blocking(handle: Any, workflow_id: str, waits: bool) -> Any:
    """``outcome_async`` for a thread: the run's result, or its waiting result."""
    if not waits:
        return handle.get_result()
    from dbos import DBOS

    while True:
        status = handle.get_status()
        if status.status not in ("PENDING", "ENQUEUED", "DELAYED"):
            return handle.get_result()
        state = DBOS.get_event(workflow_id, WAITING, timeout_seconds=0)
        waiting = undecided(state, status.attributes)
        if waiting is not None:
            return waiting
        time.sleep(_POLL_SECONDS)


async def _waiting_async(workflow_id: str) -> Any:
    from dbos import DBOS

    while True:
        state = await DBOS.get_event_async(workflow_id, WAITING, timeout_seconds=_POLL_SECONDS)
        if state is not None:
            status = await DBOS.get_workflow_status_async(workflow_id)
            waiting = undecided(state, None if status is None else status.attributes)
            if waiting is not None:
                return waiting
        await anyio.sleep(_POLL_SECONDS)
