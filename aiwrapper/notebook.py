"""Live display in Jupyter: an ``on_result`` callback that redraws one output area.

``live()`` returns a callback that renders the growing answer, thinking and tool calls as
Markdown in a single display handle, updated in place as the result streams. IPython is
imported only when the callback is made, so the package never depends on it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from .result import LangResult

__all__ = ["live", "render_markdown"]

_ICONS = {
    "streaming": "…",
    "pending": "…",
    "running": "⏳",
    "done": "✓",
    "error": "✗",
    "denied": "⊘",
    "skipped": "↷",
}


def render_markdown(result: LangResult) -> str:
    """The result so far as Markdown: calls with their status, thinking, then the answer."""
    lines = [
        f"- {_ICONS.get(c.status, '?')} `{c.name}({c.raw_arguments or c.arguments})`"
        for c in result.function_calls
    ]
    if result.thinking:
        lines.append("> " + result.thinking.replace("\n", "\n> "))
    lines.append(result.answer)
    return "\n\n".join(lines)


def live() -> Callable[[LangResult], None]:
    """An ``on_result`` callback that shows the result live in a notebook cell."""
    display: Any = importlib.import_module("IPython.display")  # only notebooks have IPython
    handle: Any = display.display(display.Markdown(""), display_id=True)

    def update(result: LangResult) -> None:
        handle.update(display.Markdown(render_markdown(result)))

    return update
