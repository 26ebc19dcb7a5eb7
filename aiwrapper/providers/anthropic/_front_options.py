"""The keys a Messages client may set inside ``tool_choice`` and ``thinking``.

Like the keys of messages and tools (``_front_keys``), each key inside these option objects
is read, or refused with a 400 naming its path (``tool_choice.zzz``, ``thinking.foo``), never
dropped; which keys a kind has depends on its ``type``. ``disable_parallel_tool_use`` is read
(true asks for one call at a time). ``thinking.display`` ``"summarized"`` is how the gateway
answers already (the thinking text the backend gives); ``"omitted"`` (signatures without the
text) is refused by name, as is the ``between_tools`` kind. ``metadata`` is checked where its
``user_id`` is read. An unknown ``type`` is refused where the option is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._front_fields import check_flag, refuse_extra, refuse_value
from .._serving import bad_request

__all__ = ["check_options"]

_PARALLEL = frozenset({"type", "disable_parallel_tool_use"})
_CHOICES = {
    "auto": _PARALLEL,
    "any": _PARALLEL,
    "tool": _PARALLEL | {"name"},
    "none": _PARALLEL,  # not on the wire's "none", but harmless: no call is made at all
}
_THINKING = {
    "enabled": frozenset({"type", "budget_tokens", "display"}),
    "adaptive": frozenset({"type", "display"}),
    "disabled": frozenset({"type"}),
}
_REFUSED_THINKING = {
    "between_tools": "it is Anthropic's own; use 'enabled' or 'adaptive'",
}
_OMITTED = "the thinking text the backend gives is returned; leave it out or 'summarized'"


def check_options(body: Mapping[str, Any]) -> None:
    """A 400 naming the first key inside ``tool_choice`` or ``thinking`` that is not read."""
    choice: Any = body.get("tool_choice")
    known = _CHOICES.get(_kind(choice))
    if known is not None:
        refuse_extra(choice, known, "tool_choice")
        check_flag(choice, "disable_parallel_tool_use", "tool_choice")
    thinking: Any = body.get("thinking")
    kind = _kind(thinking)
    if kind in _REFUSED_THINKING:
        message = f"thinking.type={kind!r} is not supported by this gateway: "
        raise bad_request(message + _REFUSED_THINKING[kind], "thinking.type")
    known = _THINKING.get(kind)
    if known is not None:
        refuse_extra(thinking, known, "thinking")
        refuse_value(thinking, "display", "thinking", ("summarized",), _OMITTED)


def _kind(option: Any) -> str:
    """The ``type`` of an option object, or "" when it is no object or has no string type."""
    kind = option.get("type") if isinstance(option, Mapping) else None
    return kind if isinstance(kind, str) else ""
