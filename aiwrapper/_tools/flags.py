"""A tool's own flags (``timeout``, ``strict``, ``sequential``, ``requires_approval``), checked
when the tool is made.

A dict definition carries them as plain JSON, so ``"timeout": "5"`` or ``-1`` would otherwise
reach the executor and fail every call of the tool; a decorated function gets the same check.
"""

from __future__ import annotations

from math import isfinite

from .._errors import ToolDefinitionError

__all__ = ["check_flags"]


def check_flags(
    name: str, *, timeout: object, strict: object, sequential: object, requires_approval: object
) -> None:
    """Refuse a flag no call could use.

    Raises:
        ToolDefinitionError: Naming the tool and the flag.
    """
    problem = None
    if timeout is not None and not _is_seconds(timeout):
        problem = f"timeout must be a positive number of seconds, not {timeout!r:.80}"
    elif strict is not None and not isinstance(strict, bool):
        problem = f"strict must be True, False or None, not {strict!r:.80}"
    for flag, value in (("sequential", sequential), ("requires_approval", requires_approval)):
        if problem is None and not isinstance(value, bool):
            problem = f"{flag} must be True or False, not {value!r:.80}"
    if problem is not None:
        raise ToolDefinitionError(f"tool {name!r}: {problem}")


def _is_seconds(value: object) -> bool:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return isfinite(value) and value > 0
    except OverflowError:  # an int too large for a float
        return False
