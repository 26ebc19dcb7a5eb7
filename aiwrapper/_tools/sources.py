"""Tool sources: entries of ``functions`` that stand for several tools (an MCP server).

This module owns the seam between a run and such a source. A source is opened for the run
(and closed when the run ends, in the same task: connections built on anyio task groups must
be entered and left by one task) and asked for its current tools before each model request,
so a source whose tool list changed declares the new list at the next request. Talking to the
source is left to its own package (``aiwrapper.mcp``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack

from .._errors import ToolDefinitionError
from .decorator import Tool

__all__ = ["ToolSource", "Toolset"]

ToolFeed = Callable[[], Awaitable[list[Tool]]]


class ToolSource(ABC):
    """Something in ``functions`` that provides tools for the length of a run."""

    @abstractmethod
    async def open_for_run(self, stack: AsyncExitStack) -> ToolFeed:
        """Connect for one run (closing through ``stack``) and return its current tools.

        Args:
            stack: The run's exit stack; it is closed by the task that opened it.

        Returns:
            A function giving the source's tools now; the same list object while unchanged.
        """


class Toolset:
    """A run's tools: the local ones and those of its open sources, names checked unique."""

    def __init__(self, local: list[Tool], feeds: list[ToolFeed]) -> None:
        self._local = local
        self._feeds = feeds
        self._seen: list[list[Tool]] = []
        self._tools: list[Tool] = []

    @classmethod
    async def open(
        cls, local: Sequence[Tool], sources: Sequence[ToolSource], stack: AsyncExitStack
    ) -> Toolset:
        """Open every source for the run; ``stack`` closes them when the run ends."""
        return cls(list(local), [await source.open_for_run(stack) for source in sources])

    async def tools(self) -> list[Tool]:
        """The tools now; the same list object as last time when no source changed.

        Raises:
            ToolDefinitionError: Two tools with one name, naming where each comes from.
        """
        current = [await feed() for feed in self._feeds]
        if len(current) != len(self._seen) or any(
            a is not b for a, b in zip(current, self._seen, strict=True)
        ):
            self._seen = current
            self._tools = _unique([*self._local, *(t for tools in current for t in tools)])
        return self._tools


def _unique(tools: list[Tool]) -> list[Tool]:
    by_name: dict[str, Tool] = {}
    for tool in tools:
        other = by_name.setdefault(tool.name, tool)
        if other is not tool:
            raise ToolDefinitionError(
                f"two tools are named {tool.name!r}: {_origin(other)} and {_origin(tool)}; "
                "tool names must be unique (give an MCP server a prefix=...)"
            )
    return tools


def _origin(tool: Tool) -> str:
    origin = getattr(tool, "origin", None)
    return origin if isinstance(origin, str) else "a local function"
