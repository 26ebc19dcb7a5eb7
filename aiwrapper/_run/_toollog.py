"""Log lines of tool calls, under ``logging.getLogger("aiwrapper.tools")``.

DEBUG: each call's name, id, duration and outcome (never its arguments); WARNING with the
traceback: an exception a tool raised that goes back to the model as an error result. The
HTTP attempts' lines are the transport's (``aiwrapper._wire._logs``).
"""

from __future__ import annotations

import logging
import time

from .._conversation._result import FunctionCall

__all__ = ["log_tool_call", "log_tool_exception"]

tool_log = logging.getLogger("aiwrapper.tools")


def log_tool_call(call: FunctionCall, started: float) -> None:
    """One finished tool call: its name, duration and outcome (never its arguments)."""
    if tool_log.isEnabledFor(logging.DEBUG):
        tool_log.debug(
            "tool %s (%s) -> %s in %.3fs",
            call.name,
            call.id,
            call.status,
            time.monotonic() - started,
        )


def log_tool_exception(call: FunctionCall, exc: BaseException) -> None:
    """A tool's exception, handed back to the model as an error result: seen here too."""
    tool_log.warning(
        "tool %s (%s) raised %s; the model gets it as an error result",
        call.name,
        call.id,
        type(exc).__name__,
        exc_info=exc,
    )
