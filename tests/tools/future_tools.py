"""Tools defined under ``from __future__ import annotations`` (string annotations)."""

from __future__ import annotations

import dataclasses
from typing import Any

from aiwrapper._tools import Context, tool


@dataclasses.dataclass
class Node:
    label: str
    next: Node | None = None


@tool
def walk(start: Node, limit: int | None = None, ctx: Context[Any] | None = None) -> int:
    """Walk a linked list.

    Args:
        start: First node.
        limit: Stop after this many nodes.
    """
    count, node = 0, start
    while node is not None and (limit is None or count < limit):
        count, node = count + 1, node.next
    return count


def make_nested_tool() -> Any:
    @dataclasses.dataclass
    class Local:
        n: int

    @tool
    def use_local(item: Local) -> int:
        return item.n

    return use_local
