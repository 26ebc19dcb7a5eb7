"""A tool's own flags, refused when the tool is made if no call could use them.

A dict tool's ``"timeout": "5"`` once failed each call with a TypeError from inside anyio,
and ``-1`` or NaN timed every call out.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from aiwrapper._errors import ToolDefinitionError
from aiwrapper._tools import to_tool, tool

PARAMETERS = {"type": "object", "properties": {}}


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"timeout": "5"}, "tool 'f': timeout must be a positive number of seconds, not '5'"),
        ({"timeout": -1}, "tool 'f': timeout must be a positive number of seconds, not -1"),
        ({"timeout": 0}, "tool 'f': timeout must be a positive number of seconds, not 0"),
        ({"timeout": math.nan}, "tool 'f': timeout must be a positive number of seconds, not nan"),
        ({"timeout": math.inf}, "tool 'f': timeout must be a positive number of seconds, not inf"),
        ({"strict": "yes"}, "tool 'f': strict must be True, False or None, not 'yes'"),
        ({"sequential": "no"}, "tool 'f': sequential must be True or False, not 'no'"),
        ({"requires_approval": 1}, "tool 'f': requires_approval must be True or False, not 1"),
    ],
)
def test_a_dict_tool_flag_no_call_could_use_is_refused_when_made(
    flags: dict[str, Any], message: str
) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        to_tool({"name": "f", "parameters": PARAMETERS, **flags})
    assert str(info.value) == message


def test_the_decorator_refuses_a_negative_timeout_too() -> None:
    with pytest.raises(ToolDefinitionError, match="tool 'wait': timeout must be a positive"):

        @tool(timeout=-1)
        def wait() -> None:
            """Wait."""


def test_good_flags_are_kept() -> None:
    made = to_tool({"name": "f", "parameters": PARAMETERS, "timeout": 2, "sequential": True})
    assert (made.timeout, made.sequential, made.strict, made.requires_approval) == (
        2,
        True,
        None,
        False,
    )
