"""``send_decisions``: decide, from any process, the calls a durable run waits on.

The sender only writes: it reads the run's waiting state to check the decisions against the
calls that wait (so a typo is a ``ConfigError`` here, not a lost message), sends them as a DBOS
message to the run's workflow, as DBOS's client does, and marks that wait decided, so that a
caller asking for the run from then on waits for its end. It never launches DBOS, recovers or
runs a workflow; the worker that holds the run (or recovers it later) goes on with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import AIWrapperError, ConfigError
from .._run._decisions import checked_decisions
from ._arguments import checked_id
from ._checkpoints import result_from_jsonable
from ._engine import checked_url, require_dbos, system_url
from ._waiting import DECIDED, DECISIONS, WAITING, undecided

__all__ = ["send_decisions"]


def send_decisions(
    workflow_id: str,
    decisions: Mapping[str, bool | str],
    *,
    database_url: str | None = None,
) -> None:
    """Decide the calls durable run ``workflow_id`` waits on; the run then goes on.

    Args:
        workflow_id: The run's id, as given to ``DurableLang.ask`` (or ``chat``, ``resume``).
        decisions: For each call in the waiting result's ``pending``, by call id: True to run
            it, False or a reason to deny it.
        database_url: The runs' system database; ``None``: the one DBOS is configured with in
            this process, else ``aiwrapper_durable.sqlite`` in the working directory.

    Raises:
        ConfigError: The run does not wait for decisions (or they were sent already), the
            decisions do not fit its pending calls, the database cannot be reached, or
            ``dbos`` is not installed.
    """
    dbos = require_dbos()
    run_id = checked_id(workflow_id)
    if run_id is None:
        raise ConfigError("send_decisions needs the workflow_id of the run that waits")
    url = system_url(checked_url(database_url))
    try:
        client = dbos.DBOSClient(system_database_url=url)
    except Exception as exc:  # an unreachable database, a file that is not one
        raise ConfigError(f"cannot reach the durable runs' database: {exc}") from exc
    try:
        _send(client, run_id, decisions)
    except AIWrapperError:
        raise
    except Exception as exc:
        raise ConfigError(f"cannot send decisions to run {run_id!r}: {exc}") from exc
    finally:
        client.destroy()


def _send(client: Any, run_id: str, decisions: Mapping[str, bool | str]) -> None:
    state = client.get_event(run_id, WAITING, timeout_seconds=0)
    waiting = None
    if state is not None:  # a run that never waited may not exist at all
        waiting = undecided(state, client.retrieve_workflow(run_id).get_status().attributes)
    if waiting is None:
        raise ConfigError(f"run {run_id!r} does not wait for decisions (or they were sent already)")
    decided = checked_decisions(result_from_jsonable(waiting).pending, decisions)
    wait = state["wait"]
    client.send(run_id, {"wait": wait, "decisions": decided}, topic=DECISIONS)
    client.update_workflow_attributes(run_id, {DECIDED: wait}, merge=True)
