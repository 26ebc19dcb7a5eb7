"""``DurableLang``: a ``Lang`` whose runs are DBOS workflows that survive a crash.

Built once per process at import time, with the same ``name``, tools and options in every
worker: recovery re-runs a workflow in whichever process picks it up, and finds its code by
``name``. Each ``ask``/``chat`` takes JSON-able arguments only (they are the workflow's stored
input) and runs as a workflow whose model requests and tool calls are steps (``_steps``). The
workflow runs on the caller's event loop under asyncio, and on DBOS's own loop otherwise (trio,
the blocking twins, recovery, a queue's workers). Asking again with the ``workflow_id`` of a run
that exists waits for that run's result; it never starts a second run.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from functools import partial
from typing import Any

import anyio.to_thread

from .._conversation._content import PromptLike
from .._conversation._messages import LangMessages
from .._conversation._result import LangResult
from .._errors import AIWrapperError, ConfigError
from .._lang import Lang
from .._run._options import OptionsLike
from .._run._output import output_spec
from ._arguments import (
    Request,
    RunRequests,
    checked_concurrency,
    checked_id,
    checked_name,
    merged_options,
)
from ._checkpoints import (
    error_from_jsonable,
    error_to_jsonable,
    result_from_jsonable,
    result_to_jsonable,
)
from ._engine import checked_url, ensure_launched, in_thread, require_dbos
from ._steps import DBOSSteps
from ._waiting import decisions_for, joined, outcome_async, outcome_blocking

__all__ = ["DurableLang", "RunFailed"]


class RunFailed(Exception):
    """A durable run ended with an error; its one argument is the error's JSON form."""


