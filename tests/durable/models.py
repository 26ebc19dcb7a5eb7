"""Durable models of the in-process tests, and what they look at."""

from __future__ import annotations

import uuid
from typing import Any

from aiwrapper import Lang, LangMessages, tool
from aiwrapper.durable import DurableLang


class TwoTools:
    """A durable model asked to run ``first`` then ``second``, counting what ran and what
    it was told."""

    def __init__(self, **options: Any) -> None:
        self.ran: list[str] = []
        self.events: list[Any] = []
        self.lang = Lang.scripted(self.turn)
        self.durable = DurableLang(
            self.lang,
            f"two-tools-{uuid.uuid4().hex[:8]}",
            functions=[self.tool("first"), self.tool("second")],
            options={"on_event": self.events.append, **options},
        )

    def tool(self, name: str) -> Any:
        def run(n: int) -> str:
            self.ran.append(name)
            return f"{name} ran with {n}"

        run.__name__ = run.__qualname__ = name
        run.__doc__ = "Run.\n\nArgs:\n    n: A number.\n"
        return tool(run)

    @staticmethod
    def turn(messages: LangMessages, options: Any) -> Any:
        results = sum(1 for m in messages if m.role == "tool")
        if results < 2:
            name = ("first", "second")[results]
            return {"function_calls": [{"name": name, "arguments": {"n": results + 1}}]}
        return "both ran"

    def kinds(self) -> list[str]:
        return [type(e).__name__ for e in self.events]


def steps_of(workflow_id: str) -> list[tuple[int, str]]:
    """The checkpointed steps of a run: (number, name), in order."""
    from dbos import DBOS

    return [(s["function_id"], s["function_name"]) for s in DBOS.list_workflow_steps(workflow_id)]


def new_id() -> str:
    """A run id of its own for each test."""
    return f"run-{uuid.uuid4().hex}"
