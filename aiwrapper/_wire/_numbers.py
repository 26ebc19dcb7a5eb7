"""Whether a value is a number a setting or a wire field can hold: one check, used everywhere.

A finite int or float, and not a bool: NaN and the infinities compare false or true to any
bound and never make valid JSON, and an int too large for a float (``10**400``) is no setting
either; ``math.isfinite`` raises ``OverflowError`` for that one, which this check answers.
"""

from __future__ import annotations

from math import isfinite

__all__ = ["finite_number"]


def finite_number(value: object) -> bool:
    """Whether ``value`` is a finite int or float (a bool is neither)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return isfinite(value)
    except OverflowError:
        return False
