"""Notebooks: a live display for a streaming run, and the rich reprs of results and calls.

``live()`` returns an ``on_result`` callback that renders the growing answer, thinking and
tool calls as Markdown in one display handle, updated in place as the result streams; outside
a Jupyter kernel it prints the answer as it grows instead. ``result_markdown`` and
``call_markdown`` are what a notebook shows for a bare ``result`` or ``call`` in a cell; they
live beside the result and the call, which render themselves, and are exported here.
IPython is imported only when ``live()`` runs in a kernel, so the package never depends on it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

from ._conversation._call import call_heading, call_markdown
from ._conversation._result import LangResult, result_markdown

__all__ = ["call_markdown", "live", "render_markdown", "result_markdown"]

_FINAL = ("done", "error", "denied", "skipped")


def render_markdown(result: LangResult) -> str:
    """The result so far as Markdown: calls with their status, thinking, then the answer."""
    lines = [f"- {call_heading(c)}" for c in result.function_calls]
    if result.thinking:
        lines.append("> " + result.thinking.replace("\n", "\n> "))
    lines.append(result.answer)
    return "\n\n".join(lines)


def live() -> Callable[[LangResult], None]:
    """An ``on_result`` callback that shows the result live in a notebook cell.

    In a Jupyter kernel it redraws one output area (Markdown, with the same text as its
    ``text/plain`` fallback); anywhere else it prints the answer to stdout as it grows.
    """
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if getattr(shell, "kernel", None) is None:  # a script, or a terminal IPython
        return _Printer()
    display: Any = importlib.import_module("IPython.display")
    handle: Any = display.display({"text/plain": ""}, raw=True, display_id=True)

    def update(result: LangResult) -> None:
        text = render_markdown(result)
        handle.update({"text/markdown": text, "text/plain": text}, raw=True)

    return update


class _Printer:
    """``live()`` outside a notebook: the answer printed as it grows, each call once done."""

    def __init__(self) -> None:
        self.printed = ""  # the answer of the current turn, as far as it is printed
        self.line_open = False
        self.calls_shown: set[str] = set()

    def __call__(self, result: LangResult) -> None:
        for call in result.function_calls:
            if call.status in _FINAL and call.id not in self.calls_shown:
                self.calls_shown.add(call.id)
                self._line(call_markdown(call))
        answer = result.answer
        if not answer.startswith(self.printed):  # a new turn began
            self.printed = ""
        if len(answer) > len(self.printed):
            if not self.printed and self.line_open:
                _write("\n")
            _write(answer[len(self.printed) :])
            self.printed, self.line_open = answer, not answer.endswith("\n")
        if result.finished and self.line_open:
            _write("\n")
            self.line_open = False

    def _line(self, text: str) -> None:
        _write(("\n" if self.line_open else "") + text + "\n")
        self.line_open = False


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