class DurableLang:
    """A ``Lang`` whose runs survive a crash: each run a DBOS workflow, each step checkpointed.

    Args:
        lang: The model to ask, with its default options.
        name: This durable model's name, the same in every worker (letters, digits, ``_.:-``).
        functions: The tools of its runs (given here: each worker needs them as code).
        options: Default options; callbacks given here hear the runs this process executes.
        database_url: DBOS's system database: a ``sqlite:///`` file or a ``postgresql://``
            URL shared by many workers. ``None``: the database the application configured
            DBOS with, else ``aiwrapper_durable.sqlite`` in the working directory.
        queue: A DBOS queue to start runs through, so any worker listening may take them.
        concurrency: How many runs of the queue one worker runs at once.

    Raises:
        ConfigError: ``dbos`` is not installed (the extra ``aiwrapper[dbos]``), or an argument
            is invalid.
    """

    def __init__(
        self,
        lang: Lang,
        name: str,
        *,
        functions: Iterable[Any] = (),
        options: OptionsLike = None,
        database_url: str | None = None,
        queue: str | None = None,
        concurrency: int | None = None,
    ) -> None:
        dbos = require_dbos()
        if not isinstance(lang, Lang):
            raise ConfigError(f"DurableLang needs a Lang, not {type(lang).__name__}")
        self.lang = lang
        self.name = checked_name(name, "name")
        self.options = merged_options(functions, options)
        self.database_url = checked_url(database_url)
        self.queue = None if queue is None else checked_name(queue, "queue")
        self.concurrency = checked_concurrency(concurrency, queue)
        self._requests = RunRequests(lang, self.options)
        self._ready = False
        self._lock = threading.Lock()
        workflow = dbos.DBOS.workflow(name=f"aiwrapper.durable:{self.name}")
        self._workflow = workflow(_body(self))

    async def ask(
        self, prompt: PromptLike, *, workflow_id: str | None = None, **overrides: Any
    ) -> LangResult[Any]:
        """Ask ``prompt`` as a new durable run (or wait for run ``workflow_id``'s result).

        ``prompt`` is text, or a list of text, ``Image`` and ``Document``, as for ``Lang``.

        ``overrides`` are options as JSON data (``temperature``, ``system_prompt``...).
        """
        return await self._run(self._requests.ask(prompt, overrides), checked_id(workflow_id))

    async def chat(
        self, messages: Any, *, workflow_id: str | None = None, **overrides: Any
    ) -> LangResult[Any]:
        """Continue ``messages`` (``result.messages``, message dicts, or their JSON document)."""
        return await self._run(self._requests.chat(messages, overrides), checked_id(workflow_id))

    async def resume(
        self,
        messages: Any,
        decisions: Mapping[str, bool | str],
        *,
        workflow_id: str | None = None,
        **overrides: Any,
    ) -> LangResult[Any]:
        """Continue, as a new durable run, a conversation that stopped for decisions.

        ``messages`` is a run's ``result.messages`` or its JSON (``to_json``/``to_jsonable``)
        and ``decisions`` decides each of its pending calls, as ``Lang.resume`` takes them.
        A durable run that waits is decided with ``send_decisions`` instead: it goes on.
        """
        request = self._requests.resume(messages, decisions, overrides)
        return await self._run(request, checked_id(workflow_id))

    def ask_sync(
        self, prompt: PromptLike, *, workflow_id: str | None = None, **overrides: Any
    ) -> LangResult[Any]:
        """``ask``, blocking (scripts, and inside a running event loop too)."""
        request = self._requests.ask(prompt, overrides)
        return self._result(self._wait(request, checked_id(workflow_id)))

    def chat_sync(
        self, messages: Any, *, workflow_id: str | None = None, **overrides: Any
    ) -> LangResult[Any]:
        """``chat``, blocking (scripts, and inside a running event loop too)."""
        request = self._requests.chat(messages, overrides)
        return self._result(self._wait(request, checked_id(workflow_id)))

    def resume_sync(
        self,
        messages: Any,
        decisions: Mapping[str, bool | str],
        *,
        workflow_id: str | None = None,
        **overrides: Any,
    ) -> LangResult[Any]:
        """``resume``, blocking (scripts, and inside a running event loop too)."""
        request = self._requests.resume(messages, decisions, overrides)
        return self._result(self._wait(request, checked_id(workflow_id)))

    def launch(self) -> None:
        """Configure and launch DBOS unless done, and register the queue.

        A worker calls it when it starts: launching recovers the runs this worker's executor
        id left unfinished. Otherwise the first run calls it.
        """
        if self._ready:
            return
        with self._lock:
            if not self._ready:
                in_thread(self._launch)
                self._ready = True

    def _launch(self) -> None:
        from dbos import DBOS

        try:
            ensure_launched(self.database_url)
            if self.queue is not None:
                DBOS.register_queue(self.queue, worker_concurrency=self.concurrency)
        except AIWrapperError:
            raise
        except Exception as exc:  # an unreachable database, a refused login, a bad file
            raise ConfigError(f"DBOS could not start for durable runs: {exc}") from exc

    async def _run(self, request: Request, workflow_id: str | None) -> LangResult[Any]:
        if not self._ready:
            await anyio.to_thread.run_sync(self.launch)
        if _on_asyncio():
            data = await self._wait_async(request, workflow_id)
        else:  # trio: DBOS's async API is asyncio's, so its blocking one waits in a thread
            wait = partial(self._wait, request, workflow_id)
            data = await anyio.to_thread.run_sync(wait, abandon_on_cancel=True)
        return self._result(data)

    async def _wait_async(self, request: Request, workflow_id: str | None) -> Any:
        from dbos import DBOS

        with _workflow_id(workflow_id):
            if self.queue is None:
                handle = await DBOS.start_workflow_async(self._workflow, request)
            else:
                handle = await DBOS.enqueue_workflow_async(self.queue, self._workflow, request)
        try:
            return await outcome_async(handle, handle.get_workflow_id(), self._may_wait)
        except RunFailed as failed:
            raise _error(failed) from None

    def _wait(self, request: Request, workflow_id: str | None) -> Any:
        from dbos import DBOS

        self.launch()
        with _workflow_id(workflow_id):
            if self.queue is None:
                handle = DBOS.start_workflow(self._workflow, request)
            else:
                handle = DBOS.enqueue_workflow(self.queue, self._workflow, request)
        try:
            return outcome_blocking(handle, handle.get_workflow_id(), self._may_wait)
        except RunFailed as failed:
            raise _error(failed) from None

    def _result(self, data: Any) -> LangResult[Any]:
        result = result_from_jsonable(data)
        if result.finished and result.finish_reason not in ("tool_calls", "deferred"):
            spec = output_spec(self.options.output_type)
            result.output = result.answer if spec is None else spec.parse(result.answer)
        return result

    @property
    def _may_wait(self) -> bool:
        """Whether a run may stop to wait for decisions: only ``approve`` defers calls."""
        return self.options.approve is not None

    async def _execute(self, request: Request) -> dict[str, Any]:
        """The workflow's body: run ``request``, each request and call a step; when the run
        stops for decisions, wait for them (durably) and go on."""
        given, decisions = RunRequests.read(request)
        result = await self._part(given, request["overrides"], decisions, None)
        waits = 0
        while result.finish_reason == "deferred" and result.pending:
            waits += 1
            decisions = await decisions_for(result, waits)
            result = await self._part(result.messages, request["overrides"], decisions, result)
        return result_to_jsonable(result)

    async def _part(
        self,
        given: str | LangMessages,
        overrides: Mapping[str, Any],
        decisions: Mapping[Any, Any] | None,
        before: LangResult[Any] | None,
    ) -> LangResult[Any]:
        """One run of the workflow, up to its end or a wait; ``before``: the part it resumes."""
        # Calls start only once their turn is checkpointed: their steps follow its step.
        overrides = {**overrides, "early_start": False}
        steps = DBOSSteps(self.lang.provider)
        run = self.lang._start(given, self.options, overrides, decisions=decisions, steps=steps)
        try:
            result = await run.run()
        except AIWrapperError as exc:
            partial_result = exc.result
            if partial_result is not None and before is not None:
                partial_result = joined(before, partial_result)
            data = None if partial_result is None else result_to_jsonable(partial_result)
            raise RunFailed(json.dumps(error_to_jsonable(exc, data))) from exc
        return result if before is None else joined(before, result)

    def __repr__(self) -> str:
        return f"DurableLang({self.name!r}, {self.lang!r})"


def _body(durable: DurableLang) -> Any:
    """The workflow function of ``durable``: one per name, registered with DBOS."""

    async def aiwrapper_durable_run(request: Request) -> dict[str, Any]:
        return await durable._execute(request)

    return aiwrapper_durable_run


def _workflow_id(workflow_id: str | None) -> AbstractContextManager[Any]:
    if workflow_id is None:
        return nullcontext()
    from dbos import SetWorkflowID

    return SetWorkflowID(workflow_id)


def _error(failed: RunFailed) -> AIWrapperError:
    return error_from_jsonable(json.loads(failed.args[0]))


def _on_asyncio() -> bool:
    """Whether this task runs on asyncio (DBOS's async API), not on trio."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
