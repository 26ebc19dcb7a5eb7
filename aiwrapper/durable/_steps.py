"""A durable run's model requests and tool calls, each a DBOS step of the run's workflow.

``DBOSSteps`` is the run's ``Steps`` (``aiwrapper._run._steps``). A step's checkpoint is the
JSON form of what it produced (``_checkpoints``); when DBOS replays a workflow after a crash, a
step that had finished returns its checkpoint without running, so the request is not sent again
and the tool does not run again. The calls of a turn may run concurrently, so their steps are
numbered in call order before any of them starts: a replay finds each call's checkpoint under
the same number whatever order they finished in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from .._conversation._assembler import Assembler
from .._conversation._result import FunctionCall
from .._errors import AIWrapperError
from .._run._steps import ToolOutcome
from ._checkpoints import (
    error_from_jsonable,
    error_to_jsonable,
    outcome_from_jsonable,
    outcome_to_jsonable,
    turn_from_jsonable,
    turn_to_jsonable,
)

if TYPE_CHECKING:
    from dbos import DBOS, StepReservation

__all__ = ["REQUEST_STEP", "DBOSSteps", "tool_step"]

REQUEST_STEP = "aiwrapper.request"


def tool_step(name: str) -> str:
    """A tool call's step name: a replay that finds another tool at that step is refused."""
    return f"aiwrapper.tool:{name}"


class DBOSSteps:
    """The steps of one run, inside the workflow that runs it."""

    def __init__(self, provider: str) -> None:
        from dbos import DBOS  # imported once a run needs it: ``aiwrapper.durable`` never does

        self.dbos: type[DBOS] = DBOS
        self.provider = provider
        self._numbered: dict[int, StepReservation] = {}  # id(call) -> its step

    async def request(self, receive: Callable[[], Awaitable[Assembler]]) -> Assembler:
        """Send a model request as a step; its checkpoint is the turn (or the error)."""
        live: list[Assembler] = []
        failed: list[AIWrapperError] = []

        async def send() -> dict[str, Any]:
            try:
                turn = await receive()
            except AIWrapperError as exc:  # checkpointed as JSON, raised below
                failed.append(exc)
                return {"error": error_to_jsonable(exc, None)}
            live.append(turn)
            return turn_to_jsonable(turn)

        data = await self.dbos.run_step_async({"name": REQUEST_STEP}, send)
        if failed:
            raise failed[0]
        if "error" in data:  # replayed: the same error, rebuilt
            raise error_from_jsonable(data["error"])
        return live[0] if live else turn_from_jsonable(data, self.provider)

    def plan(self, calls: Sequence[FunctionCall]) -> None:
        """Number the steps of a turn's calls, in call order."""
        for call in calls:
            self._numbered[id(call)] = self.dbos.reserve_step()

    async def call(
        self, call: FunctionCall, run: Callable[[], Awaitable[ToolOutcome]]
    ) -> ToolOutcome:
        """Run a call as its step; its checkpoint is the outcome and what became of the call."""
        live: list[ToolOutcome] = []

        async def execute() -> dict[str, Any]:
            outcome = await run()
            live.append(outcome)
            return outcome_to_jsonable(call, outcome)

        step = self._numbered.pop(id(call), None)
        options: Any = {"name": tool_step(call.name)}
        if step is None:  # not planned: numbered now
            data = await self.dbos.run_step_async(options, execute)
        else:
            data = await step.run_async(options, execute)
        return live[0] if live else outcome_from_jsonable(call, data)
