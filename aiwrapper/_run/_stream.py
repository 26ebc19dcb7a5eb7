"""``RunStream``: a run whose events are read with ``async for``, as ``Lang.stream`` returns it.

The run goes on in a task of the ``async with`` block's own task group and hands its events
(``_runevents.py``) over through a memory stream with a small buffer, so a slow reader holds
the run back instead of piling events up. A reader that is behind sees ``event.result`` (and
a call's status) as they are when it reads the event; ``on_event`` sees them as they were.
Leaving the block cancels whatever is still running, and the block waits for the run to
unwind: no task outlives it. An error that ends the run is raised where the reader is, when
the events before it are read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import TYPE_CHECKING, Generic, NoReturn

import anyio
from anyio.abc import TaskGroup

from .._conversation._result import LangResult, OutputT
from .._conversation._runevents import RunEvent
from ._options import EventCallback

if TYPE_CHECKING:
    from ._loop import Run

__all__ = ["RunStream"]

_BUFFER = 64  # events a reader may fall behind before the run waits for it


class RunStream(Generic[OutputT]):
    """The events of one run: ``async with lang.stream(...) as run: async for event in run``.

    Attributes:
        result: The run's ``LangResult``, growing while the run goes on, final after it.
    """

    def __init__(self, start: Callable[[EventCallback], Run]) -> None:
        self._run = start(self.push)  # the run hands every event to ``push``
        self.result: LangResult[OutputT] = self._run.result
        self._send, self._receive = anyio.create_memory_object_stream[RunEvent](_BUFFER)
        self._group: TaskGroup | None = None
        self._error: Exception | None = None  # what ended the run, until it is raised

    def push(self, event: RunEvent) -> Awaitable[None] | None:
        """Hand ``event`` to the reader (the run's ``on_event``).

        Returns what to await while the reader is behind: no coroutine (and no checkpoint)
        per event while the buffer has room.
        """
        try:
            self._send.send_nowait(event)
        except anyio.WouldBlock:
            return self._send.send(event)
        return None

    async def __aenter__(self) -> RunStream[OutputT]:
        if self._group is not None:
            raise RuntimeError("a RunStream can be entered only once")
        group = anyio.create_task_group()
        await group.__aenter__()
        group.start_soon(self._drive)
        self._group = group
        return self

    async def _drive(self) -> None:
        with self._send:  # closed however the run ends: the reader sees the end
            try:
                await self._run.run()
            except Exception as exc:  # raised to the reader, not through the task group
                self._error = exc

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        assert self._group is not None
        self._group.cancel_scope.cancel()  # a run still going when the block is left stops
        try:
            # The block's own exception is left to propagate as is: handed to the task
            # group, it would come out wrapped in an exception group.
            await self._group.__aexit__(None, None, None)
        finally:
            self._receive.close()
        if exc_type is None:
            self._raise_error()  # an error nobody read is not lost
        return None

    def __aiter__(self) -> RunStream:
        return self

    async def __anext__(self) -> RunEvent:
        try:
            return self._receive.receive_nowait()  # no checkpoint per event while some wait
        except anyio.WouldBlock:
            pass
        except anyio.EndOfStream:
            self._end()
        try:
            return await self._receive.receive()
        except anyio.EndOfStream:
            self._end()

    def ready(self) -> list[RunEvent]:
        """The events already waiting to be read, taken without waiting (none when the reader
        has caught up): what a relay can write out together with the event it just read."""
        events: list[RunEvent] = []
        take = self._receive.receive_nowait
        while True:
            try:
                events.append(take())
            except (anyio.WouldBlock, anyio.EndOfStream):  # the end is for __anext__ to say
                return events

    def _end(self) -> NoReturn:
        self._raise_error()
        raise StopAsyncIteration

    def _raise_error(self) -> None:
        error, self._error = self._error, None
        if error is not None:
            raise error
