"""Telling a cancellation of the run apart from an exception that merely looks like one.

A tool may raise ``asyncio.CancelledError`` on its own (nobody cancelled anything): that is a
tool failure, answered with an error result. A cancellation of the run itself must propagate.
``_execution.py`` asks these questions; the loop words why a run ended for the calls it left.
"""

from __future__ import annotations

import math
import sys

import anyio

__all__ = ["cancelled_from_outside", "ended_by", "is_cancellation"]


def is_cancellation(exc: BaseException) -> bool:
    """Whether ``exc`` is the event loop's cancellation exception (or asyncio's, under trio)."""
    name = type(exc).__name__
    return isinstance(exc, anyio.get_cancelled_exc_class()) or name == "CancelledError"


def cancelled_from_outside() -> bool:
    """Whether the run itself is being cancelled, as opposed to a tool raising the exception."""
    if anyio.current_effective_deadline() == -math.inf:  # a cancelled enclosing scope
        return True
    asyncio = sys.modules.get("asyncio")
    try:
        task = asyncio.current_task() if asyncio is not None else None
    except RuntimeError:  # another event loop (trio): only its cancel scopes cancel
        return False
    if task is None:
        return False
    cancelling = getattr(task, "cancelling", None)
    # A plain task.cancel() shows only in cancelling() (Python 3.11+); without it (3.10),
    # every cancellation exception is taken for a real one rather than risk swallowing it.
    return cancelling is None or cancelling() > 0


def ended_by(exc: BaseException) -> str:
    """Why a run ended early, for the error results of the calls it left unanswered."""
    if isinstance(exc, anyio.get_cancelled_exc_class()):
        return "the run was cancelled"
    detail = str(exc)
    return f"the run ended with {type(exc).__name__}" + (f" ({detail})" if detail else "")
