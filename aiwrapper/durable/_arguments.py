"""What a ``DurableLang`` and its runs are given, checked before anything is stored or started.

A durable run's arguments become its workflow's stored input, read back in whichever process
recovers it, so they must be JSON data; options that are code (tools, callbacks, types) are
given to ``DurableLang`` itself, which every worker builds from its own import. Names and ids
are checked here too, so a mistake is a ``ConfigError`` in the caller's process.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from .._conversation._content import is_prompt
from .._conversation._messages import LangMessages, opening
from .._errors import ConfigError
from .._lang import Lang
from .._run._decisions import checked_decisions, pending_calls, saved
from .._run._options import LangOptions, OptionsLike, merge_options

__all__ = [
    "Request",
    "RunRequests",
    "check_overrides",
    "checked_concurrency",
    "checked_id",
    "checked_name",
    "conversation",
    "merged_options",
]

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}")
# Options that are code, not data: each worker must hold them from its own import.
_CODE_OPTIONS = frozenset(
    ("functions", "function_handler", "approve", "on_result", "on_event", "output_type", "deps")
)


def merged_options(functions: Iterable[Any], options: OptionsLike) -> LangOptions:
    """The default options of a durable model, with ``functions`` added to theirs."""
    merged = merge_options(options)
    given = [*functions]
    if given:
        merged = replace(merged, functions=[*(merged.functions or ()), *given])
    return merged


def checked_name(value: object, what: str) -> str:
    """A durable model's or queue's name: what DBOS registers and stores."""
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        shown = repr(value)[:80]
        raise ConfigError(
            f"a durable {what} is 1 to 100 letters, digits and '_.:-' (starting with a letter "
            f"or digit), not {shown}"
        )
    return value


def checked_concurrency(value: object, queue: str | None) -> int | None:
    """How many runs of ``queue`` one worker takes at once (None: no limit)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"concurrency must be a positive int, not {value!r}")
    if queue is None:
        raise ConfigError("concurrency limits the runs of a queue: give queue= too")
    return value


def check_overrides(overrides: Mapping[str, Any]) -> None:
    """Options given to one run: JSON data only, none of those that are code."""
    for key, value in overrides.items():
        if key in _CODE_OPTIONS:
            raise ConfigError(
                f"{key!r} is code, which a durable run cannot store: give it to "
                "DurableLang(..., options=...) in every worker"
            )
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError, RecursionError):  # not JSON, or nested past reason
            raise ConfigError(
                f"a durable run's options are JSON data (they are its stored input); "
                f"{key}={type(value).__name__} is not: give it to DurableLang(..., options=...)"
            ) from None


def conversation(messages: object) -> LangMessages:
    """A conversation to continue: messages, message dicts, or their JSON document."""
    if isinstance(messages, Mapping) and "messages" in messages:  # the JSON document
        return LangMessages.from_jsonable(messages)
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Iterable):
        raise ConfigError(
            "chat takes a conversation (result.messages, message dicts or their JSON "
            f"document), not {type(messages).__name__}"
        )
    return LangMessages(messages)  # each item is checked there


def checked_id(workflow_id: object) -> str | None:
    """A run's id (None: DBOS makes one up)."""
    if workflow_id is None:
        return None
    if not isinstance(workflow_id, str) or not workflow_id or len(workflow_id) > 256:
        shown = repr(workflow_id)[:80]
        raise ConfigError(f"workflow_id must be a string of 1 to 256 characters, not {shown}")
    return workflow_id


Request = dict[str, Any]  # a run's stored input: plain JSON data


class RunRequests:
    """The stored input of each kind of durable run, checked in the caller's process as the
    run would check it before its first request (a ``ConfigError`` there, not in a worker)."""

    def __init__(self, lang: Lang, options: LangOptions) -> None:
        self.lang = lang
        self.options = options

    def ask(self, prompt: object, overrides: Mapping[str, Any]) -> Request:
        """A new conversation from ``prompt``: text, or text, images and documents (stored as
        the conversation it opens, in the document's form, which keeps them)."""
        if not isinstance(prompt, str):
            if not is_prompt(prompt):
                raise ConfigError(
                    "a prompt is a string or a list of strings, Image and Document, not "
                    f"{type(prompt).__name__}"
                )
            return self.chat(opening(prompt)[1], overrides)
        self._check(prompt, overrides)
        return {"kind": "ask", "prompt": prompt, **_of(overrides)}

    def chat(self, messages: object, overrides: Mapping[str, Any]) -> Request:
        """A conversation continued."""
        given = conversation(messages)
        self._check(given, overrides)
        return {"kind": "chat", "messages": given.to_jsonable(), **_of(overrides)}

    def resume(self, messages: object, decisions: object, overrides: Mapping[str, Any]) -> Request:
        """A conversation that stopped for decisions, with them."""
        given = conversation(saved(messages))
        decided = checked_decisions(pending_calls(given), decisions)
        self._check(given, overrides, decided)
        document = given.to_jsonable()
        return {"kind": "resume", "messages": document, "decisions": decided, **_of(overrides)}

    @staticmethod
    def read(request: Request) -> tuple[str | LangMessages, Mapping[str, Any] | None]:
        """What a run starts from, in the workflow: a prompt or a conversation, and the
        decisions it resumes with."""
        if request["kind"] == "ask":
            return request["prompt"], None
        return LangMessages.from_jsonable(request["messages"]), request.get("decisions")

    def _check(
        self,
        given: str | LangMessages,
        overrides: Mapping[str, Any],
        decisions: Mapping[Any, Any] | None = None,
    ) -> None:
        check_overrides(overrides)
        self.lang._start(given, self.options, overrides, decisions=decisions)


def _of(overrides: Mapping[str, Any]) -> Request:
    return {"overrides": dict(overrides)}
