"""The keys a Responses client may set inside ``tool_choice``, ``reasoning``, ``text`` and
``stream_options``.

Like the keys of input items and tools (``_front_keys``), each key inside these option
objects is read, or refused with a 400 naming its path (``tool_choice.zzz``,
``reasoning.foo``, ``text.format.bar``), never dropped. A named ``tool_choice`` is
``{"type": "function", "name": ...}``; its other kinds are refused where it is read.
``reasoning.effort`` and the summary wish are read; ``reasoning.context`` (which earlier
reasoning the model sees) is the conversation the client sends, so only ``"auto"`` is served;
``reasoning.mode`` other than ``"standard"`` is OpenAI's own. ``text.format`` is served only
as ``{"type": "text"}`` (any other is refused where it is read). ``stream_options`` holds
only ``include_obfuscation``, served when false (``_front_options`` of the Chat wire).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._front_fields import refuse_extra, refuse_value
from ..openai._front_options import check_stream_options

__all__ = ["check_options"]

_CHOICE = frozenset({"type", "name"})
_REASONING = frozenset({"effort", "summary", "generate_summary", "context", "mode"})
_TEXT = frozenset({"format", "verbosity"})
_TEXT_FORMAT = frozenset({"type"})
_STREAM_OPTIONS = frozenset({"include_obfuscation"})
_CONTEXT = "which earlier reasoning the model sees is what the client sends in 'input'"
_MODE = "not every backend has reasoning modes"


def check_options(body: Mapping[str, Any]) -> None:
    """A 400 naming the first key inside an option object of ``body`` that is not read."""
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping) and choice.get("type") == "function":
        refuse_extra(choice, _CHOICE, "tool_choice")
    reasoning = body.get("reasoning")
    if isinstance(reasoning, Mapping):
        refuse_extra(reasoning, _REASONING, "reasoning")
        refuse_value(reasoning, "context", "reasoning", ("auto",), _CONTEXT)
        refuse_value(reasoning, "mode", "reasoning", ("standard",), _MODE)
    text = body.get("text")
    if isinstance(text, Mapping):
        refuse_extra(text, _TEXT, "text")
        wanted = text.get("format")
        if isinstance(wanted, Mapping) and wanted.get("type") == "text":
            refuse_extra(wanted, _TEXT_FORMAT, "text.format")
    check_stream_options(body, _STREAM_OPTIONS)
